// Boards (SVG from the catalogue's geometry) and components (HTML cards from the catalogue's texts).
import { h, s, words } from "./dom.js";
import { t } from "./i18n.js";

const COLOURS = {
  green: "#4f9d69", red: "#c8553d", yellow: "#e3b23c", blue: "#3d7cc8", brown: "#8b5e3c", violet: "#7d5ba6",
  orange: "#e07b39", gold: "#d4af37", grey: "#8a9199", gray: "#8a9199", white: "#e8eef2", purple: "#7d5ba6",
  lagoon: "#9fd8e0", slope: "#5fb0c4", deep: "#2f6f8f", gorge: "#1b3f5c",
};
export const SEAT_COLOURS = ["#e4572e", "#f3a712", "#76b041", "#17bebb", "#a05195", "#2e86ab", "#d45087", "#665191"];

export function colourOf(value) { return COLOURS[value] || null; }

function spaceFill(space) {
  return colourOf(space.colour) || colourOf(space.zone) || colourOf(space.kind) || "#cfe3ea";
}

// A mark: {text, fill, title, span (its text covers the span×span spaces around it), current (the player's space)}.
// A board: {board (catalogue board), tracks: [catalogue tracks drawn on it], marks: {id: {text, fill, title}},
// title, mine (whether its space ids may be highlighted for this viewer), labels (draw every space's id),
// axes ({columns, rows, size}: a grid's column letters above it and row numbers left of it, as labels name cells)}.
export function drawBoard({ board, tracks = [], marks = {}, title, mine = true, labels = true, testid, axes = null }) {
  let [x, y, w, hgt] = board.view_box;
  if (axes) { x -= axes.size; y -= axes.size; w += axes.size; hgt += axes.size; }
  const svg = s("svg", { viewBox: `${x} ${y} ${w} ${hgt}`, class: `board board-${board.kind}`, role: "group",
    "aria-label": title || board.name, "data-board": board.id, "data-testid": testid });
  svg.append(s("rect", { x, y, width: w, height: hgt, class: "board-bg", rx: 8 }));
  const connections = s("g", { class: "connections" });
  svg.append(connections);
  for (const link of board.connections || []) {
    const a = board.spaces[link.a], b = board.spaces[link.b];
    if (a && b) connections.append(s("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y }));
  }
  const small = Object.keys(board.spaces).length > 200;  // a grid map: no text on every cell
  const spanning = [];  // marks whose text spans neighbouring spaces: drawn last, so that no space covers it
  for (const space of Object.values(board.spaces)) {
    const drawn = drawSpace(space, marks[space.id], { mine, labels: labels && !small });
    if (marks[space.id]?.span) spanning.push(drawn); else svg.append(drawn);
  }
  svg.append(...spanning);
  if (axes) svg.append(gridAxes(axes));
  for (const track of tracks) {
    if (track.label || track.note) svg.append(trackWords(track));
    for (const space of track.spaces) {
      const id = `${track.id}:${space.id}`;
      svg.append(drawSpace({ ...space, kind: "track" }, marks[id], { mine: false, labels: true, key: id }));
    }
  }
  return svg;
}

// Column letters (A, B, ...) along a grid's top edge and row numbers (1, 2, ...) along its left edge.
function gridAxes({ columns, rows, size }) {
  const font = size * 0.55;
  const at = (tx, ty, text) => s("text", { x: tx, y: ty, "font-size": font, "text-anchor": "middle",
    "dominant-baseline": "middle" }, text);
  return s("g", { class: "grid-axes", "data-testid": "grid-axes" },
    Array.from({ length: columns }, (_, i) => at((i + 0.5) * size, -size / 2, String.fromCharCode(65 + i))),
    Array.from({ length: rows }, (_, j) => at(-size / 2, (j + 0.5) * size, String(j + 1))));
}

// A track's name before its first space (`label`) and a note after its last one (`note`), for tracks drawn in rows.
function trackWords(track) {
  const first = track.spaces[0], last = track.spaces[track.spaces.length - 1];
  const room = first.x - first.w / 2 - 4;  // from the board's left edge (x = 0) to the first space
  const size = Math.max(6, Math.min(first.h / 2, 12, (room * 1.5) / Math.max(4, (track.label || "").length)));
  return s("g", { class: "track-words", "data-track": track.id },
    track.label ? s("text", { x: room, y: first.y, "font-size": size, "text-anchor": "end",
      "dominant-baseline": "middle" }, s("title", {}, track.labelTitle || track.label), track.label) : null,
    track.note ? s("text", { x: last.x + last.w / 2 + 4, y: last.y, "font-size": size, "text-anchor": "start",
      "dominant-baseline": "middle", class: "track-note" }, s("title", {}, track.noteTitle || track.note), track.note) : null);
}

function drawSpace(space, mark, { mine, labels, key = null }) {
  const id = key || space.id;
  const g = s("g", { class: `space kind-${space.kind}${mark ? " marked" : ""}${mark?.current ? " current" : ""}`, "data-space": id,
    "data-id": mine && !key ? space.id : undefined });
  g.append(s("title", {}, [space.name, space.text, mark?.title].filter(Boolean).join(" — ")));
  g.append(s("rect", { x: space.x - space.w / 2, y: space.y - space.h / 2, width: space.w, height: space.h,
    rx: Math.min(space.w, space.h) / 8, fill: mark?.fill || spaceFill(space) }));
  const text = mark?.text ?? (labels ? labelOf(space) : "");
  const span = mark?.span || 1;  // the text fills the span×span block of spaces centred on this one
  if (text) g.append(fittedText(String(text), space.x, space.y, space.w * span, space.h * span));
  return g;
}

// What a space shows when nothing lies on it: a short code of the catalogue (G1, AA, C12, X; its name is the
// tooltip), a number on a small space (counted from 1 when its name counts so), or else its name, never an id like
// `cloning_tile`.
export function labelOf(space) {
  const tail = String(space.id).split(":").pop();
  const name = String(space.name || "").replace(/\s*\(.*\)\s*$/, "");
  const roomy = space.w >= 60 && space.h >= 40;
  if (/^\d+$/.test(tail) && roomy && name) return name;
  if (/^\d+$/.test(tail)) {
    const numbers = name.match(/\b\d+\b/g) || [];
    const counted = String(Number(tail) + 1);
    return !numbers.includes(tail) && numbers.includes(counted) ? counted : tail;
  }
  if (tail.length <= 7 && !tail.includes("_") && tail !== tail.toLowerCase()) return tail;
  return name || words(tail);
}

// Text centred in a w×h box, on up to three lines (split at spaces), as large as fits: names are never cut.
function fittedText(text, x, y, w, h) {
  const wordsOf = text.split(/\s+/);
  let best = null;
  for (let count = 1; count <= Math.min(3, wordsOf.length); count++) {
    const lines = splitInto(wordsOf, count);
    const longest = Math.max(4, ...lines.map((line) => line.length));
    const size = Math.min(h / (count * 1.25 + 0.5), 20, (w * 1.7) / longest);
    if (!best || size > best.size + 0.5) best = { lines, size };
  }
  const size = Math.max(5, best.size);
  const top = y - ((best.lines.length - 1) * size * 1.1) / 2;
  return s("text", { x, y: top, "font-size": size.toFixed(1), "dominant-baseline": "middle", "text-anchor": "middle" },
    best.lines.map((line, i) => s("tspan", { x, dy: i ? (size * 1.1).toFixed(1) : 0 }, line)));
}

function splitInto(wordList, count) {
  const total = wordList.join(" ").length;
  const lines = [];
  let line = "";
  for (const word of wordList) {
    if (line && lines.length < count - 1 && (line.length + word.length / 2) >= total / count) { lines.push(line); line = word; }
    else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines;
}

// A legend of the abbreviations a board shows: [[abbreviation, meaning], ...].
export function legend(pairs) {
  return h("dl.legend", { "data-testid": "legend" }, pairs.map(([short, meaning]) =>
    h("div", {}, h("dt", {}, short), h("dd", {}, meaning))));
}

// A component as a card: name, kind, cost and colour, its text.  `id` missing from the catalogue: drawn as is.
export function card(cat, id, { extra, compact = false } = {}) {
  const comp = cat.components[id];
  if (!comp) return h("div.card.unknown", { "data-id": id, title: words(id) }, h("span.name", {}, words(id)));
  const colour = colourOf(comp.colour) || colourOf(comp.type) || colourOf(comp.kind);
  const facts = [comp.type && words(comp.type), comp.cost != null && t("cost {cost}", { cost: fmt(comp.cost) }),
    comp.coin_price != null && t("{coins} coins / {power} power", { coins: comp.coin_price, power: comp.power_price })].filter(Boolean);
  return h(`div.card.cat-${comp.category}${compact ? ".compact" : ""}`, {
    "data-id": id, title: `${comp.name}: ${comp.text || ""}`, style: colour ? `--card-colour:${colour}` : undefined,
  }, h("span.name", {}, comp.name), facts.length ? h("span.facts", {}, facts.join(" · ")) : null,
  compact ? null : h("span.text", {}, comp.text || ""), extra ? h("span.extra", {}, extra) : null);
}

export function cardBack(label) {
  return h("div.card.back", { title: label }, h("span.name", {}, label));
}

function fmt(value) {
  if (value && typeof value === "object") return Object.entries(value).map(([k, v]) => `${v} ${k}`).join(" + ");
  return String(value);
}

// Everything else a view holds for a player: numbers as stats, ids of components as cards, the rest as text.
export function stats(pairs) {
  return h("dl.stats", {}, pairs.filter(([, v]) => v !== undefined && v !== null).map(([k, v]) =>
    h("div", {}, h("dt", {}, words(k)), h("dd", {}, typeof v === "object" ? fmt(v) : readable(v)))));
}

// A value of a view shown as is, unless it is an identifier (`buy_or_play`): then in words.
function readable(value) {
  const text = String(value);
  return /^[a-z0-9]+(_[a-z0-9]+)+$/.test(text) ? words(text) : text;
}
