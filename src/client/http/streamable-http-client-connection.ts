import { McpError } from '../../jsonrpc/errors.js';
import { parseMessage } from '../../jsonrpc/parse.js';
import { serialize } from '../../jsonrpc/serialize.js';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/types.js';
import type { Connection, Receiver } from '../../peer/connection.js';
import { answeredInvalid } from '../../peer/deliver.js';
import { ConnectionClosedError } from '../../peer/errors.js';
import { Method } from '../../protocol/types.js';
import type { Clock } from '../../util/clock.js';
import { type RetryPolicy, retryPolicy } from '../retry-policy.js';
import { SessionLostError, StreamableHTTPError } from './http-client-errors.js';
import {
  DEFAULT_MAX_EVENT_CHARS,
  discard,
  excerpt,
  jsonAnswer,
  lowerCased,
  reason,
  refused,
  serverMessage,
} from './http-replies.js';
import { plainFetch } from './plain-fetch.js';
import { type Awaited, Epoch } from './session-epoch.js';
import { SessionStreams } from './session-streams.js';

/** Default `closeTimeoutMs`: how long `close()` waits for the server to answer its DELETE. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 2000;

/** How a `StreamableHTTPClientConnection` talks to its server. Every field is optional. */
export interface StreamableHTTPClientOptions {
  /** The fetch to use (a proxy-aware one, a test double). Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Headers sent with every request. Those the transport owns (Accept, Mcp-Session-Id, …) win. */
  headers?: Record<string, string>;
  /** Called before every request (POST, GET, DELETE); its headers are added, e.g. a fresh bearer token. */
  authHeaders?: () => Record<string, string> | Promise<Record<string, string>>;
  /** How dropped SSE streams are resumed when the server sent no `retry:`. Default `DEFAULT_RETRY_POLICY`. */
  retry?: Partial<RetryPolicy>;
  /**
   * The longest answer read: an SSE event still unfinished, in characters; a JSON body, in bytes. Past it the
   * request waiting for it fails saying so (the standalone GET stream is given up, reported), and the rest is not
   * read. Default 16 Mi.
   */
  maxEventChars?: number;
  /**
   * What a 404 on a request carrying our session id does: `'restart'` (default) drops the session id and
   * tells the receiver (`Receiver.restarted`), which initializes a fresh session; `'close'` closes the
   * connection with a SessionLostError.
   */
  onSessionLost?: 'restart' | 'close';
  /** How long `close()` waits for the DELETE of the session. Default 2 s. */
  closeTimeoutMs?: number;
  /** Timers for reconnection waits and the DELETE bound. Default: real timers that keep the process alive. */
  clock?: Clock;
  /** The random source of the backoff jitter, in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/** Real timers, referenced: a reconnection wait is work still to do, so the process must not exit during it. */
const liveClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};

const POST_ACCEPT = 'application/json, text/event-stream';

/**
 * The client side of the Streamable HTTP transport (spec 2025-11-25) as a `Connection`.
 *
 * Promises: each message is one POST (`Accept: application/json, text/event-stream`), carrying
 * `Mcp-Session-Id` and `MCP-Protocol-Version` once initialize has named them; JSON and SSE answers are
 * both read; a 202 to a request says its answer comes on the GET stream. A POST's SSE stream that ends, or
 * whose connection drops, before the request is answered is resumed with GET and `Last-Event-ID` after the
 * server's `retry:` wait (else exponential backoff with jitter), until the answer comes or the policy gives
 * up; the request then fails with a JSON-RPC error naming why, never hangs. After `notifications/initialized`
 * the standalone GET stream is opened (400, 404, 405 or 406 mean the server offers none; POSTs keep working)
 * and kept open the same way.
 * A refused POST rejects its `send` with a StreamableHTTPError carrying the status. A 404 on a request
 * carrying our session id restarts the session (see `onSessionLost`). `close()` DELETEs the session
 * (bounded), aborts every stream and request, and then reports `closed` to the receiver.
 */
