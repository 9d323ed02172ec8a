import { ErrorCode, errorResponse, idInUse, McpError, toErrorObject } from '../jsonrpc/errors.js';
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  Params,
  RequestId,
} from '../jsonrpc/types.js';
import { Method } from '../protocol/types.js';
import { validateParams } from '../protocol/validate.js';
import { acceptsBatches } from '../protocol/versions.js';
import type { RequestFacts, RequestObservation } from '../telemetry/telemetry.js';
import { type Clock, systemClock } from '../util/clock.js';
import { SmallMap } from '../util/small-map.js';
import { without } from '../util/without.js';
import { type Connection, type MessageInfo, type Receiver, SENT } from './connection.js';
import { ConnectionClosedError, RequestCancelledError } from './errors.js';
import { NotificationOrder } from './notification-order.js';
import { OutgoingRequests } from './outgoing-requests.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, type PeerOptions, type RequestOptions } from './peer-options.js';
import { type HandlerContext, RunningRequest } from './request-context.js';
import type { Responder } from './responder.js';

const noop = () => {};

/**
 * One MCP peer's side of a connection, shared by server and client: the 2025 era's request runner. It
 * correlates the requests it sends with their answers (`OutgoingRequests`), runs incoming requests
 * concurrently and notifications in arrival order through its `Responder`, applies timeouts and
 * cancellation both ways, and answers ping. What a request means is the responder's; what differs per peer
 * is only this object's state.
 */
export class JsonRpcPeer implements Receiver {
  /** The negotiated protocol version, once initialize has run. */
  protocolVersion: string | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  onerror: ((err: Error) => void) | undefined;

  /** The requests sent, once one is (see `outgoing`). */
  private sent: OutgoingRequests | undefined;
  private inFlight: SmallMap<RequestId, RunningRequest> | undefined;
  /** Runs notifications in arrival order; made with the first one. */
  private notificationOrder: NotificationOrder | undefined;
  private closedCause: Error | undefined;
  /** While the session initializes anew after a restart: what other requests wait for. */
  private restarting: Promise<void> | undefined;
  /** The id of the peer's initialize request while it runs: the one request that cannot be cancelled. */
  private initializeId: RequestId | undefined;
  private ended = false;
  readonly clock: Clock;
  /** Hard limit on a request's total time unless a call says otherwise. */
  readonly maxTotalTimeoutMs: number;

  constructor(
    readonly connection: Connection,
    private readonly responder: Responder,
    private readonly options: PeerOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? Number.POSITIVE_INFINITY;
    this.onerror = options.onerror;
  }

  /**
   * When set, the ids of requests this peer sends are `<prefix><n>` (strings): see `OutgoingRequests.prefix`. Set
   * before the first request.
   */
  requestIdPrefix: string | undefined;

  /** The requests this peer sends, made with the first: most server sessions never send one. */
  private get outgoing(): OutgoingRequests {
    this.sent ??= new OutgoingRequests(
      {
        send: (message, related) => this.connection.send(message, related),
        cancel: (id, reason) => {
          if (!this.ended)
            this.notify(
              Method.Cancelled,
              reason === undefined ? { requestId: id } : { requestId: id, reason },
            ).catch(noop);
        },
        observe: (method, params) => this.responder.telemetry?.sending(method, params, this.facts()),
        report: (err) => this.report(err),
      },
      this.clock,
      this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      this.maxTotalTimeoutMs,
      this.requestIdPrefix,
    );
    return this.sent;
  }

  /** What an observation of this peer's requests is told besides the message. */
  private facts(): RequestFacts {
    return { protocolVersion: this.protocolVersion, sessionId: this.connection.sessionId };
  }

  /** @internal Starts reading from the connection; called once by whoever made the peer. */
  start(): void {
    this.connection.start(this);
  }

  /** True once the connection has closed. */
  get isClosed(): boolean {
    return this.ended;
  }

  // ---- sending ----

  /** Sends a request and resolves with its result, or rejects with McpError or a typed error. */
  request<R = Record<string, unknown>>(
    method: string,
    params?: Params,
    options: RequestOptions = {},
  ): Promise<R> {
    if (this.ended) return Promise.reject(new ConnectionClosedError('Session is closed', this.closedCause));
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(new RequestCancelledError(method, signal.reason));
    if (this.restarting !== undefined && method !== Method.Initialize) {
      return this.restarting.then(() => this.request<R>(method, params, options));
    }
    return this.outgoing.issue<R>(method, params, options).result;
  }

