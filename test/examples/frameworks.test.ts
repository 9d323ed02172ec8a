// The framework examples, each served on loopback and walked by the official clients: SDK 1.32.2 over
// Streamable HTTP (and the legacy HTTP+SSE endpoints where the example mounts them), and client 2.4.0 in the
// 2026-07-28 era. express and fastify parse JSON bodies before the handler runs: the handler serves the body
// they parsed, and refuses a bad one as it would have refused its text.
import assert from 'node:assert/strict';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { serve } from '@hono/node-server';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createApp as createExpressApp } from '../../examples/frameworks/express.js';
import { createApp as createFastifyApp } from '../../examples/frameworks/fastify.js';
import { createApp as createHonoApp } from '../../examples/frameworks/hono.js';

/** The SDK 1.32.2 client over `transport`: initialize, call echo, a call with progress, list resources, close. */
async function exercise(transport: Transport): Promise<void> {
  const client = new Client({ name: 'framework-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, 'mcpwire-demo');
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'through a framework' } });
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: through a framework' }]);
    const progress: number[] = [];
    await client.callTool({ name: 'long_running', arguments: { duration: 0.05, steps: 2 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    assert.deepEqual(progress.slice(0, 1), [1]);
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === 'demo://readme'));
  } finally {
    await client.close();
  }
}

/** Client 2.4.0 negotiating the 2026-07-28 era (server/discover, the `_meta` envelope): a call and a list. */
async function exerciseModern(url: string): Promise<void> {
  const client = new ClientV2(
    { name: 'framework-test-v2', version: '2.4.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new TransportV2(new URL(url)));
  try {
    assert.equal(client.getProtocolEra(), 'modern');
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.deepEqual(sum.content, [{ type: 'text', text: '5' }]);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'echo'));
  } finally {
    await client.close();
  }
}

/** The answer to a POST of `body` to the MCP endpoint, as JSON-RPC. */
async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { id?: unknown; error?: { code: number; message: string } },
  };
}

/** What any framework that parsed the body must still refuse as mcpwire does for a body it read itself. */
async function refusesLikeItsOwnParser(url: string): Promise<void> {
  const noVersion = await post(url, JSON.stringify({ id: 7, method: 'tools/list' }));
  assert.equal(noVersion.status, 400);
  assert.equal(noVersion.body.error?.code, -32600);
  assert.equal(noVersion.body.id, 7);
  // Rounded by the framework's JSON.parse before the handler saw it: refused, never answered with another id.
  const big = await post(url, '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}');
  assert.equal(big.status, 400);
  assert.equal(big.body.error?.code, -32600);
  assert.match(big.body.error?.message ?? '', /safe integer/);
  const batchOfNothing = await post(url, '[]');
  assert.equal(batchOfNothing.status, 400);
  assert.equal(batchOfNothing.body.error?.code, -32600);
}

function listening(server: HttpServer): Promise<number> {
  return new Promise((resolve) => {
    if (server.listening) resolve((server.address() as AddressInfo).port);
    else server.once('listening', () => resolve((server.address() as AddressInfo).port));
  });
}

describe('framework examples, with the official clients', { concurrency: true }, () => {
  test('express with express.json() before the route: both eras at /mcp, the legacy endpoints beside it', {
    timeout: 60_000,
  }, async () => {
    const { app, close } = createExpressApp();
    const http = app.listen(0, '127.0.0.1');
    const port = await listening(http);
    const url = `http://127.0.0.1:${port}/mcp`;
    try {
      await exercise(new StreamableHTTPClientTransport(new URL(url)));
      await exercise(new SSEClientTransport(new URL(`http://127.0.0.1:${port}/sse`)));
      await exerciseModern(url);
      await refusesLikeItsOwnParser(url);
      const home = await fetch(`http://127.0.0.1:${port}/`);
      assert.equal(await home.text(), 'An MCP server lives at /mcp');
    } finally {
      await close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    }
  });

  test('fastify, its parsed body handed to the listener: both eras at /mcp, the legacy endpoints beside it', {
    timeout: 60_000,
  }, async () => {
    const { app, close } = createFastifyApp();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      await exercise(new StreamableHTTPClientTransport(new URL(`${address}/mcp`)));
      await exercise(new SSEClientTransport(new URL(`${address}/sse`)));
      await exerciseModern(`${address}/mcp`);
      await refusesLikeItsOwnParser(`${address}/mcp`);
      const home = await fetch(`${address}/`);
      assert.equal(await home.text(), 'An MCP server lives at /mcp');
    } finally {
      await close();
    }
  });

  test('hono: the web-standard fetch handler on @hono/node-server', { timeout: 60_000 }, async () => {
    const { app, close } = createHonoApp();
    const http = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as HttpServer;
    const port = await listening(http);
    // @hono/node-server logs a body stream that fails: a client closing its stream is no failure to log.
    const logged: unknown[][] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      await exercise(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
      await exerciseModern(`http://127.0.0.1:${port}/mcp`);
      assert.deepEqual(logged, []);
    } finally {
      console.error = consoleError;
      await close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    }
  });
});
