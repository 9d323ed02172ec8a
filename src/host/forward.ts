import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { ConnectionClosedError, InvalidResponseError } from '../peer/errors.js';
import { ROUND_TRIP_METHODS } from '../protocol/modern-types.js';
import { serverResultProblem } from '../protocol/server-results.js';
import type { Result } from '../protocol/types.js';
import { clientCallProblem } from '../server/client-capabilities.js';
import type { ClientScope } from '../server/client-scope.js';
import type { ServerContext } from '../server/context.js';
import { type InputRequired, inputRequired } from '../server/input-required.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import { retryAfterSeconds } from '../util/retry-after.js';
import { ChildPool, soleRequest } from './child-pool.js';
import { HeldExchange, type HeldExchanges, type RoundClient, type RoundOutcome } from './held-exchange.js';

/** A session whose child another process of a cluster holds: its requests are served there (ClusterIsolation). */
export interface Elsewhere {
  /** Serves the request in that process; rejects with HolderGone when it does not listen. */
  call(method: string, params: Params, ctx: ServerContext): Promise<Result | InputRequired>;
  /** Where the session is served once the holder was found gone: here, by a child started anew, or elsewhere. */
  takeOver(): Promise<ChildPool | Elsewhere>;
}

/** The process holding a session's child no longer listens (it died, or lost Redis). */
export class HolderGone extends Error {
  constructor(readonly node: string) {
    super(`process ${node} no longer listens`);
  }
}

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
 * Serves one round of a client request forwarded to a child. The first round sends it to the least busy child
 * (`HeldExchange`); a round ends with the child's answer (its result, or its JSON-RPC error as it is) or with what
 * the child asks of the client meanwhile, as `input_required` naming the held exchange in the sealed state. The
 * client's retry (a 2026 client's, or the server's own server-to-client requests on a 2025 session) gives the child
 * its answers and serves the next round. Progress goes to the client under its own token; cancelling the client's
 * request (or a 2026 client closing its response) cancels the child's. A child that exits meanwhile fails the
 * request with an error naming how it ended and its last stderr lines.
 */
export async function forward(
  home: ChildPool | Promise<ChildPool | Elsewhere>,
  exchanges: HeldExchanges,
  method: string,
  params: Params,
  ctx: ServerContext,
  timeoutMs: number,
): Promise<Result | InputRequired> {
  const state = ctx.requestState;
  const holder = typeof state === 'string' ? exchanges.holderOf(state) : undefined;
  if (holder !== undefined) return exchanges.remote!.round(holder, state as string, method, ctx);
  let exchange: HeldExchange;
  if (typeof state === 'string') exchange = resumed(exchanges, method, ctx);
  else {
    let pool = await home;
    for (;;) {
      // Cancelled while the child started, or while its holder was sought: the abort has fired, and no listener
      // added from here on would hear it, so the request goes to no child.
      ctx.signal.throwIfAborted();
      if (pool instanceof ChildPool) break;
      try {
        return await pool.call(method, params, ctx);
      } catch (err) {
        if (!(err instanceof HolderGone)) throw err;
        pool = await pool.takeOver();
      }
    }
    const progress = ctx.meta?.progressToken !== undefined;
    exchange = begin(pool, exchanges.idPrefix, method, params, ctx, progress, timeoutMs);
  }
  const onabort = () => exchange.release(`the client cancelled ${method}`);
  ctx.signal.addEventListener('abort', onabort, { once: true });
  try {
    // A legacy request asks its client itself (fulfilLocally): its context hears the child between rounds too.
    const ends = ctx.scope.era !== 'legacy';
    const outcome = await serveRound(exchange, exchanges, method, ctx.scope, ends);
    if ('result' in outcome) return outcome.result;
    return inputRequired({ inputRequests: outcome.inputRequests, state: exchange.id });
  } finally {
    ctx.signal.removeEventListener('abort', onabort);
  }
}

/**
 * Runs `exchange` until the child answers (its error thrown) or asks what `asker` may be asked, holding it then
 * (its id is the state of the round's `input_required`). Only what the client declared is asked of it, in a
 * request that may ask; the child hears why the rest is refused. (A 2025 stdio server's request made at another
 * time may look like this request's: see soleRequest.) `ends`: the round's client hears nothing more once the
 * round ends with what the child asks (its response carried the asks), so what the child tells until the next
 * round waits for it.
 */
