#!/usr/bin/env node
// The bench server: mcpwire as users get it (the built library in dist/, not the sources), serving
// the tools the harness needs (README.md, "What a server must expose") on node:http.
//
//   npm run build && node bench/server.mjs --port 3000 [--stateless] [--json] [--no-event-store]
//   (with node --expose-gc, the `gc` tool is offered too; `sessions --gc-tool gc` needs it)
//   --lib DIR/index.js serves another build (e.g. the commit before a change) instead of ../dist
//   --middleware N registers N pass-through middleware (each awaits next() and returns its answer): what a
//   request pays for Server.use
//   --rate-limit sets rateLimit { requests, concurrent } far above what the harness sends: what a request pays
//   for being counted
//
// Everything else is the handler's default (the loopback DNS-rebinding policy: the harness sends
// Host 127.0.0.1:port; a MemoryEventStore for resumable streams) but maxSessions, 25,000 here.
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { ECHO_TOOL, echo } from './lib/echo-tool.mjs';

const { values: a } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '3000' },
    stateless: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'no-event-store': { type: 'boolean', default: false },
    // the sessions scenarios open 10,000 sessions on top of 200 (or 10,000) warm ones
    'max-sessions': { type: 'string', default: '25000' },
    lib: { type: 'string' },
    middleware: { type: 'string', default: '0' },
    'rate-limit': { type: 'boolean', default: false },
  },
});
const lib = a.lib === undefined ? new URL('../dist/index.js', import.meta.url) : pathToFileURL(a.lib);
const { Server, StreamableHTTPHandler } = await import(lib.href);

const server = new Server({ name: 'mcpwire-bench', version: '0.1.0' });
for (let i = 0; i < Number(a.middleware); i++) server.use(async (_call, next) => next());
const blobs = new Map();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });

server.tool(ECHO_TOOL, echo);

server.tool(
  {
    name: 'blob',
    description: 'Returns exactly size ASCII characters (cached per size)',
    inputSchema: {
      type: 'object',
      properties: { size: { type: 'integer', minimum: 0, maximum: 64 * 1024 * 1024 } },
      required: ['size'],
    },
  },
  ({ size }) => {
    if (!blobs.has(size)) blobs.set(size, 'x'.repeat(size));
    return text(blobs.get(size));
  },
);

server.tool(
  {
    name: 'broadcast',
    description: "Sends notifications/message carrying nonce to every session's standalone GET stream",
    inputSchema: { type: 'object', properties: { nonce: { type: 'string' } }, required: ['nonce'] },
  },
  ({ nonce }) =>
    // Server.log sends one notifications/message to every session's standalone GET stream, serialized once.
    text(String(server.log('info', { nonce }))),
);

server.tool(
  {
    name: 'progress',
    description: 'Sends count progress notifications on the request stream, intervalMs apart, then returns',
    inputSchema: {
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 0, maximum: 100_000 },
        intervalMs: { type: 'integer', minimum: 0, maximum: 60_000 },
      },
      required: ['count'],
    },
  },
  async ({ count, intervalMs = 0 }, ctx) => {
    for (let i = 1; i <= count; i++) {
      await ctx.sendProgress(i, count);
      if (intervalMs) await sleep(intervalMs);
    }
    return text(`sent ${count}`);
  },
);

if (typeof globalThis.gc === 'function') {
  // process.memoryUsage() is what the harness reads; the V8 spaces say where RSS that stays is held.
  server.tool({ name: 'gc', description: 'Forces a full GC; returns process.memoryUsage()' }, () => {
    globalThis.gc();
    const spaces = Object.fromEntries(
      v8.getHeapSpaceStatistics().map((s) => [s.space_name, [s.space_size, s.space_used_size]]),
    );
    return text(JSON.stringify({ ...process.memoryUsage(), spaces }));
  });
}

const handler = new StreamableHTTPHandler(server, {
  stateless: a.stateless,
  jsonResponse: a.json,
  eventStore: a['no-event-store'] ? null : undefined,
  maxSessions: Number(a['max-sessions']),
  rateLimit: a['rate-limit'] ? { requests: 1e12, concurrent: 1e9 } : undefined,
  onerror: (err) => console.error('mcpwire error:', err?.message ?? err),
});

const port = Number(a.port);
const httpServer = http.createServer(handler.node());
httpServer.keepAliveTimeout = 65_000;
httpServer.listen(port, '127.0.0.1', () => {
  const mode = `${a.stateless ? 'stateless' : 'stateful'} ${a.json ? 'json' : 'sse'}${a['no-event-store'] ? ' no-event-store' : ''}`;
  console.log(`mcpwire bench server (${mode}) on http://127.0.0.1:${port}/mcp`);
});
process.on('SIGTERM', () => process.exit(0));
