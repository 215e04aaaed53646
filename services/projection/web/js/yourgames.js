// The signed-in player's unfinished games (`GET /players/me/seats` on the command API), whose turn it is in each
// (their public views, polled), the tab title "(2) Your turn — Benthic", a browser notification when a game becomes
// the player's turn, and the "your games" page listing them.  The watcher runs on every page while signed in.
import { catalogue, command, identity, read } from "./api.js";
import { gameTypeName, h, tableName, words } from "./dom.js";
import { t, tn } from "./i18n.js";

const SEATS_EVERY_MS = 15_000;  // the list of games (new games, finished ones); 4 a minute of the 60 the token limit allows
const VIEWS_EVERY_MS = 3_000;   // whose turn it is in each game
const TITLE = "Benthic";

const watcher = {
  player: null, timer: null, seatsAt: 0, polled: false, games: new Map(), listeners: new Set(), busy: false,
  pageTitle: null,  // the game page's table name, for the tab's title
  live: new Map(),  // game id -> when the game's page last gave its live view: that game is not polled meanwhile
};
const LIVE_FOR_MS = 10_000;

/** The tab's title names the table a game's page shows (null: the site's name alone). */
export function setPageTitle(name) {
  watcher.pageTitle = name;
  announce();
}

/** A game's page tells each live view it gets: whose turn it is there needs no poll of its view. */
export function sawView(gameId, body) {
  watcher.live.set(gameId, Date.now());
  const game = watcher.games.get(gameId);
  if (!game || !body?.view) return;
  game.version = body.version;
  game.status = body.status === "finished" || body.view.prompt === null ? "finished" : game.status;
  game.prompt = body.view.prompt;
  if (game.names) {
    game.yours = game.status !== "finished" && !game.names.includes(null) && !!game.prompt?.seats.includes(game.seat);
  }
  announce();
}

/** Start watching the signed-in player's games (or stop, once signed out); called on every route. */
export function watchTurns() {
  const me = identity();
  if ((me?.player ?? null) === watcher.player) return;
  clearInterval(watcher.timer);
  Object.assign(watcher, { player: me?.player ?? null, timer: null, seatsAt: 0, polled: false, games: new Map() });
  announce();
  if (!me) return;
  watcher.timer = setInterval(() => poll().catch(() => {}), VIEWS_EVERY_MS);
  poll().catch(() => {});
}

async function poll() {
  if (watcher.busy) return;
  watcher.busy = true;
  const player = watcher.player;
  try {
    const me = identity();
    if (!me || me.player !== player) return;
    if (Date.now() - watcher.seatsAt >= SEATS_EVERY_MS) {
      const { seats } = await command("GET", "/players/me/seats", { bearer: me.jwt });
      watcher.seatsAt = Date.now();
      const listed = new Set(seats.map((s) => s.game_id));
      for (const id of watcher.games.keys()) if (!listed.has(id)) watcher.games.delete(id);
      for (const s of seats) {
        const known = watcher.games.get(s.game_id);
        watcher.games.set(s.game_id, { ...(known || { version: 0, prompt: null, yours: false, names: null }), ...s });
      }
    }
    const polled = [...watcher.games.values()].filter((game) => !(Date.now() - (watcher.live.get(game.game_id) || 0) < LIVE_FOR_MS));
    await Promise.all(polled.map((game) => refresh(game).catch(() => {})));
    if (player !== watcher.player) return;
    const first = !watcher.polled;
    watcher.polled = true;
    for (const game of watcher.games.values()) {
      if (game.yours && !game.notified && !first) notify(game);
      game.notified = game.yours;  // notified once per turn; the first look only counts
    }
    announce();
  } finally {
    watcher.busy = false;
  }
}

async function refresh(game) {
  // A game not projected yet answers once it is (a long-poll); a known one answers at once.
  const query = game.version ? "" : "?after_version=0&wait=5";
  const body = await read(`/games/${game.game_id}/view${query}`);
  if (!game.names || game.names.includes(null)) {  // seats once taken stay taken
    const summary = await read(`/games/${game.game_id}`);
    game.names = summary.seats.map((s) => (s ? s.name || s.player_id : null));
  }
  game.version = body.version;
  game.status = body.status === "finished" || body.view.prompt === null ? "finished" : game.status;
  game.prompt = body.view.prompt;
  game.cat = game.cat || await catalogue(game.game_type).catch(() => null);
  game.yours = game.status !== "finished" && !game.names.includes(null) && !!game.prompt?.seats.includes(game.seat);
}

function notify(game) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  if (document.hasFocus() && location.hash === `#/game/${game.game_id}`) return;  // the player looks at it already
  const shown = new Notification(t("Your turn — {site}", { site: TITLE }), {
    body: `${gameName(game)}: ${promptName(game)}`, tag: `benthic-turn-${game.game_id}`,
  });
  shown.onclick = () => { window.focus(); location.hash = `#/game/${game.game_id}`; shown.close(); };
}

function yourTurns() { return [...watcher.games.values()].filter((g) => g.yours); }

