import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import type { Clock } from '../../util/clock.js';
import { excerpt, reason, serverMessage } from '../http/http-replies.js';
import { isTransientStatus, retryAfterMs } from '../retry-policy.js';
import { SSEClientError } from './sse-client-errors.js';

/** What an attempt tells its connection; nothing once the attempt has ended. */
export interface SSEStreamSink {
  /** A `message` event (or one without a type): a JSON-RPC message as text. */
  message(data: string): void;
  /** The `endpoint` event, and the URL the stream came from, which the endpoint is resolved against. */
  endpoint(data: string, base: URL): void;
  /** The server's `retry:` field. */
  retry(ms: number): void;
  /** The attempt failed: `transient` when trying again may help, after `serverDelayMs` when the server said. */
  failed(err: SSEClientError, transient: boolean, serverDelayMs?: number): void;
}

/** What every attempt of one connection shares. */
export interface SSEStreamSettings {
  /** The SSE URL. */
  readonly url: URL;
  readonly fetch: typeof fetch;
  /** The headers of the GET (the auth hook's included). */
  getHeaders(): Promise<Record<string, string>>;
  readonly clock: Clock;
  readonly endpointTimeoutMs: number;
  /** 0: off. */
  readonly idleTimeoutMs: number;
  readonly maxEventChars: number;
}

const MAX_REDIRECTS = 5;
const noop = () => {};

/**
 * One GET of the SSE URL and the stream it opened. Redirects are followed within the URL's origin only; the
 * answer must be an event stream; its events go to the sink. It fails (once, through `sink.failed`) when no
 * `endpoint` event arrives within `endpointTimeoutMs`, when the stream stays silent past `idleTimeoutMs`, when an
 * unfinished event grows past `maxEventChars`, and when the GET or the stream does. `end` stops it: its request
 * aborted, its timers cleared, nothing reported after.
 */
export class SSEStreamAttempt {
  private readonly url: URL;
  private readonly clock: Clock;
  private readonly abort = new AbortController();
  /** Where the stream came from (the SSE URL, or where it redirected within its origin). */
  private base: URL;
  private endpointTimer: unknown;
  private idleTimer: unknown;
  private lastActivity = 0;
  private ended = false;

  constructor(
    private readonly settings: SSEStreamSettings,
    private readonly sink: SSEStreamSink,
  ) {
    this.url = settings.url;
    this.clock = settings.clock;
    this.base = settings.url;
  }

  /** Sends the GET; the endpoint timeout starts now. */
  start(): void {
    this.endpointTimer = this.clock.setTimeout(() => {
      if (this.ended) return;
      this.fail(
        new SSEClientError(
          'endpoint-timeout',
          `No endpoint event from ${this.url} within ${this.settings.endpointTimeoutMs} ms (endpointTimeoutMs): a legacy ` +
            'HTTP+SSE server sends one first; check that the URL is its SSE endpoint',
        ),
        false,
      );
    }, this.settings.endpointTimeoutMs);
    this.connect().catch((err) => {
      if (!this.ended) {
        this.fail(
          new SSEClientError('network', `The SSE stream of ${this.url} failed: ${reason(err)}`),
          true,
        );
      }
    });
  }

