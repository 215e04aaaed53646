// Nautilus: the sea map (cells by zone, stations over 3×3 cells, finds, submarines), the station stacks, the
// Atlantis tracker, and each player's Nemo, researchers, research and finds.
import { colourOf } from "../draw.js";
import { words } from "../dom.js";
import { t, tn } from "../i18n.js";

const cellOf = (value) => (Array.isArray(value) ? value : value?.cell || null);
const idOf = (item) => (typeof item === "string" ? item : item?.chip || item?.tile || item?.id || JSON.stringify(item));

export function layout(view, cat, me, name) {
  const marks = {};
  const seatColour = (seat) => colourOf(view.seats[seat]?.colour) || "#ddd";
  for (const station of view.stations || []) {
    const [x0, y0] = station.anchor;
    const fill = station.owner === null ? "#d9d2c3" : seatColour(station.owner);
    for (let dx = 0; dx < 3; dx++) for (let dy = 0; dy < 3; dy++) {
      marks[`${x0 + dx},${y0 + dy}`] = { text: "", fill, title: cat.components[station.tile]?.name };
    }
    const people = (station.researchers || []).map((n, seat) => (n ? t("{n} of {name}", { n, name: name(seat) }) : "")).filter(Boolean).join(", ");
    const tile = cat.components[station.tile];
    marks[`${x0 + 1},${y0 + 1}`] = { text: tile?.name || station.tile, span: 3, fill,
      title: `${tile ? `${tile.name}: ${tile.text || ""}` : station.tile}${people ? ` ${t("Researchers: {people}.", { people })}` : ""}` };
  }
  const findKinds = new Map();  // abbreviation -> find kind, for the legend
  // Face-down finds this seat looked at (Echo, Trial): drawn with what they are, marked as peeked ("Sn?").
  const peeked = new Map((view.known_finds || []).map((k) => [k.cell.join(","), k]));
  let anyPeeked = false;
  for (const find of view.finds || []) {
    const key = find.cell.join(",");
    const kind = find.face_up && find.kind ? cat.terms?.[find.kind]?.name || find.kind : null;
    const known = !kind && peeked.get(key);
    const knownKind = known ? (known.atlantis_number != null ? t("Atlantis {number}", { number: known.atlantis_number })
      : cat.terms?.[known.kind]?.name || known.kind) : null;
    if (knownKind) anyPeeked = true;
    marks[key] = { text: kind ? initials(kind) : knownKind ? `${initials(knownKind)}?` : "?",
      fill: knownKind ? "#e9d8a6" : "#f2e8cf",
      title: kind ? t("{depth} find: {kind}", { depth: cat.terms?.[find.depth]?.name || find.depth, kind })
        : knownKind ? t("{depth} find, face down; you peeked: {kind}", { depth: cat.terms?.[find.depth]?.name || find.depth, kind: knownKind })
          : t("{depth} find (face down)", { depth: cat.terms?.[find.depth]?.name || find.depth }) };
    if (kind) findKinds.set(initials(kind), kind);
    if (knownKind) findKinds.set(initials(knownKind), knownKind);
  }
  view.seats.forEach((s) => (s.subs || []).forEach((sub, i) => {
    const cell = cellOf(sub);
    if (cell) marks[cell.join(",")] = { text: `S${i + 1}`, fill: seatColour(s.seat), title: t("{name}'s submarine {number}", { name: name(s.seat), number: i + 1 }) };
  }));
  const supply = {};
  for (const [kind, tiles] of Object.entries(view.stacks || {})) {
    const kindName = (cat.terms?.[kind]?.name || kind).replace(/ station$/, "");
    supply[`stack:${kind}`] = { text: `${kindName}: ${tiles.length}`, title: tn(tiles.length, "{n} tile left", "{n} tiles left") };
  }
  supply.box = { text: t("Box: {n}", { n: (view.box || []).length }), title: t("sea-find chips in the box") };
  const atlantis = {};
  for (const spot of view.atlantis_tracker || []) {
    atlantis[`atlantis:${spot.number}`] = spot.seat !== null ? { text: String(spot.number), fill: seatColour(spot.seat) }
      : spot.out ? { text: String(spot.number), fill: "#7fb7be" } : { text: String(spot.number), fill: "#555" };
  }
  const trackBoard = (track, extra) => ({ id: track.id, kind: "track", name: track.name, view_box: track.view_box,
    spaces: Object.fromEntries(track.spaces.map((sp) => [`${track.id}:${sp.id}`, { ...sp, id: `${track.id}:${sp.id}`, kind: "track" }])),
    connections: [], ...extra });
  const players = view.seats.map((s) => ({
    seat: s.seat,
    score: s.research_points != null ? [t("research points"), s.research_points] : null,
    stats: [[t("colour"), s.colour], ["Nemo", s.nemo], [t("researchers in supply"), s.supply], [t("research points"), s.research_points],
      [t("assignment"), s.assignment ? cat.components[s.assignment]?.name || s.assignment : t("hidden")]],
    boards: [researchTracks(view, cat, s, seatColour, name)].filter(Boolean),
    rows: [
      { key: "stations", title: t("Stations"), ids: (view.stations || []).filter((st) => st.owner === s.seat).map((st) => st.tile), compact: true },
      { key: "held", title: t("Bought, not yet built"), ids: (s.held || []).map(idOf), compact: true },
      { key: "tableau", title: t("Finds"), ids: (s.tableau || []).map(idOf), compact: true },
      { key: "atlantis", title: t("Atlantis finds"), ids: (s.atlantis || []).map(idOf), compact: true },
    ],
  }));
  return {
    summary: [[t("round"), view.round], [t("phase"), view.phase && (cat.terms?.[view.phase]?.name || view.phase)],
      [t("final round"), view.final_round ? t("yes") : t("no")]],
    boards: [
      { board: cat.boards.map, marks, title: t("The sea"), testid: "main-board", axes: seaAxes(cat.boards.map), legend: [
        ["S1–S3", t("a player's submarines (in the player's colour)")], ["?", t("a face-down find")],
        ...(anyPeeked ? [["Xx?", t("a face-down find you peeked at (what it is, then ?)")]] : []),
        ...[...findKinds].sort().map(([short, kind]) => [short, kind]),
        [t("Named 3×3 blocks"), t("stations, in their builder's colour; hover one for its researchers")],
      ] },
      { board: cat.boards.supply, marks: supply, title: t("Station stacks and the box") },
      { board: trackBoard(cat.tracks.atlantis), marks: atlantis, title: t("Ruins of Atlantis"), mine: false },
    ],
    rows: [],
    players,
  };
}

