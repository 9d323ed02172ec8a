import { serialize } from '../../jsonrpc/serialize.js';
import type { JsonRpcMessage } from '../../jsonrpc/types.js';
import type { Clock } from '../../util/clock.js';
import { drain, excerpt, reason, serverMessage } from '../http/http-replies.js';
import { SSEClientError } from './sse-client-errors.js';

/** What the queue needs of its connection: where the server session is, and where failures go. */
export interface SSEPostLink {
  /** The SSE URL, to name the connection in errors. */
  readonly url: URL;
  /** The current server session's endpoint, or undefined between sessions. */
  endpoint(): URL | undefined;
  /** The headers of one POST (the auth hook's included). */
  postHeaders(): Promise<Record<string, string>>;
  /** A POST was answered 404: the server forgot the session. */
  sessionForgotten(err: SSEClientError): void;
  /** A failure no `send` awaits alone (`receiver.error`). */
  error(err: Error): void;
}

/** A message waiting to be POSTed, with the `send` promise it settles. */
interface Outgoing {
  readonly message: JsonRpcMessage;
  readonly body: string;
  /** True once its POST began: it may have reached the server. */
  posted: boolean;
  resolve(): void;
  reject(err: Error): void;
}

/** Why the POST in flight was aborted. */
const SESSION_LOST = Symbol('session lost');
const POST_TIMEOUT = Symbol('post timeout');
const CLOSED = Symbol('closed');

/**
 * The outbound half of the legacy HTTP+SSE client: messages POSTed to the session's endpoint one at a time in
 * the order they were queued, a slow POST holding back the ones behind it, never reordering them. Each one's
 * promise resolves once the server accepted it (2xx) or once its session is lost (the connection's restart
 * reports that loss), and rejects when the server refuses it, the POST fails or times out, or the queue closes.
 */
export class SSEPostQueue {
  private readonly items: Outgoing[] = [];
  /** The POST in flight (there is at most one). */
  private postAbort: AbortController | undefined;
  private pumping = false;
  /** Wakes `drain` when the queue is empty. */
  private drained: (() => void) | undefined;
  /** What a POST aborted by `close` rejects with. */
  private closedWith: Error | undefined;

  constructor(
    private readonly link: SSEPostLink,
    private readonly fetch: typeof globalThis.fetch,
    private readonly clock: Clock,
    private readonly postTimeoutMs: number,
    private readonly postQueueLimit: number,
  ) {}

  /** Messages queued, the one in flight included. */
  get size(): number {
    return this.items.length;
  }

  /** Queues `message` and POSTs it in its turn; rejects at once when `postQueueLimit` messages wait already. */
  enqueue(message: JsonRpcMessage): Promise<void> {
    if (this.items.length >= this.postQueueLimit) {
      return Promise.reject(
        new SSEClientError(
          'refused',
          `Not sent: ${this.postQueueLimit} messages already wait to be POSTed to ${this.link.url} (postQueueLimit)`,
        ),
      );
    }
    let body: string;
    try {
      body = serialize(message);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<void>((resolve, reject) => {
      this.items.push({ message, body, resolve, reject, posted: false });
      this.pump();
    });
  }

  /** POSTs the queue's messages one at a time while an endpoint is known. */
  async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    while (this.items.length > 0 && this.link.endpoint() !== undefined) {
      const item = this.items[0];
      await this.post(item, this.link.endpoint()!);
      // The queue may have been emptied meanwhile (a new session, the close).
      if (this.items[0] === item) this.items.shift();
    }
    this.pumping = false;
    if (this.items.length === 0) this.drained?.();
  }

  /** The session is lost: the POST in flight is abandoned, and its message counts as lost with the session. */
  sessionLost(): void {
    this.postAbort?.abort(SESSION_LOST);
  }

  /**
   * A new session: every message still queued was meant for the lost one, and is settled as lost with it. Returns
   * those whose POST never began, which reached no server.
   */
  dropAll(): JsonRpcMessage[] {
    const unsent: JsonRpcMessage[] = [];
    for (const item of this.items.splice(0)) {
      if (!item.posted) unsent.push(item.message);
      item.resolve();
    }
    return unsent;
  }

  /** Waits until the queue is empty or `timeoutMs` passed. */
  async drain(timeoutMs: number): Promise<void> {
    let timer: unknown;
    await new Promise<void>((resolve) => {
      this.drained = resolve;
      timer = this.clock.setTimeout(resolve, timeoutMs);
    });
    this.clock.clearTimeout(timer);
    this.drained = undefined;
  }

  /** Aborts the POST in flight and rejects every queued message with `err`. */
  close(err: Error): void {
    this.closedWith = err;
    this.postAbort?.abort(CLOSED);
    for (const item of this.items.splice(0)) item.reject(err);
    this.drained?.();
  }

  /** POSTs one message and settles its `send`; never throws. */
  private async post(item: Outgoing, endpoint: URL): Promise<void> {
    item.posted = true;
    const abort = new AbortController();
    this.postAbort = abort;
    const timer =
      this.postTimeoutMs > 0
        ? this.clock.setTimeout(() => abort.abort(POST_TIMEOUT), this.postTimeoutMs)
        : undefined;
    try {
      const headers = await this.link.postHeaders();
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
        await drain(response);
        item.resolve();
        return;
      }
      const said = serverMessage(await excerpt(response));
      const err = new SSEClientError(
        'http-status',
        `POST ${endpoint} was answered ${response.status}: ${said}`,
        { status: response.status },
      );
      if (endpoint !== this.link.endpoint()) {
        // The session was lost meanwhile, and the message with it: the restart reports that.
        item.resolve();
      } else if (response.status === 404) {
        // The server forgot the session: the same, found out here first.
        item.resolve();
        this.link.sessionForgotten(err);
      } else {
        this.link.error(err);
        item.reject(err);
      }
    } catch (err) {
      const why = abort.signal.aborted ? abort.signal.reason : undefined;
      if (why === CLOSED) item.reject(this.closedWith!);
      else if (why === SESSION_LOST || endpoint !== this.link.endpoint()) item.resolve();
      else {
        const failure =
          why === POST_TIMEOUT
            ? new SSEClientError(
                'post-failed',
                `POST ${endpoint} got no answer within ${this.postTimeoutMs} ms (postTimeoutMs)`,
              )
            : new SSEClientError('post-failed', `POST ${endpoint} failed: ${reason(err)}`, { cause: err });
        this.link.error(failure);
        item.reject(failure);
      }
    } finally {
      if (timer !== undefined) this.clock.clearTimeout(timer);
      if (this.postAbort === abort) this.postAbort = undefined;
    }
  }
}
