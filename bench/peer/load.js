// Closed-loop load on boardgame.io: GAMES concurrent counter matches, each created through the lobby API
// (create, then join both seats), each seat on its own socket.io connection (websocket transport), each
// seat sending its move as soon as an update shows it is its turn.  A finished match is replaced by a new
// one on the same two connections (a `sync` with the new match id, as the official client does when its
// match id changes).
//
// Prints JSON lines on stdout: {"event":"window_start"} when the warm-up ends, {"event":"window_end"} when
// the measured window ends (the driver samples the server's CPU at those lines), then {"event":"result",...}.
//
//   node load.js --url http://127.0.0.1:PORT [--games 200] [--moves 100] [--warmup 10] [--seconds 20]
'use strict';

const { io } = require('socket.io-client');

function options(argv) {
  const opts = { url: null, games: 200, moves: 100, warmup: 10, seconds: 20 };
  for (let i = 2; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in opts)) throw new Error(`unknown option ${argv[i]}`);
    opts[key] = key === 'url' ? argv[i + 1] : Number(argv[i + 1]);
  }
  if (!opts.url) throw new Error('--url is required');
  return opts;
}

const opts = options(process.argv);
const GAME = 'counter';
const STALL_MS = 10000; // no update for this long: ask the server for the match state again

const now = () => performance.now();
const started = now();
const windowStart = started + opts.warmup * 1000;
const deadline = windowStart + opts.seconds * 1000;

const latencies = []; // ms, moves answered inside the window
let movesInWindow = 0;
let movesTotal = 0;
let matchesFinished = 0;
let resyncs = 0;
const errors = [];

function emitLine(object) {
  process.stdout.write(JSON.stringify(object) + '\n');
}

async function lobby(path, body) {
  const reply = await fetch(`${opts.url}/games/${GAME}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await reply.text();
  if (!reply.ok) throw new Error(`POST ${path}: ${reply.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

function connect() {
  // forceNew: one connection per seat (socket.io would otherwise multiplex both seats on one).
  const socket = io(`${opts.url}/${GAME}`, { transports: ['websocket'], forceNew: true, reconnection: false });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

// One lane: two seats playing matches back to back until the deadline.
async function lane(index) {
  const sockets = await Promise.all([connect(), connect()]);
  let match = null; // { id, credentials, sentAt, sentStateID, done, lastProgress }

  function onState(seat, matchID, state) {
    if (!match || matchID !== match.id || match.done) return;
    const playerID = String(seat);
    if (match.sentAt[seat] !== null && state._stateID > match.sentStateID[seat]) {
      const at = now();
      movesTotal += 1;
      if (at >= windowStart && at <= deadline) {
        movesInWindow += 1;
        latencies.push(at - match.sentAt[seat]);
      }
      match.sentAt[seat] = null;
    }
    match.lastProgress = now();
    if (state.ctx.gameover !== undefined) {
      match.done = true;
      matchesFinished += 1;
      match.resolve();
      return;
    }
    if (now() >= deadline) {
      match.done = true;
      match.resolve();
      return;
    }
    if (state.ctx.currentPlayer === playerID && match.sentAt[seat] === null && state._stateID > match.sentStateID[seat]) {
      match.sentAt[seat] = now();
      match.sentStateID[seat] = state._stateID;
      const action = {
        type: 'MAKE_MOVE',
        payload: { type: 'increment', args: [], playerID, credentials: match.credentials[seat] },
      };
      sockets[seat].emit('update', action, state._stateID, match.id, playerID);
    }
  }

  sockets.forEach((socket, seat) => {
    socket.on('sync', (matchID, syncInfo) => onState(seat, matchID, syncInfo.state));
    socket.on('update', (matchID, state) => onState(seat, matchID, state));
    socket.on('disconnect', (reason) => {
      if (match && !match.done) errors.push(`lane ${index} seat ${seat} disconnected: ${reason}`);
    });
  });

  while (now() < deadline) {
    const { matchID } = await lobby('/create', { numPlayers: 2, setupData: { moves: opts.moves } });
    const credentials = [];
    for (const playerID of ['0', '1']) {
      const joined = await lobby(`/${matchID}/join`, { playerID, playerName: `load${index}-${playerID}` });
      credentials.push(joined.playerCredentials);
    }
    await new Promise((resolve) => {
      const current = {
        id: matchID, credentials, sentAt: [null, null], sentStateID: [-1, -1], done: false,
        lastProgress: now(), resolve,
      };
      match = current;
      sockets.forEach((socket, seat) => socket.emit('sync', matchID, String(seat), credentials[seat], 2));
      const watchdog = setInterval(() => {
        if (current.done) {
          clearInterval(watchdog);
        } else if (now() - current.lastProgress > STALL_MS) {
          resyncs += 1;
          current.sentAt = [null, null];
          current.sentStateID = [-1, -1];
          current.lastProgress = now();
          sockets.forEach((socket, seat) => socket.emit('sync', matchID, String(seat), credentials[seat], 2));
        }
      }, 1000);
    });
  }
  sockets.forEach((socket) => socket.close());
}

function quantile(sorted, q) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main() {
  const timers = [setTimeout(() => emitLine({ event: 'window_start' }), windowStart - now())];
  const windowEnded = new Promise((resolve) =>
    timers.push(
      setTimeout(() => {
        emitLine({ event: 'window_end' });
        resolve();
      }, deadline - now())
    )
  );
  const lanes = [];
  for (let i = 0; i < opts.games; i += 1) {
    lanes.push(lane(i).catch((error) => errors.push(`lane ${i}: ${error.message || error}`)));
  }
  await windowEnded;
  await Promise.all(lanes);
  latencies.sort((a, b) => a - b);
  const round = (x, digits = 2) => Number(x.toFixed(digits));
  const mean = latencies.length ? latencies.reduce((a, b) => a + b, 0) / latencies.length : 0;
  emitLine({
    event: 'result',
    concurrent_games: opts.games,
    moves_per_game: opts.moves,
    warmup_s: opts.warmup,
    measured_s: opts.seconds,
    moves: movesInWindow,
    moves_per_s: round(movesInWindow / opts.seconds, 1),
    move_latency_ms: {
      p50: round(quantile(latencies, 0.5)),
      p90: round(quantile(latencies, 0.9)),
      p99: round(quantile(latencies, 0.99)),
      mean: round(mean),
    },
    moves_total: movesTotal,
    matches_finished: matchesFinished,
    resyncs,
    errors: errors.slice(0, 10),
    error_count: errors.length,
  });
  timers.forEach(clearTimeout);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  }
);
