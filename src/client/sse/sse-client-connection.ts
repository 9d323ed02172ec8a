import { parseMessage } from '../../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import type { Connection, Receiver } from '../../peer/connection.js';
import { deliver } from '../../peer/deliver.js';
import { ConnectionClosedError } from '../../peer/errors.js';
import { type Clock, systemClock } from '../../util/clock.js';
import { DEFAULT_MAX_EVENT_CHARS, lowerCased } from '../http/http-replies.js';
import { plainFetch } from '../http/plain-fetch.js';
import { type RetryPolicy, retryDelay, retryPolicy } from '../retry-policy.js';
import { SSEClientError } from './sse-client-errors.js';
import { SSEPostQueue } from './sse-post-queue.js';
import { SSEStreamAttempt, type SSEStreamSettings, type SSEStreamSink } from './sse-stream-attempt.js';

/** How an `SSEClientConnection` connects, retries and shuts down; every limit has a default. */
export interface SSEClientOptions {
  /** The fetch to use (a proxy agent, a test double). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Headers sent with the GET and every POST. */
  headers?: Record<string, string>;
  /** Called before each request; its headers (e.g. a fresh bearer token) are added to it. */
  authHeaders?: () => Record<string, string> | Promise<Record<string, string>>;
  /** How long each GET may take to deliver the `endpoint` event before the connection closes. Default 10 s. */
  endpointTimeoutMs?: number;
  /** Reconnection after a transient failure. Default `DEFAULT_RETRY_POLICY`. */
  retry?: Partial<RetryPolicy>;
  /** How long one POST may take before its message fails; 0 waits forever. Default 30 s. */
  postTimeoutMs?: number;
  /** Messages that may wait to be POSTed; past it `send` rejects. Default 10 000. */
  postQueueLimit?: number;
  /** How long `closeGracefully` waits for the queue to drain. Default 5 s. */
  drainTimeoutMs?: number;
  /**
   * Silence on the stream (not even a keep-alive comment) after which it counts as dead and is
   * reconnected. Default 0: off, since many servers send no keep-alives and each reconnect costs a session.
   */
  idleTimeoutMs?: number;
  /**
   * The most characters of an unfinished SSE event the client buffers while it arrives; past it the
   * stream counts as broken and is reconnected. Default 16 Mi.
   */
  maxEventChars?: number;
  /** Time for every delay and timeout. Default: the system clock. */
  clock?: Clock;
  /** The jitter's source of randomness, in [0, 1). Default Math.random. */
  random?: () => number;
}

export const DEFAULT_ENDPOINT_TIMEOUT_MS = 10_000;
export const DEFAULT_POST_TIMEOUT_MS = 30_000;
export const DEFAULT_POST_QUEUE_LIMIT = 10_000;
export const DEFAULT_DRAIN_TIMEOUT_MS = 5_000;

const RESOLVED = Promise.resolve();
const noop = () => {};

/**
 * The client end of the legacy HTTP+SSE transport (protocol 2024-11-05). `start` opens a GET on the
 * SSE URL; the server's first event, `endpoint`, names the URI to POST messages to (resolved against
 * the SSE URL); its `message` events carry its messages.
 *
 * Promises:
 * - Messages are POSTed one at a time in `send` order; a slow POST holds back the ones behind it,
 *   never reorders them. `send` resolves once the server accepted the POST (2xx); before the endpoint
 *   is known it waits, bounded by `endpointTimeoutMs`.
 * - An endpoint on another origin than the SSE URL is refused (it would receive the client's
 *   headers): the connection closes with an `SSEClientError` of kind 'endpoint-refused'.
 * - A malformed `message` event is answered with a JSON-RPC error and reported through
 *   `receiver.error`; the stream goes on.
 * - A transient failure (network error, 408, 429, 5xx, the stream ending, a 404 on POST: the server
 *   forgot the session) reconnects under the retry policy, honouring the server's `retry:` field and
 *   `Retry-After`. A new endpoint means a new server session: messages still queued for the old one
 *   are dropped (their `send` resolves, as if delivered to the lost session) and `receiver.restarted`
 *   is called with those whose POST never began, so the session initializes anew, sends those
 *   requests again and fails or resends the others in flight. The budget resets whenever an
 *   endpoint arrives.
 * - A permanent failure (another 4xx, an answer that is not an event stream, no endpoint in time,
 *   the budget spent) closes the connection: `receiver.closed(err)` with an `SSEClientError` naming
 *   the cause, and every queued `send` rejects with ConnectionClosedError.
 * - A POST answered with an error status rejects its `send` with an 'http-status' `SSEClientError`
 *   (status and body excerpt), also reported through `receiver.error`.
 * - `closeGracefully` refuses new sends, drains the queue (bounded by `drainTimeoutMs`) and closes;
 *   `close` closes at once.
 */
