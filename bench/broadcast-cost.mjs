#!/usr/bin/env node
import { pathToFileURL } from 'node:url';
// What a server-wide notification costs the server's event loop, in process and with no socket: `Server.log` to
// N sessions of a StreamableHTTPHandler (served through its fetch handler), none of which opened a GET stream, so
// the message reaches no one. That is the common case of a server whose clients never listen; it must cost little.
//
//   node bench/broadcast-cost.mjs [--sessions 1000] [--rounds 30] [--lib OTHER/dist/index.js]
import { parseArgs } from 'node:util';

const { values: a } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '30' },
    lib: { type: 'string' },
  },
});
const lib = a.lib === undefined ? new URL('../dist/index.js', import.meta.url) : pathToFileURL(a.lib);
const { Server, StreamableHTTPHandler } = await import(lib.href);
const sessions = Number(a.sessions);

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
for (let i = 0; i < sessions; i++) {
  const res = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
  const session = {
    'mcp-session-id': res.headers.get('mcp-session-id'),
    'mcp-protocol-version': '2025-11-25',
  };
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
}

const ms = [];
for (let i = 0; i < Number(a.rounds); i++) {
  const t0 = process.hrtime.bigint();
  const reached = server.log('info', { round: i });
  ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (reached !== sessions) throw new Error(`Server.log reached ${reached} sessions, not ${sessions}`);
}
ms.sort((x, y) => x - y);
const median = ms[ms.length >> 1];
console.log(
  `Server.log to ${sessions} sessions with no GET stream: median ${median.toFixed(3)} ms (${((median * 1000) / sessions).toFixed(2)} µs per session), min ${ms[0].toFixed(3)}, max ${ms.at(-1).toFixed(3)}`,
);
process.exit(0);
