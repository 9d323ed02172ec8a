import { Cors, type CorsOptions } from '../../http/cors.js';
import type { EndpointAuth } from '../../http/endpoint-auth.js';
import { DEFAULT_MAX_BODY_BYTES, type HTTPExchange } from '../../http/exchange.js';
import { checkAccept, defaultLoopbackPolicy, type HostOriginPolicy } from '../../http/guards.js';
import { HTTPIntake, type InvalidAnswer, type ParsedBody } from '../../http/intake.js';
import { HTTP_REJECTION_CODE, type JsonErrorOptions, writeJsonError } from '../../http/json-error.js';
import { fromNode, type NodeListener } from '../../http/node-adapter.js';
import { RateLimiter, type RateLimitOptions } from '../../http/rate-limiter.js';
import { fromWeb } from '../../http/web-adapter.js';
import { ErrorCode } from '../../jsonrpc/errors.js';
import { randomBytesPooled } from '../../util/random-pool.js';
import { HTTPRejectionError } from '../http/errors.js';
import { unaskedMessage } from '../http/unasked-response.js';
import type { ServerSession } from '../legacy/server-session.js';
import { refusedForScope } from '../scope-check.js';
import type { Server } from '../server.js';
import { SSEServerConnection } from './sse-server-connection.js';

/** Sessions one handler serves at once unless configured otherwise (503 past it). */
export const DEFAULT_MAX_SSE_SESSIONS = 10_000;

/** How a `LegacySSEHandler` serves; every limit has a default. */
export interface LegacySSEHandlerOptions {
  /** Where clients open their SSE stream with GET. Default `/sse`. */
  ssePath?: string;
  /** Where clients POST their messages (`?sessionId=` is added). Default `/messages`. */
  messagesPath?: string;
  /** Open sessions past which a new GET gets 503. Default `DEFAULT_MAX_SSE_SESSIONS`. */
  maxSessions?: number;
  /**
   * Largest accepted POST body in bytes (413 past it). Default `DEFAULT_MAX_BODY_BYTES` (4 MiB). The rest of a
   * refused body is drained as `StreamableHTTPOptions.maxBodyBytes` says (up to 16 MiB more, for 5 s).
   */
  maxBodyBytes?: number;
  /**
   * The Host and Origin allow-lists that defend against DNS rebinding (421/403), with the same
   * meaning as the Streamable HTTP handler's: default `defaultLoopbackPolicy()`, right for a
   * server bound to loopback; list the names a public server answers to; `false` behind a proxy
   * that checks them.
   */
  dnsRebindingProtection?: HostOriginPolicy | false;
  /** Let web pages of other origins call, as the Streamable HTTP handler's `cors`. Default: none may. */
  cors?: CorsOptions;
  /**
   * Serve only requests (the GET and every POST) it lets in, as the Streamable HTTP handler's `auth`; the session
   * is bound to the token's principal.
   */
  auth?: EndpointAuth;
  /**
   * Bounds on each caller (its principal, else its address), as the Streamable HTTP handler's `rateLimit`: the GET
   * and every POST count as requests; a POST is in flight until its 202. Default: none.
   */
  rateLimit?: RateLimitOptions;
  /** Interval of the SSE keep-alive comment; 0 turns it off. Default 15 s. */
  keepAliveMs?: number;
  /** Bytes a client that stopped reading may cost before its stream (and so its session) is dropped. */
  maxBufferedBytes?: number;
  /**
   * Hears every request refused with an error status and every unexpected failure; a POST body that is
   * not valid JSON-RPC (answered 400) is reported to its session instead, as every transport does.
   */
  onerror?: (err: Error) => void;
}

const EVENT_STREAM = ['text/event-stream'] as const;
const ACCEPTED_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'text/plain; charset=utf-8' };

/**
 * The server side of the legacy HTTP+SSE transport (protocol 2024-11-05), for clients that predate
 * Streamable HTTP. A GET on `ssePath` opens a session: its SSE stream starts with an `endpoint` event
 * whose data is the relative URI `<messagesPath>?sessionId=<id>` (what the official SDKs send), and
 * carries every message of the server as an `event: message`. Each client message is POSTed to that
 * URI and answered 202 `Accepted`; its answer, if any, goes out on the stream.
 *
 * Promises: session ids carry 128 bits from a CSPRNG (base64url); a session bound to the principal
 * that opened it (the GET's `exchange.principal`, compared by identity) answers no POST from another
 * (404, as for an unknown id, so its existence is not revealed); when its SSE response ends the
 * session closes and is forgotten; every refusal carries a JSON-RPC error body; `handle` leaves
 * requests for other paths untouched, so it can sit beside the Streamable HTTP handler.
 */
