// Aquatica: the central board (Character row, Location rows, goals, Wild Mantas), each player's board of
// Locations, hand, discard, Mantas and scoring pile.
export function layout(view, cat, me, name) {
  const central = cat.boards.central;
  const marks = {};
  const short = (id) => cat.components[id]?.name || id;  // drawn in full, wrapped to fit its space
  const tip = (id) => (cat.components[id] ? `${cat.components[id].name}: ${cat.components[id].text || ""}` : id);
  for (const slot of view.characters?.row || []) {
    if (slot.card_id) marks[`row:${slot.slot}`] = { text: short(slot.card_id), fill: "#cdb4db", title: `${tip(slot.card_id)} (${slot.cost} coins)` };
  }
  (view.locations?.top_row || []).forEach((id, i) => { if (id) marks[`top:${i}`] = { text: short(id), fill: "#a2d2ff", title: tip(id) }; });
  (view.locations?.bottom_row || []).forEach((id, i) => { if (id) marks[`bottom:${i}`] = { text: short(id), fill: "#bde0fe", title: tip(id) }; });
  marks.location_deck = { text: `${view.locations?.deck_count ?? 0} left` };
  marks.ocean_deck = { text: `${view.characters?.deck_count ?? 0} left` };
  for (const goal of view.goals || []) {
    marks[`goal:${goal.index}`] = { text: cat.components[goal.goal_id]?.name || goal.goal_id,
      title: cat.components[goal.goal_id] ? tip(goal.goal_id) : goal.text };
    (goal.track || []).forEach((entry, i) => {
      const seat = Number.isInteger(entry) ? entry : entry?.seat;
      marks[`goal:${goal.index}:${i + 1}`] = { text: name(seat), fill: "#ffd166", title: `claimed by ${name(seat)}` };
    });
  }
  for (const [kind, count] of Object.entries(view.wild_reserve || {})) marks[`wild:${kind}`] = { text: `${count}`, title: `${tip(kind)} (${count} left)` };
  const tracks = Object.values(cat.tracks).filter((t) => t.board_kind === central.kind);
  const players = view.players.map((p) => {
    const own = {};
    (p.board || []).forEach((spot, i) => {
      if (spot) own[`slot:${i}`] = { text: short(spot.location_id), fill: spot.fully_risen ? "#90e0ef" : "#caf0f8",
        title: `${tip(spot.location_id)} — ${spot.covered}/${spot.depth_count} depths covered${spot.fully_risen ? ", fully risen" : ""}` };
    });
    own["player:hand"] = { text: `${p.hand_count} in hand` };
    own["player:discard"] = { text: `${p.discard_count} discarded` };
    own["player:scoring_pile"] = { text: `${p.scoring_pile_count} scored` };
    own["player:king"] = { text: p.king_id ? short(p.king_id) : "" };
    own["player:mantas"] = { text: `${(p.mantas || []).filter((m) => m.ready).length}/${(p.mantas || []).length} ready` };
    const hand = p.hand || [];
    return {
      seat: p.seat,
      stats: [["prosperity scored", p.scoring_pile_pp], ["cards in hand", p.hand_count], ["discard", p.discard_count],
        ["scoring pile", p.scoring_pile_count], ["goals claimed", (p.goals_claimed || []).map((g) => g + 1).join(", ") || "none"]],
      boards: [{ board: cat.boards.player_board, marks: own, mine: p.seat === me, title: `${name(p.seat)}'s board` }],
      rows: [
        { key: "locations", title: "Locations", ids: (p.board || []).filter(Boolean).map((spot) => spot.location_id), compact: true },
        { key: "hand", title: p.seat === me ? "Your hand" : "Hand", ids: hand, backs: Math.max(0, p.hand_count - hand.length), backLabel: "Character" },
        { key: "mantas", title: "Mantas", ids: (p.mantas || []).map((m) => m.manta_id), compact: true,
          extras: Object.fromEntries((p.mantas || []).map((m) => [m.manta_id, m.ready ? "ready" : "tired"])) },
        { key: "discard", title: "Discard pile", ids: p.discard || (p.discard_top ? [p.discard_top] : []), compact: true },
        { key: "scoring", title: "Scoring pile", ids: p.scoring_pile || [], compact: true },
      ],
    };
  });
  return {
    summary: [["turn", view.turn?.turn_number], ["active", view.turn ? name(view.turn.active_seat) : null],
      ["stage", view.turn?.stage], ["coins", view.turn?.pool?.coins], ["power", view.turn?.pool?.power]],
    boards: [{ board: central, tracks, marks, title: "Central board", testid: "main-board",
      legend: [["PP", "prosperity points"], ["1–3", "the spots of a goal, in the order players claim it"]] }],
    rows: [
      { key: "character_row", title: "Character row", ids: (view.characters?.row || []).map((s) => s.card_id).filter(Boolean), compact: true,
        extras: Object.fromEntries((view.characters?.row || []).map((s) => [s.card_id, `${s.cost} coins`])) },
      { key: "locations", title: "Locations on offer", ids: [...(view.locations?.top_row || []), ...(view.locations?.bottom_row || [])].filter(Boolean), compact: true },
    ],
    players,
  };
}
