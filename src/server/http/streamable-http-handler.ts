import type { EventStore } from '../../eventstore/event-store.js';
import { MemoryEventStore } from '../../eventstore/memory-event-store.js';
import { Cors } from '../../http/cors.js';
import { DEFAULT_MAX_BODY_BYTES, type HTTPExchange } from '../../http/exchange.js';
import { checkAccept, defaultLoopbackPolicy } from '../../http/guards.js';
import { HTTPIntake } from '../../http/intake.js';
import type { JsonErrorOptions } from '../../http/json-error.js';
import { fromNode, type NodeListener } from '../../http/node-adapter.js';
import { RateLimiter } from '../../http/rate-limiter.js';
import type { SSEWriterOptions } from '../../http/sse-writer.js';
import { fromWeb } from '../../http/web-adapter.js';
import { Method } from '../../protocol/types.js';
import { isLegacyVersion } from '../../protocol/versions.js';
import type { GaugeSource, Telemetry } from '../../telemetry/telemetry.js';
import { type Clock, systemClock } from '../../util/clock.js';
import { DONE } from '../../util/done.js';
import type { ServerSession } from '../legacy/server-session.js';
import { refusedForScope } from '../scope-check.js';
import type { Server } from '../server.js';
import { classifyPost } from './classify.js';
import {
  DEFAULT_INITIALIZE_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_RETRY_MS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_DEADLINE_MS,
  type ShutdownOptions,
  type StreamableHTTPOptions,
} from './handler-options.js';
import { LegacySessions } from './legacy/legacy-sessions.js';
import type { SessionDirectory } from './legacy/session-directory.js';
import type { PostBody, StreamableServerTransport } from './legacy/session-transport.js';
import { ModernEndpoint } from './modern/endpoint.js';
import {
  DEFAULT_MAX_LISTEN_STREAMS,
  DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL,
} from './modern/listen-streams.js';
import type { ModernHost } from './modern/modern-post.js';
import { answerFailure, reject } from './reject.js';
import {
  badVersion,
  initializeInSession,
  legacyRefused,
  noSessionId,
  noSessions,
} from './session-refusals.js';

const POST_ACCEPT = ['application/json', 'text/event-stream'] as const;
const GET_ACCEPT = ['text/event-stream'] as const;
const NO_CONTENT: Readonly<Record<string, string>> = {};

/**
 * Serves one MCP endpoint over Streamable HTTP (both protocol eras: 2026-07-28 requests and 2025-11-25 sessions):
 * POST, GET and DELETE, sessions by `Mcp-Session-Id`, each served by its own
 * `StreamableServerTransport` and `ServerSession` of `server`.
 *
 * Promises: a session is created only by an initialize POST that succeeds, with an id of 128 random bits
 * (base64url); it ends by DELETE, by idle timeout, by `close`, or by the server; a request never leaves a
 * session behind when refused. Every refusal is an HTTP status with a JSON-RPC error body whose message
 * says what to do, and reaches `onerror`; nothing answers a bare 500. A session bound to a principal
 * (`exchange.principal`, compared with `===`) is unknown (404) to requests of any other.
 *
 * With a `cluster`, sessions are shared with every process using the same one: a request for a session this
 * process does not hold loads it (see src/cluster/README.md), DELETE ends it in every process, and while the
 * shared state cannot be reached every request gets a 503 saying why.
 *
 * Adapters: `node()` for node:http (no fetch objects on the hot path), `fetch()` for web-standard
 * runtimes (Hono, Bun, Deno, Workers), `handle()` for any `HTTPExchange`.
 */
export class StreamableHTTPHandler implements ModernHost {
  readonly store: EventStore | undefined;
  readonly stateless: boolean;
  readonly writerOptions: SSEWriterOptions;
  readonly clock: Clock;
  readonly directory: SessionDirectory | undefined;
  readonly eras: 'both' | 'legacy' | 'modern';
  /** The server's telemetry, which sees this endpoint's sessions, streams and refusals too. */
  readonly telemetry: Telemetry | undefined;
  /** The modern era's side of the endpoint; undefined when it serves the legacy era only. */
  private readonly modern: ModernEndpoint | undefined;
  private readonly intake: HTTPIntake;
  /** The methods the endpoint answers, for `Allow` and CORS. */
  private readonly allow: string;
  private readonly onerror: ((err: Error) => void) | undefined;
  /** The 2025 sessions: this routes their requests, that holds them. */
  private readonly sessions: LegacySessions;
  private inFlight = 0;
  private acceptedPost: string | undefined;
  private shuttingDown = false;
  private drained: (() => void) | undefined;
  /** Stops the telemetry's gauges reading this handler. */
  private readonly unobserve: (() => void) | undefined;

