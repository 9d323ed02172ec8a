// Mounting mcpwire in a fastify app: fastify parses JSON bodies itself and keeps them on `request.body`, so the
// route hands node's own req/res and that body to the handler's listener, after telling fastify that the
// handler answers (`reply.hijack()`). fastify's `bodyLimit` (1 MiB by default) is the one that applies to a
// body it read: raise it to mcpwire's 4 MiB.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { createDemoServer } from '../../src/demo/demo-server.js';
import type { NodeListener } from '../../src/http/node-adapter.js';
import { StreamableHTTPHandler } from '../../src/server/http/streamable-http-handler.js';
import { LegacySSEHandler } from '../../src/server/sse/legacy-sse-handler.js';

/** A fastify route handler that gives the request, and the body fastify parsed, to `listener`. */
function route(listener: NodeListener) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    listener(request.raw, reply.raw, request.body);
  };
}

export function createApp(): { app: FastifyInstance; close(): Promise<void> } {
  const server = createDemoServer();
  const mcp = new StreamableHTTPHandler(server);
  const legacy = new LegacySSEHandler(server);
  const app = Fastify({ bodyLimit: 4 * 1024 * 1024 });
  app.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', handler: route(mcp.node()) });
  // The legacy handler answers the two paths it owns: GET /sse and POST /messages.
  const legacyListener = route(legacy.node());
  app.get('/sse', legacyListener);
  app.post('/messages', legacyListener);
  app.get('/', async () => 'An MCP server lives at /mcp');
  return {
    app,
    close: async () => {
      await Promise.all([mcp.close(), legacy.close()]);
      await app.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 3000);
  createApp()
    .app.listen({ port, host: '127.0.0.1' })
    .then((address) => console.log(`fastify + mcpwire: ${address}/mcp`));
}