  private async connect(): Promise<void> {
    const response = await this.get();
    if (response === undefined) return;
    if (!response.ok) {
      const said = serverMessage(await excerpt(response));
      if (this.ended) return;
      this.fail(
        new SSEClientError('http-status', `GET ${this.url} was answered ${response.status}: ${said}`, {
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
      this.fail(
        new SSEClientError(
          'not-event-stream',
          `GET ${this.url} was answered with ${type === '' ? 'no Content-Type' : type}, not text/event-stream: ` +
            'is it the SSE endpoint of a legacy HTTP+SSE MCP server?',
        ),
        false,
      );
      return;
    }
    this.watchIdle();
    await this.read(response.body);
  }

  /**
   * The GET's answer, after following redirects within the SSE URL's origin (the request carries the
   * client's headers: another origin must not see them). Undefined when the attempt is over: it was
   * ended, or it failed and the sink was told.
   */
  private async get(): Promise<Response | undefined> {
    let target = this.url;
    try {
      const headers = await this.settings.getHeaders();
      for (let hops = 0; ; hops++) {
        if (this.ended) return undefined;
        const response = await this.settings.fetch(target, {
          method: 'GET',
          headers,
          redirect: 'manual',
          signal: this.abort.signal,
        });
        if (response.type === 'opaqueredirect') {
          // A browser: it tells neither status nor Location of a redirect not followed.
          this.fail(
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
          if (!this.ended) {
            this.base = target;
            return response;
          }
          response.body?.cancel().catch(noop);
          return undefined;
        }
        response.body?.cancel().catch(noop);
        const next = new URL(location, target);
        if (next.origin !== this.url.origin || hops === MAX_REDIRECTS) {
          this.fail(
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
      if (!this.ended) {
        this.fail(
          new SSEClientError('network', `GET ${target} failed: ${reason(err)}`, { cause: err }),
          true,
        );
      }
      return undefined;
    }
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const parser = createParser({
      onEvent: (event) => this.onEvent(event),
      onRetry: (ms) => this.sink.retry(ms),
      onError: (err) => this.onParseError(err),
      maxBufferSize: this.settings.maxEventChars,
    });
    const decoder = new TextDecoder();
    const reader = body.getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (!this.ended) {
          this.fail(
            new SSEClientError('network', `The SSE stream of ${this.url} broke: ${reason(err)}`, {
              cause: err,
            }),
            true,
          );
        }
        return;
      }
      if (this.ended) return;
      if (chunk.done) break;
      if (this.settings.idleTimeoutMs > 0) this.lastActivity = this.clock.now();
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      // An event may have ended this attempt (a refused endpoint, an oversized event).
      if (this.ended) return;
    }
    this.fail(new SSEClientError('stream-ended', `The server ended the SSE stream of ${this.url}`), true);
  }

  private onEvent(event: EventSourceMessage): void {
    if (this.ended) return;
    switch (event.event) {
      // An event without a type is a `message` (SSE).
      case undefined:
      case 'message':
        this.sink.message(event.data);
        return;
      case 'endpoint':
        // The timeout waits for the event; what it names is the connection's to judge (a refusal ends this attempt).
        this.clock.clearTimeout(this.endpointTimer);
        this.endpointTimer = undefined;
        this.sink.endpoint(event.data, this.base);
        return;
      default:
      // Other event types are not part of the transport; ignore them as EventSource would.
    }
  }

  private onParseError(err: ParseError): void {
    // Unknown fields and bad retry values are ignored, as the SSE standard says.
    if (err.type !== 'max-buffer-size-exceeded' || this.ended) return;
    this.fail(
      new SSEClientError(
        'event-too-large',
        `An unfinished SSE event from ${this.url} exceeded ${this.settings.maxEventChars} characters (maxEventChars)`,
      ),
      true,
    );
  }

  private watchIdle(): void {
    if (this.settings.idleTimeoutMs <= 0) return;
    this.lastActivity = this.clock.now();
    // One timer per idle period, not one per chunk: each chunk only notes the time.
    const check = () => {
      if (this.ended) return;
      const silent = this.clock.now() - this.lastActivity;
      if (silent >= this.settings.idleTimeoutMs) {
        this.fail(
          new SSEClientError(
            'idle',
            `The SSE stream of ${this.url} was silent for ${silent} ms (idleTimeoutMs is ${this.settings.idleTimeoutMs})`,
          ),
          true,
        );
        return;
      }
      this.idleTimer = this.clock.setTimeout(check, this.settings.idleTimeoutMs - silent);
    };
    this.idleTimer = this.clock.setTimeout(check, this.settings.idleTimeoutMs);
  }

  /**
   * The current attempt failed, or its session was lost: reconnect after a delay if `transient` and
   * the budget allows, else close with `err`.

  /** Aborts the GET and clears the timers; the attempt reports nothing more. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.abort.abort();
    this.clock.clearTimeout(this.endpointTimer);
    this.clock.clearTimeout(this.idleTimer);
  }

  private fail(err: SSEClientError, transient: boolean, serverDelayMs?: number): void {
    if (!this.ended) this.sink.failed(err, transient, serverDelayMs);
  }
}
