import type { JsonRpcMessage, RequestId } from '../jsonrpc/types.js';
import type { Era } from '../protocol/versions.js';

/**
 * What a transport knows about where a message came from, handed to handlers as `ctx.transport`.
 * HTTP transports fill in the authenticated principal and the request's headers.
 */
export interface MessageInfo {
  /** The authenticated principal that sent the message, when the transport knows one. */
  principal?: string;
  /** The OAuth scopes the sender's access token holds, when the transport checked one. */
  readonly scopes?: readonly string[];
  /** The HTTP request's headers (lower-case names, repeated ones joined with ", "), on HTTP transports. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Ends the HTTP response that carries this request's stream without ending the stream (SSE
   * polling, SEP-1699): the client resumes it with GET and `Last-Event-ID`. Present only on
   * transports that can resume streams.
   */
  closeStream?: () => void;
}

/** Where a transport delivers what it reads. Implemented by the session. */
export interface Receiver {
  /** One valid JSON-RPC message, in the order the transport read it. */
  message(message: JsonRpcMessage, info?: MessageInfo): void;
  /**
   * A JSON-RPC batch, delivered whole so that the session can apply the protocol-version rule
   * (accepted for 2025-03-26, refused for later versions) before running any of it.
   */
  batch(messages: JsonRpcMessage[], info?: MessageInfo): void;
  /**
   * Whether `id` names a request this side sent, answered or not. A response with any other id answers
   * nothing: a transport that can still refuse the message carrying it (HTTP) does so.
   */
  asked?(id: RequestId): boolean;
  /**
   * The peer answered our request `id` with a message that is not a valid response (`problem` says why): true
   * when `id` names a request this side sent, which then fails with an InvalidResponseError if it still waits;
   * false when it names none, and the transport answers the message as invalid input.
   */
  invalidAnswer?(id: RequestId, problem: string): boolean;
  /** A non-fatal problem (e.g. malformed input that the transport already answered). */
  error(err: Error): void;
  /**
   * The answer to our request `id` can no longer come (its stream broke, with no way to resume it): the
   * request fails with `cause`, a ResponseLostError. Only transports with one stream per request call it.
   */
  lost?(id: RequestId, cause: Error): void;
  /**
   * The transport lost the peer's session and reached a fresh one (a legacy SSE reconnect; a
   * Streamable HTTP 404 on a live session): requests in flight will never be answered, and the
   * peer must be initialized anew before anything else is sent. `unsent` holds the messages the
   * transport was given for the old session but never handed on (they reached no one, so a request
   * among them is sent again on the new session, as if `retryOnRestart`). Transports that cannot
   * restart never call it.
   */
  restarted(cause: Error, unsent?: readonly JsonRpcMessage[]): void;
  /** The connection ended; nothing more will be delivered. Called at most once. */
  closed(cause?: Error): void;
}

/**
 * What `Connection.send` may answer when the message was handed on at once: a caller that compares with it
 * needs no promise of its own, so sending one message to thousands of sessions allocates none per session.
 */
export const SENT: Promise<void> = Promise.resolve();

/**
 * One bidirectional JSON-RPC channel between two MCP peers: the contract every transport
 * implements and the only thing a session needs from one.
 *
 * Promise: messages passed to `send` leave in the order `send` was called; messages reach the
 * receiver in the order they arrived; once `closed` has been called on the receiver, `send`
 * rejects. Invalid input is answered by the transport itself (it knows its medium: a JSON-RPC
 * error line on stdio, an HTTP status on HTTP) and reported through `receiver.error`.
 * Callers promise in turn not to change a message once it is passed to `send`, so that one message sent
 * to many connections may be serialized once (`serialize`).
 */
export interface Connection {
  /** Starts delivery to `receiver`. Called exactly once, before any `send`. */
  start(receiver: Receiver): void;
  /**
   * Sends one message. `related` is the id of the incoming request this message answers or was
   * sent while handling (HTTP transports route it to that request's stream); undefined for
   * messages unrelated to any request.
   */
  send(message: JsonRpcMessage, related?: RequestId): Promise<void>;
  /** Closes the channel; the receiver's `closed` follows. Idempotent. */
  close(): Promise<void>;
  /** The transport's session id, when it has one (Streamable HTTP). */
  readonly sessionId?: string;
  /**
   * The one protocol era this transport carries, when it carries only one (HTTP+SSE and the sessionful
   * Streamable HTTP client: legacy; the per-request one: modern). A client then speaks that era without
   * probing; undefined (stdio, memory) means either, and the client probes.
   */
  readonly era?: Era;
}
