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
import { CANCELLED } from '../telemetry/attributes.js';
import type { RequestFacts, RequestObservation, SentObservation, Telemetry } from '../telemetry/telemetry.js';
import { type Clock, systemClock } from '../util/clock.js';
import { without } from '../util/without.js';
import { abortReasonText } from './abort-reason.js';
import type { Connection, MessageInfo, Receiver } from './connection.js';
import {
  ConnectionClosedError,
  RequestCancelledError,
  RequestTimeoutError,
  SessionExpiredError,
} from './errors.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** What both peers configure on a session. */
export interface PeerOptions {
  /** Default time a request waits for its answer, reset by each progress notification. */
  requestTimeoutMs?: number;
  /** Hard limit on a request's total time, whatever progress arrives. Default: none. */
  maxTotalTimeoutMs?: number;
  /** Receives every failure that has no caller to reject: bad input, handler errors, send errors. */
  onerror?: (err: Error) => void;
  clock?: Clock;
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects with `RequestCancelledError`. */
  signal?: AbortSignal;
  /** Overrides the session's `requestTimeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the session's `maxTotalTimeoutMs` for this call. */
  maxTotalTimeoutMs?: number;
  /** Called for each progress notification; asking for it attaches a progress token. */
  onprogress?: (progress: Progress) => void;
  /** The incoming request this one is made on behalf of (routes it to that request's stream). */
  relatedRequestId?: RequestId;
  /**
   * When the transport loses the peer's session (see `Receiver.restarted`), send this request
   * again once the session is initialized anew, instead of failing it with SessionExpiredError.
   * Only for requests that are safe to run twice.
   */
  retryOnRestart?: boolean;
  /**
   * @internal The observation of a request sent in several rounds (a modern request answered input_required):
   * each round carries its trace context, and none makes an observation of its own.
   */
  observation?: SentObservation;
}

/** What a request handler gets besides its params. One per incoming request. */
export interface RequestContext<S extends JsonRpcPeer = JsonRpcPeer> {
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

interface Pending {
  method: string;
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
  startedAt: number;
  timeout: number;
  maxTotal: number;
  timer: unknown;
  progressToken: string | number | undefined;
  onprogress: ((p: Progress) => void) | undefined;
  signal: AbortSignal | undefined;
  onabort: (() => void) | undefined;
  /** Kept only for requests to resend after a restart. */
  resend: { message: JsonRpcRequest; related: RequestId | undefined } | undefined;
}

/** Makes a pending request end its observation when it settles, whichever way. */
function observe(entry: Pending, observed: SentObservation): void {
  const { resolve, reject } = entry;
  entry.resolve = (result) => {
    observed.end(result);
    resolve(result);
  };
  entry.reject = (err) => {
    observed.end(undefined, err);
    reject(err);
  };
}

const noop = () => {};

/**
 * One MCP peer's side of a connection, shared by server and client: correlates requests with
 * responses, runs incoming requests concurrently and notifications in arrival order, applies
 * timeouts and cancellation both ways, answers ping.
 *
 * Subclasses supply `handleRequest` and `handleNotification`. Those live on the prototype and read
 * shared definitions, so a session holds only what differs per peer.
 */
const DIGITS = /^\d{1,15}$/;

export abstract class JsonRpcPeer implements Receiver {
  /** The negotiated protocol version, once initialize has run. */
  protocolVersion: string | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  onerror: ((err: Error) => void) | undefined;
  /**
   * When set, the ids of requests this session sends are `<prefix><n>` (strings) instead of numbers: a
   * transport that serves one session from several processes gives each its own prefix, so that their
   * ids never collide and a response names the process that waits for it.
   */
  requestIdPrefix: string | undefined;

