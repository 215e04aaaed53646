// Underwater Cities: the main board (action slots, special row, era and federation tracks), each player's
// board (cities, tunnels, buildings, metropolises), hands, tableaus.
import { SEAT_COLOURS } from "../draw.js";

const PIECE = { city_nonsym: "City", city_sym: "Sym", farm: "F", desal: "D", lab: "L", tunnel: "T" };

export function layout(view, cat, me, name) {
  const mainBoard = cat.boards[`main_${view.main_side}`] || Object.values(cat.boards).find((b) => b.kind === "main_board");
  const marks = {};
  for (const [slot, seats] of Object.entries(view.slots || {})) {
    marks[slot] = { text: `${slot} ${seats.map((seat) => `P${seat + 1}`).join(" ")}`, fill: SEAT_COLOURS[seats[0] % 8],
      title: `taken by ${seats.map(name).join(", ")}` };
  }
  (view.special_row || []).forEach((id, i) => {
    marks[`special_row:${i + 1}`] = id ? { text: cat.components[id]?.name.slice(0, 14) || "?", fill: "#e9d8a6" } : { text: "empty" };
  });
  marks.special_deck = { text: `${view.special_deck?.count ?? 0} left` };
  marks.era_deck = { text: `${view.era_deck_count} cards` };
  marks.era_discard = { text: `${view.era_discard_count} discarded` };
  if (view.era_track_space) marks[`era:${view.era_track_space}`] = { text: "●", fill: "#ffd166" };
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
        fill: piece.upgraded ? "#ffd166" : "#f4f1de", title: `${piece.kind}${piece.upgraded ? " (upgraded)" : ""}` };
    }
    for (const [space, tile] of Object.entries(p.metropolises || {})) {
      own[space] = { text: cat.components[tile]?.name.slice(0, 12) || tile, fill: "#b8c0ff" };
    }
    const hand = p.hand || p.known_hand || [];
    return {
      seat: p.seat,
      stats: [["points", p.points], ...Object.entries(p.resources || {}), ["cards in hand", p.hand_count],
        ["hand limit", p.hand_limit], ["federation", p.federation_space || "below 4"]],
      boards: board ? [{ board, marks: own, mine: p.seat === me, title: `${name(p.seat)}'s board` }] : [],
      rows: [
        { key: "hand", title: p.seat === me ? "Your hand" : "Hand", ids: hand, backs: Math.max(0, p.hand_count - hand.length), backLabel: "card" },
        { key: "tableau", title: "Played cards", ids: p.tableau || [], compact: true },
        (p.contracts || []).length ? { key: "contracts", title: "Contracts", ids: p.contracts, compact: true } : null,
      ].filter(Boolean),
    };
  });
  return {
    summary: [["round", view.round], ["era", view.era], ["phase", view.phase], ["play order", (view.play_order || []).map(name).join(" → ")]],
    boards: [{ board: mainBoard, tracks, marks, title: "Main board", testid: "main-board" }],
    rows: [{ key: "special_row", title: "Special cards on offer", ids: (view.special_row || []).filter(Boolean), compact: true }],
    players,
  };
}
