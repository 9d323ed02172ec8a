import type { EventStore } from '../../../eventstore/event-store.js';
import type { HTTPExchange } from '../../../http/exchange.js';
import type { JsonErrorOptions } from '../../../http/json-error.js';
import { PostInfo } from '../../../http/post-info.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import type { Parsed } from '../../../jsonrpc/parse.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../../jsonrpc/types.js';
import { Method } from '../../../protocol/types.js';
import type { Linked } from '../../../util/chain.js';
import type { ServerSession } from '../../legacy/server-session.js';
import { reject } from '../reject.js';
import { unaskedMessage, unaskedResponse } from '../unasked-response.js';
import type { LegacySettings } from './legacy-settings.js';
import { checkPost } from './post-checks.js';
import { type ConnOwner, StreamableServerConn } from './session-conn.js';
import type { SessionReplica } from './session-directory.js';
import { ACTIVITY_ORDER_STEP_MS } from './session-table.js';
import { resumeStream } from './stream-resumption.js';

/** The first protocol version whose SSE streams start with a priming event (SEP-1699). */
const PRIMING_VERSION = '2025-11-25';

/**
 * Why a session ends; it decides how responses still open are ended. `gone`: its shared record vanished (it
 * expired, or the shared store lost it). `unfinished`: its client sent nothing after initialize in time.
 * `evicted`: it was idle and made room for a new session at the cap (see `SessionTable`).
 */
export type SessionEndReason =
  | 'deleted'
  | 'idle'
  | 'shutdown'
  | 'server'
  | 'rejected'
  | 'gone'
  | 'unfinished'
  | 'evicted';

/** Requests whose success changes what a shared session's record holds. */
const STATE_METHODS: ReadonlySet<string> = new Set([
  Method.LoggingSetLevel,
  Method.ResourcesSubscribe,
  Method.ResourcesUnsubscribe,
]);

/** What every session transport of one handler shares: its settings and its bookkeeping. */
export interface TransportHost {
  /** What every session of the endpoint shares. */
  readonly settings: LegacySettings;
  /** The session closed, for whatever reason: forget it. */
  sessionEnded(transport: StreamableServerTransport): void;
  /** The session was active (told at most once per `ACTIVITY_ORDER_STEP_MS`): it is the last to evict. */
  sessionActive(transport: StreamableServerTransport): void;
}

/** The parsed body of a POST that passed the checks: one message or a batch. */
export type PostBody = Exclude<Parsed, { kind: 'invalid' }>;

const ACCEPTED_HEADERS: Readonly<Record<string, string>> = {};

/**
 * One session of the Streamable HTTP endpoint: it serves the
 * session's POSTs and GETs, owns its connection (which routes messages to streams), counts its
 * requests in flight, and ends the session when it has been idle too long. In stateless mode one is made
 * for each POST, with no session id, and closes itself once the POST is answered.
 *
 * Per session it keeps only what differs per session: ids, principal, counters, the time of its last
 * activity (the host's sweep reads it: no timer per session), and the connection's streams; settings are
 * read from the shared host.
 *
 * With a `SessionDirectory` the transport is this process's replica of a session every process can serve: it
 * tells the directory (`replica`) what the others must know, forwards what the client sends for requests
 * another process waits for, and its idle timeout only drops the replica here.
 */
export class StreamableServerTransport implements ConnOwner, Linked<StreamableServerTransport> {
  readonly settings: LegacySettings;
  readonly conn: StreamableServerConn;
  /** Set by the handler right after `Server.connect`. */
  session!: ServerSession;
  /** The principal handlers see in `ctx.transport.principal`, when the session's principal is a name. */
  readonly principalName: string | undefined;
  /** Several processes serve the session (the host has a directory). */
  readonly shared: boolean;
  /** Set by the directory once the session is shared (registered or adopted). */
  replica: SessionReplica | undefined;
  /** True from an answered initialize until the client's next POST (`notifications/initialized`, normally). */
  initializing = false;
  private readonly idHeaders: Readonly<Record<string, string>> | undefined;
  private inFlight = 0;
  private lastActive: number;
  /** When the host last heard that the session was active (`sessionActive`). */
  private reportedActive: number;
  private endReason: SessionEndReason = 'server';
  /** When this process began serving the session (its clock's ms). */
  readonly openedAt: number;
  /** The address of its anonymous client, as the session cap tells callers apart (see SessionTable). */
  address: string | undefined = undefined;
  private ended = false;
  /** Stateless mode: the links of the handler's chain of POSTs being answered (`Chain`). */
  chainPrevious: StreamableServerTransport | undefined = undefined;
  chainNext: StreamableServerTransport | undefined = undefined;