  /**
   * `request`, for a caller that must know the id the request goes out with (a listen's acknowledgement
   * names it) before its answer comes. The peer must be open and not restarting.
   */
  issue<R>(
    method: string,
    params: Params | undefined,
    options: RequestOptions,
  ): { id: RequestId; result: Promise<R> } {
    return this.outgoing.issue<R>(method, params, options);
  }

  /** Sends a notification. */
  notify(method: string, params?: Params, relatedRequestId?: RequestId): Promise<void> {
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.sendNotification(message, relatedRequestId);
  }

  /** Sends a notification the caller built (once, for many sessions): it must not change afterwards. */
  sendNotification(message: JsonRpcNotification, relatedRequestId?: RequestId): Promise<void> {
    if (this.ended) return Promise.reject(new ConnectionClosedError('Session is closed', this.closedCause));
    return this.connection.send(message, relatedRequestId);
  }

  /** Sends `ping` and resolves when the peer answers. */
  async ping(options?: RequestOptions): Promise<void> {
    await this.request(Method.Ping, undefined, options);
  }

  /** Closes the connection; pending requests reject with ConnectionClosedError. */
  close(): Promise<void> {
    let closing: Promise<void>;
    try {
      closing = this.connection.close();
    } catch (err) {
      return Promise.reject(err);
    }
    // Told at once (a stateless session closes after every POST), no promise of its own; and a transport that never
    // reports its own closing must not leave callers waiting.
    return this.ended ? closing : closing.then(() => this.closed(undefined));
  }

  /** Reports a failure that has no caller to reject to `onerror`. */
  report(err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    if (this.onerror) this.onerror(error);
  }

  // ---- receiving (the Receiver contract) ----

  asked(id: RequestId): boolean {
    return this.sent?.asked(id) ?? false;
  }

  message(message: JsonRpcMessage, info?: MessageInfo): void {
    if ('method' in message) {
      if ('id' in message) this.receiveRequest(message, info);
      else this.receiveNotification(message, info);
    } else {
      this.outgoing.answered(message);
    }
  }

  batch(messages: JsonRpcMessage[], info?: MessageInfo): void {
    const version = this.protocolVersion;
    if (version === undefined || !acceptsBatches(version)) {
      const why =
        version === undefined
          ? 'JSON-RPC batches are not accepted before initialization'
          : `JSON-RPC batches are not supported in protocol version ${version}`;
      this.connection
        .send(errorResponse(null, { code: ErrorCode.InvalidRequest, message: `Invalid request: ${why}` }))
        .catch(noop);
      this.outgoing.refusedBatch(messages, why);
      return;
    }
    for (const m of messages) this.message(m, info);
  }

  error(err: Error): void {
    this.report(err);
  }

  lost(id: RequestId, cause: Error): void {
    this.sent?.fail(id, cause);
  }

  invalidAnswer(id: RequestId, problem: string): boolean {
    return this.sent?.answeredInvalid(id, problem) ?? false;
  }

  restarted(cause: Error, unsent: readonly JsonRpcMessage[] = []): void {
    if (this.ended || this.restarting !== undefined) return;
    const kept = this.sent?.expire(cause, unsent) ?? [];
    // Handlers of the old session's requests can no longer answer anyone.
    this.abortAll(cause);
    this.initializeId = undefined;
    const begin = this.responder.reinitialize?.(cause) ?? Promise.reject(cause);
    this.restarting = begin.then(
      () => {
        this.restarting = undefined;
        this.outgoing.resend(kept);
      },
      (err: Error) => {
        this.restarting = undefined;
        this.report(err);
        this.close().catch(noop);
      },
    );
  }

  closed(cause?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.closedCause = cause;
    this.responder.ended?.();
    // Built only when someone receives it: capturing its stack is costly, and a stateless
    // session closes after every request with nothing left pending.
    if (this.sent?.waiting || this.inFlight !== undefined) {
      const err = new ConnectionClosedError('Connection closed', cause);
      this.sent?.failAll(err);
      this.abortAll(err);
    }
    this.onclose?.(cause);
  }

  /** Aborts every incoming request still running; none of them will be answered. */
  private abortAll(reason: unknown): void {
    if (this.inFlight === undefined) return;
    const running = this.inFlight;
    this.inFlight = undefined;
    for (const r of running.values()) r.abort(reason);
  }