export class LegacySSEHandler {
  readonly ssePath: string;
  readonly messagesPath: string;
  private readonly maxSessions: number;
  private readonly intake: HTTPIntake;
  private readonly writerOptions: { keepAliveMs?: number; maxBufferedBytes?: number };
  private readonly onerror: ((err: Error) => void) | undefined;
  private readonly connections = new Map<string, SSEServerConnection>();
  private closing = false;
  /** Stops the server's telemetry reading this handler's gauges. */
  private readonly unobserve: (() => void) | undefined;

  constructor(
    readonly server: Server,
    options: LegacySSEHandlerOptions = {},
  ) {
    this.ssePath = options.ssePath ?? '/sse';
    this.messagesPath = options.messagesPath ?? '/messages';
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_SSE_SESSIONS;
    const policy = options.dnsRebindingProtection;
    this.intake = new HTTPIntake(
      policy === false ? undefined : (policy ?? defaultLoopbackPolicy()),
      options.cors === undefined ? undefined : new Cors(options.cors, 'GET, POST'),
      options.auth,
      options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      this.refuse,
      options.rateLimit && new RateLimiter(options.rateLimit),
    );
    this.writerOptions = { keepAliveMs: options.keepAliveMs, maxBufferedBytes: options.maxBufferedBytes };
    this.onerror = options.onerror;
    const connections = this.connections;
    this.unobserve = server.telemetry?.observe({
      sessions: () => connections.size,
      streams: () => ({ post: 0, get: connections.size, listen: 0 }),
    });
  }

  /** Open sessions. */
  get sessionCount(): number {
    return this.connections.size;
  }

  /**
   * Serves the request if its path is `ssePath` or `messagesPath` and resolves true once it was taken in (for a
   * GET: once the stream is open; a POST's answer may follow); resolves false, touching nothing, for any other
   * path. Never rejects: an unexpected failure is answered with a JSON-RPC error and reported.
   */
  async handle(exchange: HTTPExchange): Promise<boolean> {
    const path = exchange.path;
    const isSse = path === this.ssePath;
    const isMessages = path === this.messagesPath;
    if (!isSse && !isMessages) return false;
    try {
      const admitted = this.intake.admit(exchange);
      if (admitted === true || (admitted !== false && (await admitted))) {
        this.serve(exchange, isSse, isMessages);
      }
    } catch (err) {
      this.fail(exchange, err);
    }
    return true;
  }

  private fail(exchange: HTTPExchange, err: unknown): void {
    this.report(err);
    writeJsonError(
      exchange,
      500,
      'Internal Server Error: the server failed while handling this request; its operator can find the cause in the server log',
      { code: ErrorCode.InternalError },
    );
  }

  private serve(exchange: HTTPExchange, isSse: boolean, isMessages: boolean): void {
    if (isSse && exchange.method === 'GET') this.open(exchange);
    else if (isMessages && exchange.method === 'POST') this.post(exchange);
    else {
      const allow = isSse && isMessages ? 'GET, POST' : isSse ? 'GET' : 'POST';
      this.refuse(exchange, 405, `Method Not Allowed: ${exchange.path} accepts ${allow} only`, {
        headers: { allow },
      });
    }
  }

  /**
   * A node:http request listener; paths other than the two it serves get 404. It takes a body a framework
   * already read (see `NodeListener`), as `StreamableHTTPHandler.node()` does.
   */
  node(): NodeListener {
    return (req, res, body) => {
      const exchange = fromNode(req, res, body);
      this.handle(exchange).then((handled) => {
        if (!handled) this.notFound(exchange);
      });
    };
  }

  /** A web-standard handler (Hono, Bun, Deno, Workers); paths other than the two it serves get 404. */
  fetch(request: Request): Promise<Response> {
    const { exchange, response } = fromWeb(request);
    this.handle(exchange).then((handled) => {
      if (!handled) this.notFound(exchange);
    });
    return response;
  }

  /** Ends every stream, which closes every session, and refuses new ones (503) from now on. */
  async close(): Promise<void> {
    this.closing = true;
    this.unobserve?.();
    await Promise.all(Array.from(this.connections.values(), (connection) => connection.close()));
  }