function announce() {
  const count = yourTurns().length;
  const site = watcher.pageTitle ? `${watcher.pageTitle} — ${TITLE}` : TITLE;
  document.title = count ? `(${count}) ${watcher.pageTitle ? site : t("Your turn — {site}", { site: TITLE })}` : site;
  const badge = document.getElementById("turn-count");
  if (badge) {
    badge.textContent = String(count);
    badge.hidden = count === 0;
    badge.setAttribute("aria-label", tn(count, "{n} game waiting for your move", "{n} games waiting for your move"));
  }
  for (const listener of watcher.listeners) listener();
}

const gameName = (game) => game.cat?.name || gameTypeName(game.game_type, t);
const promptName = (game) => game.cat?.terms?.[game.prompt?.kind]?.name || (game.prompt?.kind ? words(game.prompt.kind) : t("move"));

/** The "your games" page: each unfinished game, the player's turn first, kept current by the watcher. */
export async function yourGamesPage(main) {
  if (!identity()) {
    main.replaceChildren(h("section.panel", {}, h("h1", {}, t("Your games")),
      h("p", {}, t("Sign in (at the top) to see the games you play."))));
    return null;
  }
  const list = h("div.games", { "aria-live": "polite", "data-testid": "your-games" });
  const notices = h("p.notices", { "data-testid": "notices" });
  const finished = h("div.games", { "data-testid": "finished-games" }, h("p.muted", {}, t("Loading…")));
  main.replaceChildren(h("section.panel", {}, h("h1", {}, t("Your games")), notices, list),
    h("section.panel", {}, h("h2", {}, t("Finished games")), finished));
  loadFinished(finished).catch(() => finished.replaceChildren(h("p.muted", {}, t("Finished games cannot be listed now."))));

  function renderNotices() {
    if (!("Notification" in window)) {
      notices.replaceChildren(t("This browser shows no notifications; the tab's title counts your turns."));
    } else if (Notification.permission === "granted") {
      notices.replaceChildren(t("You get a notification when it becomes your turn in any of these games."));
    } else if (Notification.permission === "denied") {
      notices.replaceChildren(t("Notifications are blocked in this browser's settings; the tab's title counts your turns."));
    } else {
      notices.replaceChildren(h("button.primary", { type: "button", "data-testid": "enable-notifications",
        onclick: async () => { await Notification.requestPermission(); renderNotices(); } },
      t("Notify me when it is my turn")));
    }
  }

  function render() {
    const games = [...watcher.games.values()].sort((a, b) => (b.yours - a.yours) || a.game_id.localeCompare(b.game_id));
    if (!watcher.polled) { list.replaceChildren(h("p.muted", {}, t("Loading…"))); return; }
    if (!games.length) {
      list.replaceChildren(h("p.muted", {}, `${t("No unfinished games.")} `, h("a", { href: "#/create" }, t("Start one")),
        ` ${t("or join one in the")} `, h("a", { href: "#/" }, t("lobby")), "."));
      return;
    }
    list.replaceChildren(h("table.list", {},
      h("thead", {}, h("tr", {}, [t("Game"), t("Players"), t("Turn"), ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, games.map((game) => h(`tr${game.yours ? ".your-turn" : ""}`, {
        "data-game": game.game_id, "data-yours": String(game.yours) },
      h("td", { title: game.game_id }, gameName(game)),
      h("td", {}, (game.names || []).map((n, i) => (i === game.seat ? h("strong", {}, t("{name} (you)", { name: n }))
        : n ?? t("seat {number} open", { number: i + 1 }))).flatMap((x, i) => (i ? [", ", x] : [x]))),
      h("td.turn", {}, turnText(game)),
      h("td.actions", {}, h(`a.button.small${game.yours ? ".primary" : ""}`, { href: `#/game/${game.game_id}` },
        game.yours ? t("Play") : t("Open"))))))));
  }

  renderNotices();
  render();
  watcher.listeners.add(render);
  return () => watcher.listeners.delete(render);
}

// The games the player has finished (the lobby's finished games with a seat of theirs), newest first: read once
// when the page opens, each with its table's name and a link to its end and replay.
async function loadFinished(box) {
  const me = identity();
  const { games } = await read("/lobby?status=finished&limit=500");
  const mine = games.filter((g) => g.seats.some((s) => s && s.player_id === me.player));
  if (!mine.length) { box.replaceChildren(h("p.muted", {}, t("No finished games yet."))); return; }
  box.replaceChildren(h("table.list", {},
    h("thead", {}, h("tr", {}, [t("Game"), t("Finished"), ""].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, mine.map((g) => h("tr", { "data-game": g.game_id },
      h("td", { title: g.game_id }, tableName(gameTypeName(g.game_type, t), g.seats, t)),
      h("td", {}, new Date(g.updated_ms).toLocaleString(document.documentElement.lang || undefined)),
      h("td.actions", {}, h("a.button.small", { href: `#/game/${g.game_id}` }, t("Scores and replay"))))))));
}

function turnText(game) {
  if (!game.names) return "…";
  if (game.names.includes(null)) return t("Waiting for players to join");
  if (game.status === "finished" || !game.prompt) return t("Over");
  if (game.yours) return h("strong", {}, t("Your turn: {move}", { move: promptName(game) }));
  return t("Waiting for {players}", { players: game.prompt.seats.map((s) => game.names[s] ?? t("seat {number}", { number: s + 1 })).join(", ") });
}
