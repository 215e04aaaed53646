// Nautilus: the sea map (cells by zone, stations over 3×3 cells, finds, submarines), the station stacks, the
// Atlantis tracker, and each player's Nemo, researchers, research and finds.
import { colourOf } from "../draw.js";

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
    const people = (station.researchers || []).map((n, seat) => (n ? `${n} of ${name(seat)}` : "")).filter(Boolean).join(", ");
    marks[`${x0 + 1},${y0 + 1}`] = { text: (cat.components[station.tile]?.name || station.tile).split(" ")[0].slice(0, 5),
      fill, title: `${cat.components[station.tile]?.name}${people ? `, researchers ${people}` : ""}` };
  }
  for (const find of view.finds || []) {
    const key = find.cell.join(",");
    marks[key] = { text: find.face_up ? (find.kind || "★").slice(0, 3) : "?", fill: "#f2e8cf",
      title: `${find.depth} find${find.face_up ? `: ${find.kind}` : " (face down)"}` };
  }
  view.seats.forEach((s) => (s.subs || []).forEach((sub, i) => {
    const cell = cellOf(sub);
    if (cell) marks[cell.join(",")] = { text: `S${i + 1}`, fill: seatColour(s.seat), title: `${name(s.seat)}'s submarine ${i + 1}` };
  }));
  const supply = {};
  for (const [kind, tiles] of Object.entries(view.stacks || {})) supply[`stack:${kind}`] = { text: `${kind.replace("residential_", "")} ${tiles.length}`, title: `${tiles.length} tiles` };
  supply.box = { text: `box ${(view.box || []).length}` };
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
    stats: [["colour", s.colour], ["Nemo", s.nemo], ["researchers in supply", s.supply], ["research points", s.research_points],
      ...Object.entries(s.research || {}).map(([k, r]) => [`${k} stations`, `${r.count} (value ${r.value})`]),
      ["assignment", s.assignment ? cat.components[s.assignment]?.name || s.assignment : "hidden"]],
    rows: [
      { key: "stations", title: "Stations", ids: (view.stations || []).filter((st) => st.owner === s.seat).map((st) => st.tile), compact: true },
      { key: "held", title: "Bought, not yet built", ids: (s.held || []).map(idOf), compact: true },
      { key: "tableau", title: "Finds", ids: (s.tableau || []).map(idOf), compact: true },
      { key: "atlantis", title: "Atlantis finds", ids: (s.atlantis || []).map(idOf), compact: true },
    ],
  }));
  return {
    summary: [["round", view.round], ["phase", view.phase], ["final round", view.final_round ? "yes" : "no"]],
    boards: [
      { board: cat.boards.map, marks, title: "The sea", testid: "main-board" },
      { board: cat.boards.supply, marks: supply, title: "Station stacks and the box" },
      { board: trackBoard(cat.tracks.atlantis), marks: atlantis, title: "Ruins of Atlantis", mine: false },
    ],
    rows: [],
    players,
  };
}
