// Aquatica: the central board (Character row, Location rows, goals, Wild Mantas), each player's board of
// Locations, hand, discard, Mantas and scoring pile.
import { t, tn } from "../i18n.js";

export function layout(view, cat, me, name) {
  const central = cat.boards.central;
  const marks = {};
  const short = (id) => cat.components[id]?.name || id;  // drawn in full, wrapped to fit its space
  const tip = (id) => (cat.components[id] ? `${cat.components[id].name}: ${cat.components[id].text || ""}` : id);
  for (const slot of view.characters?.row || []) {
    if (slot.card_id) marks[`row:${slot.slot}`] = { text: short(slot.card_id), fill: "#cdb4db", title: `${tip(slot.card_id)} (${tn(slot.cost, "{n} coin", "{n} coins")})` };
  }
  (view.locations?.top_row || []).forEach((id, i) => { if (id) marks[`top:${i}`] = { text: short(id), fill: "#a2d2ff", title: tip(id) }; });
  (view.locations?.bottom_row || []).forEach((id, i) => { if (id) marks[`bottom:${i}`] = { text: short(id), fill: "#bde0fe", title: tip(id) }; });
  marks.location_deck = { text: t("{n} left", { n: view.locations?.deck_count ?? 0 }) };
  marks.ocean_deck = { text: t("{n} left", { n: view.characters?.deck_count ?? 0 }) };
  for (const goal of view.goals || []) {
    marks[`goal:${goal.index}`] = { text: cat.components[goal.goal_id]?.name || goal.goal_id,
      title: cat.components[goal.goal_id] ? tip(goal.goal_id) : goal.text };
    (goal.track || []).forEach((entry, i) => {
      const seat = Number.isInteger(entry) ? entry : entry?.seat;
      marks[`goal:${goal.index}:${i + 1}`] = { text: name(seat), fill: "#ffd166", title: t("claimed by {name}", { name: name(seat) }) };
    });
  }
  for (const [kind, count] of Object.entries(view.wild_reserve || {})) marks[`wild:${kind}`] = { text: `${count}`, title: `${tip(kind)} (${t("{n} left", { n: count })})` };
  const tracks = Object.values(cat.tracks).filter((track) => track.board_kind === central.kind);
  const players = view.players.map((p) => {
    const own = {};
    (p.board || []).forEach((spot, i) => {
      if (spot) own[`slot:${i}`] = { text: short(spot.location_id), fill: spot.fully_risen ? "#90e0ef" : "#caf0f8",
        title: `${tip(spot.location_id)} — ${t("{covered}/{depths} depths covered", { covered: spot.covered, depths: spot.depth_count })}${spot.fully_risen ? `, ${t("fully risen")}` : ""}` };
    });
    own["player:hand"] = { text: t("{n} in hand", { n: p.hand_count }) };
    own["player:discard"] = { text: t("{n} discarded", { n: p.discard_count }) };
    own["player:scoring_pile"] = { text: t("{n} scored", { n: p.scoring_pile_count }) };
    own["player:king"] = { text: p.king_id ? short(p.king_id) : "" };
    own["player:mantas"] = { text: t("{ready}/{all} ready", { ready: (p.mantas || []).filter((m) => m.ready).length, all: (p.mantas || []).length }) };
    const hand = p.hand || [];
    return {
      seat: p.seat,
      score: p.scoring_pile_pp != null ? [t("prosperity scored"), p.scoring_pile_pp] : null,  // a face-down pile: no public score
      stats: [[t("prosperity scored"), p.scoring_pile_pp], [t("cards in hand"), p.hand_count], [t("discard"), p.discard_count],
        [t("scoring pile"), p.scoring_pile_count], [t("goals claimed"), (p.goals_claimed || []).map((g) => g + 1).join(", ") || t("none")]],
      boards: [{ board: cat.boards.player_board, marks: own, mine: p.seat === me, title: t("{name}'s board", { name: name(p.seat) }) }],
      rows: [
        { key: "locations", title: t("Locations"), ids: (p.board || []).filter(Boolean).map((spot) => spot.location_id), compact: true },
        { key: "hand", title: p.seat === me ? t("Your hand") : t("Hand"), ids: hand, backs: Math.max(0, p.hand_count - hand.length), backLabel: t("Character") },
        { key: "mantas", title: t("Mantas"), ids: (p.mantas || []).map((m) => m.manta_id), compact: true,
          extras: Object.fromEntries((p.mantas || []).map((m) => [m.manta_id, m.ready ? t("ready") : t("tired")])) },
        { key: "discard", title: t("Discard pile"), ids: p.discard || (p.discard_top ? [p.discard_top] : []), compact: true },
        { key: "scoring", title: t("Scoring pile"), ids: p.scoring_pile || [], compact: true },
      ],
    };
  });
  return {
    summary: [[t("turn"), view.turn?.turn_number], [t("active"), view.turn ? name(view.turn.active_seat) : null],
      [t("stage"), view.turn?.stage && (cat.terms?.[view.turn.stage]?.name || view.turn.stage)], [t("coins"), view.turn?.pool?.coins],
      [t("power"), view.turn?.pool?.power]],
    boards: [{ board: central, tracks, marks, title: t("Central board"), testid: "main-board",
      legend: [["PP", t("prosperity points")], ["1–3", t("the spots of a goal, in the order players claim it")]] }],
    rows: [
      { key: "character_row", title: t("Character row"), ids: (view.characters?.row || []).map((s) => s.card_id).filter(Boolean), compact: true,
        extras: Object.fromEntries((view.characters?.row || []).map((s) => [s.card_id, tn(s.cost, "{n} coin", "{n} coins")])) },
      { key: "locations", title: t("Locations on offer"), ids: [...(view.locations?.top_row || []), ...(view.locations?.bottom_row || [])].filter(Boolean), compact: true },
    ],
    players,
  };
}

// The final score by the rules' categories (GET /games/{id}/scores, each result's breakdown).
export const scoring = () => [
  { key: "location_pp", label: t("Locations scored") },
  { key: "goal_pp", label: t("Goals") },
  { key: "hand_pp", label: t("Cards in hand") },
];
