#!/usr/bin/env node
// Heap bytes allocated per tool call by one or more builds of mcpwire, measured so that no other process can
// move the figure: server and client in this one process, a young generation large enough that no GC runs while
// the calls are counted (checked: a run that saw one is thrown away), and the growth of the used heap divided by
// the calls. Garbage included: this is what a call costs the GC, not what it keeps. The client is the same code
// for every build (node:http with keep-alive), so a difference between builds is the server's.
//
//   node --expose-gc --max-semi-space-size=256 bench/alloc-ab.mjs --lib /tmp/old/dist/index.js --lib dist/index.js
//   [--calls 2000] [--reps 5]
//
// Scenarios: `legacy-json` (a 2025-11-25 session, JSON-response mode, tools/call echo) and `modern` (2026-07-28,
// each POST its own request with the _meta envelope and Mcp-* headers).
import http from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ECHO_TOOL, echo } from './lib/echo-tool.mjs';

const { values: a } = parseArgs({
  options: {
    lib: { type: 'string', multiple: true, default: [] },
    calls: { type: 'string', default: '2000' },
    reps: { type: 'string', default: '5' },
  },
});
if (typeof globalThis.gc !== 'function')
  throw new Error('run with node --expose-gc --max-semi-space-size=256');
const CALLS = Number(a.calls);
const libs = a.lib.length > 0 ? a.lib : [new URL('../dist/index.js', import.meta.url).pathname];

let gcs = 0;
new PerformanceObserver((list) => {
  gcs += list.getEntries().length;
}).observe({ entryTypes: ['gc'] });

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function post(port, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const BASE = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  host: '127.0.0.1',
};

async function legacyCaller(port) {
  const init = await post(
    port,
    BASE,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'alloc', version: '1' },
      },
    }),
  );
  const headers = {
    ...BASE,
    'mcp-session-id': init.headers['mcp-session-id'],
    'mcp-protocol-version': '2025-11-25',
  };
  await post(port, headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  let id = 1;
  return () =>
    post(
      port,
      headers,
      `{"jsonrpc":"2.0","id":${id++},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`,
    );
}

async function modernCaller(port) {
  const headers = {
    ...BASE,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'echo',
  };
  const meta =
    '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';
  let id = 1;
  return () =>
    post(
      port,
      headers,
      `{"jsonrpc":"2.0","id":${id++},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},${meta}}}`,
    );
}

async function measure(lib, scenario) {
  const { Server, StreamableHTTPHandler } = await import(pathToFileURL(lib).href);
  const server = new Server({ name: 'alloc', version: '1' });
  server.tool(ECHO_TOOL, echo);
  const handler = new StreamableHTTPHandler(server, { jsonResponse: true });
  const httpServer = http.createServer(handler.node());
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address();
  try {
    const call = await (scenario === 'modern' ? modernCaller(port) : legacyCaller(port));
    for (let i = 0; i < 2000; i++) await call(); // warm: JIT, inline caches
    for (let attempt = 0; attempt < 5; attempt++) {
      globalThis.gc();
      globalThis.gc();
      // The observer hears of those GCs later: let it, before counting.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const before = { gcs, heap: process.memoryUsage().heapUsed };
      for (let i = 0; i < CALLS; i++) {
        const res = await call();
        if (res.status !== 200 || !res.text.includes('hello'))
          throw new Error(`call failed: ${res.status} ${res.text}`);
      }
      const heap = process.memoryUsage().heapUsed;
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (gcs === before.gcs) return (heap - before.heap) / CALLS;
    }
    throw new Error('a GC ran during every attempt: raise --max-semi-space-size or lower --calls');
  } finally {
    await handler.close({ deadlineMs: 0 });
    httpServer.closeAllConnections();
    await new Promise((resolve) => httpServer.close(resolve));
  }
}

const results = new Map();
for (let rep = 0; rep < Number(a.reps); rep++) {
  const order = rep % 2 === 0 ? libs : [...libs].reverse();
  for (const scenario of ['legacy-json', 'modern']) {
    for (const lib of order) {
      const bytes = await measure(lib, scenario);
      const key = `${scenario}\t${lib}`;
      results.set(key, [...(results.get(key) ?? []), bytes]);
    }
  }
}
console.log('scenario\tlib\tbytes per call: median [min-max]');
for (const [key, values] of results) {
  values.sort((x, y) => x - y);
  const median = values[Math.floor(values.length / 2)];
  console.log(`${key}\t${Math.round(median)} [${Math.round(values[0])}-${Math.round(values.at(-1))}]`);
}
agent.destroy();
