import { RateLimiter, type RateLimitOptions } from '../../http/rate-limiter.js';
import { ErrorCode, errorResponse, toErrorObject } from '../../jsonrpc/errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, RequestId } from '../../jsonrpc/types.js';
import type { Connection, MessageInfo, Receiver } from '../../peer/connection.js';
import { claimsModern } from '../../protocol/envelope.js';
import type { ServerSession } from '../legacy/server-session.js';
import { admitModern } from '../modern/admission.js';
import type { Server } from '../server.js';
import { rateLimited } from './rate-limited-connection.js';
import { ModernStdio } from './stdio-modern.js';
import { type StdioServerOptions, stdioServerConnection } from './stdio-server-connection.js';

export interface StdioServeOptions extends StdioServerOptions {
  /** Hears the problems no one else answers: bad lines, failing handlers, a session's errors. */
  onerror?: (err: Error) => void;
  /**
   * Bounds on the client's requests: in number per window, and in flight; past either, the request is answered
   * with a JSON-RPC error (-32000) naming the bound, with `data.retryAfterSeconds`. Default: none.
   */
  rateLimit?: RateLimitOptions;
}

/** One stdio connection being served, in the era its first message chose. */
export interface StdioService {
  /** Undefined until the first message has chosen. */
  readonly era: 'legacy' | 'modern' | undefined;
  /** The 2025 session, once the connection opened with a legacy message. */
  readonly session: ServerSession | undefined;
  /** Resolves once the connection has ended: stdin ended or failed, stdout failed, or `close`. */
  readonly ended: Promise<void>;
  /**
   * Ends the connection: a legacy session closes; in the modern era each listen stream ends with its
   * result and requests in flight are cancelled. Resolves once it has ended.
   */
  close(): Promise<void>;
}

/**
 * Serves `server` on stdio in both eras (spec 2026-07-28, stdio): the first message chooses for the whole
 * connection. One whose `_meta` claims a protocol version makes it a 2026-07-28 connection (`ModernStdio`),
 * unless it is refused (an unsupported version, a broken envelope): then the client may still probe again or
 * fall back to initialize, as the spec's dual-era clients do;
 * anything else (initialize, …) starts a 2025 session, exactly as `server.connect(stdioServerConnection())`
 * would, that first message included. A message of the other era later is refused (-32600). Lines that are
 * not JSON-RPC are answered as ever (-32700, -32600) and do not choose.
 */
export function serveStdio(server: Server, options: StdioServeOptions = {}): StdioService {
  const connection = stdioServerConnection(options);
  const limited = options.rateLimit && rateLimited(connection, new RateLimiter(options.rateLimit));
  return new EraChoice(server, limited || connection, options.onerror);
}

const LEGACY_ONLY =
  'Invalid request: this connection speaks the 2025 era (it opened without a protocol version in _meta); ' +
  'a 2026-07-28 request needs a new connection';

/** Receives for the connection until its first message, then hands everything to the era it chose. */
class EraChoice implements Receiver, StdioService {
  era: 'legacy' | 'modern' | undefined;
  session: ServerSession | undefined;
  readonly ended: Promise<void>;
  private next: Receiver | undefined;
  private modern: ModernStdio | undefined;
  private resolveEnded!: () => void;

  constructor(
    private readonly server: Server,
    private readonly connection: Connection,
    private readonly onerror: ((err: Error) => void) | undefined,
  ) {
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
    connection.start(this);
  }

  close(): Promise<void> {
    const ending = this.modern?.end() ?? this.session?.close() ?? this.connection.close();
    return ending.then(() => this.ended);
  }

  message(message: JsonRpcMessage, info?: MessageInfo): void {
    if (this.next === undefined && claimsModern(message) && 'id' in message && 'method' in message) {
      this.firstModern(message);
      return;
    }
    (this.next ?? this.choose(claimsModern(message))).message(message, info);
  }

  /**
   * A first request that claims 2026-07-28: admitted, it chooses the modern era and runs; refused, it is
   * answered and the era stays to be chosen (a client may fall back to initialize).
   */
  private firstModern(request: JsonRpcRequest): void {
    const admitted = admitModern(this.server, request, undefined);
    if ('error' in admitted) {
      this.connection.send(errorResponse(request.id, toErrorObject(admitted.error))).catch(this.report);
      return;
    }
    this.choose(true);
    this.modern!.first(request, admitted.scope);
  }

  batch(messages: JsonRpcMessage[], info?: MessageInfo): void {
    (this.next ?? this.choose(false)).batch(messages, info);
  }

  error(err: Error): void {
    if (this.next !== undefined) this.next.error(err);
    else this.report(err);
  }

  invalidAnswer(id: RequestId, problem: string): boolean {
    return this.next?.invalidAnswer?.(id, problem) ?? false;
  }

  restarted(cause: Error, unsent?: readonly JsonRpcMessage[]): void {
    this.next?.restarted(cause, unsent);
  }

  closed(cause?: Error): void {
    this.next?.closed(cause);
    this.resolveEnded();
  }

  private choose(modern: boolean): Receiver {
    if (modern) {
      this.era = 'modern';
      this.modern = new ModernStdio(this.server, this.connection, this.report);
      this.next = this.modern;
      return this.modern;
    }
    this.era = 'legacy';
    // The session starts its connection at once: `start` hands over its receiver before connect returns.
    this.session = this.server.connect(
      handedOver(this.connection, (receiver) => {
        this.next = new LegacyOnly(receiver, this.connection);
      }),
    );
    this.session.onerror = this.onerror;
    return this.next!;
  }

  private readonly report = (err: Error): void => {
    this.onerror?.(err);
  };
}

/** The connection as the legacy session sees it: its own, except that `start` only hands over the receiver. */
function handedOver(connection: Connection, start: (receiver: Receiver) => void): Connection {
  return {
    start,
    send: (message, related) => connection.send(message, related),
    close: () => connection.close(),
  };
}

/** The legacy session's receiver, shielded from 2026-07-28 messages: those are refused, not served. */
class LegacyOnly implements Receiver {
  constructor(
    private readonly session: Receiver,
    private readonly connection: Connection,
  ) {}

  message(message: JsonRpcMessage, info?: MessageInfo): void {
    if (!claimsModern(message)) {
      this.session.message(message, info);
      return;
    }
    const modern = message as JsonRpcRequest | JsonRpcNotification;
    if ('id' in modern) this.refuse(modern.id);
    else this.session.error(new Error(`Ignored ${modern.method}: ${LEGACY_ONLY}`));
  }

  batch(messages: JsonRpcMessage[], info?: MessageInfo): void {
    this.session.batch(messages, info);
  }

  error(err: Error): void {
    this.session.error(err);
  }

  invalidAnswer(id: RequestId, problem: string): boolean {
    return this.session.invalidAnswer?.(id, problem) ?? false;
  }

  restarted(cause: Error, unsent?: readonly JsonRpcMessage[]): void {
    this.session.restarted(cause, unsent);
  }

  closed(cause?: Error): void {
    this.session.closed(cause);
  }

  private refuse(id: RequestId): void {
    this.connection
      .send(errorResponse(id, { code: ErrorCode.InvalidRequest, message: LEGACY_ONLY }))
      .catch(() => {});
  }
}
