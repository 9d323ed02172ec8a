import type { HTTPExchange } from '../../../http/exchange.js';
import type { InvalidAnswer } from '../../../http/intake.js';
import type { JsonRpcMessage, RequestId } from '../../../jsonrpc/types.js';
import { Chain } from '../../../util/chain.js';
import { randomBytesPooled } from '../../../util/random-pool.js';
import type { ServerSession } from '../../legacy/server-session.js';
import { HTTPRejectionError } from '../errors.js';
import { IDLE_SWEEP_MS } from '../handler-options.js';
import { reject } from '../reject.js';
import type { LegacySettings } from './legacy-settings.js';
import { SessionTable } from './session-table.js';
import { type PostBody, StreamableServerTransport, type TransportHost } from './session-transport.js';

/**
 * The version a request without `MCP-Protocol-Version` speaks when nothing else tells (the spec's rule);
 * only stateless mode needs it: a session knows the version it negotiated.
 */
const VERSION_WITHOUT_HEADER = '2025-03-26';

const noop = () => {};

/** Loads a replica whoever the session's principal is (`held`: not for a client's request). */
const ANY_PRINCIPAL = Symbol('any principal');

/** Fails request `id` of the session, where it waits (see `LegacySessions.invalidAnswer`). */
function failAnswer(
  transport: StreamableServerTransport | undefined,
  exchange: HTTPExchange,
  id: RequestId,
  problem: string,
): void {
  if (transport === undefined || transport.isClosed || transport.principal !== exchange.principal) return;
  if (transport.replica?.failAnswer(id, problem)) return;
  transport.conn.receiver?.invalidAnswer?.(id, problem);
}

/**
 * The 2025 sessions of one Streamable HTTP endpoint: it opens them (initialize, or a stateless POST's session
 * of one request), finds the one a request names (loading a replica of a shared one), ends them when idle, at
 * the cap (the least recently active first) or at shutdown, and forgets them when they close. The handler
 * routes; this holds.
 *
 * Promises: a session id is 128 random bits (base64url); a session is registered only once its initialize
 * succeeded; another principal's session answers exactly like a missing one (404); concurrent requests for
 * a shared session this process does not hold load one replica.
 */
export class LegacySessions implements TransportHost {
  private readonly table: SessionTable;
  /** Shared sessions being loaded, so that concurrent requests for one make one replica. */
  private readonly loading = new Map<string, Promise<StreamableServerTransport | undefined>>();
  /** Stateless mode: the temporary sessions of POSTs being answered. */
  private readonly ephemeral = new Chain<StreamableServerTransport>();
  /** The idle sweep's timer, while there are sessions to watch. */
  private sweepTimer: unknown;
  /** Set when the endpoint shuts down: no replica is loaded after. */
  private stopping = false;
  /** The shared state was found unreachable, and has not been found reachable since (told once to telemetry). */
  private storeDown = false;

  constructor(readonly settings: LegacySettings) {
    this.table = new SessionTable(settings.report);
  }

  // ---- TransportHost ----

  sessionEnded(transport: StreamableServerTransport): void {
    const sessionId = transport.sessionId;
    if (sessionId === undefined) {
      this.ephemeral.delete(transport);
      return;
    }
    this.table.delete(transport);
    this.settings.telemetry?.event({
      type: 'session.closed',
      transport: 'streamable-http',
      sessionId,
      protocolVersion: transport.session.protocolVersion,
      reason: transport.closedBecause,
      durationMs: this.settings.clock.now() - transport.openedAt,
    });
  }

  sessionActive(transport: StreamableServerTransport): void {
    this.table.touched(transport);
  }

  // ---- the sessions ----

  /** Sessions held (initialized, not yet ended). */
  get size(): number {
    return this.table.size;
  }

  /** Every session held, and the stateless ones being answered. */
  *all(): IterableIterator<StreamableServerTransport> {
    yield* this.table.values();
    yield* this.ephemeral.values();
  }

  /** The streams an HTTP response carries now, POST and GET, over every session (for telemetry's gauges). */
  heldStreams(): { post: number; get: number } {
    let post = 0;
    let get = 0;
    for (const transport of this.all()) {
      for (const stream of transport.conn.streams()) {
        if (!stream.held) continue;
        if (stream.standalone) get++;
        else post++;
      }
    }
    return { post, get };
  }

