import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import {
  isRequest,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type Params,
  type RequestId,
} from '../jsonrpc/types.js';
import { Method } from '../protocol/types.js';
import type { SentObservation } from '../telemetry/telemetry.js';
import type { Clock } from '../util/clock.js';
import { without } from '../util/without.js';
import { abortReasonText } from './abort-reason.js';
import {
  InvalidResponseError,
  RequestCancelledError,
  RequestTimeoutError,
  SessionExpiredError,
} from './errors.js';
import type { Progress, RequestOptions } from './peer-options.js';

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

/** A request kept across a restart of the peer's session, to send again once it is initialized anew. */
export type Resend = Pending;

/** What the requests go out through: the peer's connection, and where their observation starts. */
export interface OutgoingWire {
  send(message: JsonRpcRequest, related: RequestId | undefined): Promise<void>;
  /** Tells the peer a request was given up (`notifications/cancelled`); never throws. */
  cancel(id: RequestId, reason: string | undefined): void;
  /** The observation of a request about to be sent; undefined when nothing listens. */
  observe(method: string, params: Params | undefined): SentObservation | undefined;
  report(err: unknown): void;
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

const DIGITS = /^\d{1,15}$/;

/**
 * The requests a peer sent that wait for their answers: their ids, timers (reset by progress, bounded in
 * total), progress tokens, cancellation by signal, and answers that come late or answer nothing.
 * Maps exist only while not empty (`without`): most sessions sit idle, and a server seldom sends requests.
 */
export class OutgoingRequests {
  private nextId = 0;
  private pending: Map<RequestId, Pending> | undefined;
  private progressTokens: Map<string | number, RequestId> | undefined;

  constructor(
    private readonly wire: OutgoingWire,
    private readonly clock: Clock,
    private readonly requestTimeoutMs: number,
    private readonly maxTotalTimeoutMs: number,
    /**
     * When set, ids are `<prefix><n>` (strings) instead of numbers: a transport that serves one session from
     * several processes gives each its own prefix, so that their ids never collide and a response names the
     * process that waits for it.
     */
    private readonly prefix: string | undefined,
  ) {}

  /** True while some request waits for its answer. */
  get waiting(): boolean {
    return this.pending !== undefined;
  }

  /** Sends a request; its id is known at once, its answer when it comes. */
  issue<R>(
    method: string,
    params: Params | undefined,
    options: RequestOptions,
  ): { id: RequestId; result: Promise<R> } {
    const signal = options.signal;
    const n = this.nextId++;
    const id = this.prefix === undefined ? n : this.prefix + n;
    // An aborted signal sends nothing (its abort event is over and would never be heard).
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
    const own = observed === undefined ? this.wire.observe(method, params) : undefined;
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
      this.send(id, message, options.relatedRequestId);
    });
    return { id, result };
  }

  /** Whether `id` names a request sent here, answered or not (see `Receiver.asked`). */
  asked(id: RequestId): boolean {
    if (this.pending?.has(id)) return true;
    const prefix = this.prefix;
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

  /** Settles the request a response answers; one that answers nothing asked is reported. */
  answered(response: JsonRpcResponse): void {
    const id = response.id;
    if (id === null) {
      // The peer could not read something we sent; nothing to correlate it with.
      const e = (response as { error: { message: string } }).error;
      this.wire.report(new McpError(ErrorCode.InvalidRequest, `Peer reported an error: ${e.message}`));
      return;
    }
    const entry = this.settle(id);
    if (entry === undefined) {
      // A late answer (to a request that timed out or was cancelled) is dropped; one to nothing is reported.
      if (!this.asked(id))
        this.wire.report(
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

  /** See `Receiver.invalidAnswer`: the request `id` fails, naming its method and `problem`, if it still waits. */
  answeredInvalid(id: RequestId, problem: string): boolean {
    if (!this.asked(id)) return false;
    const entry = this.settle(id);
    entry?.reject(new InvalidResponseError(entry.method, problem));
    return true;
  }

  /** Answers to requests of ours came in a batch the peer refused (`why`): those requests fail now, saying so. */
  refusedBatch(messages: readonly JsonRpcMessage[], why: string): void {
    for (const m of messages)
      if (!('method' in m) && m.id !== null) this.answeredInvalid(m.id, `it came in a batch: ${why}`);
  }

  /** Routes progress to the request it belongs to, whose timer starts again; true when it did. */
  progressed(params: Params): boolean {
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
        this.wire.report(err);
      }
    }
    return true;
  }

  /** The answer to `id` can no longer come: it fails with `cause`. */
  fail(id: RequestId, cause: Error): void {
    this.settle(id)?.reject(cause);
  }

  /** Fails every request waiting. */
  failAll(err: Error): void {
    if (this.pending !== undefined) for (const id of [...this.pending.keys()]) this.fail(id, err);
  }

  /**
   * The peer's session was lost: requests that asked to be sent again are kept (still waiting), and so are those
   * among `unsent`, which never left the transport and so cannot have run; the others fail with
   * SessionExpiredError.
   */
  expire(cause: Error, unsent: readonly JsonRpcMessage[]): Resend[] {
    const kept: Resend[] = [];
    for (const m of unsent) {
      if (!isRequest(m)) continue;
      // Ids are issued once: a pending request with the message's id is the one it carries.
      const entry = this.pending?.get(m.id);
      if (entry !== undefined) entry.resend ??= { message: m, related: undefined };
    }
    for (const [id, entry] of [...(this.pending ?? [])]) {
      if (entry.resend !== undefined) {
        kept.push(entry);
        continue;
      }
      this.settle(id);
      entry.reject(new SessionExpiredError(entry.method, cause));
    }
    return kept;
  }

  /** Sends again what `expire` kept, once the session is initialized anew. */
  resend(kept: Resend[]): void {
    for (const { resend } of kept) this.send(resend!.message.id, resend!.message, resend!.related);
  }

  private send(id: RequestId, message: JsonRpcRequest, related: RequestId | undefined): void {
    this.wire.send(message, related).catch((err: Error) => this.fail(id, err));
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

  /** Gives up on a request: tells the peer (never for initialize) and rejects the caller. */
  private abandon(id: RequestId, err: Error, reason: unknown): void {
    const entry = this.settle(id);
    if (entry === undefined) return;
    if (entry.method !== Method.Initialize) {
      const text = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : undefined;
      this.wire.cancel(id, text);
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
}
