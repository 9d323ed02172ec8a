import type { HTTPExchange } from '../../http/exchange.js';
import { PostInfo } from '../../http/post-info.js';
import { SSEWriter, type SSEWriterOptions } from '../../http/sse-writer.js';
import { McpError } from '../../jsonrpc/errors.js';
import type { Parsed } from '../../jsonrpc/parse.js';
import { serialize } from '../../jsonrpc/serialize.js';
import type { JsonRpcMessage, RequestId } from '../../jsonrpc/types.js';
import type { Connection, Receiver } from '../../peer/connection.js';
import { ConnectionClosedError } from '../../peer/errors.js';
import { unaskedResponse } from '../http/unasked-response.js';

const RESOLVED = Promise.resolve();

/**
 * The server end of one legacy HTTP+SSE client (protocol 2024-11-05): every message to the client
 * goes out on the client's one SSE response as an `event: message`; messages from the client arrive
 * through `receive`, which the handler calls for each POST to this session's endpoint URI.
 *
 * Promises: the SSE head is sent at construction; the `endpoint` event is the first event, sent by
 * `start`, so no POST can reach the session before its receiver exists; each message is serialized
 * once and written as one event with one write; when the SSE response ends for any reason (the client
 * went away, it read too slowly and the writer dropped it, or `close`), the connection closes and the
 * receiver hears `closed` once. The legacy transport has no event ids and no resumption: a client
 * whose stream ended must open a new session, so ending the stream ends the session.
 */
export class SSEServerConnection implements Connection {
  /** Who opened the session (the GET's `principal`), or undefined when no authentication ran. */
  readonly principal: unknown;
  private readonly writer: SSEWriter;
  /** The principal handlers see in `ctx.transport.principal`, when it is a name. */
  private readonly principalName: string | undefined;
  private receiver: Receiver | undefined;
  private ended = false;
  private closeCause: Error | undefined;

  /**
   * @param exchange the client's GET, answered here with the SSE stream
   * @param sessionId the id the client quotes in its POSTs
   * @param endpoint the URI sent in the `endpoint` event, where the client POSTs its messages
   */
  constructor(
    exchange: HTTPExchange,
    readonly sessionId: string,
    private readonly endpoint: string,
    options?: SSEWriterOptions,
  ) {
    this.principal = exchange.principal;
    this.principalName = typeof this.principal === 'string' ? this.principal : undefined;
    this.writer = new SSEWriter(exchange, options);
    exchange.onClose(this.onResponseClosed);
  }

  /** True once the SSE response has ended; nothing more is delivered or sent. */
  get isClosed(): boolean {
    return this.ended;
  }

  start(receiver: Receiver): void {
    if (this.receiver !== undefined) throw new Error('Connection already started');
    this.receiver = receiver;
    if (this.ended) {
      receiver.closed(this.closeCause);
      return;
    }
    this.writer.event({ event: 'endpoint', data: this.endpoint });
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.ended) return Promise.reject(new ConnectionClosedError('Connection closed', this.closeCause));
    let json: string;
    try {
      json = serialize(message);
    } catch (err) {
      return Promise.reject(err);
    }
    // JSON.stringify escapes every CR and LF, so the text is one safe `data:` line as it is.
    if (this.writer.frame(`event: message\ndata: ${json}\n\n`)) return RESOLVED;
    return Promise.reject(new ConnectionClosedError('Connection closed', this.closeCause));
  }

  /** Ends the SSE response; the receiver's `closed` follows at once (the exchange's close listener). */
  close(): Promise<void> {
    this.writer.close();
    return RESOLVED;
  }

  /**
   * Delivers one parsed body of `post`: a message, or a whole batch (the session decides by version
   * whether batches are allowed), with the session's principal and the POST's headers as
   * `ctx.transport`. Invalid input, already answered by the handler with an HTTP error, is reported
   * through the receiver's `error`.
   */
  receive(parsed: Parsed, post: HTTPExchange): void {
    const receiver = this.receiver;
    if (receiver === undefined || this.ended) return;
    switch (parsed.kind) {
      case 'message':
        receiver.message(parsed.message, new PostInfo(post, this.principalName));
        return;
      case 'batch':
        receiver.batch(parsed.messages, new PostInfo(post, this.principalName));
        return;
      default:
        receiver.error(new McpError(parsed.error.code, parsed.error.message));
    }
  }

  /** An invalid answer to request `id` was POSTed: that request of the session's fails (`Receiver.invalidAnswer`). */
  invalidAnswer(id: RequestId, problem: string): void {
    if (!this.ended) this.receiver?.invalidAnswer?.(id, problem);
  }

  /** The id of a response in `parsed` that answers no request of this session (`unaskedResponse`), if any. */
  unasked(parsed: Parsed): RequestId | undefined {
    const receiver = this.receiver;
    if (receiver === undefined) return undefined;
    if (parsed.kind === 'message') return unaskedResponse([parsed.message], receiver);
    return parsed.kind === 'batch' ? unaskedResponse(parsed.messages, receiver) : undefined;
  }

  private readonly onResponseClosed = (): void => {
    this.finish(
      this.writer.overflowed
        ? new Error(
            'the client stopped reading its SSE stream and the server dropped it; ' +
              'the legacy HTTP+SSE transport cannot resume, so the session ended',
          )
        : undefined,
    );
  };

  private finish(cause: Error | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.closeCause = cause;
    this.receiver?.closed(cause);
  }
}
