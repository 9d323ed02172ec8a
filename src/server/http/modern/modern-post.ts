import type { HTTPExchange } from '../../../http/exchange.js';
import { PostInfo } from '../../../http/post-info.js';
import { formatSseEvent } from '../../../http/sse-event.js';
import { SSEWriter, type SSEWriterOptions } from '../../../http/sse-writer.js';
import { ErrorCode, errorResponse, McpError, toErrorObject } from '../../../jsonrpc/errors.js';
import { serialize } from '../../../jsonrpc/serialize.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../../../jsonrpc/types.js';
import { RequestCancelledError } from '../../../peer/errors.js';
import type { Result } from '../../../protocol/types.js';
import { CANCELLED } from '../../../telemetry/attributes.js';
import type { RequestObservation } from '../../../telemetry/telemetry.js';
import type { ModernScope } from '../../client-scope.js';
import type { ModernOutlet } from '../../modern/context.js';
import { ModernCall } from '../../modern/modern-call.js';
import type { Server } from '../../server.js';

/** What a modern POST needs of the handler that serves it. */
export interface ModernHost {
  readonly server: Server;
  readonly writerOptions: SSEWriterOptions;
  report(err: unknown): void;
  inFlightChanged(delta: number): void;
}

const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

/**
 * One modern request over one POST (spec 2026-07-28, streamable-http): answered with one JSON body, or with a
 * request-scoped SSE stream once the handler sends a notification (progress, a log) before its result; no
 * event ids, no session, never a request to the client. The client closing the response cancels the handler
 * through its signal, and nothing more is written.
 */
export class ModernPost implements ModernOutlet {
  private readonly call: ModernCall;
  private info: PostInfo | undefined;
  private sse: SSEWriter | undefined;
  private cancelled = false;

  constructor(
    private readonly host: ModernHost,
    private readonly exchange: HTTPExchange,
    private readonly request: JsonRpcRequest,
    scope: ModernScope,
    private readonly principal: string | undefined,
    /** Where the request is observed, when something listens: ended with the answer and its HTTP status. */
    private readonly observed: RequestObservation | undefined,
  ) {
    this.call = new ModernCall(host.server, request, scope, this, principal);
  }

  /** Made when a handler reads `ctx.transport`; most never do. */
  get transport(): PostInfo {
    this.info ??= new PostInfo(this.exchange, this.principal);
    return this.info;
  }

  notify(message: JsonRpcNotification): void {
    if (this.cancelled || this.exchange.closed) return;
    this.sse ??= new SSEWriter(this.exchange, this.host.writerOptions);
    this.sse.frame(formatSseEvent({ data: serialize(message) }));
  }

  /** Runs the request and answers it; never throws. */
  serve(): void {
    const observed = this.observed;
    if (observed === undefined) this.run();
    // The handler in the request's span: what it starts is its child.
    else observed.run(() => this.run());
  }

  private run(): void {
    let outcome: Result | Promise<Result>;
    try {
      outcome = this.call.run();
    } catch (err) {
      this.fail(err);
      return;
    }
    if (!(outcome instanceof Promise)) {
      this.complete(outcome);
      return;
    }
    const host = this.host;
    host.inFlightChanged(1);
    this.exchange.onClose(this.closed);
    outcome
      .then(
        (result) => this.complete(result),
        (err) => this.fail(err),
      )
      .finally(() => host.inFlightChanged(-1));
  }

  private readonly closed = (): void => {
    if (this.cancelled) return;
    this.cancelled = true;
    this.observed?.end(undefined, CANCELLED);
    this.call.abort(new RequestCancelledError(this.request.method, 'the client closed the response'));
  };

  private complete(result: Result): void {
    this.observed?.end(result, undefined, 200);
    this.answer({ jsonrpc: '2.0', id: this.request.id, result }, 200);
  }

  private fail(err: unknown): void {
    if (!(err instanceof McpError)) this.host.report(err);
    const error = toErrorObject(err);
    const status = statusOf(err, error.code);
    this.observed?.end(undefined, error, status);
    this.answer(errorResponse(this.request.id, error), status);
  }

  private answer(message: JsonRpcMessage, status: number): void {
    if (this.cancelled || this.exchange.closed) return;
    // The answer came: a close from now on is the end of the exchange, not a cancellation.
    this.cancelled = true;
    const body = serialize(message);
    const sse = this.sse;
    if (sse !== undefined) {
      sse.frame(formatSseEvent({ data: body }));
      sse.close();
      return;
    }
    this.exchange.writeHead(status, JSON_HEADERS);
    this.exchange.end(body);
  }
}

/**
 * The status of a response that carries only `err`. Spec 2026-07-28: a missing client capability is a 400; other
 * handler errors travel in-band, on 200, unless the error names its own status (`httpStatus`): a store out of
 * reach is 503 as everywhere else (StoreUnavailableError), a task refused for the caller's bound 429 (TaskLimitError).
 */
function statusOf(err: unknown, code: number): number {
  const named = (err as { httpStatus?: unknown } | null | undefined)?.httpStatus;
  if (typeof named === 'number') return named;
  return code === ErrorCode.MissingRequiredClientCapability ? 400 : 200;
}