export class StreamableHTTPClientConnection implements Connection {
  readonly era = 'legacy';
  private receiver: Receiver | undefined;
  private epoch = new Epoch();
  private closing = false;
  private ended = false;
  private closeDone: Promise<void> | undefined;
  private readonly fetch: typeof fetch;
  private readonly maxEventChars: number;
  private readonly baseHeaders: Record<string, string>;
  private readonly authHeaders: StreamableHTTPClientOptions['authHeaders'];
  private readonly onSessionLost: 'restart' | 'close';
  private readonly closeTimeoutMs: number;
  private readonly clock: Clock;
  private readonly url: string;
  private readonly streams: SessionStreams;

  constructor(url: string | URL, options: StreamableHTTPClientOptions = {}) {
    this.url = String(url);
    this.fetch = plainFetch(options.fetch);
    this.maxEventChars = options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS;
    this.baseHeaders = lowerCased(options.headers);
    this.authHeaders = options.authHeaders;
    this.onSessionLost = options.onSessionLost ?? 'restart';
    this.closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    this.clock = options.clock ?? liveClock;
    this.streams = new SessionStreams(
      {
        isClosing: () => this.closing,
        currentEpoch: () => this.epoch,
        headersFor: (epoch, accept) => this.headersFor(epoch, accept),
        deliver: (text, epoch) => this.deliver(text, epoch),
        giveUp: (epoch, awaited, why) => this.giveUp(epoch, awaited, why),
        sessionLost: (epoch, err) => this.sessionLost(epoch, err),
        error: (err) => this.receiver!.error(err),
      },
      {
        url: this.url,
        fetch: this.fetch,
        policy: retryPolicy(options.retry),
        clock: this.clock,
        random: options.random ?? Math.random,
        maxEventChars: this.maxEventChars,
      },
    );
  }

  /** The session id the server gave at initialize; undefined before, after a restart, or without sessions. */
  get sessionId(): string | undefined {
    return this.epoch.sessionId;
  }

  /** The protocol version initialize negotiated, sent as `MCP-Protocol-Version`. */
  get protocolVersion(): string | undefined {
    return this.epoch.protocolVersion;
  }

  start(receiver: Receiver): void {
    if (this.receiver !== undefined) throw new Error('Connection already started');
    this.receiver = receiver;
    if (this.ended) receiver.closed();
  }

