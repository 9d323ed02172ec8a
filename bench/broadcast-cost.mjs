#!/usr/bin/env node
// What a server-wide notification costs the server's event loop, in process: `Server.log` to N sessions of a
// StreamableHTTPHandler (served through its fetch handler), none of which opened a GET stream, so the message
// reaches no one. That is the common case of a server whose clients never listen; it must cost little.
//
// With --streams, each session has its GET stream, read over a loopback socket of node:http, and the loop is timed
// beside two floors in the same process, each over N node:http responses of its own: the plain ceiling's (one
// string written to each) and a resumable server's (`lib/resumable-log.mjs`, as `ceiling.mjs --resumable`: an id of
// each stream's own and the event kept for a resuming client). Node corks each socket until the next tick, so the
// loops time JavaScript, not system calls.
//
//   node bench/broadcast-cost.mjs [--sessions 1000] [--rounds 30] [--streams] [--lib OTHER/dist/index.js]
import http from 'node:http';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ResumableLog, writeResumable } from './lib/resumable-log.mjs';

const { values: a } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '30' },
    streams: { type: 'boolean', default: false },
    lib: { type: 'string' },
  },
});
const lib = a.lib === undefined ? new URL('../dist/index.js', import.meta.url) : pathToFileURL(a.lib);
const { Server, StreamableHTTPHandler } = await import(lib.href);
const sessions = Number(a.sessions);
const rounds = Number(a.rounds);

const server = new Server({ name: 'broadcast-cost', version: '0.0.0' }, { capabilities: { logging: {} } });
const handler = new StreamableHTTPHandler(server, { maxSessions: sessions + 10 });
const url = 'http://127.0.0.1:3000/mcp';
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const post = async (body, extra = {}) => {
  const res = await handler.fetch(
    new Request(url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) }),
  );
  await res.text();
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res;
};
const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } };
const ids = [];
for (let i = 0; i < sessions; i++) {
  const res = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
  const session = {
    'mcp-session-id': res.headers.get('mcp-session-id'),
    'mcp-protocol-version': '2025-11-25',
  };
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  ids.push(session['mcp-session-id']);
}

const sockets = [];
/** Listens on a loopback port with `serve`; answers the port. */
async function listening(serve) {
  const listener = http.createServer(serve);
  await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return listener.address().port;
}
/** Opens a socket that sends `request` and reads on; resolves once its response's head is a 200, else fails. */
function stream(port, request) {
  const socket = net.connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.write(request);
  return new Promise((resolve, reject) => {
    socket.once('data', (head) => {
      const status = String(head).split('\r\n', 1)[0];
      if (status === 'HTTP/1.1 200 OK') resolve();
      else reject(new Error(`a GET stream was refused: ${status}`));
      socket.on('data', () => {});
    });
  });
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));
/** Median ms of `round(i)` over the rounds; with streams, a tick apart so that each round's writes leave. */
async function timed(round) {
  const ms = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint();
    round(i);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (a.streams) await tick();
  }
  ms.sort((x, y) => x - y);
  return { median: ms[ms.length >> 1], min: ms[0], max: ms.at(-1) };
}
const logRound = (i) => {
  const reached = server.log('info', { round: i });
  if (reached !== sessions) throw new Error(`Server.log reached ${reached} sessions, not ${sessions}`);
};
const fmt = (t, each = 'stream') =>
  `median ${t.median.toFixed(3)} ms (${((t.median * 1000) / sessions).toFixed(2)} µs per ${each}), min ${t.min.toFixed(3)}, max ${t.max.toFixed(3)}`;

if (!a.streams) {
  const t = await timed(logRound);
  console.log(`Server.log to ${sessions} sessions with no GET stream: ${fmt(t, 'session')}`);
  process.exit(0);
}

// Each session's GET stream and a floor's response are opened one after the other, so that the floors'
// responses lie in the heap among other objects, as mcpwire's do and as a server's would. The loops are that
// sensitive to it: with 100 and 400 small objects kept between each two responses, the plain loop took 0.67
// and 0.82 µs per stream, not 0.50.
const ourPort = await listening(handler.node());
// The resumable floor's record of each stream is made as its GET is served, as ceiling.mjs --resumable does.
const log = new ResumableLog();
const floors = [];
const floorPort = await listening((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
  floors.push({ res, minLevel: 0, events: log.open(`g${floors.length}`) });
});
for (let i = 0; i < sessions; i++) {
  await stream(
    ourPort,
    [
      'GET /mcp HTTP/1.1',
      `host: 127.0.0.1:${ourPort}`,
      'accept: text/event-stream',
      `mcp-session-id: ${ids[i]}`,
      'mcp-protocol-version: 2025-11-25',
      '',
      '',
    ].join('\r\n'),
  );
  await stream(floorPort, 'GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
}
const ours = await timed(logRound);
const message = (i) =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'info', data: { round: i } },
  });
const plain = await timed((i) => {
  const frame = `data: ${message(i)}\n\n`;
  for (const floor of floors) floor.res.write(frame);
});
const resumable = await timed((i) => {
  const body = message(i);
  const frame = `data: ${body}\n\n`;
  for (const floor of floors) writeResumable(log, floor, floor.res, body, frame);
});
console.log(`Server.log to ${sessions} GET streams: ${fmt(ours)}`);
console.log(`the plain ceiling's loop: ${fmt(plain)}`);
console.log(`a resumable server's loop: ${fmt(resumable)}`);
for (const socket of sockets) socket.destroy();
process.exit(0);