  private nextId = 0;
  // Present only while not empty (`without`): most sessions sit idle, and a server session seldom sends requests.
  private pending: Map<RequestId, Pending> | undefined;
  private progressTokens: Map<string | number, RequestId> | undefined;
  private inFlight: Map<RequestId, RunningRequest> | undefined;
  /** Notifications waiting for an async notification handler to finish; present only then. */
  private notificationQueue: Array<[JsonRpcNotification, MessageInfo | undefined]> | undefined;
  private closedCause: Error | undefined;
  /** While the session initializes anew after a restart: what other requests wait for. */
  private restarting: Promise<void> | undefined;
  /** The id of the peer's initialize request while it runs: the one request that cannot be cancelled. */
  private initializeId: RequestId | undefined;
  private ended = false;
  protected readonly clock: Clock;
  protected readonly requestTimeoutMs: number;
  protected readonly maxTotalTimeoutMs: number;

  constructor(
    readonly connection: Connection,
    options: PeerOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? Number.POSITIVE_INFINITY;
    this.onerror = options.onerror;
  }

  /** Where this session's requests are observed (its Server's or Client's); undefined when nothing listens. */
  protected get telemetry(): Telemetry | undefined {
    return undefined;
  }

  /** What an observation of this session's requests is told besides the message. */
  private facts(): RequestFacts {
    return { protocolVersion: this.protocolVersion, sessionId: this.connection.sessionId };
  }

  /** Starts reading from the connection. */
  protected start(): void {
    this.connection.start(this);
  }

  /** True once the connection has closed. */
  get isClosed(): boolean {
    return this.ended;
  }

  /** Handles one incoming request whose params passed validation; returns its result or throws. */
  protected abstract handleRequest(
    request: JsonRpcRequest,
    ctx: RequestContext<this>,
  ): Promise<Record<string, unknown>> | Record<string, unknown>;

  /** Handles one incoming notification. A returned promise holds back later notifications. */
  protected abstract handleNotification(
    notification: JsonRpcNotification,
    info: MessageInfo | undefined,
  ): void | Promise<void>;

  /** Builds the context handed to a request handler; subclasses return a richer one. */
  protected createContext(
    request: JsonRpcRequest,
    running: RunningRequest,
    info: MessageInfo | undefined,
  ): HandlerContext<this> {
    return new HandlerContext(this, request, running, info);
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
    return this.issue<R>(method, params, options).result;
  }

  /**
   * `request`, for a caller that must know the id the request goes out with (a listen's acknowledgement
   * names it) before its answer comes. The session must be open and not restarting.
   */
  protected issue<R>(
    method: string,
    params: Params | undefined,
    options: RequestOptions,
  ): { id: RequestId; result: Promise<R> } {
    const signal = options.signal;
    const n = this.nextId++;
    const id = this.requestIdPrefix === undefined ? n : this.requestIdPrefix + n;
    // As `request`: an aborted signal sends nothing (its abort event is over and would never be heard).
    if (signal?.aborted)
      return { id, result: Promise.reject(new RequestCancelledError(method, signal.reason)) };
    let progressToken: string | number | undefined;
    const meta = params?._meta as Record<string, unknown> | undefined;
    if (
      meta !== undefined &&
      (typeof meta.progressToken === 'string' || typeof meta.progressToken === 'number')
    ) {
      progressToken = meta.progressToken;
    } else if (options.onprogress !== undefined) {
      progressToken = id;
      params = { ...params, _meta: { ...meta, progressToken } };
    }
    // The request's own observation, unless it is one round of an observed request.
    let observed = options.observation;
    const own = observed === undefined ? this.telemetry?.sending(method, params, this.facts()) : undefined;
    observed ??= own;
    if (observed !== undefined) {
      observed.sentAs(id);
      params = observed.inject(params);
    }
    const message: JsonRpcRequest =
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

    const result = new Promise<R>((resolve, reject) => {
      const entry: Pending = {
        method,
        resolve: resolve as (r: Record<string, unknown>) => void,
        reject,
        startedAt: this.clock.now(),
        timeout: options.timeoutMs ?? this.requestTimeoutMs,
        maxTotal: options.maxTotalTimeoutMs ?? this.maxTotalTimeoutMs,
        timer: undefined,
        progressToken,
        onprogress: options.onprogress,
        signal,
        onabort: undefined,
        resend: options.retryOnRestart ? { message, related: options.relatedRequestId } : undefined,
      };
      if (own !== undefined) observe(entry, own);
      this.pending ??= new Map();
      this.pending.set(id, entry);
      if (progressToken !== undefined) {
        this.progressTokens ??= new Map();
        this.progressTokens.set(progressToken, id);
      }
      if (signal !== undefined) {
        // The peer hears which request was given up, and why: its own log then names the method.
        entry.onabort = () =>
          this.abandon(
            id,
            new RequestCancelledError(method, signal.reason),
            `${method} cancelled: ${abortReasonText(signal.reason)}`,
          );
        signal.addEventListener('abort', entry.onabort, { once: true });
      }
      this.armTimer(id, entry);
      this.connection.send(message, options.relatedRequestId).catch((err: Error) => {
        this.settle(id)?.reject(err);
      });
    });
    return { id, result };
  }

