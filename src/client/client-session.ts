import type { Connection } from '../peer/connection.js';
import { JsonRpcPeer } from '../peer/jsonrpc-peer.js';
import type { RequestOptions } from '../peer/peer-options.js';
import { HandlerContext, type RequestContext } from '../peer/request-context.js';
import type { SubscriptionFilter } from '../protocol/modern-types.js';
import { type Implementation, Method, type Root, type ServerCapabilities } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { Client, ClientConnectOptions } from './client.js';
import { Events, type Listener } from './events.js';
import { roundContext } from './input-rounds.js';
import type { Listen } from './listen.js';
import { chooseEra } from './negotiation/choose-era.js';
import { OpenListens } from './open-listens.js';
import { checkRoots } from './roots.js';
import { ServerCalls } from './server-calls.js';
import type { EraVerdict, EraWire, SessionEra } from './session-era.js';
import { type ClientSessionEvents, SessionNotifications } from './session-events.js';
import { eraWire, type SessionParts, taskSession } from './session-wiring.js';
import type { TaskSession } from './task-call.js';
import { ClientTasks } from './tasks.js';
import { ToolCatalog } from './tool-catalog.js';

/** What a client handler (sampling, elicitation) gets besides its params: signal, progress, the session. */
export type ClientContext = RequestContext<ClientSession>;

const noop = () => {};

/**
 * One connection to an MCP server, made by `Client.connect` (or `connectUrl`), in whichever era
 * negotiation found: a legacy session (initialize) or modern requests (2026-07-28). Holds what differs
 * per server: its info, capabilities, instructions, the version spoken, this client's current roots and
 * what `tools/list` told of the tools.
 *
 * Promise: the API is the same in both eras. Every request method first checks that the server declared
 * the capability it needs and rejects with CapabilityError, sending nothing, when it did not (`ping` is
 * always allowed). All take RequestOptions (signal, timeout, onprogress, maxTotalTimeoutMs). What the
 * server asks of the client (roots, sampling, elicitation) is answered with the Client's handlers, as
 * server requests (legacy) or `input_required` rounds (modern); server notifications become events
 * (`on`), and `listen` streams them in both eras.
 */
export class ClientSession extends ServerCalls {
  /** Called once when the connection closes, with what closed it, if known. */
  onclose: ((cause?: Error) => void) | undefined;
  /** Receives every failure that has no caller to reject (the Client's `onerror` unless set here). */
  onerror: ((err: Error) => void) | undefined;
  /** The JSON-RPC peer this session speaks through; what the server sends is answered by this session. */
  private readonly peer: JsonRpcPeer;
  private current: SessionEra | undefined;
  private verdictFound: EraVerdict | undefined;
  private roots: Root[];
  private readonly events = new Events<ClientSessionEvents>((err) => this.report(err));
  private readonly notifications = new SessionNotifications(this.events, () => this.catalog.forget());
  protected readonly catalog = new ToolCatalog(
    (options) => this.tools(options),
    (err) => this.report(err),
  );
  /** What its era and its tasks reach of this session. */
  private readonly parts: SessionParts;
  private readonly listens = new OpenListens();
  private readonly wire: EraWire;
  /** Tool calls as tasks, followed by hand: start, get, update, cancel, resume (and list, legacy). */
  readonly tasks: ClientTasks;
  protected readonly taskSession: TaskSession;

  /** @internal Made by Client.connect, which runs `handshake` before handing it out. */
  constructor(
    connection: Connection,
    private readonly client: Client,
  ) {
    super();
    this.peer = new JsonRpcPeer(
      connection,
      {
        get telemetry(): Telemetry | undefined {
          return client.telemetry;
        },
        context: (request, running, info) => new HandlerContext(this.peer, this, request, running, info),
        answer: (request, ctx) => this.wire.answer(request.method, request.params, ctx as ClientContext),
        notified: (notification) => this.notifications.route(notification),
        // A modern server ends a listen on stdio with `notifications/cancelled` naming it.
        cancelled: (id) => this.notifications.cancelled(id),
        reinitialize: () => this.reinitialize(),
      },
      client.options,
    );
    this.onerror = client.options.onerror;
    this.peer.onerror = (err) => this.onerror?.(err);
    this.peer.onclose = (cause) => {
      this.listens.lost(cause);
      this.taskSession.end();
      this.onclose?.(cause);
    };
    const roots = client.options.roots;
    this.roots = Array.isArray(roots) ? roots.slice() : [];
    this.parts = {
      peer: this.peer,
      client,
      catalog: this.catalog,
      roots: typeof roots === 'function' ? roots : () => this.roots,
      spoken: () => this.spoken(),
      capabilities: () => this.serverCapabilities,
      inputContext: (key, method, signal) => roundContext(this.peer, this, key, method, signal),
      onProgress: (listener) => this.on('progress', listener),
      requireTools: () => this.require('tools', Method.ToolsCall),
    };
    this.wire = eraWire(this.parts);
    this.taskSession = taskSession(this.parts, this.wire);
    this.tasks = new ClientTasks(this.taskSession);
  }

  /** The connection this session speaks over. */
  get connection(): Connection {
    return this.peer.connection;
  }

  /** The protocol version spoken, once the handshake is done. */
  get protocolVersion(): string | undefined {
    return this.peer.protocolVersion;
  }

