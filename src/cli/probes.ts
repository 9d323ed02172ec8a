import type { HTTPExchange } from '../http/exchange.js';
import { retryAfterSeconds } from '../util/retry-after.js';

/*
 * The two paths a load balancer or an orchestrator (a Kubernetes liveness or readiness probe) asks `mcpwire serve`
 * about. Neither is MCP: they are answered before the Host/Origin check, the token check and the rate limit, so a
 * probe that names the pod's address, carries no token and asks every second is answered all the same, and they
 * say nothing a caller could use beyond "up" or "not now".
 *
 *   GET /health  200 while the process answers at all (liveness)
 *   GET /ready   200 while /mcp serves; 503 with the reason and Retry-After when /mcp refuses every request
 *                (the server behind a bridge is down and starting again)
 *
 * Shutting down, the process takes no new connection, so both probes fail to connect: what an orchestrator reads
 * as "not ready" and, once it exits, "not alive".
 *
 * Redis out of reach does not make a process unready: every process behind the endpoint shares it, so taking them
 * all out of rotation would turn the precise 503 that sessions' requests get, and the 2026 requests that need no
 * session and are still served, into connections refused.
 */
export const LIVENESS_PATH = '/health';
export const READINESS_PATH = '/ready';

/** Why /mcp refuses every request now, and when to ask again. */
export interface Unready {
  readonly reason: string;
  /** When the cause is expected to be gone, if that is known. */
  readonly retryAfterMs?: number;
}

const HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  'cache-control': 'no-store',
};

/**
 * Answers `exchange` when it asks one of the probes' paths, and says whether it did. `unready` is asked only by
 * /ready. GET and HEAD only (405 naming them otherwise); HEAD gets the status and headers without the body.
 */
export function answerProbe(exchange: HTTPExchange, unready: () => Unready | undefined): boolean {
  const path = exchange.path;
  if (path !== LIVENESS_PATH && path !== READINESS_PATH) return false;
  const method = exchange.method;
  if (method !== 'GET' && method !== 'HEAD') {
    exchange.writeHead(405, { ...HEADERS, allow: 'GET, HEAD' });
    exchange.end(JSON.stringify({ error: `Method Not Allowed: ${path} answers GET and HEAD` }));
    return true;
  }
  const why = path === READINESS_PATH ? unready() : undefined;
  let status = 200;
  let headers = HEADERS;
  let body: Record<string, unknown> = { status: path === READINESS_PATH ? 'ready' : 'ok' };
  if (why !== undefined) {
    status = 503;
    body = { status: 'unavailable', reason: why.reason };
    if (why.retryAfterMs !== undefined) {
      const seconds = retryAfterSeconds(why.retryAfterMs);
      headers = { ...HEADERS, 'retry-after': String(seconds) };
      body.retryAfterSeconds = seconds;
    }
  }
  exchange.writeHead(status, headers);
  exchange.end(method === 'HEAD' ? undefined : JSON.stringify(body));
  return true;
}