  constructor(
    readonly server: Server,
    options: StreamableHTTPOptions = {},
  ) {
    this.stateless = options.stateless ?? false;
    this.telemetry = server.telemetry;
    const cluster = options.cluster;
    if (cluster !== undefined) {
      if (this.stateless)
        throw new Error('A stateless handler has no sessions to share: leave out `cluster`');
      if (options.eventStore !== undefined && options.eventStore !== cluster.eventStore) {
        throw new Error('A cluster records streams in its own event store: leave out `eventStore`');
      }
    }
    this.directory = cluster;
    this.store =
      cluster?.eventStore ??
      (options.eventStore === null ? undefined : (options.eventStore ?? new MemoryEventStore()));
    this.clock = options.clock ?? systemClock;
    this.writerOptions = {
      keepAliveMs: options.keepAliveMs,
      maxBufferedBytes: options.maxBufferedBytes,
      clock: this.clock,
    };
    this.sessions = new LegacySessions({
      server,
      store: this.store,
      jsonResponse: options.jsonResponse ?? false,
      writerOptions: this.writerOptions,
      retryMs: options.retryMs ?? DEFAULT_RETRY_MS,
      clock: this.clock,
      idleTimeoutMs: options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS,
      initializeTimeoutMs: options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
      maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      directory: cluster,
      telemetry: this.telemetry,
      report: this.report,
      inFlightChanged: this.inFlightChanged,
    });
    const policy = options.dnsRebindingProtection;
    this.allow = this.stateless ? 'POST' : 'GET, POST, DELETE';
    this.intake = new HTTPIntake(
      policy === false ? undefined : (policy ?? defaultLoopbackPolicy()),
      options.cors === undefined ? undefined : new Cors(options.cors, this.allow),
      options.auth,
      options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      this.refuse,
      options.rateLimit &&
        new RateLimiter({ clock: this.clock, ...options.rateLimit }, cluster?.requestCounts, this.report),
    );
    this.onerror = options.onerror;
    this.eras = options.eras ?? 'both';
    this.modern =
      this.eras === 'legacy'
        ? undefined
        : new ModernEndpoint(
            this,
            this.refuse,
            options.maxListenStreams ?? DEFAULT_MAX_LISTEN_STREAMS,
            options.maxListenStreamsPerPrincipal ?? DEFAULT_MAX_LISTEN_STREAMS_PER_PRINCIPAL,
            cluster?.listenLeases,
          );
    cluster?.bind(this.sessions.settings);
    this.unobserve = this.telemetry?.observe(this.gauges());
  }

  /** What telemetry reads of this endpoint at each collection: sessions, open streams, the store's bytes. */
  private gauges(): GaugeSource {
    const store = this.store instanceof MemoryEventStore ? this.store : undefined;
    return {
      sessions: () => this.sessions.size,
      streams: () => ({ ...this.sessions.heldStreams(), listen: this.listenStreamCount }),
      store,
    };
  }

  /** Sessions currently held (initialized, not yet ended). Always 0 in stateless mode. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** 2026-07-28 listen streams (`subscriptions/listen`) open now. */
  get listenStreamCount(): number {
    return this.modern?.listens.size ?? 0;
  }

  /**
   * The 2025 session `id` as this process holds it (a replica loaded here when a cluster shares the sessions), marked
   * active; undefined when there is none. For what serves a session on behalf of another process (a bridge's
   * isolated child): no principal is checked, so never with an id a request gave.
   */
  session(id: string): Promise<ServerSession | undefined> {
    return this.sessions.held(id);
  }