  /** True once the connection has closed. */
  get isClosed(): boolean {
    return this.peer.isClosed;
  }

  /** Closes the connection; requests waiting reject with ConnectionClosedError, open listens end as closed. */
  close(): Promise<void> {
    this.listens.closing();
    return this.peer.close();
  }

  /** The era this session speaks: `'modern'` (2026-07-28 and later) or `'legacy'` (initialize). */
  get era(): Era {
    return this.spoken().name;
  }

  /** What negotiation found; give it as `prior` to a later connect to the same server to skip the probe. */
  get verdict(): EraVerdict {
    this.spoken();
    return this.verdictFound!;
  }

  /** @internal connectUrl names the legacy transport that reached the server, for the verdict it keeps. */
  recordTransport(transport: 'http' | 'sse'): void {
    if (this.verdictFound?.era === 'legacy') this.verdictFound = { ...this.verdictFound, transport };
  }

  /** The server's name, version and other details (from initialize, or from server/discover's `_meta`). */
  get serverInfo(): Implementation {
    return this.spoken().server.serverInfo;
  }

  /** What the server declared it offers. */
  get serverCapabilities(): ServerCapabilities {
    return this.spoken().server.capabilities;
  }

  /** The server's hints on how to use it, if it gave any. */
  get instructions(): string | undefined {
    return this.spoken().server.instructions;
  }

  /** This client's roots as the server sees them through roots/list (none when a function gives them). */
  get currentRoots(): readonly Root[] {
    return this.roots;
  }

  /**
   * @internal Client.connect's body: find the era (unless told), begin it. Closes the connection on any
   * failure.
   */
  async handshake(options: ClientConnectOptions): Promise<void> {
    this.peer.start();
    try {
      await this.begin(options);
    } catch (err) {
      await this.close().catch(noop);
      throw err;
    }
  }

  private async begin(options: ClientConnectOptions): Promise<void> {
    const { era, verdict } = await chooseEra(
      {
        wire: this.wire,
        client: this.client,
        clock: this.peer.clock,
        carried: this.peer.connection.era,
        listenRoutes: this.notifications.listenRoutes,
        onNotification: (listener) => this.on('notification', listener),
        inputContext: this.parts.inputContext,
      },
      options,
    );
    this.current = era;
    this.peer.protocolVersion = era.protocolVersion;
    this.verdictFound = verdict;
  }

  /**
   * The transport reached a fresh server session (see `Receiver.restarted`): begin it again, which
   * announces this client's capabilities and roots anew, and forget what the old one told us.
   */
  private async reinitialize(): Promise<void> {
    this.catalog.forget();
    await this.spoken().restart();
  }

  // ---- events ----

  /** Adds a listener for a server notification; returns the function that removes it. */
  on<K extends keyof ClientSessionEvents>(event: K, listener: Listener<ClientSessionEvents, K>): () => void {
    return this.events.on(event, listener);
  }

  /** Removes a listener added with `on`. */
  off<K extends keyof ClientSessionEvents>(event: K, listener: Listener<ClientSessionEvents, K>): void {
    this.events.off(event, listener);
  }

  /**
   * Streams the notifications `filter` asks for, in either era, and resolves once the server
   * acknowledged (modern: `subscriptions/listen`) or once the resources are subscribed (legacy: the
   * session's own stream carries the changes). `listen.honoured` is the part of the filter the server
   * can serve. A modern listen stream that drops is opened again with backoff, and the reader gets a
   * `resync` event: re-fetch what the filter covers. The events (`toolsChanged`, …) fire as well. The listen
   * ends with the session: closed after `close`, failed (ConnectionClosedError) when the connection closed.
   */
  listen(filter: SubscriptionFilter, options?: RequestOptions): Promise<Listen> {
    if (typeof filter !== 'object' || filter === null) {
      return Promise.reject(new TypeError('listen needs a filter, e.g. { toolsListChanged: true }'));
    }
    return this.spoken()
      .listen(filter, options)
      .then((listen) => this.listens.hold(listen));
  }

  // ---- roots ----

  /**
   * Replaces this session's roots; a legacy server is told (`notifications/roots/list_changed`) and reads
   * them with roots/list, a modern one gets them in the next round that asks. Throws when the Client did
   * not declare roots (no `roots` option), or gave them as a function (which `rootsChanged` goes with).
   */
  async setRoots(roots: Root[]): Promise<void> {
    if (typeof this.client.options.roots === 'function') {
      throw new Error(
        "setRoots: this Client's roots come from its `roots` function; call rootsChanged() instead",
      );
    }
    checkRoots(roots);
    this.roots = roots.slice();
    await this.rootsChanged();
  }

  /**
   * Tells the server this client's roots changed: a legacy server hears `notifications/roots/list_changed` (and
   * reads them again), a modern one gets the new ones in the next round that asks.
   */
  async rootsChanged(): Promise<void> {
    if (this.client.capabilities.roots === undefined) {
      throw new Error(
        'roots changed, but this Client declared none: give the Client a `roots` option (even [])',
      );
    }
    await this.spoken().rootsChanged();
  }

  // ---- helpers ----

  protected spoken(): SessionEra {
    if (this.current === undefined) throw new Error('The session has not completed its handshake yet');
    return this.current;
  }

  private report(err: unknown): void {
    this.peer.report(err);
  }
}
