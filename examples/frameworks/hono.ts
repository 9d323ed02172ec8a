// Mounting mcpwire in a Hono app: the handler's web-standard `fetch` takes the raw Request and
// returns the Response, so the same app runs on Node, Bun, Deno or Workers.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createDemoServer } from '../../src/demo/demo-server.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';

export function createApp(): { app: Hono; close(): Promise<void> } {
  const mcp = new StreamableHTTPHandler(createDemoServer());
  const app = new Hono();
  app.all('/mcp', (c) => mcp.fetch(c.req.raw));
  app.get('/', (c) => c.text('An MCP server lives at /mcp'));
  return { app, close: () => mcp.close() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 3000);
  serve({ fetch: createApp().app.fetch, port, hostname: '127.0.0.1' }, () => {
    console.log(`hono + mcpwire: http://127.0.0.1:${port}/mcp`);
  });
}
