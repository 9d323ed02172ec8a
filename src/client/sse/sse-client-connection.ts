import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { parseMessage } from '../../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import type { Connection, Receiver } from '../../peer/connection.js';
import { deliver } from '../../peer/deliver.js';
import { ConnectionClosedError } from '../../peer/errors.js';
import { type Clock, systemClock } from '../../util/clock.js';
import { plainFetch } from '../http/plain-fetch.js';
import {
  isTransientStatus,
  type RetryPolicy,
  retryAfterMs,
  retryDelay,
  retryPolicy,
} from '../retry-policy.js';
import { SSEClientError } from './sse-client-errors.js';

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
export const DEFAULT_MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** A message waiting to be POSTed, with the `send` promise it settles. */
interface Outgoing {
  readonly body: string;
  resolve(): void;
  reject(err: Error): void;
}

/** One GET and the stream it opened; callbacks of a replaced attempt find it is no longer current. */
interface Attempt {
  readonly abort: AbortController;
  /** Where the stream came from (the SSE URL, or where it redirected within its origin). */
  base: URL;
  endpointTimer: unknown;
  idleTimer: unknown;
  lastActivity: number;
}

/** Why the POST in flight was aborted. */
const SESSION_LOST = Symbol('session lost');
const POST_TIMEOUT = Symbol('post timeout');
const CLOSED = Symbol('closed');