  /** Opens a session with its initialize POST; it is kept only if initialize succeeds. 503 at the cap. */
  initialize(exchange: HTTPExchange, body: PostBody): void {
    const { maxSessions } = this.settings;
    // Callers are told apart by principal, anonymous ones by address (see SessionTable.makeRoom).
    const principal = exchange.principal;
    const address = exchange.remoteAddress;
    if (this.table.size >= maxSessions && !this.table.makeRoom({ principal, address })) {
      reject(
        exchange,
        503,
        `Service Unavailable: the server holds its maximum of ${maxSessions} sessions, each with a request in flight or a stream open; retry later`,
        this.settings,
      );
      return;
    }
    // 16 bytes (128 bits) for the session id, 6 more for the prefix of its stream ids.
    const random = randomBytesPooled(22);
    const sessionId = random.toString('base64url', 0, 16);
    const streamPrefix = `${random.toString('base64url', 16, 22)}.`;
    const transport = new StreamableServerTransport(this, sessionId, principal, streamPrefix);
    this.table.add(transport, address);
    transport.session = this.settings.server.connect(transport.conn);
    if (transport.servePost(exchange, body, true)) {
      this.table.initialized(transport, this.settings.clock.now());
      this.watchIdle();
      this.settings.telemetry?.event({
        type: 'session.opened',
        transport: 'streamable-http',
        sessionId,
        protocolVersion: transport.session.protocolVersion,
      });
    } else transport.close('rejected').catch(this.settings.report);
  }

  /** Stateless mode: one POST served by a session of its own, which ends once the POST is answered. */
  serveStateless(exchange: HTTPExchange, body: PostBody, version: string | undefined, init: boolean): void {
    const transport = new StreamableServerTransport(this, undefined, exchange.principal, 's');
    this.ephemeral.add(transport);
    transport.session = this.settings.server.connect(
      transport.conn,
      init ? undefined : { preinitialized: { protocolVersion: version ?? VERSION_WITHOUT_HEADER } },
    );
    if (!transport.servePost(exchange, body, false)) transport.close('rejected').catch(this.settings.report);
  }

  /**
   * The live session with this id, if the request comes from the principal that created it; undefined once
   * refused (404). With a directory, a session this process does not hold is loaded and replicated here.
   */
  find(
    exchange: HTTPExchange,
    sessionId: string,
    message?: JsonRpcMessage,
  ): StreamableServerTransport | undefined | Promise<StreamableServerTransport | undefined> {
    const transport = this.table.get(sessionId);
    if (transport === undefined && this.settings.directory !== undefined) {
      const load = () =>
        this.replicate(sessionId, exchange.principal).then((replica) => this.allowed(exchange, replica));
      const telemetry = this.settings.telemetry;
      // Loading is part of the request that asked for the session: in its trace.
      if (telemetry === undefined || message === undefined || !('params' in message)) return load();
      return telemetry.continuing(message.params, load);
    }
    return this.allowed(exchange, transport);
  }

  /**
   * A POST's body was an invalid answer to request `id`: when the session it names is the principal's, that request
   * of the session's fails (`Receiver.invalidAnswer`), in whichever process it waits (a shared session's replica is
   * loaded here, as for a valid answer). The POST is refused all the same.
   */
  readonly invalidAnswer: InvalidAnswer = (exchange, id, problem) => {
    const sessionId = exchange.header('mcp-session-id');
    if (sessionId === undefined) return;
    const transport = this.table.get(sessionId);
    if (transport !== undefined || this.settings.directory === undefined)
      failAnswer(transport, exchange, id, problem);
    else
      this.replicate(sessionId, exchange.principal).then(
        (replica) => failAnswer(replica, exchange, id, problem),
        // This process is full or the shared state is out of reach, which the next request is told of: the POST
        // is refused already, and the request waits for its timeout, as it would without this.
        noop,
      );
  };

  /** The session `id` held here, a replica loaded when shared, marked active (see StreamableHTTPHandler.session). */
  async held(sessionId: string): Promise<ServerSession | undefined> {
    const transport =
      this.table.get(sessionId) ??
      (this.settings.directory === undefined ? undefined : await this.replicate(sessionId, ANY_PRINCIPAL));
    if (transport === undefined || transport.isClosed) return undefined;
    this.table.touched(transport);
    return transport.session;
  }