  /**
   * Serves one request; the promise settles when the request no longer needs the caller (a POST's answer may still
   * be on its way). Never rejects: every failure is answered and reported to `onerror`.
   */
  handle(exchange: HTTPExchange): Promise<void> {
    try {
      const pending = this.route(exchange);
      return pending instanceof Promise ? pending.catch((err) => this.fail(exchange, err)) : DONE;
    } catch (err) {
      this.fail(exchange, err);
      return DONE;
    }
  }

  /**
   * A node:http request listener: `http.createServer(handler.node())`, or a route in express, after
   * `express.json()` or not. A framework that keeps the body it parsed elsewhere passes it as the third
   * argument (fastify: `listener(request.raw, reply.raw, request.body)`); see `NodeListener`.
   */
  node(): NodeListener {
    return (req, res, body) => {
      this.handle(fromNode(req, res, body));
    };
  }

  /** The web-standard handler for Hono, Bun, Deno and Workers: `(request) => response`. */
  fetch(request: Request): Promise<Response> {
    const { exchange, response } = fromWeb(request);
    this.handle(exchange);
    return response;
  }

  /**
   * Graceful shutdown: new requests but DELETE get 503 at once; requests in flight may finish until `deadlineMs`;
   * then every session is closed: SSE responses still open end with a retry hint, JSON answers still
   * owed get 503, and the event store hears `sessionClosed`.
   */
  async close(options: ShutdownOptions = {}): Promise<void> {
    this.shuttingDown = true;
    this.sessions.stopLoading();
    this.unobserve?.();
    this.modern?.listens.endAll();
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = this.clock.setTimeout(resolve, options.deadlineMs ?? DEFAULT_SHUTDOWN_DEADLINE_MS);
        this.drained = () => {
          this.clock.clearTimeout(timer);
          resolve();
        };
      });
      this.drained = undefined;
    }
    await this.sessions.close();
  }

  // ---- ModernHost ----

  readonly report = (err: unknown): void => {
    this.onerror?.(err instanceof Error ? err : new Error(String(err)));
  };

  readonly inFlightChanged = (delta: number): void => {
    this.inFlight += delta;
    if (this.inFlight === 0) this.drained?.();
  };

  // ---- routing ----

  private route(exchange: HTTPExchange): void | Promise<void> {
    // A DELETE only ends what the shutdown ends anyway: its client hears the session is gone (204, then 404).
    if (this.shuttingDown && exchange.method !== 'DELETE') {
      return this.refuse(exchange, 503, 'Service Unavailable: the server is shutting down; retry later');
    }
    const admitted = this.intake.admit(exchange);
    if (admitted === true) return this.dispatch(exchange);
    if (admitted !== false) return this.authorized(exchange, admitted);
  }

  /** Serves the request once its token is granted, as its grant's principal. */
  private async authorized(exchange: HTTPExchange, admitted: Promise<boolean>): Promise<void> {
    if (await admitted) return this.dispatch(exchange);
  }

  private dispatch(exchange: HTTPExchange): void | Promise<void> {
    switch (exchange.method) {
      case 'POST':
        return this.post(exchange);
      case 'GET':
        return this.sessions.unreachable(exchange) ? undefined : this.get(exchange);
      case 'DELETE':
        return this.sessions.unreachable(exchange) ? undefined : this.delete(exchange);
      default:
        return this.refuse(
          exchange,
          405,
          `Method Not Allowed: the MCP endpoint answers ${this.stateless ? 'POST' : 'POST, GET and DELETE'}`,
          { headers: { allow: this.allow } },
        );
    }
  }

  private post(exchange: HTTPExchange): void {
    const accept = exchange.header('accept');
    // Clients send the same Accept on every POST: the last one that passed passes again at the cost of a compare.
    if (accept === undefined || accept !== this.acceptedPost) {
      const refused = checkAccept(accept, POST_ACCEPT);
      if (refused !== undefined) {
        this.refuse(exchange, refused.status, refused.message);
        return;
      }
      this.acceptedPost = accept;
    }
    // No promise here: each would cost a turn per POST on the hot path.
    this.intake.read(
      exchange,
      (parsed) => this.posted(exchange, parsed),
      (err) => this.fail(exchange, err),
      this.sessions.invalidAnswer,
    );
  }

  /** A POST whose message parsed: classified once, then served by its era. */
  private posted(exchange: HTTPExchange, parsed: PostBody): void | Promise<void> {
    if (refusedForScope(this.server, this.intake, exchange, parsed)) return;
    const version = exchange.header('mcp-protocol-version');
    const modern = this.modern;
    if (modern !== undefined) {
      const era = classifyPost(parsed, version);
      if (era.era === 'modern') return modern.serve(exchange, era.message);
      if (era.era === 'refused') {
        return this.refuse(exchange, era.status, era.message, { code: era.code, id: era.id, data: era.data });
      }
      if (this.eras === 'modern') return legacyRefused(this.refuse, exchange, parsed);
    }
    // Only sessions live in the shared state: a 2026-07-28 request above is served while it is down.
    if (this.sessions.unreachable(exchange)) return;
    if (version !== undefined && !isLegacyVersion(version)) return badVersion(this.refuse, exchange, version);
    const init =
      parsed.kind === 'message' &&
      'id' in parsed.message &&
      (parsed.message as { method?: unknown }).method === Method.Initialize;
    if (this.stateless) return this.sessions.serveStateless(exchange, parsed, version, init);
    const sessionId = exchange.header('mcp-session-id');
    if (sessionId === undefined) {
      return init ? this.sessions.initialize(exchange, parsed) : noSessionId(this.refuse, exchange, true);
    }
    if (init)
      return initializeInSession(this.refuse, exchange, (parsed.message as { id: string | number }).id);
    const found = this.sessions.find(
      exchange,
      sessionId,
      parsed.kind === 'message' ? parsed.message : undefined,
    );
    if (!(found instanceof Promise)) {
      found?.servePost(exchange, parsed, false);
      return;
    }
    return found.then((transport) => {
      transport?.servePost(exchange, parsed, false);
    });
  }

  private get(exchange: HTTPExchange): void | Promise<void> {
    if (this.stateless || this.eras === 'modern')
      return noSessions(this.refuse, exchange, this.stateless, 'offers no GET stream');
    const refused = checkAccept(exchange.header('accept'), GET_ACCEPT);
    if (refused !== undefined) return this.refuse(exchange, refused.status, refused.message);
    const found = this.sessionOf(exchange);
    if (found instanceof Promise) return found.then((transport) => transport?.serveGet(exchange));
    if (found !== undefined) return found.serveGet(exchange);
  }

  private async delete(exchange: HTTPExchange): Promise<void> {
    if (this.stateless || this.eras === 'modern')
      return noSessions(this.refuse, exchange, this.stateless, 'has no sessions to delete');
    const found = this.sessionOf(exchange);
    const transport = found instanceof Promise ? await found : found;
    if (transport === undefined) return;
    // Shared: gone from every process before the client hears it is gone (503 when that failed).
    if (this.directory !== undefined) await this.directory.remove(transport);
    await transport.close('deleted');
    exchange.writeHead(204, NO_CONTENT);
    exchange.end();
  }

  /** The session a GET or DELETE names, after the version and session checks; undefined once refused. */
  private sessionOf(
    exchange: HTTPExchange,
  ): StreamableServerTransport | undefined | Promise<StreamableServerTransport | undefined> {
    const version = exchange.header('mcp-protocol-version');
    if (version !== undefined && !isLegacyVersion(version)) {
      badVersion(this.refuse, exchange, version);
      return undefined;
    }
    const sessionId = exchange.header('mcp-session-id');
    if (sessionId === undefined) {
      noSessionId(this.refuse, exchange, false);
      return undefined;
    }
    return this.sessions.find(exchange, sessionId);
  }

  /** A field, not a method, so that `auth.admit` can refuse the way every refusal here goes. */
  private readonly refuse = (
    exchange: HTTPExchange,
    status: number,
    message: string,
    options?: JsonErrorOptions,
  ): void => reject(exchange, status, message, this, options);

  private fail(exchange: HTTPExchange, err: unknown): void {
    this.report(err);
    answerFailure(exchange, err, (why) => this.sessions.storeLost(why));
  }
}