  /** Sends a notification. */
  notify(method: string, params?: Params, relatedRequestId?: RequestId): Promise<void> {
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.sendNotification(message, relatedRequestId);
  }

  /** Sends a notification the caller built (once, for many sessions): it must not change afterwards. */
  protected sendNotification(message: JsonRpcNotification, relatedRequestId?: RequestId): Promise<void> {
    if (this.ended) return Promise.reject(new ConnectionClosedError('Session is closed', this.closedCause));
    return this.connection.send(message, relatedRequestId);
  }

  /** Sends `ping` and resolves when the peer answers. */
  async ping(options?: RequestOptions): Promise<void> {
    await this.request(Method.Ping, undefined, options);
  }

  /** Closes the connection; pending requests reject with ConnectionClosedError. */
  async close(): Promise<void> {
    await this.connection.close();
    // A transport that never reports its own closing must not leave callers waiting.
    this.closed(undefined);
  }

  private armTimer(id: RequestId, entry: Pending): void {
    const elapsed = this.clock.now() - entry.startedAt;
    const remainingTotal = entry.maxTotal - elapsed;
    if (remainingTotal <= 0) {
      this.abandon(id, new RequestTimeoutError(entry.method, entry.maxTotal, 'maxTotalTimeoutMs'), 'timeout');
      return;
    }
    const hitsTotal = remainingTotal < entry.timeout;
    const wait = hitsTotal ? remainingTotal : entry.timeout;
    if (!Number.isFinite(wait)) return;
    entry.timer = this.clock.setTimeout(() => {
      const err = hitsTotal
        ? new RequestTimeoutError(entry.method, entry.maxTotal, 'maxTotalTimeoutMs')
        : new RequestTimeoutError(entry.method, entry.timeout, 'timeout');
      this.abandon(id, err, err.message);
    }, wait);
  }

  /** Gives up on an outgoing request: tells the peer (never for initialize) and rejects the caller. */
  private abandon(id: RequestId, err: Error, reason: unknown): void {
    const entry = this.settle(id);
    if (entry === undefined) return;
    if (entry.method !== Method.Initialize && !this.ended) {
      const text = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : undefined;
      this.notify(
        Method.Cancelled,
        text === undefined ? { requestId: id } : { requestId: id, reason: text },
      ).catch(noop);
    }
    entry.reject(err);
  }

  /** Removes a pending request and its timer and listeners; returns it if it was still pending. */
  private settle(id: RequestId): Pending | undefined {
    const entry = this.pending?.get(id);
    if (entry === undefined) return undefined;
    this.pending = without(this.pending!, id);
    if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
    if (entry.progressToken !== undefined)
      this.progressTokens = without(this.progressTokens!, entry.progressToken);
    if (entry.onabort !== undefined) entry.signal!.removeEventListener('abort', entry.onabort);
    return entry;
  }