export class SSEClientConnection implements Connection {
  readonly era = 'legacy';
  /** The SSE URL the connection GETs. */
  readonly url: URL;
  private readonly authHeaders: SSEClientOptions['authHeaders'];
  private readonly getHeaders: Record<string, string>;
  private readonly postHeaders: Record<string, string>;
  private readonly policy: RetryPolicy;
  private readonly drainTimeoutMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly streamSettings: SSEStreamSettings;
  /** Where every attempt reports; an attempt that ended reports nothing. */
  private readonly streamSink: SSEStreamSink = {
    message: (data) =>
      deliver(parseMessage(data), this.receiver!, (reply) => {
        this.send(reply).catch(noop);
      }),
    endpoint: (data, base) => this.onEndpoint(data, base),
    retry: (ms) => {
      this.serverRetryMs = ms;
    },
    failed: (err, transient, serverDelayMs) => this.lost(err, transient, serverDelayMs),
  };

  private receiver: Receiver | undefined;
  private stream: SSEStreamAttempt | undefined;
  private currentEndpoint: URL | undefined;
  private readonly posts: SSEPostQueue;
  /** Consecutive failed attempts since the last endpoint. */
  private failures = 0;
  /** The server's `retry:` field, the last one it sent. */
  private serverRetryMs: number | undefined;
  private retryTimer: unknown;
  /** True once an endpoint arrived: every later one is a new server session. */
  private hadSession = false;
  private accepting = true;
  private ended = false;
  private closeCause: Error | undefined;
  private closing: Promise<void> | undefined;