  constructor(
    private readonly host: TransportHost,
    /** Undefined in stateless mode. */
    readonly sessionId: string | undefined,
    /** Whoever created the session (`exchange.principal`); every later request must come from the same. */
    readonly principal: unknown,
    streamPrefix: string,
  ) {
    this.settings = host.settings;
    const directory = host.settings.directory;
    this.shared = directory !== undefined && sessionId !== undefined;
    // POST streams of a shared session are named by process too: each process numbers its own.
    this.conn = new StreamableServerConn(
      this,
      streamPrefix,
      this.shared ? `${streamPrefix}${directory!.nodeId}.` : streamPrefix,
    );
    this.principalName = typeof principal === 'string' ? principal : undefined;
    this.idHeaders = sessionId === undefined ? undefined : { 'mcp-session-id': sessionId };
    this.lastActive = host.settings.clock.now();
    this.reportedActive = this.lastActive;
    this.openedAt = this.lastActive;
  }

  /**
   * Serves one POST whose body passed the handler's checks. Requests get their own stream (SSE, or one
   * JSON body); notifications and responses alone get 202. For the initialize POST (`init`), the
   * session id header is sent only if initialize succeeded; returns false when it did not (the handler
   * then drops the session), true otherwise.
   */
  servePost(exchange: HTTPExchange, body: PostBody, init: boolean): boolean {
    const conn = this.conn;
    const receiver = conn.receiver!;
    const requests = checkPost(body, this.session.protocolVersion, conn);
    if (typeof requests !== 'number') {
      this.refuse(exchange, 400, requests.refused, { code: ErrorCode.InvalidRequest, id: requests.id });
      return false;
    }
    const single = body.kind === 'message' ? body.message : undefined;
    let batch = body.kind === 'batch' ? body.messages : undefined;
    this.initializing = false;
    this.active();
    const replica = this.replica;
    if (replica !== undefined) replica.active();

    if (requests === 0) {
      const elsewhere = replica && ((m: JsonRpcMessage) => replica.elsewhere(m) !== undefined);
      const unasked = unaskedResponse(batch ?? [single!], receiver, elsewhere);
      if (unasked !== undefined) {
        this.refuse(exchange, 400, unaskedMessage(unasked), { code: ErrorCode.InvalidRequest });
        return false;
      }
      const info = new PostInfo(exchange, this.principalName);
      if (single !== undefined) {
        if (replica === undefined || !replica.forward(single)) {
          this.noteCancel(single);
          receiver.message(single, info);
        }
      } else {
        if (replica !== undefined) batch = batch!.filter((m) => !replica.forward(m));
        for (const m of batch!) this.noteCancel(m);
        if (batch!.length > 0) receiver.batch(batch!, info);
      }
      exchange.writeHead(202, ACCEPTED_HEADERS);
      exchange.end();
      if (this.sessionId === undefined) this.close('server');
      return true;
    }

    // initialize has nothing to stream: one JSON body answers it, and no event is kept for an idle session.
    const stream = conn.openRequestStream(exchange, batch !== undefined, init || this.settings.jsonResponse);
    stream.owed = requests;
    if (single !== undefined) {
      const id = (single as { id: RequestId }).id;
      stream.requestId = id;
      conn.expect(id, stream);
      if (this.shared) this.noteStateRequest(single as JsonRpcRequest);
    } else {
      if (replica !== undefined)
        batch = batch!.filter((m) => ('method' in m && 'id' in m) || !replica.forward(m));
      for (const m of batch!) {
        if ('method' in m && 'id' in m) {
          conn.expect(m.id, stream);
          if (this.shared) this.noteStateRequest(m);
        } else this.noteCancel(m);
      }
    }
    this.inFlight += requests;
    this.settings.inFlightChanged(requests);
    // A stream that can be resumed is its requests' info (it offers `closeStream`); others get one without.
    const info =
      stream.jsonMode || this.store === undefined ? new PostInfo(exchange, this.principalName) : stream;
    if (single !== undefined) receiver.message(single, info);
    else receiver.batch(batch!, info);
    // ServerSession answers initialize synchronously, so its outcome is known here.
    const ok = !init || this.session.protocolVersion !== undefined;
    if (init && ok && this.shared) {
      // The client may send its next request to any process: the session is shared before it learns its id.
      this.settings.directory!.register(this).then(
        () => stream.begin(exchange, this.idHeaders),
        (err) => {
          this.settings.report(err);
          this.refuse(
            exchange,
            503,
            `Service Unavailable: the new session could not be shared with the other server processes: ${
              (err as Error)?.message ?? String(err)
            }`,
            { id: (single as { id: RequestId }).id },
          );
          this.close('rejected').catch(this.settings.report);
        },
      );
      return ok;
    }
    stream.begin(exchange, init && ok ? this.idHeaders : undefined);
    return ok;
  }

  /**
   * Delivers a message the directory brought from another process (a response to a request waiting here, or a
   * cancellation of a request running here), as if the client had POSTed it here.
   */
  deliver(message: JsonRpcMessage): void {
    if (this.ended) return;
    if ('method' in message && message.method === Method.Cancelled) {
      // Every replica hears a cancellation: the one running the request acts on it.
      const id = message.params?.requestId;
      if ((typeof id !== 'string' && typeof id !== 'number') || !this.conn.cancelled(id)) return;
    }
    this.conn.receiver!.message(message, undefined);
  }

