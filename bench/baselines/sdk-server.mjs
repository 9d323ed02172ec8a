#!/usr/bin/env node
import { randomUUID } from 'node:crypto';
// Baseline MCP Streamable HTTP server built the way the official TypeScript SDK (v1, 1.32.2)
// documents it: McpServer + StreamableHTTPServerTransport, one server+transport per session kept
// in a Map (stateful), or a fresh server+transport per request (stateless, as the SDK's
// simpleStatelessStreamableHttp example does). Tools for the bench: echo, blob, broadcast,
// progress, and gc (only with node --expose-gc).
//
//   node sdk-server.mjs [--port 3000] [--mode stateful|stateless] [--json] [--event-store]
//                       [--http express|node]
//   --json         enableJsonResponse: true (answers as application/json instead of SSE)
//   --event-store  the SDK's example InMemoryEventStore (resumability; one store per session)
//   --http express (default) the SDK's createMcpExpressApp(): express 5 + express.json()
//                  + localhost Host-header validation, exactly as the official examples
//          node     plain node:http; the body is read and JSON.parsed here and passed as parsedBody
import http from 'node:http';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : process.argv[i + 1];
};
const PORT = Number(arg('--port', process.env.PORT ?? 3000));
const MODE = arg('--mode', 'stateful');
const JSON_RESPONSE = process.argv.includes('--json');
const EVENT_STORE = process.argv.includes('--event-store');
const HTTP = arg('--http', 'express');

/** sessionId -> { server, transport } (stateful mode only) */
const sessions = new Map();
const blobs = new Map();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function buildServer() {
  const server = new McpServer({ name: 'sdk-bench', version: '1.32.2' }, { capabilities: { logging: {} } });

  server.registerTool(
    'echo',
    { description: 'Returns its text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );

  server.registerTool(
    'blob',
    { description: 'Returns size bytes of text', inputSchema: { size: z.number().int().nonnegative() } },
    async ({ size }) => {
      if (!blobs.has(size)) blobs.set(size, 'x'.repeat(size));
      return { content: [{ type: 'text', text: blobs.get(size) }] };
    },
  );

  server.registerTool(
    'broadcast',
    {
      description: 'Sends a log notification carrying nonce to every session',
      inputSchema: { nonce: z.string() },
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
      inputSchema: {
        count: z.number().int().nonnegative(),
        intervalMs: z.number().int().nonnegative().default(0),
      },
    },
    async ({ count, intervalMs }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let i = 1; i <= count; i++) {
        if (progressToken !== undefined) {
          await extra.sendNotification({
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

// ---- stateful: one McpServer + transport per session (simpleStreamableHttp.ts pattern) ----
async function statefulPost(req, res, body) {
  const sid = req.headers['mcp-session-id'];
  if (sid) {
    const s = sessions.get(sid);
    if (!s) return jsonError(res, 404, -32001, 'Session not found');
    return s.transport.handleRequest(req, res, body);
  }
  if (!isInitializeRequest(body))
    return jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({
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
  await transport.handleRequest(req, res, body);
}

async function statefulGetOrDelete(req, res) {
  const s = sessions.get(req.headers['mcp-session-id']);
  if (!s) return jsonError(res, req.headers['mcp-session-id'] ? 404 : 400, -32001, 'Session not found');
  await s.transport.handleRequest(req, res);
}

// ---- stateless: a new McpServer + transport for every request (simpleStatelessStreamableHttp.ts) ----
async function statelessPost(req, res, body) {
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: JSON_RESPONSE,
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
  res.on('close', () => {
    transport.close();
    server.close();
  });
}

const post = MODE === 'stateless' ? statelessPost : statefulPost;
const getOrDelete =
  MODE === 'stateless'
    ? async (_req, res) => jsonError(res, 405, -32000, 'Method not allowed.')
    : statefulGetOrDelete;

const guard =
  (fn) =>
  async (req, res, ...rest) => {
    try {
      await fn(req, res, ...rest);
    } catch (e) {
      console.error('handler error:', e);
      if (!res.headersSent) jsonError(res, 500, -32603, 'Internal server error');
    }
  };

if (HTTP === 'express') {
  const app = createMcpExpressApp();
  app.post(
    '/mcp',
    guard((req, res) => post(req, res, req.body)),
  );
  app.get('/mcp', guard(getOrDelete));
  app.delete('/mcp', guard(getOrDelete));
  const srv = app.listen(PORT, '127.0.0.1', () =>
    console.log(
      `sdk-server ${MODE}${JSON_RESPONSE ? ' json' : ' sse'}${EVENT_STORE ? ' +eventstore' : ''} (express) on :${PORT}`,
    ),
  );
  srv.keepAliveTimeout = 65_000;
} else {
  const srv = http.createServer(
    guard(async (req, res) => {
      if (req.url !== '/mcp' && !req.url.startsWith('/mcp?')) return jsonError(res, 404, -32000, 'Not found');
      if (req.method === 'POST') {
        const chunks = [];
        await new Promise((resolve, reject) => {
          req.on('data', (c) => chunks.push(c));
          req.on('end', resolve);
          req.on('error', reject);
        });
        let body;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString());
        } catch {
          return jsonError(res, 400, -32700, 'Parse error');
        }
        return post(req, res, body);
      }
      return getOrDelete(req, res);
    }),
  );
  srv.keepAliveTimeout = 65_000;
  srv.listen(PORT, '127.0.0.1', () =>
    console.log(
      `sdk-server ${MODE}${JSON_RESPONSE ? ' json' : ' sse'}${EVENT_STORE ? ' +eventstore' : ''} (node:http) on :${PORT}`,
    ),
  );
}
process.on('SIGTERM', () => process.exit(0));
