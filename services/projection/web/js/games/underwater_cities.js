// Underwater Cities: the main board (action slots, special row, era and federation tracks), each player's
// board (cities, tunnels, buildings, metropolises), hands, tableaus.
import { SEAT_COLOURS } from "../draw.js";

const PIECE = { city_nonsym: "City", city_sym: "Sym", farm: "F", desal: "D", lab: "L", tunnel: "T" };
const termOf = (cat, id) => cat.terms?.[id]?.name || id;
const cardTip = (cat, id) => { const c = cat.components[id]; return c ? `${c.name}: ${c.text || ""}` : id; };

export function layout(view, cat, me, name) {
  const mainBoard = cat.boards[`main_${view.main_side}`] || Object.values(cat.boards).find((b) => b.kind === "main_board");
  const marks = {};
  for (const [slot, seats] of Object.entries(view.slots || {})) {
    marks[slot] = { text: `${slot} ${seats.map((seat) => `P${seat + 1}`).join(" ")}`, fill: SEAT_COLOURS[seats[0] % 8],
      title: `taken by ${seats.map((seat) => `${name(seat)} (P${seat + 1})`).join(", ")}` };
  }
  (view.special_row || []).forEach((id, i) => {
    marks[`special_row:${i + 1}`] = id ? { text: cat.components[id]?.name || "?", fill: "#e9d8a6", title: cardTip(cat, id) }
      : { text: "empty" };
  });
  marks.special_deck = { text: `${view.special_deck?.count ?? 0} left` };
  marks.era_deck = { text: `${view.era_deck_count} cards` };
  marks.era_discard = { text: `${view.era_discard_count} discarded` };
  const eraTrack = cat.tracks.era;
  for (const space of eraTrack?.spaces || []) {  // R1..R10 rounds, P1..P3 productions: shown as 1..10 and "Prod"
    const shown = space.id.startsWith("P") ? "Prod" : space.id.slice(1);
    marks[`era:${space.id}`] = space.id === view.era_track_space ? { text: `● ${shown}`, fill: "#ffd166", title: "the era marker" }
      : { text: shown };
  }
  for (const p of view.players) {
    const key = `federation:${p.federation_space}`;
    marks[key] = { text: [marks[key]?.text, `P${p.seat + 1}`].filter(Boolean).join(" "), fill: SEAT_COLOURS[p.seat % 8],
      title: [marks[key]?.title, name(p.seat)].filter(Boolean).join(", ") };
  }
  const tracks = Object.values(cat.tracks).filter((t) => t.board_kind === mainBoard.kind);
  const players = view.players.map((p) => {
    const board = cat.boards[`player_board_${p.board}`];
    const own = {};
    for (const [space, piece] of Object.entries(p.pieces || {})) {
      own[space] = { text: `${PIECE[piece.kind] || piece.kind}${piece.upgraded ? "+" : ""}`,
        fill: piece.upgraded ? "#ffd166" : "#f4f1de", title: `${termOf(cat, piece.kind)}${piece.upgraded ? " (upgraded)" : ""}` };
    }
    for (const [space, tile] of Object.entries(p.metropolises || {})) {
      own[space] = { text: cat.components[tile]?.name || tile, fill: "#b8c0ff", title: cardTip(cat, tile) };
    }
    const hand = p.hand || p.known_hand || [];
    return {
      seat: p.seat,
      stats: [["points", p.points], ...Object.entries(p.resources || {}), ["cards in hand", p.hand_count],
        ["hand limit", p.hand_limit], ["federation", p.federation_space || "below 4"]],
      boards: board ? [{ board, marks: own, mine: p.seat === me, title: `${name(p.seat)}'s board`, legend: PLAYER_LEGEND }] : [],
      rows: [
        { key: "hand", title: p.seat === me ? "Your hand" : "Hand", ids: hand, backs: Math.max(0, p.hand_count - hand.length), backLabel: "card" },
        { key: "tableau", title: "Played cards", ids: p.tableau || [], compact: true },
        (p.contracts || []).length ? { key: "contracts", title: "Contracts", ids: p.contracts, compact: true } : null,
      ].filter(Boolean),
    };
  });
  return {
    summary: [["round", view.round], ["era", view.era], ["phase", view.phase], ["play order", (view.play_order || []).map(name).join(" → ")]],
    boards: [{ board: mainBoard, tracks, marks, title: "Main board", testid: "main-board", legend: [
      ["G1–G5, R1–R5, Y1–Y5", "green, red and yellow action slots (hover one for its action)"],
      ["AA", "the always-available action slot"],
      [`P1–P${view.players.length}`, view.players.map((p) => `P${p.seat + 1} ${name(p.seat)}`).join(", ")],
      ["1–10, Prod", "era track: rounds and productions (● the era marker)"],
      ["0–4", "federation track spaces (0: below space 4, the start)"],
    ] }],
    rows: [{ key: "special_row", title: "Special cards on offer", ids: (view.special_row || []).filter(Boolean), compact: true }],
    players,
  };
}

const PLAYER_LEGEND = [
  ["C12 to C34", "city sites (row, column)"], ["MB, M1, M2", "brown and blue metropolis spaces"],
  ["1–3, X", "building sites of a city and its expansion site"],
  ["City, Sym", "non-symbiotic and symbiotic city"], ["F, D, L", "farm, desalination plant, laboratory"],
  ["C12-C13", "tunnel site between two city sites"], ["T", "tunnel"], ["+", "upgraded"],
];
