import { Agent, createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The header the proxy adds to every answer: which backend (its URL as given) served the request. */
export const BACKEND_HEADER = 'x-proxy-backend';

/** A load balancer with no session affinity, in front of several servers, for the multi-process tests. */
export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>`: requests keep their path, so `${url}/mcp` reaches each backend's `/mcp`. */
  readonly url: string;
  readonly port: number;
  /** How many requests each backend was sent, by backend URL, since the proxy started. */
  readonly served: ReadonlyMap<string, number>;
  /** Replaces the rotation (e.g. without a killed backend); exchanges already under way are left alone. */
  setBackends(backends: readonly string[]): void;
  /**
   * Cuts every exchange under way with `backend` on both sides, as a network failure would: its clients see
   * their answers (SSE streams among them) break off, the backend sees its clients go. Resolves with how many.
   */
  cut(backend: string): number;
  /** Cuts every exchange under way (both sides), then stops listening. */
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110, 7.6.1): they describe one connection and are not forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

/**
 * Starts a reverse proxy on 127.0.0.1 (a free port) that sends each request to the next backend in turn
 * (`http://host:port` URLs), whatever session it belongs to.
 *
 * Promises: request and response bodies stream through as they come (an SSE answer reaches the client
 * event by event); a client that goes away cuts its backend request, and a backend that dies mid-answer
 * cuts the client's (so it sees the drop and can resume); a backend that cannot be reached answers 502
 * with a JSON-RPC error body. Every answer carries BACKEND_HEADER.
 */
export async function startRoundRobinProxy(backends: readonly string[]): Promise<RoundRobinProxy> {
  let rotation = checked(backends);
  let next = 0;
  const served = new Map<string, number>();
  const underWay = new Set<{ readonly backend: string; readonly cut: () => void }>();
  // Keep-alive towards the backends, as a real balancer does; the client's connections are its own.
  const agent = new Agent({ keepAlive: true });

  const server = createServer((req, res) => {
    const backend = rotation[next++ % rotation.length];
    served.set(backend, (served.get(backend) ?? 0) + 1);
    const upstream = request(`${backend}${req.url ?? '/'}`, {
      method: req.method,
      headers: forwarded(req.headers),
      agent,
    });
    upstream.on('response', (answer) => {
      const headers = forwarded(answer.headers);
      headers[BACKEND_HEADER] = backend;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
      // Headers first, so an SSE client sees its stream open before the first event.
      res.flushHeaders();
      answer.pipe(res);
      // The backend died mid-answer: the client must see the cut, not a clean end.
      answer.on('aborted', () => res.destroy());
      answer.on('error', () => res.destroy());
    });
    const exchange = {
      backend,
      cut: () => {
        upstream.destroy();
        res.destroy();
      },
    };
    underWay.add(exchange);
    upstream.on('error', (err) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32603, message: `Bad Gateway: backend ${backend} failed: ${err.message}` },
      });
      res.writeHead(502, { 'content-type': 'application/json', [BACKEND_HEADER]: backend });
      res.end(body);
    });
    // The client went away before the answer was complete: so does the backend request.
    res.on('close', () => {
      underWay.delete(exchange);
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    served,
    setBackends(list) {
      rotation = checked(list);
    },
    cut(backend) {
      const cuts = [...underWay].filter((e) => e.backend === checked([backend])[0]);
      for (const exchange of cuts) exchange.cut();
      return cuts.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}

function checked(backends: readonly string[]): string[] {
  if (backends.length === 0) throw new Error('The proxy needs at least one backend');
  return backends.map((b) => b.replace(/\/+$/, ''));
}

/** The end-to-end headers of a message, to pass on. */
function forwarded(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}