  // ---- receiving (the Receiver contract) ----

  asked(id: RequestId): boolean {
    if (this.pending?.has(id)) return true;
    const prefix = this.requestIdPrefix;
    let n: number;
    if (prefix === undefined) {
      if (typeof id !== 'number') return false;
      n = id;
    } else {
      if (typeof id !== 'string' || !id.startsWith(prefix) || !DIGITS.test(id.slice(prefix.length)))
        return false;
      n = Number(id.slice(prefix.length));
    }
    // Ids are issued in order: one below the next was sent, and its answer is late (timed out or cancelled).
    return Number.isInteger(n) && n >= 0 && n < this.nextId;
  }

  message(message: JsonRpcMessage, info?: MessageInfo): void {
    if ('method' in message) {
      if ('id' in message) this.receiveRequest(message, info);
      else this.receiveNotification(message, info);
    } else {
      this.receiveResponse(message);
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
      return;
    }
    for (const m of messages) this.message(m, info);
  }

  error(err: Error): void {
    this.report(err);
  }

  lost(id: RequestId, cause: Error): void {
    this.settle(id)?.reject(cause);
  }

  restarted(cause: Error): void {
    if (this.ended || this.restarting !== undefined) return;
    const resend: Pending[] = [];
    for (const [id, entry] of [...(this.pending ?? [])]) {
      if (entry.resend !== undefined) {
        resend.push(entry);
        continue;
      }
      this.settle(id);
      entry.reject(new SessionExpiredError(entry.method, cause));
    }
    // Handlers of the old session's requests can no longer answer anyone.
    this.abortAll(cause);
    this.initializeId = undefined;
    const restart = this.reinitialize(cause).then(
      () => {
        this.restarting = undefined;
        for (const entry of resend) {
          this.connection.send(entry.resend!.message, entry.resend!.related).catch((err: Error) => {
            const id = entry.resend!.message.id;
            this.settle(id)?.reject(err);
          });
        }
      },
      (err: Error) => {
        this.restarting = undefined;
        this.report(err);
        this.close().catch(noop);
      },
    );
    this.restarting = restart;
  }

  /**
   * Initializes the peer anew after the transport lost its session. The default refuses (a
   * server's session cannot restart itself); the client runs its handshake again.
   */
  protected reinitialize(cause: Error): Promise<void> {
    return Promise.reject(cause);
  }

