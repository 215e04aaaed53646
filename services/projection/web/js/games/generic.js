// A game with no layout of its own (an engine registered with BENTHIC_EXTRA_ENGINES, say): the plain values of its
// view, the game's and each seat's, as lists; the moves and the history are the page's own, as for every game.
const plain = (object) => Object.entries(object || {})
  .filter(([key, value]) => key !== "version" && (value === null || typeof value !== "object"));

export function layout(view) {
  const seats = Array.isArray(view.players) ? view.players : [];
  return {
    summary: plain(view),
    boards: [],
    players: seats.map((p, i) => ({ seat: Number.isInteger(p?.seat) ? p.seat : i, stats: plain(p) })),
  };
}
