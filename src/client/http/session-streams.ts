import { createParser } from 'eventsource-parser';
import type { Clock } from '../../util/clock.js';
import { type RetryPolicy, retryDelay } from '../retry-policy.js';
import { SessionLostError, StreamableHTTPError } from './http-client-errors.js';
import { discard, excerpt, reason, serverMessage, tooLongAnswer } from './http-replies.js';
import type { Awaited, Epoch } from './session-epoch.js';

/** What the streams need of their connection. */
export interface SessionStreamsHost {
  /** True once the connection closes: no stream is read or resumed after. */
  isClosing(): boolean;
  /** The session the connection is in now: a 404 for an older one was dealt with already. */
  currentEpoch(): Epoch;
  /** The headers of a request in `epoch` (session id, protocol version, the auth hook's). */
  headersFor(epoch: Epoch, accept: string): Promise<Record<string, string>>;
  /** One message (or batch) as the server sent it on a stream of `epoch`. */
  deliver(text: string, epoch: Epoch): void;
  /** No answer will come to `awaited`: the reason becomes its answer. */
  giveUp(epoch: Epoch, awaited: Awaited, why: string): void;
  /** The server no longer holds the session of `epoch`. */
  sessionLost(epoch: Epoch, err: SessionLostError): void;
  /** A failure no caller waits for. */
  error(err: Error): void;
}

/** What every stream of one connection shares. */
export interface SessionStreamsSettings {
  readonly url: string;
  readonly fetch: typeof fetch;
  readonly policy: RetryPolicy;
  readonly clock: Clock;
  /** The random source of the backoff jitter, in [0, 1). */
  readonly random: () => number;
  /** The longest event read; past it the stream is not resumed (the server would send the event again). */
  readonly maxEventChars: number;
}

const SSE_ACCEPT = 'text/event-stream';
/** Statuses that mean "no standalone stream here" when the GET stream is first opened: POSTs still work. */
const NO_GET_STREAM = new Set([400, 404, 405, 406]);
const noop = () => {};

/** Where one SSE stream stands: what to resume it from, and what the server said about waiting. */
interface Cursor {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  /** Set by any event, priming event or comment; the reconnection loop clears it and resets its budget. */
  progressed: boolean;
  /** Set when an event passed `maxEventChars`: the stream ends for good. */
  tooLong: boolean;
}

/**
 * The SSE streams of a sessionful Streamable HTTP connection: the stream a POST answered with, and the standalone
 * GET stream. Each is read to its end and, when its connection ends before the stream is done, resumed with GET
 * and Last-Event-ID after the server's `retry:` wait (else backoff with jitter); a request whose stream cannot go
 * on gets an answer that says why (`host.giveUp`), never a hang.
 */
export class SessionStreams {
  constructor(
    private readonly host: SessionStreamsHost,
    private readonly settings: SessionStreamsSettings,
  ) {}

  /**
   * Reads one logical SSE stream: a POST's (`first` is its response, `awaited` its request) or the
   * standalone one (both undefined: it starts with a GET). Whenever a connection ends before the stream
   * is done (a POST stream is done once its request is settled; the standalone one never is), waits
   * and resumes with GET and Last-Event-ID, until the policy's attempts in a row bring nothing.
   */
  async follow(epoch: Epoch, first: Response | undefined, awaited: Awaited | undefined): Promise<void> {
    const cursor: Cursor = { lastEventId: undefined, retryMs: undefined, progressed: false, tooLong: false };
    const signal = epoch.signal;
    let response = first;
    let initial = first === undefined;
    let attempt = 0;
    let problem = '';
    for (;;) {
      if (response === undefined) {
        const opened = await this.reopen(epoch, cursor, awaited, initial);
        initial = false;
        if (opened === undefined) return;
        if (typeof opened === 'string') problem = opened;
        else response = opened;
      }
      if (response !== undefined) {
        // A resumption GET carries nothing more once the request is answered, and some servers keep
        // it open: stop reading it then. A POST's own response ends by itself, its connection reused.
        problem = await this.consume(response, cursor, epoch, response === first ? undefined : awaited);
        response = undefined;
      }
      if (signal.aborted || this.host.isClosing()) return;
      if (cursor.tooLong) {
        const why = tooLongAnswer('an event of the SSE stream', this.settings.maxEventChars);
        if (awaited === undefined)
          this.host.error(new StreamableHTTPError(`The standalone GET stream is given up: ${why}`));
        else if (!awaited.settled) this.host.giveUp(epoch, awaited, why);
        return;
      }
      if (awaited !== undefined) {
        if (awaited.settled) return;
        if (cursor.lastEventId === undefined) {
          this.host.giveUp(epoch, awaited, `${problem} before answering, with no event id to resume it from`);
          return;
        }
      }
      if (cursor.progressed) {
        cursor.progressed = false;
        attempt = 0;
      }
      if (++attempt > this.settings.policy.maxAttempts) {
        const why = `${problem}; ${this.settings.policy.maxAttempts} reconnection attempts in a row brought nothing`;
        if (awaited !== undefined) this.host.giveUp(epoch, awaited, why);
        else this.host.error(new StreamableHTTPError(`The standalone GET stream is lost: ${why}`));
        return;
      }
      await this.sleep(
        retryDelay(this.settings.policy, attempt, this.settings.random, cursor.retryMs),
        signal,
      );
      if (signal.aborted || this.host.isClosing()) return;
    }
  }