  /**
   * True once refused (503): the directory's shared state, where the sessions are, cannot be reached. Cheap: the
   * directory says what it last found.
   */
  unreachable(exchange: HTTPExchange): boolean {
    const why = this.settings.directory?.unavailable();
    if (why === undefined) {
      if (this.storeDown) {
        this.storeDown = false;
        this.settings.telemetry?.event({ type: 'store.available' });
      }
      return false;
    }
    this.storeLost(why);
    reject(exchange, 503, `Service Unavailable: ${why}`, this.settings);
    return true;
  }

  /** The shared state cannot be reached: telemetry hears it once, until it is found again. */
  storeLost(why: string): void {
    if (this.storeDown) return;
    this.storeDown = true;
    this.settings.telemetry?.event({ type: 'store.unavailable', message: why });
  }

  /** Ends every session (responses still open end with a retry hint, JSON answers owed get 503). */
  async close(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.all()].map((t) => t.close('shutdown')));
    if (this.sweepTimer !== undefined) {
      this.settings.clock.clearTimeout(this.sweepTimer);
      this.sweepTimer = undefined;
    }
  }

  /** Shutting down: no replica is loaded from now on. */
  stopLoading(): void {
    this.stopping = true;
  }

  private allowed(
    exchange: HTTPExchange,
    transport: StreamableServerTransport | undefined,
  ): StreamableServerTransport | undefined {
    // Another principal's session answers exactly like a missing one: its existence is not revealed.
    if (transport === undefined || transport.isClosed || transport.principal !== exchange.principal) {
      reject(
        exchange,
        404,
        'Not Found: the session does not exist or has ended; start a new session with an initialize request sent without Mcp-Session-Id',
        this.settings,
      );
      return undefined;
    }
    return transport;
  }

  /** A replica here of a shared session, loaded once however many requests ask for it at the same time. */
  private replicate(sessionId: string, principal: unknown): Promise<StreamableServerTransport | undefined> {
    let pending = this.loading.get(sessionId);
    if (pending === undefined) {
      const { maxSessions } = this.settings;
      if (this.table.size >= maxSessions && !this.table.makeRoom()) {
        const message = `Service Unavailable: this process holds its maximum of ${maxSessions} sessions, each with a request in flight or a stream open; retry later`;
        return Promise.reject(new HTTPRejectionError(503, message));
      }
      pending = this.loadReplica(sessionId, principal).finally(() => this.loading.delete(sessionId));
      this.loading.set(sessionId, pending);
    }
    return pending;
  }

  private async loadReplica(
    sessionId: string,
    principal: unknown,
  ): Promise<StreamableServerTransport | undefined> {
    const directory = this.settings.directory!;
    const shared = await directory.load(sessionId);
    // Another principal's request makes no replica (it gets the 404 of a missing session).
    if (shared === undefined || this.stopping) return undefined;
    if (principal !== ANY_PRINCIPAL && shared.principal !== principal) return undefined;
    const transport = new StreamableServerTransport(this, sessionId, shared.principal, shared.streamPrefix);
    transport.session = this.settings.server.connect(transport.conn, {
      preinitialized: {
        protocolVersion: shared.protocolVersion,
        clientCapabilities: shared.clientCapabilities,
        clientInfo: shared.clientInfo,
      },
    });
    this.table.add(transport);
    directory.adopt(transport, shared);
    // The session may have ended elsewhere while it loaded.
    if (transport.isClosed) return undefined;
    this.watchIdle();
    return transport;
  }

  /** Keeps the sweep running while sessions are held (when sessions have an idle or initialize timeout). */
  private watchIdle(): void {
    if (this.sweepTimer !== undefined) return;
    const { idleTimeoutMs, initializeTimeoutMs } = this.settings;
    let every = IDLE_SWEEP_MS;
    if (idleTimeoutMs > 0) every = Math.min(every, idleTimeoutMs);
    if (initializeTimeoutMs > 0) every = Math.min(every, initializeTimeoutMs);
    else if (idleTimeoutMs <= 0) return;
    this.sweepTimer = this.settings.clock.setTimeout(this.sweep, every);
  }

  private readonly sweep = (): void => {
    this.sweepTimer = undefined;
    const now = this.settings.clock.now();
    const { idleTimeoutMs, initializeTimeoutMs } = this.settings;
    if (initializeTimeoutMs > 0) this.table.expireUnfinished(now, initializeTimeoutMs);
    // A session that closes leaves the table at once or later; either is safe while iterating it.
    if (idleTimeoutMs > 0) for (const transport of this.table.values()) transport.closeIfIdle(now);
    if (this.table.size > 0) this.watchIdle();
  };
}
