import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { ConnectionClosedError } from '../peer/errors.js';
import type { Result } from '../protocol/types.js';
import type { ServerContext } from '../server/context.js';
import type { ChildPool } from './child-pool.js';

const noop = () => {};
const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';

/**
 * A request's params as the child gets them: without what is the client's to the bridge alone, its progress token
 * (the bridge's session with the child attaches its own) and the 2026 envelope in `_meta` (that session speaks
 * the child's era and adds the envelope itself when it is 2026).
 */
export function childParams(params: Params): Params {
  const meta = params._meta as Record<string, unknown> | undefined;
  if (meta === undefined) return params;
  const kept: Record<string, unknown> = {};
  let any = false;
  for (const key in meta) {
    if (key === 'progressToken' || key.startsWith(ENVELOPE_PREFIX)) continue;
    kept[key] = meta[key];
    any = true;
  }
  const { _meta: _dropped, ...rest } = params;
  return any ? { ...rest, _meta: kept } : rest;
}

/**
 * Sends one client request to the least busy child and answers with the child's answer: its result, or its
 * JSON-RPC error as it is. Progress the child reports goes to the client under the client's own token;
 * cancelling the client's request (or a 2026 client closing its response) cancels the child's. A child that
 * exits meanwhile fails the request with an error naming how it ended and its last stderr lines.
 */
export async function forward(
  pool: ChildPool,
  method: string,
  params: Params,
  ctx: ServerContext,
  timeoutMs: number,
): Promise<Result> {
  const picked = pool.pick();
  if (picked === undefined) {
    const wait = Math.ceil((pool.retryAfterMs() ?? 0) / 1000);
    throw new McpError(
      ErrorCode.InternalError,
      `The server behind this bridge is restarting: retry ${method} in ${wait} s`,
    );
  }
  picked.inFlight.add(ctx);
  try {
    return await picked.session.request<Result>(method, childParams(params), {
      signal: ctx.signal,
      timeoutMs,
      onprogress:
        ctx.meta?.progressToken === undefined
          ? undefined
          : (p) => {
              ctx.sendProgress(p.progress, p.total, p.message).catch(noop);
            },
    });
  } catch (err) {
    if (err instanceof ConnectionClosedError) {
      const cause = (err.cause as Error | undefined)?.message ?? err.message;
      throw new McpError(
        ErrorCode.InternalError,
        `The server process ended while answering ${method}: ${cause}`,
      );
    }
    throw err;
  } finally {
    picked.inFlight.delete(ctx);
  }
}

/**
 * A child's own request (sampling, elicitation), taken to the client whose request made it. A 2025 stdio server's
 * request says nothing of the request it was made for, so it goes to a client only when exactly one client
 * request is in flight in that child; otherwise the child gets an error saying why, which it can report.
 */
export function relayToClient<R>(
  inFlight: ReadonlySet<ServerContext> | undefined,
  method: string,
  call: (ctx: ServerContext) => Promise<R>,
): Promise<R> {
  const size = inFlight?.size ?? 0;
  if (size !== 1) {
    return Promise.reject(
      new McpError(
        ErrorCode.InternalError,
        size === 0
          ? `${method} was made while no client request is in flight, so the bridge has no client to ask`
          : `${method} was made while ${size} client requests are in flight in this server process, so the ` +
              'bridge cannot tell which client to ask',
      ),
    );
  }
  const [ctx] = inFlight!;
  if (ctx!.scope.era !== 'legacy') {
    return Promise.reject(
      new McpError(
        ErrorCode.InternalError,
        `${method} cannot be relayed to this client: it speaks 2026-07-28, whose input rounds the bridge does not ` +
          'relay to a 2025 server yet',
      ),
    );
  }
  return call(ctx!);
}
