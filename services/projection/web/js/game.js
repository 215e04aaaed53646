// A game: the board and areas drawn from the view and the catalogue, live over SSE, legal moves to click.
import { ApiError, catalogue, command, identity, read, rememberSeat, seatFor } from "./api.js";
import { gameTypeName, h, tableName, toast, words } from "./dom.js";
import { card, cardBack, drawBoard, legend, SEAT_COLOURS, stats } from "./draw.js";
import { entryInWords } from "./history.js";
import { t, tn } from "./i18n.js";
import { replayBar } from "./replay.js";
import { sawView, setPageTitle } from "./yourgames.js";
import { applyPatch, PatchError } from "./patch.js";
import * as underwaterCities from "./games/underwater_cities.js";
import * as nautilus from "./games/nautilus.js";
import * as aquatica from "./games/aquatica.js";
import * as generic from "./games/generic.js";

const LAYOUTS = { underwater_cities: underwaterCities, nautilus, aquatica };
const ATTEMPTS = 5;  // of a move, or of reading the legal moves
const TOKEN_REFUSED = ["token_expired", "token_revoked", "invalid_token"];

const newId = () => (crypto.randomUUID ? crypto.randomUUID()
  : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`);

async function summaryOf(gameId) {
  for (let attempt = 0; ; attempt++) {  // a game just created may not be projected yet
    try { return await read(`/games/${gameId}`); } catch (error) {
      if (error.status !== 404 || attempt > 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

export async function gamePage(main, gameId, watchOnly) {
  let summary = await summaryOf(gameId);
  const cat = await catalogue(summary.game_type, summary.content_pack);
  const layout = LAYOUTS[summary.game_type] ?? generic;
  let mySeat = watchOnly ? null : await seatFor(gameId);
  const g = {
    gameId, cat, summary, seat: mySeat?.seat ?? null, view: null, version: 0, moves: [], movesVersion: -1,
    busy: false, historyAfter: 0, source: null, closed: false, finalShown: false, life: null,
    replay: null,  // the view answer shown instead of the live view while replaying
  };
  const name = (seat) => {
    const s = g.summary.seats[seat];
    return s ? (s.name || s.player_id) : t("seat {number} (open)", { number: seat + 1 });
  };
  g.name = name;

  const typeName = cat.name || gameTypeName(summary.game_type, t);
  const title = h("h1", { "data-testid": "table-name", title: gameId }, tableName(typeName, summary.seats, t));
  setPageTitle(tableName(typeName, summary.seats, t));
  const role = h("p.role", { "data-testid": "role" });
  const prompt = h("p.prompt", { "aria-live": "polite", "data-testid": "prompt" });
  const table = h("div.table", { "data-testid": "table" });
  const choices = h("div.choices", { "aria-live": "polite" });
  const moveList = h("ol.moves", { id: "moves", "data-testid": "moves" });
  const filter = h("input", { type: "search", placeholder: t("Filter moves"), "aria-label": t("Filter moves"), hidden: true,
    oninput: () => renderMoves() });
  const undoButton = h("button.small", { "data-testid": "undo", hidden: true, onclick: () => undoLast(),
    title: t("Take back your last move of this turn, while it showed nobody anything new") }, t("Undo my last move"));
  const history = h("ol.history", { "data-testid": "history", "aria-label": t("History") });
  const players = h("section.players", { "aria-label": t("Players") });
  const final = h("section.final", { "data-testid": "final", hidden: true });
  const status = h("span.status", { "data-testid": "status" });
  const seatBar = h("ol.seat-bar", { "data-testid": "seat-bar", "aria-label": t("Players") });
  const takeover = h("div.takeover", { "data-testid": "takeover", role: "status", hidden: true });
  main.replaceChildren(h("section.game", { "data-game-type": summary.game_type },
    h("header.game-head", {}, title, status, role, seatBar, prompt, takeover),
    final,
    h("div.layout", {},
      h("div.main-col", {}, table, players),
      h("aside.side", {},
        h("section.panel.moves-panel", { "aria-label": t("Your moves") }, h("h2", {}, t("Moves")), choices, filter, moveList, undoButton),
        h("details.panel", { open: matchMedia("(min-width: 980px)").matches }, h("summary", {}, t("History")), history)))));

  role.textContent = g.seat === null ? t("You are watching as a spectator.")
    : t("You play seat {number} ({name}).", { number: g.seat + 1, name: name(g.seat) });
  const me = identity();
  if (g.seat === null && me && summary.seats.includes(null)) {
    role.append(" ", h("button.primary.small", { onclick: async () => {
      try {
        const joined = await command("POST", `/games/${gameId}/join`, { bearer: me.jwt, body: { name: me.name } });
        rememberSeat(gameId, joined.seat, joined.token, joined.expires_at_ms);
        location.hash = `#/game/${gameId}`;
        if (watchOnly) return;
        location.reload();
      } catch (error) { toast(t("Could not join: {error}", { error: error.message })); }
    } }, t("Join this game")));
  }

  const shownView = () => g.replay?.view ?? g.view;

  function render() {
    const view = shownView();
    const drawn = layout.layout(view, cat, g.seat, name);
    status.textContent = ` ${({ open: t("open"), running: t("running"), finished: t("finished") })[g.status] || g.status || ""}`;
    table.replaceChildren(
      ...(drawn.summary ? [stats(drawn.summary)] : []),
      ...drawn.boards.map((b) => h("figure.board-wrap", {}, drawBoard(b), h("figcaption", {}, b.title || b.board.name,
        b.legend ? legend(b.legend) : null))),
      ...(drawn.rows || []).map((row) => cardRow(row)),
    );
    players.replaceChildren(...drawn.players
      .sort((a, b) => (a.seat === g.seat ? -1 : b.seat === g.seat ? 1 : a.seat - b.seat))
      .map((p) => h(`section.player-area${p.seat === g.seat ? ".mine" : ""}`, {
        "data-seat": p.seat, style: `--seat-colour:${SEAT_COLOURS[p.seat % SEAT_COLOURS.length]}`,
        "aria-label": p.seat === g.seat ? t("Your area") : t("{name}'s area", { name: name(p.seat) }),
      }, h("h2", {}, p.seat === g.seat ? t("Your area — {name}", { name: name(p.seat) }) : name(p.seat)),
      stats(p.stats), ...(p.boards || []).map((b) => h("figure.board-wrap", {}, drawBoard(b),
        b.caption || b.legend ? h("figcaption", {}, b.caption, b.legend ? legend(b.legend) : null) : null)),
      ...(p.rows || []).map((row) => cardRow(row)))));
    renderSeats(drawn);
    renderPrompt();
    renderMoves();
  }

  // Each seat, always in sight: its name, its score so far (where the game has a public one), its clock (the seat
  // to move counts down), and whether the house bot plays it; a notice and Reclaim when that is this page's seat.
  function renderSeats(drawn) {
    const life = g.life;
    const prompted = new Set(shownView().prompt?.seats || []);
    seatBar.replaceChildren(...g.summary.seats.map((_, seat) => {
      const p = drawn.players.find((x) => x.seat === seat);
      const how = life?.seats?.[seat]?.status || "playing";
      return h(`li.seat-card${prompted.has(seat) ? ".to-move" : ""}${seat === g.seat ? ".mine" : ""}`, {
        "data-seat": seat, "data-status": how, style: `--seat-colour:${SEAT_COLOURS[seat % SEAT_COLOURS.length]}`,
      }, h("span.seat-name", {}, name(seat), seat === g.seat ? ` ${t("(you)")}` : ""),
      p?.score ? h("span.seat-score", { "data-testid": "seat-score" }, `${p.score[0]}: ${p.score[1]}`)
        : h("span.seat-score.muted", {}, t("no public score")),
      clockOf(seat, life),
      how !== "playing" ? h("span.seat-status", {}, seatStatusWord(how)) : null);
    }));
    const mine = g.seat !== null && life?.seats?.[g.seat]?.status === "taken_over" && !g.replay && g.status !== "finished";
    takeover.hidden = !mine;
    if (mine && !takeover.childElementCount) {
      takeover.replaceChildren(h("span", {}, t("Your time ran out: the house bot is playing your seat.")), " ",
        h("button.primary.small", { "data-testid": "reclaim", onclick: reclaim }, t("Reclaim my seat")));
    } else if (!mine) takeover.replaceChildren();
    tickClocks();
  }

  function seatStatusWord(how) {
    return ({ taken_over: t("played by the house bot"), resigned: t("resigned"), forfeited: t("forfeited") })[how] || words(how);
  }

  // A seat's clock: Fischer, its time left (running down while it is to move); per move, the time left for the
  // move of the seat to move.  The text is brought up to date every second, with no request.
  function clockOf(seat, life) {
    const clock = life?.clock;
    if (!clock) return null;
    const row = clock.seats?.find((c) => c.seat === seat);
    if (!row) return null;
    const el = h("span.seat-clock", { "data-testid": "seat-clock", "data-running": String(!!row.running) });
    if (clock.mode === "fischer" && row.remaining_ms != null) {
      el.dataset.endsAt = String(row.running ? Date.now() + row.remaining_ms - Math.max(0, Date.now() - clock.as_of_ms) : "");
      el.dataset.left = String(row.remaining_ms);
    } else if (row.running && clock.deadline_ms != null && clock.deadline_seat === seat) {
      el.dataset.endsAt = String(clock.deadline_ms);
    }
    return el;
  }

  function tickClocks() {
    for (const el of seatBar.querySelectorAll(".seat-clock")) {
      const ends = Number(el.dataset.endsAt || 0);
      const left = ends ? Math.max(0, ends - Date.now()) : Number(el.dataset.left || NaN);
      el.textContent = Number.isNaN(left) ? "" : clockText(left);
      el.title = ends ? t("time left for this move") : t("time left");
    }
  }
  const ticker = setInterval(tickClocks, 1000);

  async function reclaim() {
    try {
      await retried(() => command("POST", `/games/${gameId}/reclaim?command_id=${encodeURIComponent(newId())}`,
        { bearer: mySeat.token }));
      toast(t("Your seat is yours again."));
      g.movesVersion = -1;
    } catch (error) { toast(error.message); }
  }

  function cardRow(row) {
    const items = (row.ids || []).map((id) => card(cat, id, { extra: row.extras?.[id], compact: row.compact }));
    for (let i = 0; i < (row.backs || 0); i++) items.push(cardBack(row.backLabel || t("hidden")));
    return h("div.card-row", { "data-row": row.key || row.title }, h("h3", {}, row.title),
      h("div.cards", {}, items.length ? items : h("span.muted", {}, t("none"))));
  }

  function renderPrompt() {
    const p = shownView().prompt;
    if (g.replay) {
      const then = p ? t("{players} to move: {move}", { players: p.seats.map(name).join(", "), move: cat.terms?.[p.kind]?.name || words(p.kind) })
        : t("the game is over");
      prompt.textContent = t("Replay of version {version}: {then}.", { version: g.replay.version, then });
      prompt.classList.remove("yours");
      return;
    }
    if (!p) { prompt.textContent = t("The game is over."); return; }
    if (g.summary.seats.includes(null)) {
      prompt.textContent = tn(g.summary.seats.filter((x) => x === null).length, "Waiting for players to join ({n} open seat).",
        "Waiting for players to join ({n} open seats).");
      prompt.classList.remove("yours");
      return;
    }
    const term = cat.terms?.[p.kind]?.name || words(p.kind);
    if (g.seat !== null && g.life?.seats?.[g.seat]?.status === "taken_over") {
      prompt.textContent = t("The house bot plays your seat; reclaim it to play.");
      prompt.classList.remove("yours");
    } else if (g.seat !== null && p.seats.includes(g.seat)) {
      prompt.textContent = t("Your move: {move}.", { move: term });
      prompt.classList.add("yours");
    } else {
      prompt.textContent = t("Waiting for {players}: {move}.", { players: p.seats.map(name).join(", "), move: term });
      prompt.classList.remove("yours");
    }
  }

  function myTurn() { return g.replay === null && g.seat !== null && g.view?.prompt?.seats.includes(g.seat); }
  // A seated player's legal moves are read at every version, not only on its turn: a game may let a seat act
  // outside the prompt (Underwater Cities' early discard); an empty list reads "Not your turn."
  function seated() { return g.replay === null && g.seat !== null; }

  function renderMoves() {
    const root = main.querySelector(".game");
    for (const el of root.querySelectorAll(".legal")) {
      el.classList.remove("legal"); el.removeAttribute("tabindex"); el.removeAttribute("role");
    }
    moveList.replaceChildren();
    undoButton.hidden = g.seat === null || g.replay !== null || !g.view?.prompt;
    undoButton.disabled = g.busy;
    // Moves of a version the page does not show yet (a move's answer came before its view) wait for that view.
    const current = seated() && g.movesVersion >= 0 && g.movesVersion <= g.version ? g.moves : [];
    if (!current.length) {
      choices.replaceChildren();
      filter.hidden = true;
      moveList.append(h("li.muted", {}, g.replay ? t("Replaying: go live to play.") : g.seat === null ? t("Spectators watch.")
        : myTurn() ? "…" : t("Not your turn.")));
      return;
    }
    filter.hidden = current.length < 12;
    const needle = filter.value.trim().toLowerCase();
    current.forEach((move, index) => {
      if (needle && !move.label.toLowerCase().includes(needle)) return;
      moveList.append(h("li", {}, h("button.move", { "data-index": index, disabled: g.busy, onclick: () => play(move),
        onfocus: () => mark(move.highlights, true), onblur: () => mark(move.highlights, false),
        onmouseenter: () => mark(move.highlights, true), onmouseleave: () => mark(move.highlights, false) }, move.label)));
    });
    const byId = new Map();
    current.forEach((move) => move.highlights.forEach((id) => {
      if (!byId.has(id)) byId.set(id, []);
      byId.get(id).push(move);
    }));
    for (const el of root.querySelectorAll("[data-id]")) {
      const concerned = byId.get(el.dataset.id);
      if (!concerned) continue;
      el.classList.add("legal");
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", tn(concerned.length, "{thing}: {n} move", "{thing}: {n} moves",
        { thing: thingName(el.dataset.id) }));
    }
  }

  // What a highlighted id is called: a component's name, else a board space's or track space's name (a station
  // stack, a cell of the sea), never the id itself.
  function thingName(id) {
    if (cat.components[id]) return cat.components[id].name;
    for (const board of Object.values(cat.boards || {})) if (board.spaces?.[id]?.name) return board.spaces[id].name;
    const [track, space] = String(id).split(":");
    const found = cat.tracks?.[track]?.spaces?.find((sp) => String(sp.id) === space);
    if (found) return found.name || `${cat.tracks[track].name} ${space}`;
    return words(String(id).split(":").filter(Boolean).pop() || id);
  }

  function mark(ids, on) {
    for (const id of ids) {
      for (const el of main.querySelectorAll(`[data-id="${CSS.escape(id)}"]`)) el.classList.toggle("focus-move", on);
    }
  }

  function choose(id) {
    const concerned = g.moves.filter((move) => move.highlights.includes(id));
    if (!concerned.length || g.busy) return;
    if (concerned.length === 1) { play(concerned[0]); return; }
    const thing = thingName(id);
    choices.replaceChildren(h("p", {}, tn(concerned.length, "{n} move with {thing}:", "{n} moves with {thing}:", { thing })),
      h("ul.choice-list", {}, concerned.map((move) => h("li", {}, h("button.move.primary", { onclick: () => play(move) }, move.label)))),
      h("button.link", { onclick: () => choices.replaceChildren() }, t("Cancel")));
    choices.querySelector("button")?.focus();
  }

  main.addEventListener("click", (event) => {
    const el = event.target.closest(".legal[data-id]");
    if (el) choose(el.dataset.id);
  });
  main.addEventListener("keydown", (event) => {
    const el = event.target.closest?.(".legal[data-id]");
    if (el && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); choose(el.dataset.id); }
  });

  async function play(move) {
    if (g.busy) return;
    g.busy = true;
    choices.replaceChildren();
    renderMoves();
    const playedAt = g.movesVersion;
    try {
      // The answer brings the next moves (`?include=legal`): the view of that version needs no read of them (a
      // view that comes while the move is on its way waits for them). Views newer than the answer: read below.
      const answer = await send({ command_id: newId(), command: move.command, expected_version: playedAt });
      if (Array.isArray(answer?.legal) && answer.last_version >= g.movesVersion) {
        takeMoves(answer.legal, answer.labels, answer.last_version);
      } else if (g.movesVersion === playedAt) g.movesVersion = -1;
    } catch (error) {
      if (error.code === "version_conflict") await loadMoves();
      else toast(`${error.code}: ${error.message}`);
    } finally {
      g.busy = false;
      if (seated() && g.movesVersion < g.version) await loadMoves();
      renderMoves();
    }
  }

  // Undo before new information (POST /games/{id}/undo): the server takes back this seat's last commit if it showed
  // nobody anything; the view that follows comes over the stream, a refusal (409 undo_not_allowed) says why not.
  async function undoLast() {
    if (g.busy) return;
    g.busy = true;
    renderMoves();
    try {
      await retried(() => command("POST", `/games/${gameId}/undo`, { bearer: mySeat.token,
        body: { command_id: newId(), expected_version: g.version } }));
      g.movesVersion = -1;
      toast(t("Your last move was taken back."));
    } catch (error) {
      if (error.code === "version_conflict") await loadMoves();
      toast(error.message);
    } finally {
      g.busy = false;
      if (seated() && g.movesVersion < g.version) await loadMoves();
      renderMoves();
    }
  }

  // A move is sent again, with the same command id (the server applies a command id once and answers a repeat
  // with the first answer), and the legal moves are read again, when an answer was lost, the store was briefly
  // unavailable, a rate limit asked to wait, or the seat token had to be renewed.
  async function retried(request) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await request();
      } catch (error) {
        if (attempt >= ATTEMPTS) throw error;
        if (TOKEN_REFUSED.includes(error.code)) {
          const renewed = await seatFor(gameId, { refresh: true });
          if (!renewed) throw error;
          mySeat = renewed;
          continue;
        }
        const transient = !(error instanceof ApiError) || error.status === 429 || error.status >= 500;
        if (!transient) throw error;
        const waitS = Math.min(error.retryAfterS ?? 0.25 * 2 ** attempt, 5);
        await new Promise((resolve) => setTimeout(resolve, 1000 * waitS));
      }
    }
  }

  const send = (body) => retried(() => command("POST", `/games/${gameId}/commands?include=legal`, { bearer: mySeat.token, body }));

  function takeMoves(commands, labels, version) {
    g.moves = commands.map((c, i) => ({ command: c, label: labels?.[i]?.label || JSON.stringify(c),
      highlights: labels?.[i]?.highlights || [] }));
    g.movesVersion = version;
  }

  async function loadMoves() {
    if (!seated()) { g.moves = []; g.movesVersion = -1; return; }
    const asked = g.version;
    try {
      const legal = await retried(() => command("GET", `/games/${gameId}/legal`, { bearer: mySeat.token }));
      if (asked !== g.version && legal.version < g.version) return;  // a newer view asks again
      if (legal.version < g.movesVersion) return;  // a move's answer brought newer ones meanwhile
      takeMoves(legal.commands, legal.labels, legal.version);
    } catch (error) {
      if (error.code === "seats_open") waitForSeats();
      else toast(t("Could not read your moves: {error}", { error: error.message }));  // a refused token was renewed by `retried`
    }
  }

  // Taking a seat is no move of the game: no new view arrives, so the lobby card tells when every seat is taken.
  let seatsTimer = null;
  function waitForSeats() {
    if (seatsTimer) return;
    seatsTimer = setInterval(async () => {
      g.summary = await read(`/games/${gameId}`).catch(() => g.summary);
      if (g.summary.seats.includes(null) || g.closed) return;
      clearInterval(seatsTimer);
      seatsTimer = null;
      queue = queue.then(async () => { await loadMoves(); render(); });
    }, 700);
  }

  async function loadHistory() {
    const path = g.seat === null ? `/games/${gameId}/history` : `/games/${gameId}/seats/${g.seat}/history`;
    const page = await read(`${path}?after=${g.historyAfter}&limit=1000${g.seat === null ? "" : `&token=${encodeURIComponent(mySeat.token)}`}`);
    for (const entry of page.events) {
      g.historyAfter = Math.max(g.historyAfter, entry.version);
      const text = entryInWords(entry, cat, name);
      if (text) history.prepend(h("li", { "data-version": entry.version }, h("span.v", {}, `#${entry.version}`), " ", text));
    }
  }

  async function showFinal() {
    if (g.finalShown) return;
    g.finalShown = true;
    final.hidden = false;
    final.replaceChildren(h("h2", {}, t("Final scores")), h("p.muted", {}, t("Scoring…")));
    let scores = null;
    for (let i = 0; i < 40 && !scores; i++) {
      try { scores = await read(`/games/${gameId}/scores`); } catch { await new Promise((r) => setTimeout(r, 250)); }
    }
    if (!scores) { final.replaceChildren(h("h2", {}, t("Final scores")), h("p", {}, t("Scores are not available yet."))); return; }
    const ratings = new Map();
    const table = () => h("table.list.scores", { "data-testid": "scores" },
      h("thead", {}, h("tr", {}, [t("Rank"), t("Player"), t("Points"), t("Rating")].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, [...scores.results].sort((a, b) => a.rank - b.rank).map((r) => {
        const player = g.summary.seats[r.seat];
        const rating = player && ratings.get(player.player_id);
        const shown = rating ? t("{rating} (#{rank} of the leaderboard)", { rating: Number(rating.rating).toFixed(2), rank: rating.rank })
          : g.summary.rated ? t("pending…") : t("unrated");
        return h("tr", {}, h("td", {}, r.rank), h("td", {}, name(r.seat)), h("td", {}, r.score), h("td", {}, shown));
      })));
    // a game whose layout explains no score has no breakdown (replaceChildren would write a null as "null")
    const breakdown = () => breakdownTable(scores) ?? [];
    final.replaceChildren(h("h2", {}, t("Final scores")), table(), ...[breakdown()].flat());
    // Ratings apply once the scoring service has scored the game (a moment after its end).
    for (let i = 0; i < 240 && !g.closedPage; i++) {
      g.summary = await read(`/games/${gameId}`).catch(() => g.summary);
      if (g.summary.scored || !g.summary.rated) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    if (g.summary.rated && g.summary.scored) {
      const board = await read(`/leaderboards/${g.summary.game_type}?limit=500`).catch(() => ({ players: [] }));
      for (const p of board.players) ratings.set(p.player_id, p);
    }
    final.replaceChildren(h("h2", {}, t("Final scores")), table(), ...[breakdown()].flat());
  }

  // The score explained: one column per player (best first), one row per scoring category of the game's rules,
  // from each result's breakdown, and the total.
  function breakdownTable(scores) {
    const rows = layout.scoring ? layout.scoring() : [];
    const results = [...scores.results].sort((a, b) => a.rank - b.rank);
    if (!rows.length || !results.some((r) => r.breakdown && Object.keys(r.breakdown).length)) return null;
    const valueOf = (r, key) => key.split(".").reduce((v, k) => (v == null ? v : v[k]), r.breakdown);
    return h("table.list.breakdown", { "data-testid": "breakdown" },
      h("caption", {}, t("How the score was made")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Category")),
        results.map((r) => h("th", { scope: "col", "data-seat": r.seat }, name(r.seat))))),
      h("tbody", {}, rows.map((row) => h("tr", { "data-key": row.key }, h("th", { scope: "row" }, row.label),
        results.map((r) => h("td", { "data-seat": r.seat }, String(valueOf(r, row.key) ?? "–"))))),
      h("tr.total", { "data-key": "total" }, h("th", { scope: "row" }, t("Total")),
        results.map((r) => h("td", { "data-seat": r.seat }, String(r.score))))));
  }

  async function onView(body) {
    if (body.version < g.version) return;
    g.view = body.view;
    g.version = body.version;
    g.status = body.status;
    g.life = body.lifecycle ?? null;
    sawView(gameId, body);
    if (body.view.prompt === null || body.status === "finished") g.status = "finished";
    if (g.summary.seats.includes(null)) g.summary = await read(`/games/${gameId}`);  // someone may have joined
    if (g.summary.seats.includes(null)) waitForSeats();
    // Not when a move's answer brought them, nor while a move or an undo is on its way (its end reads them).
    if (seated() && !g.busy && g.movesVersion !== body.version) await loadMoves();
    render();
    main.querySelector(".game").dataset.version = String(g.version);
    offerReplay();
    await loadHistory().catch(() => {});
    if (g.status === "finished") { close(); await showFinal(); }
  }

  // A path of the game's read API as this page's viewer sees it: the seat's (with its token, renewed when refused)
  // for its player, the spectator's for everyone else.
  const asViewer = (path, options = {}) => (g.seat === null ? read(`/games/${gameId}${path}`, options)
    : retried(() => read(`/games/${gameId}/seats/${g.seat}${path}`, { ...options, bearer: mySeat.token })));

  // Spectators of a running game and everyone once it is over can step through its versions, each seeing the
  // versions as they saw them then (a player their seat's view, a spectator the public one).
  let replay = null;
  function offerReplay() {
    if (g.seat !== null && g.status !== "finished") return;
    if (!replay) {
      replay = replayBar({ cat, name, asViewer, show: (body) => {
        g.replay = body;
        main.querySelector(".game").dataset.shownVersion = String(body ? body.version : g.version);
        render();
      } });
      final.before(replay.element);
    }
    replay.latest(g.version, g.status === "finished");
    if (!g.replay) main.querySelector(".game").dataset.shownVersion = String(g.version);
  }

  // The stream sends the full view, then deltas (RFC 6902) from the version we have; after a dropped connection
  // EventSource reconnects by itself with that version (Last-Event-ID), or we do (`since`): deltas go on, or a
  // full view comes when the server cannot diff against ours. No reload.
  let queue = Promise.resolve();
  let shown = null;  // the newest view body the stream gave: the base of its next delta
  const RECONNECT_MS = 1000;
  function connect() {
    const seatPart = g.seat === null ? "" : `/seats/${g.seat}`;
    const token = g.seat === null ? "" : `&token=${encodeURIComponent(mySeat.token)}`;
    const since = shown ? `&since=${shown.version}` : "";
    const source = new EventSource(`/games/${gameId}${seatPart}/live?deltas=1${token}${since}`);
    g.source = source;
    const take = (body) => {
      shown = body;
      queue = queue.then(() => onView(body)).catch((error) => toast(error.message));
    };
    const again = (fresh) => {  // a new stream: from the version we have, or (fresh) from a full view
      source.close();
      if (fresh) shown = null;
      if (!g.closed) setTimeout(connect, fresh ? 0 : RECONNECT_MS);
    };
    source.addEventListener("view", (event) => take(JSON.parse(event.data)));
    source.addEventListener("delta", (event) => {
      const delta = JSON.parse(event.data);
      if (!shown || delta.base !== shown.version) { again(true); return; }
      if (delta.version === shown.version) return;  // reconnected while current: nothing changed
      let body;
      try { body = applyPatch(shown, delta.patch); } catch (error) {
        if (!(error instanceof PatchError)) throw error;
        again(true); return;
      }
      take(body);
    });
    source.addEventListener("error", () => {  // refused (EventSource gives up): retry with a fresh seat token
      if (source.readyState !== EventSource.CLOSED || g.closed) return;
      source.close();
      setTimeout(async () => {
        if (g.seat !== null) mySeat = await seatFor(gameId).catch(() => mySeat) || mySeat;
        if (!g.closed) connect();
      }, RECONNECT_MS);
    });
    source.addEventListener("closed", async () => {  // the seat token expired or was revoked: renew, reconnect
      source.close();
      mySeat = await seatFor(gameId, { refresh: true });
      if (!g.closed) connect();
    });
  }
  function close() {
    g.closed = true;
    clearInterval(seatsTimer);
    clearInterval(ticker);
    g.source?.close();
  }
  connect();
  return () => { g.closedPage = true; replay?.stop(); close(); setPageTitle(null); };
}

// 75 s -> "1:15", 2 h -> "2:00:00", 3 days -> "3 d 4 h".
function clockText(ms) {
  const total = Math.ceil(ms / 1000);
  const d = Math.floor(total / 86400), hrs = Math.floor((total % 86400) / 3600), min = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, "0");
  if (d) return t("{d} d {h} h", { d, h: hrs });
  return hrs ? `${hrs}:${String(min).padStart(2, "0")}:${sec}` : `${min}:${sec}`;
}