  private open(exchange: HTTPExchange): void {
    // The 2024-11-05 transport sets no Accept rule, so old clients (and curl) that send none or
    // */* are served; only an Accept that lists types and leaves out the event stream is refused.
    const accept = exchange.header('accept');
    const unacceptable =
      accept === undefined || accept.includes('*/*') ? undefined : checkAccept(accept, EVENT_STREAM);
    if (unacceptable !== undefined) {
      this.refuse(exchange, unacceptable.status, unacceptable.message);
      return;
    }
    if (this.closing) {
      this.refuse(
        exchange,
        503,
        'Service Unavailable: the server is shutting down; connect to another instance',
      );
      return;
    }
    if (this.connections.size >= this.maxSessions) {
      this.refuse(
        exchange,
        503,
        `Service Unavailable: the server already serves its limit of ${this.maxSessions} sessions; try again later`,
      );
      return;
    }
    const id = randomBytesPooled(16).toString('base64url');
    // base64url needs no percent-encoding in a query.
    const connection = new SSEServerConnection(
      exchange,
      id,
      `${this.messagesPath}?sessionId=${id}`,
      this.writerOptions,
    );
    this.connections.set(id, connection);
    const telemetry = this.server.telemetry;
    const openedAt = telemetry === undefined ? 0 : performance.now();
    let session: ServerSession | undefined;
    // No resumption in this transport: once the stream ends, the session is gone.
    exchange.onClose(() => {
      this.connections.delete(id);
      telemetry?.event({
        type: 'session.closed',
        transport: 'sse',
        sessionId: id,
        protocolVersion: session?.protocolVersion,
        reason: this.closing ? 'shutdown' : 'stream ended',
        durationMs: performance.now() - openedAt,
      });
    });
    session = this.server.connect(connection);
    telemetry?.event({ type: 'session.opened', transport: 'sse', sessionId: id, protocolVersion: undefined });
  }

  private post(exchange: HTTPExchange): void {
    const id = exchange.query.get('sessionId');
    if (id === null || id === '') {
      this.refuse(
        exchange,
        400,
        'Bad Request: the sessionId query parameter is missing; POST to the URI of the endpoint event',
      );
      return;
    }
    const connection = this.connections.get(id);
    if (connection === undefined || !this.mayUse(connection, exchange)) {
      this.sessionGone(exchange);
      return;
    }
    this.intake.read(
      exchange,
      (parsed) => this.posted(exchange, connection, parsed),
      (err) => this.fail(exchange, err),
      this.invalidAnswer,
    );
  }

  /** A POST's body was an invalid answer to request `id` of its session (found and allowed before the body was read). */
  private readonly invalidAnswer: InvalidAnswer = (exchange, id, problem) => {
    this.connections.get(exchange.query.get('sessionId')!)?.invalidAnswer(id, problem);
  };

  private posted(exchange: HTTPExchange, connection: SSEServerConnection, parsed: ParsedBody): void {
    // The stream may have ended while the body arrived.
    if (connection.isClosed) {
      this.sessionGone(exchange);
      return;
    }
    const unasked = connection.unasked(parsed);
    if (unasked !== undefined) {
      this.refuse(exchange, 400, unaskedMessage(unasked), { code: ErrorCode.InvalidRequest });
      return;
    }
    if (refusedForScope(this.server, this.intake, exchange, parsed)) return;
    exchange.writeHead(202, ACCEPTED_HEADERS);
    exchange.end('Accepted');
    connection.receive(parsed, exchange);
  }

  /** A session opened by an authenticated principal takes messages from that principal only. */
  private mayUse(connection: SSEServerConnection, exchange: HTTPExchange): boolean {
    return connection.principal === undefined || connection.principal === exchange.principal;
  }

  private sessionGone(exchange: HTTPExchange): void {
    this.refuse(
      exchange,
      404,
      `Not Found: no such session; it may have ended with its SSE stream: open a new one with GET ${this.ssePath}`,
    );
  }

  private notFound(exchange: HTTPExchange): void {
    this.refuse(
      exchange,
      404,
      `Not Found: ${exchange.path} is not served here; open an SSE stream with GET ${this.ssePath}`,
    );
  }

  /** A field, not a method, so that `auth.admit` can refuse the way every refusal here goes. */
  private readonly refuse = (
    exchange: HTTPExchange,
    status: number,
    message: string,
    options?: JsonErrorOptions,
  ): void => {
    this.report(new HTTPRejectionError(status, message));
    writeJsonError(exchange, status, message, options);
    this.server.telemetry?.event({
      type: 'refused',
      status,
      code: options?.code ?? HTTP_REJECTION_CODE,
      message,
    });
  };

  private report(err: unknown): void {
    this.onerror?.(err instanceof Error ? err : new Error(String(err)));
  }
}