  closed(cause?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.closedCause = cause;
    // Built only when someone receives it: capturing its stack is costly, and a stateless
    // session closes after every request with nothing left pending.
    if (this.pending?.size || this.inFlight?.size) {
      const err = new ConnectionClosedError('Connection closed', cause);
      if (this.pending !== undefined) for (const id of [...this.pending.keys()]) this.settle(id)?.reject(err);
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

  protected report(err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    if (this.onerror) this.onerror(error);
  }

  private receiveResponse(response: JsonRpcResponse): void {
    const id = response.id;
    if (id === null) {
      // The peer could not read something we sent; nothing to correlate it with.
      const e = (response as { error: { message: string } }).error;
      this.report(new McpError(ErrorCode.InvalidRequest, `Peer reported an error: ${e.message}`));
      return;
    }
    const entry = this.settle(id);
    if (entry === undefined) {
      // A late answer (to a request that timed out or was cancelled) is dropped; one to nothing is reported.
      if (!this.asked(id))
        this.report(
          new McpError(
            ErrorCode.InvalidRequest,
            `Ignored a response with id ${JSON.stringify(id)}: no request was sent with that id`,
          ),
        );
      return;
    }
    if ('error' in response) entry.reject(McpError.fromObject(response.error));
    else entry.resolve(response.result);
  }

  private receiveRequest(request: JsonRpcRequest, info: MessageInfo | undefined): void {
    const id = request.id;
    const observed = this.telemetry?.serving(request.method, id, request.params, this.facts());
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
    this.inFlight ??= new Map();
    this.inFlight.set(id, running);
    if (request.method === Method.Initialize) this.initializeId = id;
    const ctx = this.createContext(request, running, info);
    if (observed === undefined) {
      this.run(request, ctx, running);
      return;
    }
    running.observed = observed;
    // The handler, and the answer after it, in the request's span: what they start is its child.
    observed.run(() => this.run(request, ctx, running));
  }

  /** Runs the handler of a request received, then answers it. */
  private run(request: JsonRpcRequest, ctx: HandlerContext<this>, running: RunningRequest): void {
    const id = request.id;
    let outcome: Promise<Record<string, unknown>> | Record<string, unknown>;
    try {
      outcome = this.handleRequest(request, ctx);
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
    this.connection.send({ jsonrpc: '2.0', id, result }, id).catch((e) => this.report(e));
  }

  private respondError(id: RequestId, err: unknown, observed: RequestObservation | undefined): void {
    observed?.end(undefined, err);
    if (this.ended) return;
    if (!(err instanceof McpError)) this.report(err);
    this.connection.send(errorResponse(id, toErrorObject(err)), id).catch((e) => this.report(e));
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
      if (this.onProgress(notification.params!)) return;
    }
    if (this.notificationQueue !== undefined) {
      this.notificationQueue.push([notification, info]);
      return;
    }
    this.runNotification(notification, info);
  }

  private runNotification(notification: JsonRpcNotification, info: MessageInfo | undefined): void {
    let outcome: void | Promise<void>;
    try {
      outcome = this.handleNotification(notification, info);
    } catch (err) {
      this.report(err);
      return;
    }
    if (outcome instanceof Promise) {
      this.notificationQueue = [];
      outcome.catch((err) => this.report(err)).then(() => this.drainNotifications());
    }
  }

  private drainNotifications(): void {
    const queue = this.notificationQueue!;
    this.notificationQueue = undefined;
    while (queue.length > 0) {
      const [n, info] = queue.shift()!;
      this.runNotification(n, info);
      if (this.notificationQueue !== undefined) {
        // Another async handler started: the rest wait behind it, still in order.
        (this.notificationQueue as Array<[JsonRpcNotification, MessageInfo | undefined]>).push(...queue);
        return;
      }
    }
  }

  private onCancelled(params: Params): void {
    const id = params.requestId as RequestId | undefined;
    if (id === undefined) return;
    const running = this.inFlight?.get(id);
    if (running === undefined) {
      this.cancelledByPeer(id);
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

  /**
   * The peer cancelled `id`, which is none of its requests in flight here: it may be one of ours that the
   * peer ends without an answer (a 2026-07-28 server ending a listen on stdio). Default: nothing to do.
   */
  protected cancelledByPeer(_id: RequestId): void {}

  /** Routes progress to the outgoing request it belongs to; true when it did. */
  private onProgress(params: Params): boolean {
    const token = params.progressToken as string | number;
    const id = this.progressTokens?.get(token);
    if (id === undefined) return false;
    const entry = this.pending!.get(id);
    if (entry === undefined) return false;
    if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
    entry.timer = undefined;
    this.armTimer(id, entry);
    if (entry.onprogress !== undefined && this.pending?.has(id)) {
      try {
        entry.onprogress({
          progress: params.progress as number,
          total: params.total as number | undefined,
          message: params.message as string | undefined,
        });
      } catch (err) {
        this.report(err);
      }
    }
    return true;
  }
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
 * the server and client extend it with their own calls.
 */
export class HandlerContext<S extends JsonRpcPeer = JsonRpcPeer> implements RequestContext<S> {
  readonly requestId: RequestId;
  readonly method: string;
  readonly meta: Record<string, unknown> | undefined;
  constructor(
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
    return this.session.notify(method, params, this.requestId);
  }

  request<R = Record<string, unknown>>(
    method: string,
    params?: Params,
    options: RequestOptions = {},
  ): Promise<R> {
    return this.session.request<R>(method, params, this.related(options));
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