const RESOLVED = Promise.resolve();
const EXCERPT_BYTES = 1024;
const MAX_REDIRECTS = 5;
const EXCERPT_CHARS = 300;
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
 *   is called, so the session fails or resends its requests in flight and initializes anew. The
 *   budget resets whenever an endpoint arrives.
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
  private readonly fetch: typeof fetch;
  private readonly authHeaders: SSEClientOptions['authHeaders'];
  private readonly getHeaders: Record<string, string>;
  private readonly postHeaders: Record<string, string>;
  private readonly endpointTimeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly postTimeoutMs: number;
  private readonly postQueueLimit: number;
  private readonly drainTimeoutMs: number;
  private readonly idleTimeoutMs: number;
  private readonly maxEventChars: number;
  private readonly clock: Clock;
  private readonly random: () => number;

  private receiver: Receiver | undefined;
  private stream: Attempt | undefined;
  private currentEndpoint: URL | undefined;
  /** The POST in flight (there is at most one). */
  private postAbort: AbortController | undefined;
  private readonly queue: Outgoing[] = [];
  private pumping = false;
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
  /** Wakes `closeGracefully` when the queue is empty. */
  private drained: (() => void) | undefined;
  private closing: Promise<void> | undefined;

  constructor(url: string | URL, options: SSEClientOptions = {}) {
    this.url = new URL(url);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new TypeError(`The SSE URL must be http: or https:, got ${this.url.href}`);
    }
    this.fetch = plainFetch(options.fetch);
    this.authHeaders = options.authHeaders;
    const headers = lowerKeys(options.headers);
    // Built once: without an auth hook, every request reuses them.
    this.getHeaders = { ...headers, accept: 'text/event-stream' };
    this.postHeaders = { ...headers, 'content-type': 'application/json' };
    this.endpointTimeoutMs = options.endpointTimeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS;
    this.policy = retryPolicy(options.retry);
    this.postTimeoutMs = options.postTimeoutMs ?? DEFAULT_POST_TIMEOUT_MS;
    this.postQueueLimit = options.postQueueLimit ?? DEFAULT_POST_QUEUE_LIMIT;
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 0;
    this.maxEventChars = options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
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
    if (this.queue.length >= this.postQueueLimit) {
      return Promise.reject(
        new SSEClientError(
          'refused',
          `Not sent: ${this.postQueueLimit} messages already wait to be POSTed to ${this.url} (postQueueLimit)`,
        ),
      );
    }
    let body: string;
    try {
      body = JSON.stringify(message);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ body, resolve, reject });
      this.pump();
    });
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
    if (!this.ended && this.queue.length > 0) {
      let timer: unknown;
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        timer = this.clock.setTimeout(resolve, this.drainTimeoutMs);
      });
      this.clock.clearTimeout(timer);
      this.drained = undefined;
    }
    const left = this.queue.length;
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
    const attempt: Attempt = {
      abort: new AbortController(),
      base: this.url,
      endpointTimer: undefined,
      idleTimer: undefined,
      lastActivity: 0,
    };
    this.stream = attempt;
    attempt.endpointTimer = this.clock.setTimeout(() => {
      if (this.stream !== attempt) return;
      this.lost(
        new SSEClientError(
          'endpoint-timeout',
          `No endpoint event from ${this.url} within ${this.endpointTimeoutMs} ms (endpointTimeoutMs): a legacy ` +
            'HTTP+SSE server sends one first; check that the URL is its SSE endpoint',
        ),
        false,
      );
    }, this.endpointTimeoutMs);
    this.connect(attempt).catch((err) => {
      if (this.stream === attempt) {
        this.lost(
          new SSEClientError('network', `The SSE stream of ${this.url} failed: ${reasonOf(err)}`),
          true,
        );
      }
    });
  }

  private async connect(attempt: Attempt): Promise<void> {
    const response = await this.get(attempt);
    if (response === undefined) return;
    if (!response.ok) {
      const excerpt = await bodyExcerpt(response);
      if (this.stream !== attempt) return;
      this.lost(
        new SSEClientError('http-status', `GET ${this.url} was answered ${response.status}: ${excerpt}`, {
          status: response.status,
        }),
        isTransientStatus(response.status),
        retryAfterMs(response.headers.get('retry-after'), Date.now()),
      );
      return;
    }
    const type = response.headers.get('content-type') ?? '';
    if (response.body === null || !type.toLowerCase().startsWith('text/event-stream')) {
      response.body?.cancel().catch(noop);
      this.lost(
        new SSEClientError(
          'not-event-stream',
          `GET ${this.url} was answered with ${type === '' ? 'no Content-Type' : type}, not text/event-stream: ` +
            'is it the SSE endpoint of a legacy HTTP+SSE MCP server?',
        ),
        false,
      );
      return;
    }
    this.watchIdle(attempt);
    await this.read(response.body, attempt);
  }

  /**
   * The GET's answer, after following redirects within the SSE URL's origin (the request carries the
   * client's headers: another origin must not see them). Undefined when the attempt is over: it was
   * replaced, or it failed and `lost` has run.
   */
  private async get(attempt: Attempt): Promise<Response | undefined> {
    let target = this.url;
    try {
      const headers = await this.headers(this.getHeaders);
      for (let hops = 0; ; hops++) {
        if (this.stream !== attempt) return undefined;
        const response = await this.fetch(target, {
          method: 'GET',
          headers,
          redirect: 'manual',
          signal: attempt.abort.signal,
        });
        if (response.type === 'opaqueredirect') {
          // A browser: it tells neither status nor Location of a redirect not followed.
          this.lost(
            new SSEClientError(
              'redirect-refused',
              `GET ${target} was redirected, and a browser does not say where to: connect to the URL it redirects to`,
            ),
            false,
          );
          return undefined;
        }
        const location = response.headers.get('location');
        if (response.status < 300 || response.status > 399 || location === null) {
          if (this.stream === attempt) {
            attempt.base = target;
            return response;
          }
          response.body?.cancel().catch(noop);
          return undefined;
        }
        response.body?.cancel().catch(noop);
        const next = new URL(location, target);
        if (next.origin !== this.url.origin || hops === MAX_REDIRECTS) {
          this.lost(
            new SSEClientError(
              'redirect-refused',
              hops === MAX_REDIRECTS
                ? `GET ${this.url} was redirected more than ${MAX_REDIRECTS} times`
                : `Refused the redirect of GET ${this.url} to ${next.href}: it is on another origin, and the ` +
                    "request would carry the client's headers there; connect to that URL directly if it is trusted",
              { status: response.status },
            ),
            false,
          );
          return undefined;
        }
        target = next;
      }
    } catch (err) {
      if (this.stream === attempt) {
        this.lost(
          new SSEClientError('network', `GET ${target} failed: ${reasonOf(err)}`, { cause: err }),
          true,
        );
      }
      return undefined;
    }
  }

  private async read(body: ReadableStream<Uint8Array>, attempt: Attempt): Promise<void> {
    const parser = createParser({
      onEvent: (event) => this.onEvent(event, attempt),
      onRetry: (ms) => {
        this.serverRetryMs = ms;
      },
      onError: (err) => this.onParseError(err, attempt),
      maxBufferSize: this.maxEventChars,
    });
    const decoder = new TextDecoder();
    const reader = body.getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (this.stream === attempt) {
          this.lost(
            new SSEClientError('network', `The SSE stream of ${this.url} broke: ${reasonOf(err)}`, {
              cause: err,
            }),
            true,
          );
        }
        return;
      }
      if (this.stream !== attempt) return;
      if (chunk.done) break;
      if (this.idleTimeoutMs > 0) attempt.lastActivity = this.clock.now();
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      // An event may have ended this attempt (a refused endpoint, an oversized event).
      if (this.stream !== attempt) return;
    }
    this.lost(new SSEClientError('stream-ended', `The server ended the SSE stream of ${this.url}`), true);
  }

  private onEvent(event: EventSourceMessage, attempt: Attempt): void {
    if (this.stream !== attempt) return;
    const receiver = this.receiver!;
    switch (event.event) {
      // An event without a type is a `message` (SSE).
      case undefined:
      case 'message':
        deliver(parseMessage(event.data), receiver, (reply) => {
          this.send(reply).catch(noop);
        });
        return;
      case 'endpoint':
        this.onEndpoint(event.data, attempt);
        return;
      default:
      // Other event types are not part of the transport; ignore them as EventSource would.
    }
  }

  private onEndpoint(data: string, attempt: Attempt): void {
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
      endpoint = new URL(data, attempt.base);
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
    this.clock.clearTimeout(attempt.endpointTimer);
    attempt.endpointTimer = undefined;
    this.currentEndpoint = endpoint;
    this.failures = 0;
    if (this.hadSession) {
      // Everything still queued was meant for the lost session; the receiver's restart says what was lost.
      for (const item of this.queue.splice(0)) item.resolve();
      this.receiver!.restarted(
        new SSEClientError(
          'reconnected',
          `Reconnected to ${this.url}: a new server session, so the old one's requests in flight are lost ` +
            'and the client initializes anew',
        ),
      );
    }
    this.hadSession = true;
    this.pump();
  }

  private onParseError(err: ParseError, attempt: Attempt): void {
    // Unknown fields and bad retry values are ignored, as the SSE standard says.
    if (err.type !== 'max-buffer-size-exceeded' || this.stream !== attempt) return;
    this.lost(
      new SSEClientError(
        'event-too-large',
        `An unfinished SSE event from ${this.url} exceeded ${this.maxEventChars} characters (maxEventChars)`,
      ),
      true,
    );
  }

  private watchIdle(attempt: Attempt): void {
    if (this.idleTimeoutMs <= 0) return;
    attempt.lastActivity = this.clock.now();
    // One timer per idle period, not one per chunk: each chunk only notes the time.
    const check = () => {
      if (this.stream !== attempt) return;
      const silent = this.clock.now() - attempt.lastActivity;
      if (silent >= this.idleTimeoutMs) {
        this.lost(
          new SSEClientError(
            'idle',
            `The SSE stream of ${this.url} was silent for ${silent} ms (idleTimeoutMs is ${this.idleTimeoutMs})`,
          ),
          true,
        );
        return;
      }
      attempt.idleTimer = this.clock.setTimeout(check, this.idleTimeoutMs - silent);
    };
    attempt.idleTimer = this.clock.setTimeout(check, this.idleTimeoutMs);
  }

  /**
   * The current attempt failed, or its session was lost: reconnect after a delay if `transient` and
   * the budget allows, else close with `err`.
   */
  private lost(err: SSEClientError, transient: boolean, serverDelayMs?: number): void {
    this.endAttempt();
    if (this.currentEndpoint !== undefined) {
      this.currentEndpoint = undefined;
      this.postAbort?.abort(SESSION_LOST);
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
    attempt.abort.abort();
    this.clock.clearTimeout(attempt.endpointTimer);
    this.clock.clearTimeout(attempt.idleTimer);
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
    this.postAbort?.abort(CLOSED);
    const err = queuedError ?? new ConnectionClosedError('Connection closed', cause);
    for (const item of this.queue.splice(0)) item.reject(err);
    this.drained?.();
    this.receiver?.closed(cause);
  }

  // ---- outbound ----

  /** POSTs the queue's messages one at a time while an endpoint is known. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    while (this.queue.length > 0 && this.currentEndpoint !== undefined) {
      const item = this.queue[0];
      await this.post(item, this.currentEndpoint);
      // The queue may have been emptied meanwhile (a new session, the close).
      if (this.queue[0] === item) this.queue.shift();
    }
    this.pumping = false;
    if (this.queue.length === 0) this.drained?.();
  }

  /** POSTs one message and settles its `send`; never throws. */
  private async post(item: Outgoing, endpoint: URL): Promise<void> {
    const abort = new AbortController();
    this.postAbort = abort;
    const timer =
      this.postTimeoutMs > 0
        ? this.clock.setTimeout(() => abort.abort(POST_TIMEOUT), this.postTimeoutMs)
        : undefined;
    try {
      const headers = await this.headers(this.postHeaders);
      abort.signal.throwIfAborted();
      const response = await this.fetch(endpoint, {
        method: 'POST',
        headers,
        body: item.body,
        // A redirect would carry the message and the client's headers elsewhere: report it instead.
        redirect: 'manual',
        signal: abort.signal,
      });
      if (response.ok) {
        // Read the (short) answer so that the connection can be reused.
        await response.arrayBuffer();
        item.resolve();
        return;
      }
      const excerpt = await bodyExcerpt(response);
      const err = new SSEClientError(
        'http-status',
        `POST ${endpoint} was answered ${response.status}: ${excerpt}`,
        { status: response.status },
      );
      if (endpoint !== this.currentEndpoint) {
        // The session was lost meanwhile, and the message with it: the restart reports that.
        item.resolve();
      } else if (response.status === 404) {
        // The server forgot the session: the same, found out here first.
        item.resolve();
        this.lost(err, true);
      } else {
        this.receiver?.error(err);
        item.reject(err);
      }
    } catch (err) {
      const reason = abort.signal.aborted ? abort.signal.reason : undefined;
      if (reason === CLOSED) item.reject(new ConnectionClosedError('Connection closed', this.closeCause));
      else if (reason === SESSION_LOST || endpoint !== this.currentEndpoint) item.resolve();
      else {
        const failure =
          reason === POST_TIMEOUT
            ? new SSEClientError(
                'post-failed',
                `POST ${endpoint} got no answer within ${this.postTimeoutMs} ms (postTimeoutMs)`,
              )
            : new SSEClientError('post-failed', `POST ${endpoint} failed: ${reasonOf(err)}`, { cause: err });
        this.receiver?.error(failure);
        item.reject(failure);
      }
    } finally {
      if (timer !== undefined) this.clock.clearTimeout(timer);
      if (this.postAbort === abort) this.postAbort = undefined;
    }
  }

  /** `base` with the auth hook's headers added; they never replace Accept or Content-Type. */
  private async headers(base: Record<string, string>): Promise<Record<string, string>> {
    if (this.authHeaders === undefined) return base;
    const auth = lowerKeys(await this.authHeaders());
    const merged = { ...base, ...auth };
    if (base === this.getHeaders) merged.accept = base.accept;
    else merged['content-type'] = base['content-type'];
    return merged;
  }
}

function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers !== undefined)
    for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // fetch reports "fetch failed" and keeps the reason (ECONNREFUSED…) in its cause.
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

/** The start of an error answer's body, for a message a person can act on. */
async function bodyExcerpt(response: Response): Promise<string> {
  const body = response.body;
  if (body === null) return '(no body)';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (let read = 0; read < EXCERPT_BYTES; ) {
      const chunk = await reader.read();
      if (chunk.done) break;
      read += chunk.value.byteLength;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } catch {
    // What arrived is still worth showing.
  } finally {
    reader.cancel().catch(noop);
  }
  // A JSON-RPC error body (what MCP servers send) says it best in its message.
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: show the text.
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}
