import type { JsonRpcRequest, Params, RequestId } from '../jsonrpc/types.js';
import { Method } from '../protocol/types.js';
import { CANCELLED } from '../telemetry/attributes.js';
import type { RequestObservation } from '../telemetry/telemetry.js';
import type { MessageInfo } from './connection.js';
import type { RequestOptions } from './peer-options.js';

/** What a request handler gets besides its params. One per incoming request. */
export interface RequestContext<S = unknown> {
  /** The session the request arrived on (a ServerSession, a ClientSession). */
  readonly session: S;
  readonly requestId: RequestId;
  readonly method: string;
  /** Aborted when the peer cancels the request or the connection closes. */
  readonly signal: AbortSignal;
  /** The request's `_meta`, if it had one. */
  readonly meta: Record<string, unknown> | undefined;
  /** What the transport knows of the sender. */
  readonly transport: MessageInfo | undefined;
  /** Sends a notification related to this request (it travels on this request's stream). */
  notify(method: string, params?: Params): Promise<void>;
  /** Sends a request related to this request; it is cancelled if this request is. */
  request<R = Record<string, unknown>>(method: string, params?: Params, options?: RequestOptions): Promise<R>;
  /** Reports progress when the requester asked for it (a `_meta.progressToken`); a no-op otherwise. */
  sendProgress(progress: number, total?: number, message?: string): Promise<void>;
}

/** What a context sends through: the JSON-RPC peer the request arrived on. */
export interface ContextSender {
  notify(method: string, params?: Params, relatedRequestId?: RequestId): Promise<void>;
  request<R = Record<string, unknown>>(method: string, params?: Params, options?: RequestOptions): Promise<R>;
}

/**
 * An incoming request while its handler runs. Its AbortSignal is made only when the handler asks for
 * it: most handlers never do, and an AbortController per request is a measurable share of a call.
 */
export class RunningRequest {
  constructor(
    /** The request's method, which a cancellation names. */
    readonly method: string,
  ) {}

  /** True once the request was cancelled or its connection closed: it gets no answer. */
  aborted = false;
  /** Where the request is observed, when something listens; it ends as cancelled when the request is aborted. */
  observed: RequestObservation | undefined;
  private reason: unknown;
  private controller: AbortController | undefined;

  /** Aborted when the request is cancelled or its connection closes; already aborted if it was. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.observed?.end(undefined, CANCELLED);
    if (this.controller !== undefined) this.controller.abort(reason);
    else this.reason = reason;
  }
}

/**
 * The per-request handler context. A class so that its methods live on one shared prototype;
 * the server extends it with its own calls.
 */
export class HandlerContext<S = unknown> implements RequestContext<S> {
  readonly requestId: RequestId;
  readonly method: string;
  readonly meta: Record<string, unknown> | undefined;
  constructor(
    private readonly sender: ContextSender,
    readonly session: S,
    request: JsonRpcRequest,
    private readonly running: RunningRequest,
    readonly transport: MessageInfo | undefined,
  ) {
    this.requestId = request.id;
    this.method = request.method;
    this.meta = request.params?._meta as Record<string, unknown> | undefined;
  }

  get signal(): AbortSignal {
    return this.running.signal;
  }

  notify(method: string, params?: Params): Promise<void> {
    return this.sender.notify(method, params, this.requestId);
  }

  request<R = Record<string, unknown>>(
    method: string,
    params?: Params,
    options: RequestOptions = {},
  ): Promise<R> {
    return this.sender.request<R>(method, params, this.related(options));
  }

  /** `options` for a request made on behalf of this one: routed with it and cancelled with it. */
  protected related(options: RequestOptions = {}): RequestOptions {
    const signal = options.signal ? AbortSignal.any([options.signal, this.signal]) : this.signal;
    return { ...options, signal, relatedRequestId: this.requestId };
  }

  sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.meta?.progressToken;
    if (token === undefined) return Promise.resolve();
    const params: Params = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    return this.notify(Method.Progress, params);
  }
}
