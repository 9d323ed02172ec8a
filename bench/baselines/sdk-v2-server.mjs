#!/usr/bin/env node
import { randomUUID } from 'node:crypto';
// Baseline MCP Streamable HTTP server on the official TypeScript SDK v2 (@modelcontextprotocol/server
// 2.4.0 + @modelcontextprotocol/node 2.1.2), on plain node:http the way the v2 docs show it
// (docs/serving/http.md, sessions-state-scaling.md, legacy-clients.md): bound to 127.0.0.1, with
// localhostHostValidation() + localhostOriginValidation() in front. Same tools as sdk-server.mjs:
// echo, blob, broadcast, progress, and gc (only with node --expose-gc).
//
//   node sdk-v2-server.mjs [--port 3000] [--mode stateful|stateless | --stateless] [--json]
//                          [--event-store] [--dual-era] [--http node]
//   stateful (default) the v2 docs' sessionful 2025-era wiring: one McpServer +
//                  NodeStreamableHTTPServerTransport per session (sessionIdGenerator) in a Map; the
//                  body is read and JSON.parsed here and passed as parsedBody (as sdk-server.mjs --http node)
//   --stateless    createMcpHandler(factory) + toNodeHandler(): v2's default entry. 2025-era requests
//                  take its stateless legacy fallback (fresh server + transport per request, always SSE;
//                  GET/DELETE answer 405)
//   --stateless --json  createMcpHandler's legacy leg has no JSON mode, so this is the hand-wired
//                  per-request NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined,
//                  enableJsonResponse: true }) of the @modelcontextprotocol/node README
//   --json         enableJsonResponse: true (stateful: answers as application/json instead of SSE)
//   --event-store  the v2 repository's examples/shared/src/inMemoryEventStore.ts (not on npm; ported
//                  below unchanged), one store per session
//   --dual-era     stateful, with every POST classified by isLegacyRequest() first and non-legacy
//                  traffic sent to a strict createMcpHandler(factory, { legacy: 'reject' })
//                  (examples/legacy-routing/server.ts): the cost of serving both eras on one endpoint
//   --http node    the only HTTP layer here (v2's express adapter is a separate package)
import http from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  localhostHostValidation,
  localhostOriginValidation,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
  toWebRequest,
} from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  McpServer,
} from '@modelcontextprotocol/server';

// zod as @modelcontextprotocol/server itself imports it ('zod/v4'; v2 needs >= 4.2): this folder's zod 4.6.7,
// or the copy npm nests under the package where the folder pins an older zod (as ../shared/bench does).
const zodPkg = createRequire(import.meta.resolve('@modelcontextprotocol/server')).resolve('zod/package.json');
const z = await import(pathToFileURL(join(dirname(zodPkg), 'v4/index.js')).href);

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : process.argv[i + 1];
};
const PORT = Number(arg('--port', process.env.PORT ?? 3000));
const MODE = process.argv.includes('--stateless') ? 'stateless' : arg('--mode', 'stateful');
const JSON_RESPONSE = process.argv.includes('--json');
const EVENT_STORE = process.argv.includes('--event-store');
const DUAL_ERA = process.argv.includes('--dual-era');
const HTTP = arg('--http', 'node');
if (HTTP !== 'node') {
  console.error(`--http ${HTTP}: only node (node:http) is supported`);
  process.exit(2);
}
if (MODE !== 'stateful' && MODE !== 'stateless') {
  console.error(`--mode ${MODE}: stateful or stateless`);
  process.exit(2);
}

/** sessionId -> { server, transport } (stateful mode only) */
const sessions = new Map();
const blobs = new Map();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// examples/shared/src/inMemoryEventStore.ts of modelcontextprotocol/typescript-sdk (v2 line), as is:
// the reference EventStore the v2 docs point to (sessions-state-scaling.md), same logic as v1's.
class InMemoryEventStore {
  events = new Map();
  generateEventId(streamId) {
    return `${streamId}_${Date.now()}_${Math.random().toString(36).slice(2, 10)}`;
  }
  getStreamIdFromEventId(eventId) {
    const parts = eventId.split('_');
    return parts.length > 0 ? parts[0] : '';
  }
  async storeEvent(streamId, message) {
    const eventId = this.generateEventId(streamId);
    this.events.set(eventId, { streamId, message });
    return eventId;
  }
  async replayEventsAfter(lastEventId, { send }) {
    if (!lastEventId || !this.events.has(lastEventId)) return '';
    const streamId = this.getStreamIdFromEventId(lastEventId);
    if (!streamId) return '';
    let foundLastEvent = false;
    const sortedEvents = [...this.events.entries()].toSorted((a, b) => a[0].localeCompare(b[0]));
    for (const [eventId, { streamId: eventStreamId, message }] of sortedEvents) {
      if (eventStreamId !== streamId) continue;
      if (eventId === lastEventId) {
        foundLastEvent = true;
        continue;
      }
      if (foundLastEvent) await send(eventId, message);
    }
    return streamId;
  }
}