export async function serveRound(
  exchange: HeldExchange,
  exchanges: HeldExchanges,
  method: string,
  asker: Pick<ClientScope, 'era' | 'clientCapabilities'>,
  ends: boolean,
): Promise<RoundOutcome> {
  const rounds = asker.era === 'legacy' || ROUND_TRIP_METHODS.has(method);
  for (;;) {
    const outcome = await exchange.next();
    if ('result' in outcome) return outcome;
    for (const [key, ask] of Object.entries(outcome.inputRequests)) {
      const problem = rounds
        ? clientCallProblem(asker.clientCapabilities, ask.method, ask.params as Params | undefined)
        : `${method} cannot ask the client: in the 2026-07-28 era only ${[...ROUND_TRIP_METHODS].join(', ')} may`;
      if (problem === undefined) continue;
      exchange.refuse(key, problem);
      delete outcome.inputRequests[key];
    }
    if (Object.keys(outcome.inputRequests).length === 0) continue;
    exchanges.hold(exchange);
    if (ends) exchange.roundEnded();
    return outcome;
  }
}

/** -32602: a retry continues an exchange the bridge no longer holds. */
export function notHeld(method: string): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `This retry continues a ${method} the bridge no longer holds (it waited too long for it, or the server ` +
      'behind the bridge restarted): send the request anew, without requestState',
  );
}

/** The exchange a retry continues, given the client's answers; -32602 when the bridge no longer holds it. */
function resumed(exchanges: HeldExchanges, method: string, ctx: ServerContext): HeldExchange {
  const exchange = exchanges.take(ctx.requestState as string);
  if (exchange === undefined) throw notHeld(method);
  exchange.resume(ctx, ctx.inputResponses);
  return exchange;
}

/**
 * A new exchange: the request sent to the least busy child of `pool` that is up, its progress (when `progress`) and
 * log messages to `client`.
 */
export function begin(
  pool: ChildPool,
  idPrefix: string,
  method: string,
  params: Params,
  client: RoundClient,
  progress: boolean,
  timeoutMs: number,
): HeldExchange {
  const picked = pool.pick();
  if (picked === undefined) {
    const wait = retryAfterSeconds(pool.retryAfterMs() ?? 0);
    throw new McpError(
      ErrorCode.InternalError,
      `The server behind this bridge is restarting: retry ${method} in ${wait} s`,
    );
  }
  return new HeldExchange(client, idPrefix, async (exchange, signal) => {
    picked.inFlight.add(exchange);
    try {
      const result = await picked.session.request<Result>(method, childParams(params), {
        signal,
        timeoutMs,
        onprogress: progress
          ? (p) => {
              exchange.sendProgress(p.progress, p.total, p.message).catch(noop);
            }
          : undefined,
      });
      // A task-augmented request is answered with its task, which the client reads as such.
      const problem = params.task === undefined ? serverResultProblem(method, result) : undefined;
      if (problem === undefined) return result;
      throw new McpError(
        ErrorCode.InternalError,
        `The server behind the bridge answered ${method} with a result that is not one: result${problem}`,
      );
    } catch (err) {
      if (err instanceof ConnectionClosedError) {
        const cause = (err.cause as Error | undefined)?.message ?? err.message;
        throw new McpError(
          ErrorCode.InternalError,
          `The server process ended while answering ${method}: ${cause}`,
        );
      }
      if (err instanceof InvalidResponseError) {
        throw new McpError(
          ErrorCode.InternalError,
          `The server behind the bridge answered ${method} with a message that is not a valid JSON-RPC response: ${err.problem}`,
        );
      }
      throw err;
    } finally {
      picked.inFlight.delete(exchange);
    }
  });
}

/**
 * A child's own request (sampling, elicitation, roots), taken to the client whose request made it, as an ask of
 * that request's held exchange. A 2025 stdio server's request says nothing of the request it was made for, so it
 * goes to a client only when exactly one client request is in flight in that child, or when the child has one
 * client only (`owner`, the 2025 session of an isolated child: there, as a request of the session's own);
 * otherwise the child gets an error saying why, which it can report.
 */
export function relayToClient(
  inFlight: ReadonlySet<HeldExchange> | undefined,
  method: string,
  params: Record<string, unknown> | undefined,
  owner?: ServerSession,
): Promise<Record<string, unknown>> {
  const exchange = soleRequest(inFlight);
  if (exchange !== undefined) return exchange.ask(method, params);
  if (owner !== undefined) {
    const problem = clientCallProblem(owner.clientCapabilities, method, params as Params | undefined);
    if (problem !== undefined) return Promise.reject(new McpError(ErrorCode.InvalidRequest, problem));
    return owner.request(method, params);
  }
  const size = inFlight?.size ?? 0;
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