  private receiveRequest(request: JsonRpcRequest, info: MessageInfo | undefined): void {
    const id = request.id;
    const observed = this.responder.telemetry?.serving(request.method, id, request.params, this.facts());
    if (this.inFlight?.has(id)) {
      this.respondError(id, idInUse(id), observed);
      return;
    }
    const problem = validateParams(request.method, request.params);
    if (problem !== undefined) {
      this.respondError(id, new McpError(ErrorCode.InvalidParams, `Invalid params: ${problem}`), observed);
      return;
    }
    if (request.method === Method.Ping) {
      this.respond(id, {}, observed);
      return;
    }
    const running = new RunningRequest(request.method);
    if (this.inFlight === undefined) this.inFlight = new SmallMap(id, running);
    else this.inFlight.set(id, running);
    if (request.method === Method.Initialize) this.initializeId = id;
    const ctx = this.responder.context(request, running, info);
    if (observed === undefined) {
      this.run(request, ctx, running);
      return;
    }
    running.observed = observed;
    // The handler, and the answer after it, in the request's span: what they start is its child.
    observed.run(() => this.run(request, ctx, running));
  }

  /** Runs the responder on a request received, then answers it. */
  private run(request: JsonRpcRequest, ctx: HandlerContext, running: RunningRequest): void {
    const id = request.id;
    let outcome: Promise<Record<string, unknown>> | Record<string, unknown>;
    try {
      outcome = this.responder.answer(request, ctx);
    } catch (err) {
      this.finish(id, running, undefined, err);
      return;
    }
    if (outcome instanceof Promise) {
      outcome.then(
        (result) => this.finish(id, running, result, undefined),
        (err) => this.finish(id, running, undefined, err),
      );
    } else {
      this.finish(id, running, outcome, undefined);
    }
  }

  private finish(
    id: RequestId,
    running: RunningRequest,
    result: Record<string, unknown> | undefined,
    err: unknown,
  ): void {
    // A cancelled request gets no response (the peer has forgotten it).
    if (running.aborted) return;
    this.inFlight = without(this.inFlight!, id);
    if (id === this.initializeId) this.initializeId = undefined;
    if (err === undefined) this.respond(id, result ?? {}, running.observed);
    else this.respondError(id, err, running.observed);
  }

  private respond(
    id: RequestId,
    result: Record<string, unknown>,
    observed: RequestObservation | undefined,
  ): void {
    observed?.end(result);
    if (this.ended) return;
    this.answer({ jsonrpc: '2.0', id, result }, id);
  }

  private respondError(id: RequestId, err: unknown, observed: RequestObservation | undefined): void {
    observed?.end(undefined, err);
    if (this.ended) return;
    if (!(err instanceof McpError)) this.report(err);
    this.answer(errorResponse(id, toErrorObject(err)), id);
  }

  /** Sends the answer to request `id`; a failure goes to `onerror`. One that left at once (`SENT`) costs no promise. */
  private answer(message: JsonRpcResponse, id: RequestId): void {
    const sent = this.connection.send(message, id);
    if (sent !== SENT) sent.catch((e) => this.report(e));
  }

  private receiveNotification(notification: JsonRpcNotification, info: MessageInfo | undefined): void {
    const method = notification.method;
    const problem = validateParams(method, notification.params);
    if (problem !== undefined) {
      this.report(new McpError(ErrorCode.InvalidParams, `Ignored ${method}: invalid params: ${problem}`));
      return;
    }
    // Cancellation and progress act at once: they concern requests, not the notification order.
    if (method === Method.Cancelled) {
      this.onCancelled(notification.params!);
      return;
    }
    if (method === Method.Progress) {
      if (this.sent?.progressed(notification.params!)) return;
    }
    this.notificationOrder ??= new NotificationOrder(this.responder, this);
    this.notificationOrder.deliver(notification, info);
  }

  private onCancelled(params: Params): void {
    const id = params.requestId as RequestId | undefined;
    if (id === undefined) return;
    const running = this.inFlight?.get(id);
    if (running === undefined) {
      this.responder.cancelled?.(id);
      return;
    }
    // initialize is never cancelled (spec: lifecycle).
    if (id === this.initializeId) return;
    this.inFlight = without(this.inFlight!, id);
    const said = params.reason;
    running.abort(
      new RequestCancelledError(
        running.method,
        typeof said === 'string' ? `the peer said "${said}"` : 'the peer gave no reason',
      ),
    );
  }
}