function buildServer() {
  const server = new McpServer({ name: 'sdk-v2-bench', version: '2.4.0' }, { capabilities: { logging: {} } });

  server.registerTool(
    'echo',
    { description: 'Returns its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );

  server.registerTool(
    'blob',
    {
      description: 'Returns size bytes of text',
      inputSchema: z.object({ size: z.number().int().nonnegative() }),
    },
    async ({ size }) => {
      if (!blobs.has(size)) blobs.set(size, 'x'.repeat(size));
      return { content: [{ type: 'text', text: blobs.get(size) }] };
    },
  );

  // McpServer.sendLoggingMessage is @deprecated in v2 (SEP-2577) but functional; outside a request
  // handler it goes to each session's standalone GET stream, as in sdk-server.mjs.
  server.registerTool(
    'broadcast',
    {
      description: 'Sends a log notification carrying nonce to every session',
      inputSchema: z.object({ nonce: z.string() }),
    },
    async ({ nonce }) => {
      const sends = [];
      for (const s of sessions.values())
        sends.push(s.server.sendLoggingMessage({ level: 'info', data: { nonce } }));
      await Promise.all(sends);
      return { content: [{ type: 'text', text: String(sends.length) }] };
    },
  );

  server.registerTool(
    'progress',
    {
      description: 'Sends count progress notifications, then returns',
      inputSchema: z.object({
        count: z.number().int().nonnegative(),
        intervalMs: z.number().int().nonnegative().default(0),
      }),
    },
    async ({ count, intervalMs }, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= count; i++) {
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress: i, total: count },
          });
        }
        if (intervalMs) await sleep(intervalMs);
      }
      return { content: [{ type: 'text', text: `sent ${count}` }] };
    },
  );

  if (typeof globalThis.gc === 'function') {
    server.registerTool(
      'gc',
      { description: 'Forces a full GC; returns process.memoryUsage()' },
      async () => {
        globalThis.gc();
        return { content: [{ type: 'text', text: JSON.stringify(process.memoryUsage()) }] };
      },
    );
  }
  return server;
}

const jsonError = (res, status, code, message) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
};
const onerror = (e) => console.error('sdk-v2 error:', e?.message ?? e);

// ---- stateful: one McpServer + transport per session (sessions-state-scaling.md "sessions_routing") ----
async function statefulRoute(req, res, body) {
  const sid = req.headers['mcp-session-id'];
  const s = sid === undefined ? undefined : sessions.get(sid);
  if (s) return s.transport.handleRequest(req, res, body);
  if (sid === undefined && body !== undefined && isInitializeRequest(body)) {
    const server = buildServer();
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: JSON_RESPONSE,
      eventStore: EVENT_STORE ? new InMemoryEventStore() : undefined,
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(req, res, body);
  }
  if (sid !== undefined) return jsonError(res, 404, -32001, 'Session not found');
  return jsonError(res, 400, -32000, 'Bad Request: Session ID required');
}

// ---- stateless --json: a new McpServer + transport for every request (@modelcontextprotocol/node README) ----
async function statelessJsonPost(req, res, body) {
  const server = buildServer();
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
  res.on('close', () => {
    transport.close();
    server.close();
  });
}

const readJson = (req) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
    req.on('error', reject);
  });

let handle; // (req, res) after the Host/Origin guards and the /mcp path check
let wiring;
if (MODE === 'stateless' && !JSON_RESPONSE) {
  wiring = 'createMcpHandler + toNodeHandler';
  const nodeHandler = toNodeHandler(
    createMcpHandler(() => buildServer(), { onerror }),
    { onerror },
  );
  handle = (req, res) => nodeHandler(req, res);
} else {
  const modern =
    DUAL_ERA && MODE === 'stateful'
      ? toNodeHandler(
          createMcpHandler(() => buildServer(), { legacy: 'reject', onerror }),
          { onerror },
        )
      : undefined;
  wiring =
    MODE === 'stateless'
      ? 'per-request NodeStreamableHTTPServerTransport'
      : `session map of NodeStreamableHTTPServerTransport${modern ? ' behind isLegacyRequest + strict createMcpHandler' : ''}`;
  handle = async (req, res) => {
    if (req.method !== 'POST') {
      if (MODE === 'stateless') return jsonError(res, 405, -32000, 'Method not allowed.');
      return statefulRoute(req, res, undefined);
    }
    let body;
    try {
      body = JSON.parse(await readJson(req));
    } catch {
      return jsonError(res, 400, -32700, 'Parse error');
    }
    if (MODE === 'stateless') return statelessJsonPost(req, res, body);
    if (modern && !(await isLegacyRequest(await toWebRequest(req, body), body)))
      return modern(req, res, body);
    return statefulRoute(req, res, body);
  };
}

const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();
const srv = http.createServer(async (req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  if (req.url !== '/mcp' && !req.url.startsWith('/mcp?')) return jsonError(res, 404, -32000, 'Not found');
  try {
    await handle(req, res);
  } catch (e) {
    console.error('handler error:', e);
    if (!res.headersSent) jsonError(res, 500, -32603, 'Internal server error');
  }
});
srv.keepAliveTimeout = 65_000;
srv.listen(PORT, '127.0.0.1', () =>
  console.log(
    `sdk-v2-server ${MODE}${JSON_RESPONSE ? ' json' : ' sse'}${EVENT_STORE ? ' +eventstore' : ''} (${wiring}, node:http) on :${PORT}`,
  ),
);
process.on('SIGTERM', () => process.exit(0));