  /** True while a request runs here or a response here carries a stream: the session must not expire. */
  get busy(): boolean {
    if (this.inFlight > 0) return true;
    for (const stream of this.conn.streams()) if (stream.held) return true;
    return false;
  }

  /**
   * Serves a GET: opens (or takes over) the standalone stream, or, with `Last-Event-ID`, replays the
   * events of that stream after the given one and continues it if it is still live, or ends the response
   * if it finished.
   */
  serveGet(exchange: HTTPExchange): void | Promise<void> {
    this.active();
    this.replica?.active();
    const lastEventId = exchange.header('last-event-id');
    if (lastEventId === undefined) {
      this.conn.openStandalone().attach(exchange);
      return;
    }
    return resumeStream(this, exchange, lastEventId);
  }

  /** Ends the session: responses still open are ended, the event store hears `sessionClosed`. */
  close(reason: SessionEndReason): Promise<void> {
    if (!this.ended) this.endReason = reason;
    return this.session.close();
  }

  /**
   * Ends the session when nothing happened in it for the host's idle timeout (at `now`) and nothing holds it
   * open: no request in flight, no GET stream. Called by the host's periodic sweep.
   */
  closeIfIdle(now: number): void {
    if (this.ended || now - this.lastActive < this.settings.idleTimeoutMs || this.busy) return;
    this.close('idle').catch((err) => this.settings.report(err));
  }

  get isClosed(): boolean {
    return this.ended;
  }

  /** Why the session ended (or will, once closing). */
  get closedBecause(): SessionEndReason {
    return this.endReason;
  }

  // ---- ConnOwner ----

  get store(): EventStore | undefined {
    return this.sessionId === undefined ? undefined : this.settings.store;
  }

  get stateless(): boolean {
    return this.sessionId === undefined;
  }

  get primes(): boolean {
    const version = this.session.protocolVersion;
    return version !== undefined && version >= PRIMING_VERSION && this.store !== undefined;
  }

  requestEnded(): void {
    this.inFlight--;
    this.settings.inFlightChanged(-1);
    this.active();
    if (this.inFlight === 0 && this.sessionId === undefined) this.close('server');
  }

  getReleased(): void {
    this.active();
  }

  closing(): { status: number; message: string; retry: boolean } {
    switch (this.endReason) {
      case 'shutdown':
        return {
          status: 503,
          message:
            'Service Unavailable: the server shut down before the request completed; send it again to another instance or later',
          retry: true,
        };
      case 'idle':
        return {
          status: 404,
          message: `Session ended: it was idle for longer than ${this.settings.idleTimeoutMs} ms; start a new session with initialize`,
          retry: false,
        };
      case 'deleted':
        return {
          status: 404,
          message: 'Session ended: the client deleted it before the request completed',
          retry: false,
        };
      case 'unfinished':
        return {
          status: 404,
          message: `Session ended: its client sent nothing (not even notifications/initialized) within ${this.settings.initializeTimeoutMs} ms of initialize; start a new session with initialize`,
          retry: false,
        };
      case 'evicted':
        return {
          status: 404,
          message:
            'Session ended: the server holds its maximum of sessions and this idle one made room for a new one; start a new session with initialize',
          retry: false,
        };
      case 'gone':
        return {
          status: 404,
          message:
            'Session ended: its shared record expired or was lost before the request completed; start a new session',
          retry: false,
        };
      default:
        return {
          status: 404,
          message: 'Session ended: the server closed it before the request completed; start a new session',
          retry: false,
        };
    }
  }

  connClosed(): void {
    this.ended = true;
    if (this.inFlight > 0) {
      this.settings.inFlightChanged(-this.inFlight);
      this.inFlight = 0;
    }
    this.host.sessionEnded(this);
    this.replica?.closed();
  }

  // ---- internals ----

  private active(): void {
    const now = this.settings.clock.now();
    this.lastActive = now;
    // Stateless transports are in no table; a session moves in it once per step (see ACTIVITY_ORDER_STEP_MS).
    if (now - this.reportedActive >= ACTIVITY_ORDER_STEP_MS && this.sessionId !== undefined) {
      this.reportedActive = now;
      this.host.sessionActive(this);
    }
  }

  private refuse(exchange: HTTPExchange, status: number, message: string, options?: JsonErrorOptions): void {
    reject(exchange, status, message, this.settings, options);
  }

  /**
   * A cancellation from the client: the stream that owes the cancelled request stops waiting for it; in a shared
   * session, a request that does not run here runs elsewhere, and that process must hear of it.
   */
  private noteCancel(m: JsonRpcMessage): void {
    if ('method' in m && m.method === Method.Cancelled && !('id' in m)) {
      const id = m.params?.requestId;
      if ((typeof id === 'string' || typeof id === 'number') && !this.conn.cancelled(id)) {
        this.replica?.cancel(m);
      }
    }
  }

  /** Shared sessions: a request whose answer must wait until its change of state is shared. */
  private noteStateRequest(request: JsonRpcRequest): void {
    if (!STATE_METHODS.has(request.method)) return;
    this.conn.stateRequests ??= new Map();
    this.conn.stateRequests.set(request.id, request);
  }
}
