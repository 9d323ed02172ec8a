// mcpwire's Client with the default `era: 'auto'` against a legacy peer no one here wrote: the official
// SDK 1.32.2 McpServer over its StreamableHTTPServerTransport (with sessions), which knows no
// `server/discover`. Auto must take its refusal as "legacy" and initialize over Streamable HTTP, without
// trying the HTTP+SSE transport. (The fallback to HTTP+SSE, against server-everything in sse mode, is in
// src/client/negotiation/connect-url.test.ts.)
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod/v4';
import { Client } from '../../src/client/client.js';
import { StreamableHTTPClientConnection } from '../../src/client/http/streamable-http-client-connection.js';
import { connectUrl } from '../../src/client/negotiation/connect-url.js';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/http-loopback.js';
import { within } from '../../src/test-support/time-limit.js';
import { toolText } from '../../src/test-support/tool-text.js';

const LIMIT = 10_000;
let http: LoopbackServer;
const transports = new Map<string, StreamableHTTPServerTransport>();
/** Each request the server received: method, and the JSON-RPC method of a POST. */
const seen: string[] = [];

before(async () => {
  http = await listenLoopback(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString());
    seen.push(`${req.method} ${body?.method ?? ''}`.trim());
    const sid = req.headers['mcp-session-id'];
    const known = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (known !== undefined) return known.handleRequest(req, res, body);
    // The SDK's own example: a new transport only for an initialize; anything else without a session is 400.
    const mcp = new McpServer({ name: 'sdk-v1-server', version: '1.32.2' });
    mcp.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
      content: [{ type: 'text', text: message }],
    }));
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
      onsessionclosed: (id) => {
        transports.delete(id);
      },
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  });
});

after(async () => {
  for (const transport of transports.values()) await transport.close();
  await http?.close();
});

test('auto against the SDK 1.32.2 Streamable HTTP server: discover refused, then initialize; legacy era', {
  timeout: 30_000,
}, async () => {
  const fallbacks: unknown[] = [];
  const client = new Client({ name: 'mcpwire-auto', version: '1.0.0' }, { requestTimeoutMs: LIMIT });
  const session = await within(
    connectUrl(client, `http://127.0.0.1:${http.port}/mcp`, { onFallback: (err) => fallbacks.push(err) }),
    LIMIT,
    'connect',
  );
  try {
    assert.equal(session.era, 'legacy');
    assert.equal(session.verdict.era, 'legacy');
    assert.equal(session.verdict.era === 'legacy' && session.verdict.transport, 'http');
    assert.ok(session.connection instanceof StreamableHTTPClientConnection);
    assert.equal(session.protocolVersion, '2025-11-25');
    assert.equal(session.serverInfo.name, 'sdk-v1-server');
    assert.equal(toolText(await within(session.callTool('echo', { message: 'v1' }), LIMIT, 'echo')), 'v1');
    assert.deepEqual(seen.slice(0, 2), ['POST server/discover', 'POST initialize']);
    assert.deepEqual(fallbacks, [], 'Streamable HTTP answered: no HTTP+SSE fallback');
    assert.ok(transports.size === 1, 'one SDK session');
  } finally {
    await session.close();
  }
});
