// Underwater Cities: the main board (action slots, special row, era and federation tracks), each player's
// board (cities, tunnels, buildings, metropolises), hands, tableaus.
import { SEAT_COLOURS } from "../draw.js";
import { t, tn } from "../i18n.js";

// The pieces' abbreviations on a player board (explained by its legend).
const PIECE = () => ({ city_nonsym: t("City"), city_sym: t("Sym"), farm: t("F"), desal: t("D"), lab: t("L"), tunnel: t("T") });
const termOf = (cat, id) => cat.terms?.[id]?.name || id;
const cardTip = (cat, id) => { const c = cat.components[id]; return c ? `${c.name}: ${c.text || ""}` : id; };

export function layout(view, cat, me, name) {
  const mainBoard = cat.boards[`main_${view.main_side}`] || Object.values(cat.boards).find((b) => b.kind === "main_board");
  const marks = {};
  for (const [slot, seats] of Object.entries(view.slots || {})) {
    marks[slot] = { text: `${slot} ${seats.map((seat) => `P${seat + 1}`).join(" ")}`, fill: SEAT_COLOURS[seats[0] % 8],
      title: t("taken by {players}", { players: seats.map((seat) => `${name(seat)} (P${seat + 1})`).join(", ") }) };
  }
  (view.special_row || []).forEach((id, i) => {
    marks[`special_row:${i + 1}`] = id ? { text: cat.components[id]?.name || "?", fill: "#e9d8a6", title: cardTip(cat, id) }
      : { text: t("empty") };
  });
  marks.special_deck = { text: t("{n} left", { n: view.special_deck?.count ?? 0 }) };
  marks.era_deck = { text: tn(view.era_deck_count, "{n} card", "{n} cards") };
  marks.era_discard = { text: t("{n} discarded", { n: view.era_discard_count }) };
  const eraTrack = cat.tracks.era;
  for (const space of eraTrack?.spaces || []) {  // R1..R10 rounds, P1..P3 productions: shown as 1..10 and "Prod"
    const shown = space.id.startsWith("P") ? t("Prod") : space.id.slice(1);
    marks[`era:${space.id}`] = space.id === view.era_track_space ? { text: `● ${shown}`, fill: "#ffd166", title: t("the era marker") }
      : { text: shown };
  }
  for (const p of view.players) {
    const key = `federation:${p.federation_space}`;
    marks[key] = { text: [marks[key]?.text, `P${p.seat + 1}`].filter(Boolean).join(" "), fill: SEAT_COLOURS[p.seat % 8],
      title: [marks[key]?.title, name(p.seat)].filter(Boolean).join(", ") };
  }
  const tracks = Object.values(cat.tracks).filter((track) => track.board_kind === mainBoard.kind);
  const players = view.players.map((p) => {
    const board = cat.boards[`player_board_${p.board}`];
    const own = {};
    for (const [space, piece] of Object.entries(p.pieces || {})) {
      own[space] = { text: `${PIECE()[piece.kind] || piece.kind}${piece.upgraded ? "+" : ""}`,
        fill: piece.upgraded ? "#ffd166" : "#f4f1de", title: piece.upgraded ? t("{piece} (upgraded)", { piece: termOf(cat, piece.kind) }) : termOf(cat, piece.kind) };
    }
    for (const [space, tile] of Object.entries(p.metropolises || {})) {
      own[space] = { text: cat.components[tile]?.name || tile, fill: "#b8c0ff", title: cardTip(cat, tile) };
    }
    const hand = p.hand || p.known_hand || [];
    return {
      seat: p.seat,
      score: p.points != null ? [t("points"), p.points] : null,
      stats: [[t("points"), p.points], ...Object.entries(p.resources || {}).map(([k, v]) => [termOf(cat, k), v]),
        [t("cards in hand"), p.hand_count], [t("hand limit"), p.hand_limit], [t("federation"), p.federation_space || t("below 4")]],
      boards: board ? [{ board, marks: own, mine: p.seat === me, title: t("{name}'s board", { name: name(p.seat) }), legend: playerLegend() }] : [],
      rows: [
        { key: "hand", title: p.seat === me ? t("Your hand") : t("Hand"), ids: hand, backs: Math.max(0, p.hand_count - hand.length), backLabel: t("card") },
        { key: "tableau", title: t("Played cards"), ids: p.tableau || [], compact: true },
        (p.contracts || []).length ? { key: "contracts", title: t("Contracts"), ids: p.contracts, compact: true } : null,
      ].filter(Boolean),
    };
  });
  return {
    summary: [[t("round"), view.round], [t("era"), view.era], [t("phase"), termOf(cat, view.phase)],
      [t("play order"), (view.play_order || []).map(name).join(" → ")]],
    boards: [{ board: mainBoard, tracks, marks, title: t("Main board"), testid: "main-board", legend: [
      ["G1–G5, R1–R5, Y1–Y5", t("green, red and yellow action slots (hover one for its action)")],
      ["AA", t("the always-available action slot")],
      [`P1–P${view.players.length}`, view.players.map((p) => `P${p.seat + 1} ${name(p.seat)}`).join(", ")],
      [`1–10, ${t("Prod")}`, t("era track: rounds and productions (● the era marker)")],
      ["0–4", t("federation track spaces (0: below space 4, the start)")],
    ] }],
    rows: [{ key: "special_row", title: t("Special cards on offer"), ids: (view.special_row || []).filter(Boolean), compact: true }],
    players,
  };
}

const playerLegend = () => {
  const piece = PIECE();
  return [
    [t("C12 to C34"), t("city sites (row, column)")], ["MB, M1, M2", t("brown and blue metropolis spaces")],
    ["1–3, X", t("building sites of a city and its expansion site")],
    [`${piece.city_nonsym}, ${piece.city_sym}`, t("non-symbiotic and symbiotic city")],
    [`${piece.farm}, ${piece.desal}, ${piece.lab}`, t("farm, desalination plant, laboratory")],
    ["C12-C13", t("tunnel site between two city sites")], [piece.tunnel, t("tunnel")], ["+", t("upgraded")],
  ];
};

// The final score by the rules' categories (GET /games/{id}/scores, each result's breakdown).
export const scoring = () => [
  { key: "track", label: t("Points during the game") },
  { key: "brown", label: t("Brown cards") },
  { key: "end_cards", label: t("End-of-game cards and purchases") },
  { key: "network", label: t("Connected cities") },
  { key: "resources", label: t("Resources left") },
];
