// boardgame.io 0.50's server with its default in-memory storage and socket.io transport, serving the
// counter game and its lobby API on one port.  Usage: node server.js PORT
'use strict';

const { Server } = require('boardgame.io/server');
const { Counter } = require('./counter');

const port = Number.parseInt(process.argv[2], 10);
if (!Number.isInteger(port)) {
  console.error('usage: node server.js PORT');
  process.exit(2);
}

const server = Server({ games: [Counter], origins: [`http://127.0.0.1:${port}`] });
// Listen on the loopback interface only (run() passes just the port; the socket.io attachment made
// app.listen forward its arguments to the HTTP server's listen).
const listen = server.app.listen;
server.app.listen = (listenPort, callback) => listen.call(server.app, listenPort, '127.0.0.1', callback);
server.run({ port }).then(() => {
  process.stdout.write(JSON.stringify({ event: 'ready', port, pid: process.pid }) + '\n');
});

process.on('SIGTERM', () => process.exit(0));
