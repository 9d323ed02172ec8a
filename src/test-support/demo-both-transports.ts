import { createDemoServer } from '../demo/demo-server.js';
import { writeJsonError } from '../http/json-error.js';
import { fromNode } from '../http/node-adapter.js';
import { StreamableHTTPHandler } from '../server/http/streamable-http-handler.js';
import { LegacySSEHandler } from '../server/sse/legacy-sse-handler.js';
import { listenLoopback } from './http-loopback.js';

/** The demo server served in this process on 127.0.0.1. */
export interface DemoHere {
  /** `http://127.0.0.1:PORT`: Streamable HTTP at `/mcp`, HTTP+SSE at `/sse` and `/messages`. */
  readonly base: string;
  /** `METHOD /path?query` of every request, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** The demo server laid out as `mcpwire serve` lays it out (other paths get 404), without a child process. */
export async function serveDemoHere(): Promise<DemoHere> {
  const server = createDemoServer();
  const streamable = new StreamableHTTPHandler(server);
  const legacy = new LegacySSEHandler(server);
  const requests: string[] = [];
  const http = await listenLoopback((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const exchange = fromNode(req, res);
    if (exchange.path === '/mcp') streamable.handle(exchange);
    else
      legacy.handle(exchange).then((served) => {
        if (!served) writeJsonError(exchange, 404, 'Not Found');
      });
  });
  return {
    base: `http://127.0.0.1:${http.port}`,
    requests,
    close: async () => {
      await Promise.all([streamable.close({ deadlineMs: 1000 }), legacy.close()]);
      await server.close();
      await http.close();
    },
  };
}
