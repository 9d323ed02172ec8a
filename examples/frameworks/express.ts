// Mounting mcpwire in an express app: the handler takes node's own req/res, so it goes on a route as it is,
// after express.json() or before it. A body express.json() parsed is served as it is; its limit (100 kB by
// default) is the one that applies then, so raise it to mcpwire's 4 MiB.
import express from 'express';
import { createDemoServer } from '../../src/demo/demo-server.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { LegacySSEHandler } from '../../src/server/sse/legacy-sse-handler.js';

export function createApp(): { app: express.Express; close(): Promise<void> } {
  const server = createDemoServer();
  const mcp = new StreamableHTTPHandler(server);
  const legacy = new LegacySSEHandler(server);
  const app = express();
  app.use(express.json({ limit: '4mb' }));
  app.all('/mcp', mcp.node());
  // The legacy handler answers the two paths it owns: GET /sse and POST /messages.
  app.get('/sse', legacy.node());
  app.post('/messages', legacy.node());
  app.get('/', (_req, res) => {
    res.send('An MCP server lives at /mcp');
  });
  return {
    app,
    close: async () => {
      await Promise.all([mcp.close(), legacy.close()]);
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 3000);
  createApp().app.listen(port, '127.0.0.1', () => {
    console.log(`express + mcpwire: http://127.0.0.1:${port}/mcp`);
  });
}
