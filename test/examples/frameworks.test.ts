import assert from 'node:assert/strict';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createApp as createExpressApp } from '../../examples/frameworks/express.js';
import { createApp as createHonoApp } from '../../examples/frameworks/hono.js';

/** The official SDK's client over `transport`: initialize, call echo, list resources, then close. */
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

function listening(server: HttpServer): Promise<number> {
  return new Promise((resolve) => {
    if (server.listening) resolve((server.address() as AddressInfo).port);
    else server.once('listening', () => resolve((server.address() as AddressInfo).port));
  });
}

test('express: Streamable HTTP at /mcp and the legacy endpoints beside it', async () => {
  const { app, close } = createExpressApp();
  const http = app.listen(0, '127.0.0.1');
  const port = await listening(http);
  try {
    await exercise(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    await exercise(new SSEClientTransport(new URL(`http://127.0.0.1:${port}/sse`)));
    const home = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await home.text(), 'An MCP server lives at /mcp');
  } finally {
    await close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  }
});

test('hono: the web-standard fetch handler on @hono/node-server', async () => {
  const { app, close } = createHonoApp();
  const http = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as HttpServer;
  const port = await listening(http);
  try {
    await exercise(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  } finally {
    await close();
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  }
});
