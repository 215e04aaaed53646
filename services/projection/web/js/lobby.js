import { command, identity, read, rememberSeat } from "./api.js";
import { h, toast, words } from "./dom.js";

const STATUSES = ["open", "running", "finished"];

export async function lobbyPage(main, params) {
  const types = await command("GET", "/game-types");
  const me = identity();
  const gameType = params.get("type") || "";
  const status = params.get("status") || "";
  const list = h("div.games", { "aria-live": "polite" });
  const boards = h("div.leaderboards");

  const filter = (name, value, values) => h("label", {}, `${name} `,
    h("select", {
      name, onchange: (event) => {
        const next = new URLSearchParams({ type: gameType, status, [name]: event.target.value });
        for (const [k, v] of [...next]) if (!v) next.delete(k);
        location.hash = `#/?${next}`;
      },
    }, h("option", { value: "" }, "all"), values.map((v) => h("option", { value: v, selected: v === value }, words(v)))));

  main.replaceChildren(
    h("section.panel", {},
      h("h1", {}, "Lobby"),
      h("div.filters", {}, filter("type", gameType, types.map((t) => t.game_type)), filter("status", status, STATUSES),
        h("a.button", { href: "#/create" }, "New game")),
      list),
    h("section.panel", {}, h("h2", {}, "Leaderboards"), boards),
  );

  async function refresh() {
    const query = new URLSearchParams();
    if (gameType) query.set("game_type", gameType);
    if (status) query.set("status", status);
    const { games } = await read(`/lobby?${query}`);
    list.replaceChildren(games.length ? gamesTable(games, me, refresh) : h("p.muted", {}, "No games yet."));
  }

  async function refreshBoards() {
    const shown = gameType ? [gameType] : types.map((t) => t.game_type);
    boards.replaceChildren(...await Promise.all(shown.map(async (type) => {
      const { players } = await read(`/leaderboards/${type}?limit=10`);
      return h("div.board-card", {}, h("h3", {}, words(type)), players.length
        ? h("ol", {}, players.map((p) => h("li", {}, `${p.name} — ${Number(p.rating).toFixed(2)} (${p.games} games)`)))
        : h("p.muted", {}, "No rated games yet."));
    })));
  }

  await Promise.all([refresh(), refreshBoards()]);
  const timer = setInterval(() => refresh().catch(() => {}), 4000);
  return () => clearInterval(timer);
}

function gamesTable(games, me, refresh) {
  return h("table.list", {},
    h("thead", {}, h("tr", {}, ["Game", "Type", "Status", "Players", ""].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, games.map((game) => {
      const mine = me && game.seats.some((seat) => seat && seat.player_id === me.player);
      const open = game.status === "open" && game.seats.some((seat) => seat === null);
      const actions = [h("a.button.small", { href: `#/game/${game.game_id}/watch` }, "Watch")];
      if (mine) actions.unshift(h("a.button.small.primary", { href: `#/game/${game.game_id}` }, "Play"));
      else if (open && me) actions.unshift(h("button.small.primary", { onclick: () => join(game.game_id, me) }, "Join"));
      return h("tr", { "data-game": game.game_id }, h("td", {}, h("code", {}, game.game_id)), h("td", {}, words(game.game_type)),
        h("td", {}, game.status, game.rated ? "" : " (unrated)"),
        h("td", {}, game.seats.map((seat, i) => seat ? seat.name || seat.player_id : `seat ${i + 1} open`).join(", ")),
        h("td.actions", {}, actions));
    })));
}

async function join(gameId, me) {
  try {
    const joined = await command("POST", `/games/${gameId}/join`, { bearer: me.jwt, body: { name: me.name } });
    rememberSeat(gameId, joined.seat, joined.token, joined.expires_at_ms);
    location.hash = `#/game/${gameId}`;
  } catch (error) {
    toast(`Could not join: ${error.message}`);
  }
}