  constructor(url: string | URL, options: SSEClientOptions = {}) {
    this.url = new URL(url);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new TypeError(`The SSE URL must be http: or https:, got ${this.url.href}`);
    }
    const fetch = plainFetch(options.fetch);
    this.authHeaders = options.authHeaders;
    const headers = lowerCased(options.headers);
    // Built once: without an auth hook, every request reuses them.
    this.getHeaders = { ...headers, accept: 'text/event-stream' };
    this.postHeaders = { ...headers, 'content-type': 'application/json' };
    this.policy = retryPolicy(options.retry);
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.streamSettings = {
      url: this.url,
      fetch,
      getHeaders: () => this.headers(this.getHeaders),
      clock: this.clock,
      endpointTimeoutMs: options.endpointTimeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS,
      idleTimeoutMs: options.idleTimeoutMs ?? 0,
      maxEventChars: options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS,
    };
    this.posts = new SSEPostQueue(
      {
        url: this.url,
        endpoint: () => this.currentEndpoint,
        postHeaders: () => this.headers(this.postHeaders),
        sessionForgotten: (err) => this.lost(err, true),
        error: (err) => this.receiver?.error(err),
      },
      fetch,
      this.clock,
      options.postTimeoutMs ?? DEFAULT_POST_TIMEOUT_MS,
      options.postQueueLimit ?? DEFAULT_POST_QUEUE_LIMIT,
    );
  }

  /** Where messages are POSTed: the current server session's endpoint, or undefined between sessions. */
  get endpoint(): URL | undefined {
    return this.currentEndpoint;
  }

  /** True once the connection has closed for good. */
  get isClosed(): boolean {
    return this.ended;
  }

  start(receiver: Receiver): void {
    if (this.receiver !== undefined) throw new Error('Connection already started');
    this.receiver = receiver;
    if (this.ended) receiver.closed(this.closeCause);
    else this.open();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.ended) return Promise.reject(new ConnectionClosedError('Connection closed', this.closeCause));
    if (!this.accepting) {
      return Promise.reject(
        new SSEClientError(
          'refused',
          `Not sent: the connection to ${this.url} is closing (closeGracefully) and accepts no more messages`,
        ),
      );
    }
    return this.posts.enqueue(message);
  }

  /** Closes at once: aborts the stream and the POST in flight, rejects queued sends. */
  close(): Promise<void> {
    this.finish(undefined);
    return RESOLVED;
  }

  /**
   * Refuses new sends, waits until every queued message is POSTed or `drainTimeoutMs` passes (the
   * messages left then are rejected), closes the stream and resolves. Idempotent.
   */
  closeGracefully(): Promise<void> {
    this.closing ??= this.drainThenClose();
    return this.closing;
  }

  private async drainThenClose(): Promise<void> {
    this.accepting = false;
    if (!this.ended && this.posts.size > 0) await this.posts.drain(this.drainTimeoutMs);
    const left = this.posts.size;
    this.finish(
      undefined,
      left === 0
        ? undefined
        : new SSEClientError(
            'refused',
            `Not sent: closeGracefully waited ${this.drainTimeoutMs} ms (drainTimeoutMs) for ${left} queued ` +
              `message(s) to reach ${this.url}, then closed`,
          ),
    );
  }

  // ---- the stream ----

  private open(): void {
    this.retryTimer = undefined;
    const attempt = new SSEStreamAttempt(this.streamSettings, this.streamSink);
    this.stream = attempt;
    attempt.start();
  }

  private onEndpoint(data: string, base: URL): void {
    if (this.currentEndpoint !== undefined) {
      this.receiver!.error(
        new SSEClientError(
          'endpoint-refused',
          `Ignored a second endpoint event from ${this.url} (${data}): messages still go to ${this.currentEndpoint}`,
        ),
      );
      return;
    }
    let endpoint: URL;
    try {
      endpoint = new URL(data, base);
    } catch {
      this.lost(
        new SSEClientError(
          'endpoint-refused',
          `The endpoint event of ${this.url} holds ${JSON.stringify(data)}, which is not a URI`,
        ),
        false,
      );
      return;
    }
    if (endpoint.origin !== this.url.origin) {
      this.lost(
        new SSEClientError(
          'endpoint-refused',
          `Refused the endpoint ${endpoint.href} sent by ${this.url}: it is on another origin than the SSE ` +
            `stream (${this.url.origin}), and the client's POSTs would carry its headers there`,
        ),
        false,
      );
      return;
    }
    this.currentEndpoint = endpoint;
    this.failures = 0;
    if (this.hadSession) {
      // Everything still queued was meant for the lost session; the receiver's restart says what was lost, and
      // what never left.
      const unsent = this.posts.dropAll();
      this.receiver!.restarted(
        new SSEClientError(
          'reconnected',
          `Reconnected to ${this.url}: a new server session, so the old one's requests in flight are lost ` +
            'and the client initializes anew',
        ),
        unsent,
      );
    }
    this.hadSession = true;
    this.posts.pump();
  }

  /**
   * The current attempt failed, or its session was lost: reconnect after a delay if `transient` and
   * the budget allows, else close with `err`.
   */
  private lost(err: SSEClientError, transient: boolean, serverDelayMs?: number): void {
    this.endAttempt();
    if (this.currentEndpoint !== undefined) {
      this.currentEndpoint = undefined;
      this.posts.sessionLost();
    }
    // A graceful close cannot drain into a lost session.
    if (!transient || !this.accepting) {
      this.finish(err);
      return;
    }
    this.failures++;
    const max = this.policy.maxAttempts;
    if (this.failures > max) {
      this.finish(
        new SSEClientError(
          'retries-exhausted',
          max === 0
            ? `${err.message}; reconnection is off (retry.maxAttempts is 0)`
            : `${err.message}; gave up after ${max} reconnection attempts (retry.maxAttempts)`,
          { cause: err, status: err.status },
        ),
      );
      return;
    }
    const delay = retryDelay(this.policy, this.failures, this.random, serverDelayMs ?? this.serverRetryMs);
    this.receiver?.error(
      new SSEClientError(
        err.kind,
        `${err.message}; reconnecting in ${delay} ms (attempt ${this.failures} of ${max})`,
        { cause: err.cause, status: err.status },
      ),
    );
    this.retryTimer = this.clock.setTimeout(() => {
      if (!this.ended) this.open();
    }, delay);
  }

  /** Aborts the current GET and its timers. */
  private endAttempt(): void {
    const attempt = this.stream;
    if (attempt === undefined) return;
    this.stream = undefined;
    attempt.end();
  }

  /** Ends the connection for good; `queuedError` is what queued sends reject with (default: closed). */
  private finish(cause: Error | undefined, queuedError?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.accepting = false;
    this.closeCause = cause;
    this.endAttempt();
    if (this.retryTimer !== undefined) this.clock.clearTimeout(this.retryTimer);
    this.currentEndpoint = undefined;
    this.posts.close(queuedError ?? new ConnectionClosedError('Connection closed', cause));
    this.receiver?.closed(cause);
  }

  /** `base` with the auth hook's headers added; they never replace Accept or Content-Type. */
  private async headers(base: Record<string, string>): Promise<Record<string, string>> {
    if (this.authHeaders === undefined) return base;
    const auth = lowerCased(await this.authHeaders());
    const merged = { ...base, ...auth };
    if (base === this.getHeaders) merged.accept = base.accept;
    else merged['content-type'] = base['content-type'];
    return merged;
  }
}
