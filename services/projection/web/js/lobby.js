import { command, identity, read, rememberSeat } from "./api.js";
import { gameTypeName, h, tableName, toast, words } from "./dom.js";
import { t, tn } from "./i18n.js";

const STATUSES = ["open", "running", "finished"];
const statusWord = (status) => ({ open: t("open"), running: t("running"), finished: t("finished") })[status] || words(status);

export async function lobbyPage(main, params) {
  const types = await command("GET", "/game-types");
  const me = identity();
  const gameType = params.get("type") || "";
  const status = params.get("status") || "";
  const list = h("div.games", { "aria-live": "polite" });
  const boards = h("div.leaderboards");

  const filter = (name, label, value, values) => h("label", {}, `${label} `,
    h("select", {
      name, onchange: (event) => {
        const next = new URLSearchParams({ type: gameType, status, [name]: event.target.value });
        for (const [k, v] of [...next]) if (!v) next.delete(k);
        location.hash = `#/?${next}`;
      },
    }, h("option", { value: "" }, t("all")), values.map((v) => h("option", { value: v, selected: v === value }, name === "status" ? statusWord(v) : gameTypeName(v, t)))));

  main.replaceChildren(
    h("section.panel", {},
      h("h1", {}, t("Lobby")),
      h("div.filters", {}, filter("type", t("type"), gameType, types.map((x) => x.game_type)), filter("status", t("status"), status, STATUSES),
        h("a.button", { href: "#/create" }, t("New game"))),
      list),
    h("section.panel", {}, h("h2", {}, t("Leaderboards")), boards),
  );

  async function refresh() {
    const query = new URLSearchParams();
    if (gameType) query.set("game_type", gameType);
    if (status) query.set("status", status);
    const { games } = await read(`/lobby?${query}`);
    // A stable order, whatever the games' last moves: open tables first, then running, then finished; newest first.
    const rank = { open: 0, running: 1, finished: 2 };
    games.sort((a, b) => ((rank[a.status] ?? 3) - (rank[b.status] ?? 3)) || ((b.created_ms || 0) - (a.created_ms || 0))
      || a.game_id.localeCompare(b.game_id));
    list.replaceChildren(games.length ? gamesTable(games, me, refresh) : h("p.muted", {}, t("No games yet.")));
  }

  async function refreshBoards() {
    const shown = gameType ? [gameType] : types.map((x) => x.game_type);
    boards.replaceChildren(...await Promise.all(shown.map(async (type) => {
      const { players } = await read(`/leaderboards/${type}?limit=10`);
      return h("div.board-card", {}, h("h3", {}, gameTypeName(type, t)), players.length
        ? h("ol", {}, players.map((p) => h("li", {}, tn(p.games, "{name} — {rating} ({n} game)", "{name} — {rating} ({n} games)", { name: p.name, rating: Number(p.rating).toFixed(2) }))))
        : h("p.muted", {}, t("No rated games yet.")));
    })));
  }

  await Promise.all([refresh(), refreshBoards()]);
  const timer = setInterval(() => refresh().catch(() => {}), 4000);
  return () => clearInterval(timer);
}

function gamesTable(games, me, refresh) {
  return h("table.list", {},
    h("thead", {}, h("tr", {}, [t("Game"), t("Type"), t("Status"), t("Players"), ""].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, games.map((game) => {
      const mine = me && game.seats.some((seat) => seat && seat.player_id === me.player);
      const open = game.status === "open" && game.seats.some((seat) => seat === null);
      const actions = [h("a.button.small", { href: `#/game/${game.game_id}/watch` }, t("Watch"))];
      if (mine) actions.unshift(h("a.button.small.primary", { href: `#/game/${game.game_id}` }, t("Play")));
      else if (open && me) actions.unshift(h("button.small.primary", { onclick: () => join(game.game_id, me) }, t("Join")));
      return h("tr", { "data-game": game.game_id }, h("td", { title: game.game_id, "data-testid": "table-name" }, tableName(gameTypeName(game.game_type, t), game.seats, t)),
        h("td", {}, gameTypeName(game.game_type, t)),
        h("td", {}, statusWord(game.status), game.rated ? "" : ` ${t("(unrated)")}`),
        h("td", {}, game.seats.map((seat, i) => seat ? seat.name || seat.player_id : t("seat {number} open", { number: i + 1 })).join(", ")),
        h("td.actions", {}, actions));
    })));
}

async function join(gameId, me) {
  try {
    const joined = await command("POST", `/games/${gameId}/join`, { bearer: me.jwt, body: { name: me.name } });
    rememberSeat(gameId, joined.seat, joined.token, joined.expires_at_ms);
    location.hash = `#/game/${gameId}`;
  } catch (error) {
    toast(t("Could not join: {error}", { error: error.message }));
  }
}