// A player's research tracks (rules §3.3.3): one row per research type, the space of the number of its stations in
// operation in the player's colour, each space's benefit written on it, and the type's research value after the
// row (★: the player holds that type's 3-chip).
function researchTracks(view, cat, seat, seatColour, name) {
  const tracks = Object.values(cat.tracks || {}).filter((track) => track.research_type);
  if (!tracks.length) return null;
  const marks = {};
  const rows = tracks.map((track) => {
    const type = track.research_type;
    const research = seat.research?.[type] || { count: 0, value: 0 };
    const typeName = cat.terms?.[type]?.name || words(type);
    for (const space of track.spaces) {
      const here = Number(space.id) === research.count;
      marks[`${track.id}:${space.id}`] = { text: String(space.benefit), current: here,
        fill: here ? seatColour(seat.seat) : Number(space.id) >= 2 ? "#d5ebdc" : "#e6eef0",
        title: t("benefit {benefit}, research value {points}", { benefit: space.benefit, points: space.points })
          + (here ? ` — ${t("{name} is here", { name: name(seat.seat) })}` : "") };
    }
    const holds = view.three_chips?.[type] === seat.seat;
    return { ...track, label: typeName, labelTitle: track.text, note: `${research.value}${holds ? "★" : ""}`,
      noteTitle: t("{type} research value {value}", { type: typeName, value: research.value }) + (holds ? ` ${t("(holds the 3-chip)")}` : "") };
  });
  const board = { id: `research-${seat.seat}`, kind: "research", name: t("Research tracks"), view_box: tracks[0].view_box,
    spaces: {}, connections: [] };
  return { board, tracks: rows, marks, mine: false, testid: `research-${seat.seat}`,
    title: t("{name}'s research tracks", { name: name(seat.seat) }),
    caption: t("Research tracks: stations in operation per type (0–4), the benefit on each space; after each row the research value (0 below 2 stations, 1 from 2, 3 with the 3-chip ★).") };
}

// The sea's grid: its columns lettered and rows numbered, as the moves and the history name cells ("C-14").
function seaAxes(board) {
  const cells = Object.values(board.spaces).filter((sp) => Array.isArray(sp.cell));
  if (!cells.length) return null;
  return { columns: Math.max(...cells.map((sp) => sp.cell[0])) + 1, rows: Math.max(...cells.map((sp) => sp.cell[1])) + 1,
    size: cells[0].w };
}

// "Luminous Crab" -> "LC", "Gold" -> "Go": short enough for one cell of the sea, explained by the map's legend.
function initials(kind) {
  const parts = kind.split(/[\s-]+/).filter(Boolean);
  return parts.length > 1 ? parts.map((p) => p[0].toUpperCase()).join("") : kind.slice(0, 2);
}

// The final score by the rules' categories (GET /games/{id}/scores, each result's breakdown): research points
// times sea points, plus the Nemo left.
export const scoring = () => [
  { key: "research_points", label: t("Research points") },
  { key: "sea_points", label: t("Sea points") },
  { key: "atlantis.points", label: t("of which Atlantis points") },
  { key: "product", label: t("Research points × sea points") },
  { key: "nemo", label: t("Nemo left") },
];