  async send(message: JsonRpcMessage, _related?: RequestId): Promise<void> {
    if (this.closing) throw new ConnectionClosedError();
    const epoch = this.epoch;
    let awaited: Awaited | undefined;
    if ('method' in message) {
      if ('id' in message) {
        awaited = { id: message.id, method: message.method, settled: false };
        if (message.method === Method.Initialize) epoch.initializeId = message.id;
      } else if (message.method === Method.Cancelled) {
        // A cancelled request gets no answer: its stream must not be resumed in wait for one.
        const id = message.params?.requestId;
        if (typeof id === 'string' || typeof id === 'number') this.settle(epoch, id);
      }
    }
    const body = serialize(message);
    const headers = await this.headersFor(epoch, POST_ACCEPT);
    headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.fetch(this.url, { method: 'POST', headers, body, signal: epoch.signal });
    } catch (err) {
      if (this.closing) throw new ConnectionClosedError();
      // The session this message belonged to was lost meanwhile: the restart decides its fate.
      if (epoch.signal.aborted) return;
      throw new StreamableHTTPError(
        `POST of ${describe(message)} to ${this.url} failed: ${reason(err)}`,
        undefined,
        undefined,
        { cause: err },
      );
    }
    if (!response.ok) return this.refused(response, message, epoch, headers['mcp-session-id']);
    if (awaited === undefined) {
      // 202 as the spec says, or (tolerated) 200 with a body nobody waits for.
      discard(response);
      if ('method' in message && message.method === Method.Initialized) this.openStandalone(epoch);
      return;
    }
    if (awaited.method === Method.Initialize) {
      const sessionId = response.headers.get('mcp-session-id');
      if (sessionId !== null) epoch.sessionId = sessionId;
    }
    epoch.awaiting.set(awaited.id, awaited);
    // 202 to a request: the answer can only come on the GET stream, where it is awaited like any other.
    if (response.status === 202) return discard(response);
    const type = response.headers.get('content-type')?.toLowerCase() ?? '';
    if (type.includes('text/event-stream')) {
      this.streams.follow(epoch, response, awaited).catch((err) => this.receiver!.error(err));
    } else if (type.includes('application/json')) {
      await this.readJson(response, epoch, awaited);
    } else {
      discard(response);
      this.giveUp(epoch, awaited, `the server answered with Content-Type "${type}", neither JSON nor SSE`);
    }
  }

  close(): Promise<void> {
    this.closeDone ??= this.shutdown();
    return this.closeDone;
  }

  // ---- POST answers ----

  /** A non-2xx answer to a POST: a lost session, or a refusal that rejects the send. */
  private async refused(
    response: Response,
    message: JsonRpcMessage,
    epoch: Epoch,
    carriedSession: string | undefined,
  ): Promise<void> {
    const status = response.status;
    const body = await excerpt(response);
    const isRequest = 'method' in message && 'id' in message;
    if (status === 404 && carriedSession !== undefined) {
      // Another request already found the session gone, and the restart dealt with this one too.
      if (epoch !== this.epoch || epoch.sessionId !== carriedSession) return;
      const err = new SessionLostError(
        carriedSession,
        `the server refused ${describe(message)}: ${serverMessage(body)}`,
        body,
      );
      this.sessionLost(epoch, err);
      // A request's fate is the restart's (SessionExpiredError, or resent when marked safe to retry).
      if (isRequest) return;
      throw err;
    }
    const err = new StreamableHTTPError(
      `HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''} from POST ${this.url} ` +
        `(${describe(message)}): ${serverMessage(body)}`,
      status,
      body,
    );
    // A failed notification or response may have no caller listening: tell the receiver too.
    if (!isRequest) this.receiver!.error(err);
    throw err;
  }

  private async readJson(response: Response, epoch: Epoch, awaited: Awaited): Promise<void> {
    const read = await jsonAnswer(response, this.maxEventChars);
    if ('problem' in read) return this.giveUp(epoch, awaited, read.problem);
    this.deliver(read.text, epoch);
    if (!awaited.settled)
      this.giveUp(epoch, awaited, 'the JSON answer of the POST did not answer the request');
  }

  // ---- SSE streams (read and resumed by SessionStreams) ----

  /** Opens the standalone GET stream of `epoch`, once. */
  private openStandalone(epoch: Epoch): void {
    if (epoch.standalone || this.closing || epoch.signal.aborted) return;
    epoch.standalone = true;
    this.streams.follow(epoch, undefined, undefined).catch((err) => this.receiver!.error(err));
  }

  // ---- delivery ----

  /** Parses one message (or batch) from the server and hands it to the receiver. */
  private deliver(text: string, epoch: Epoch): void {
    if (epoch.signal.aborted) return;
    const parsed = parseMessage(text);
    switch (parsed.kind) {
      case 'message':
        this.note(parsed.message, epoch);
        this.receiver!.message(parsed.message);
        return;
      case 'batch':
        for (const m of parsed.messages) this.note(m, epoch);
        this.receiver!.batch(parsed.messages);
        return;
      default: {
        // An invalid answer to one of our requests fails it now.
        const failed = answeredInvalid(parsed, this.receiver!);
        if (failed !== undefined) this.settle(epoch, failed);
        this.receiver!.error(
          new McpError(parsed.error.code, `The server sent an invalid message: ${parsed.error.message}`),
        );
      }
    }
  }

  /** Before a response is delivered: its request is settled; initialize's result names the version. */
  private note(message: JsonRpcMessage, epoch: Epoch): void {
    if ('method' in message || message.id === null) return;
    this.settle(epoch, message.id);
    if (message.id === epoch.initializeId && 'result' in message) {
      epoch.initializeId = undefined;
      const version = message.result.protocolVersion;
      if (typeof version === 'string') epoch.protocolVersion = version;
    }
  }

  private settle(epoch: Epoch, id: RequestId): void {
    const awaited = epoch.awaiting.get(id);
    if (awaited === undefined) return;
    awaited.settled = true;
    epoch.awaiting.delete(id);
  }

  /**
   * No answer will come to `awaited`: the receiver gets a JSON-RPC error answering it (so the caller's
   * promise rejects with the reason) and the error itself.
   */
  private giveUp(epoch: Epoch, awaited: Awaited, why: string): void {
    if (awaited.settled || epoch.signal.aborted || this.closing) return;
    this.settle(epoch, awaited.id);
    const err = new StreamableHTTPError(`No answer to "${awaited.method}" (request ${awaited.id}): ${why}`);
    this.receiver!.error(err);
    this.receiver!.message({
      jsonrpc: '2.0',
      id: awaited.id,
      error: { code: err.code, message: err.message },
    });
  }

  // ---- session ----

  private sessionLost(epoch: Epoch, err: SessionLostError): void {
    if (this.onSessionLost === 'close') {
      this.finish(err);
      return;
    }
    // The next initialize goes out without a session id, in an epoch of its own.
    this.epoch = new Epoch();
    epoch.controller.abort(err);
    this.receiver!.restarted(err);
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    const epoch = this.epoch;
    // A session the server already lost (onSessionLost: 'close') is not deleted.
    if (!this.ended && epoch.sessionId !== undefined) await this.deleteSession(epoch);
    this.finish(undefined);
  }

  /**
   * DELETEs the session, bounded by closeTimeoutMs. Nothing is reported when there was nothing to delete: a 404
   * (the server no longer holds the session), a 405 (it cannot be deleted), or a connection refused (nothing
   * listens there any more: the server shut down, and its sessions with it; a cluster's shared sessions expire
   * by their idle timeout). A connection that closed before any answer is tried once more: a server that shut
   * down closes the idle connections it kept, and the DELETE may have gone out on one. A server that is there
   * and fails to delete the session (another status, a timeout, a second connection cut) is reported.
   */
  private async deleteSession(epoch: Epoch): Promise<void> {
    const controller = new AbortController();
    const timer = this.clock.setTimeout(() => controller.abort(), this.closeTimeoutMs);
    try {
      const headers = await this.headersFor(epoch, POST_ACCEPT);
      const send = () => this.fetch(this.url, { method: 'DELETE', headers, signal: controller.signal });
      const response = await send().catch((err) => {
        if (controller.signal.aborted || refused(err)) throw err;
        return send();
      });
      discard(response);
      if (!response.ok && response.status !== 404 && response.status !== 405) {
        this.receiver?.error(
          new StreamableHTTPError(`DELETE of session ${epoch.sessionId} answered HTTP ${response.status}`),
        );
      }
    } catch (err) {
      if (!controller.signal.aborted && refused(err)) return;
      const why = controller.signal.aborted ? `no answer within ${this.closeTimeoutMs} ms` : reason(err);
      this.receiver?.error(new StreamableHTTPError(`DELETE of session ${epoch.sessionId} failed: ${why}`));
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  /** Ends everything: aborts streams and requests, then tells the receiver. */
  private finish(cause: Error | undefined): void {
    this.closing = true;
    this.epoch.controller.abort(cause ?? new ConnectionClosedError());
    if (this.ended) return;
    this.ended = true;
    this.receiver?.closed(cause);
  }

  // ---- helpers ----

  private async headersFor(epoch: Epoch, accept: string): Promise<Record<string, string>> {
    const headers: Record<string, string> = { ...this.baseHeaders };
    if (this.authHeaders !== undefined) Object.assign(headers, lowerCased(await this.authHeaders()));
    headers.accept = accept;
    if (epoch.sessionId !== undefined) headers['mcp-session-id'] = epoch.sessionId;
    if (epoch.protocolVersion !== undefined) headers['mcp-protocol-version'] = epoch.protocolVersion;
    return headers;
  }
}

function describe(message: JsonRpcMessage): string {
  if ('method' in message)
    return 'id' in message ? `request "${message.method}"` : `notification "${message.method}"`;
  return `the response to request ${JSON.stringify(message.id)}`;
}
