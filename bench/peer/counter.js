// The trivial two-player counter game of the peer benchmark, on boardgame.io 0.50: the same game as
// bench/counter_engine.py (seats alternate, the only move is `increment`, the game ends after `moves`
// increments, nothing hidden, nothing random).
'use strict';

const DEFAULT_MOVES = 100;
const MAX_MOVES = 10000;

function movesOf(setupData) {
  const moves = setupData && setupData.moves !== undefined ? setupData.moves : DEFAULT_MOVES;
  return Number.isInteger(moves) && moves >= 1 && moves <= MAX_MOVES ? moves : undefined;
}

const Counter = {
  name: 'counter',
  minPlayers: 2,
  maxPlayers: 2,
  validateSetupData: (setupData) =>
    movesOf(setupData) === undefined ? `moves is an integer from 1 to ${MAX_MOVES}` : undefined,
  setup: (_context, setupData) => ({ count: 0, moves: movesOf(setupData), increments: [0, 0] }),
  turn: { minMoves: 1, maxMoves: 1 }, // one increment per turn: the seats alternate
  moves: {
    increment: ({ G, playerID }) => {
      G.count += 1;
      G.increments[Number(playerID)] += 1;
    },
  },
  endIf: ({ G }) => (G.count >= G.moves ? { increments: G.increments } : undefined),
};

module.exports = { Counter, DEFAULT_MOVES, MAX_MOVES };