  /**
   * GETs the stream again (or, `initial`, opens the standalone one). Returns the SSE response, a
   * description of a failure worth retrying, or undefined when the stream is over (done, refused, or
   * the session lost; whoever waited was told).
   */
  private async reopen(
    epoch: Epoch,
    cursor: Cursor,
    awaited: Awaited | undefined,
    initial: boolean,
  ): Promise<Response | string | undefined> {
    const headers = await this.host.headersFor(epoch, SSE_ACCEPT);
    if (cursor.lastEventId !== undefined) headers['last-event-id'] = cursor.lastEventId;
    const carriedSession = headers['mcp-session-id'];
    let response: Response;
    try {
      response = await this.settings.fetch(this.settings.url, {
        method: 'GET',
        headers,
        signal: epoch.signal,
      });
    } catch (err) {
      return epoch.signal.aborted || this.host.isClosing() ? undefined : `the GET failed: ${reason(err)}`;
    }
    const status = response.status;
    if (response.ok) {
      if (response.headers.get('content-type')?.toLowerCase().includes('text/event-stream')) return response;
      discard(response);
      return this.streamRefused(
        epoch,
        awaited,
        `the GET was answered with ${status} but not with an SSE stream`,
      );
    }
    const body = await excerpt(response);
    const what = `the GET was answered with HTTP ${status}: ${serverMessage(body)}`;
    if (initial && NO_GET_STREAM.has(status)) return undefined;
    if (status === 404 && carriedSession !== undefined) {
      if (epoch === this.host.currentEpoch() && epoch.sessionId === carriedSession) {
        this.host.sessionLost(epoch, new SessionLostError(carriedSession, what, body));
      }
      return undefined;
    }
    if (status === 408 || status === 409 || status === 425 || status === 429 || status >= 500) return what;
    if (awaited === undefined && cursor.lastEventId !== undefined && (status === 400 || status === 410)) {
      // The standalone stream cannot be resumed from there: open it afresh, and say what may be lost.
      this.host.error(
        new StreamableHTTPError(
          `The standalone GET stream could not be resumed after event ${cursor.lastEventId} ` +
            `(messages sent meanwhile are lost): ${what}`,
          status,
          body,
        ),
      );
      cursor.lastEventId = undefined;
      return what;
    }
    return this.streamRefused(epoch, awaited, what, status, body);
  }

  private streamRefused(
    epoch: Epoch,
    awaited: Awaited | undefined,
    what: string,
    status?: number,
    body?: string,
  ): undefined {
    if (awaited !== undefined) this.host.giveUp(epoch, awaited, `the stream could not be resumed: ${what}`);
    else this.host.error(new StreamableHTTPError(`The standalone GET stream ended: ${what}`, status, body));
    return undefined;
  }

  /**
   * Reads one SSE response to its end (or until `until` is settled), delivering its messages and
   * advancing `cursor`. Returns how the connection ended.
   */
  private async consume(
    response: Response,
    cursor: Cursor,
    epoch: Epoch,
    until: Awaited | undefined,
  ): Promise<string> {
    const body = response.body;
    if (body === null) return 'the server sent an SSE answer without a body';
    const parser = createParser({
      onRetry: (ms) => {
        cursor.retryMs = ms;
      },
      onComment: () => {
        cursor.progressed = true;
      },
      onEvent: (event) => {
        cursor.progressed = true;
        // An empty id field clears the last event id; an event without one leaves it as it was.
        if (event.id !== undefined) cursor.lastEventId = event.id === '' ? undefined : event.id;
        if (event.data !== '' && (event.event === undefined || event.event === 'message')) {
          this.host.deliver(event.data, epoch);
        }
      },
      // Unknown fields and bad retry values are ignored, as the SSE standard says.
      onError: (err) => {
        cursor.tooLong ||= err.type === 'max-buffer-size-exceeded';
      },
      maxBufferSize: this.settings.maxEventChars,
    });
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'the server ended the SSE stream';
        if (epoch.signal.aborted) return 'aborted';
        parser.feed(decoder.decode(value, { stream: true }));
        if (until?.settled || cursor.tooLong) {
          reader.cancel().catch(noop);
          return cursor.tooLong ? 'an event too long' : 'answered';
        }
      }
    } catch (err) {
      return `the SSE connection dropped (${reason(err)})`;
    } finally {
      reader.releaseLock();
    }
  }

  /** Waits `ms`, or less when `signal` aborts. */
  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const onAbort = () => {
        this.settings.clock.clearTimeout(timer);
        resolve();
      };
      const timer = this.settings.clock.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
