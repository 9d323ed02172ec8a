import { randomBytes } from 'node:crypto';
import { connectRedis, isRedisAddress } from '../eventstore/redis-address.js';
import type { RedisClient } from '../eventstore/redis-client.js';
import { RedisEventStore } from '../eventstore/redis-event-store.js';
import { serialize } from '../jsonrpc/serialize.js';
import { Method } from '../protocol/types.js';
import type { LegacySettings } from '../server/http/legacy/legacy-settings.js';
import type { SessionDirectory, SharedSession } from '../server/http/legacy/session-directory.js';
import type { StreamableServerTransport } from '../server/http/legacy/session-transport.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import type { SharedSessions } from '../server/shared-sessions.js';
import { type Clock, systemClock } from '../util/clock.js';
import { type AckHost, ChangeAcks } from './change-acks.js';
import { type Channels, openChannels } from './channels.js';
import { type BusMessage, type ClusterMessage, parseClusterMessage } from './cluster-messages.js';
import { DirectMessages } from './direct-messages.js';
import { ClusterEvents } from './event-bus.js';
import { HeldLeases } from './held-leases.js';
import { RedisListenLeases } from './listen-leases.js';
import { Liveness } from './liveness.js';
import { Reachability } from './reachability.js';
import { RedisClaims } from './redis-claims.js';
import {
  DEFAULT_LIVENESS_MS,
  DEFAULT_READY_TIMEOUT_MS,
  type RedisClusterOptions,
  sessionTtlMs,
} from './redis-cluster-options.js';
import { Replica, type ReplicaHost } from './replica.js';
import { RedisRequestCounts } from './request-counts.js';
import { SharedRequestStateKeys } from './request-state-keys.js';
import { type Changed, type SessionRecord, SessionStore, sessionHash } from './session-store.js';
import { SharedStream } from './shared-stream.js';

/** A SessionRecord's parts a load hands to `adopt`, with what was heard about the session while it loaded. */
interface Loaded extends SessionRecord {
  readonly heard: ClusterMessage[];
}

/**
 * Lets several processes, on any number of hosts, serve the same stateful Streamable HTTP sessions through one
 * Redis, with no sticky sessions: `new StreamableHTTPHandler(server, { cluster: new RedisCluster({ redis }) })`
 * in each (with the same `Server` definition), and any request of any session may reach any of them.
 *
 * What is shared (see README.md in this folder): each session's record (version, client info and capabilities,
 * principal, log level, subscriptions, and which process holds each stream's response), whose TTL is the idle
 * timeout, refreshed by activity; every stream's events, in a RedisEventStore; and messages between processes over
 * Redis pub/sub: state changes, announcements of who holds a stream, notices of new events for the holder, the
 * client's answers to server-to-client requests (routed to the process that waits), cancellations, and the end of
 * a session. A process that does not hold a session loads it and serves it as a replica.
 *
 * When Redis is down, every request gets a 503 saying so (`unavailable`), nothing crashes, and the cluster works
 * again as soon as Redis is back: its connections reconnect on their own, and each replica then re-reads its record
 * and checks its streams against the store, for what was missed.
 */
export class RedisCluster implements SessionDirectory, ReplicaHost, AckHost, SharedSessions {
  readonly nodeId: string;
  readonly eventStore: RedisEventStore;
  readonly records: SessionStore;
  readonly keyPrefix: string;
  /** Listen streams per principal, counted over the cluster; leases of `3 × livenessMs`. */
  readonly listenLeases: RedisListenLeases;
  readonly requestCounts: RedisRequestCounts;
  readonly claims: RedisClaims;
  /** The leases of listen streams and of requests in flight this process holds, renewed while held. */
  private readonly leases: HeldLeases;
  /** With the `requestStateKeys` option: the keys the processes share. */
  readonly requestStateKeys: SharedRequestStateKeys | undefined;
  /** Set by `bind`: the handler's idle timeout (see there). */
  ttlMs = 0;
  touchEveryMs = 0;
  clock: Clock = systemClock;
  private readonly client: RedisClient;
  /** The bus and this process's inbox. */
  private readonly channels: Channels;
  private readonly ownsClient: boolean;
  /** Replicas in this process, by session hash. */
  private readonly replicas = new Map<string, Replica>();
  /** The replicas by session, as the Server asks (`has`, `tellsListChanges`). */
  private readonly sessions = new WeakMap<ServerSession, Replica>();
  /** Sessions being loaded, by hash: what is heard about them meanwhile, applied once adopted. */
  private readonly loading = new Map<string, ClusterMessage[]>();
  private host: LegacySettings | undefined;
  /** The Server's events, to and from the other processes (from `bind`). */
  private events: ClusterEvents | undefined;
  /** Whether Redis can be reached, and when to look again at what an outage hid. */
  private readonly reach: Reachability;
  private timer: unknown;
  private closed = false;
  readonly livenessMs: number;
  private readonly liveness: Liveness;
  /** Changes of state made here, waiting for the other processes that hold their session. */
  private readonly acks: ChangeAcks;
  /** Messages to this process for the layers above the cluster, by topic (`tell` sends them). */
  readonly direct = new DirectMessages((err) => this.report(err));

  constructor(options: RedisClusterOptions) {
    this.keyPrefix = options.keyPrefix ?? 'mcpwire';
    this.nodeId = randomBytes(8).toString('base64url');
    this.ownsClient = isRedisAddress(options.redis);
    this.client = isRedisAddress(options.redis) ? connectRedis(options.redis) : options.redis;
    this.livenessMs = options.livenessMs ?? DEFAULT_LIVENESS_MS;
    if (!Number.isSafeInteger(this.livenessMs) || this.livenessMs < 3) {
      throw new RangeError(`livenessMs must be an integer of at least 3, got ${options.livenessMs}`);
    }
    this.liveness = new Liveness(
      this.client,
      this.keyPrefix,
      this.nodeId,
      this.livenessMs,
      () => this.unavailable() === undefined,
    );
    this.requestStateKeys =
      options.requestStateKeys &&
      new SharedRequestStateKeys(this.client, this.keyPrefix, options.requestStateKeys);
    this.leases = new HeldLeases(this.client, 3 * this.livenessMs, this.report);
    this.requestCounts = new RedisRequestCounts(this.client, this.keyPrefix, this.nodeId, this.leases);
    this.claims = new RedisClaims(this.client, this.keyPrefix, this.nodeId);
    this.listenLeases = new RedisListenLeases(this.client, this.keyPrefix, this.nodeId, this.leases);
    this.records = new SessionStore(this.client, this.keyPrefix, `${this.keyPrefix}:bus`, this.nodeId);
    this.acks = new ChangeAcks(this);
    this.eventStore = new RedisEventStore({
      ...options.eventStore,
      redis: this.client,
      keyPrefix: `${this.keyPrefix}:events`,
      roundTrip: (operation, run) => this.roundTrip(operation, run),
    });
    this.reach = new Reachability(this.client, {
      get listening() {
        return channels.listening;
      },
      // Back at once: others that follow this process's streams must not take it for dead.
      back: () => this.liveness.announce(),
      resync: () => this.resync(),
    });
    const channels = openChannels(this.client, this.keyPrefix, this.nodeId, {
      message: this.onMessage,
      listening: this.reach.listening,
      failedOver: this.reach.failedOver,
      report: this.report,
    });
    this.channels = channels;
  }

  /** Grows each time Redis came back or a shard failed over (see Reachability). */
  get epoch(): number {
    return this.reach.epoch;
  }

  /**
   * Resolves once both connections to Redis are up and this process listens to the others (until then every
   * request gets a 503); rejects with StoreUnavailableError after `timeoutMs` (the cluster keeps trying).
   */
  whenReady(timeoutMs = DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    return this.reach.whenReady(timeoutMs);
  }

  /**
   * Stops: ends the connections the cluster opened (a client it was given stays open). Close the handler first:
   * its sessions go on in the other processes. What Redis holds stays.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.acks.close();
    await this.liveness.stop();
    this.channels.close();
    this.events?.close();
    this.requestStateKeys?.stop();
    this.leases.stop();
    const server = this.host?.server;
    if (server?.shared === this) server.shared = undefined;
    if (!this.ownsClient) return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  // ---- SessionDirectory ----

  stream(...args: ConstructorParameters<typeof SharedStream>): SharedStream {
    return new SharedStream(...args);
  }

  bind(host: LegacySettings): void {
    if (this.host !== undefined) throw new Error('A RedisCluster serves one StreamableHTTPHandler');
    if (host.server.shared !== undefined) {
      throw new Error(
        'The Server already shares its sessions through another cluster: give each handler its own Server',
      );
    }
    this.host = host;
    host.server.shared = this;
    this.events = new ClusterEvents(host.server, this.nodeId, (m) => this.broadcast(m));
    this.requestStateKeys?.attach(host.server.requestStates);
    this.requestStateKeys?.start(host.clock, this.report);
    this.leases.start(host.clock);
    this.clock = host.clock;
    this.ttlMs = sessionTtlMs(host.idleTimeoutMs, this.eventStore.ttlSeconds);
    this.touchEveryMs = Math.max(1, Math.floor(this.ttlMs / 10));
    this.timer = this.clock.setTimeout(this.sweep, this.touchEveryMs);
    this.liveness.start(this.clock);
  }

  unavailable(): string | undefined {
    return this.reach.unavailable();
  }

  async register(transport: StreamableServerTransport): Promise<void> {
    const session = transport.session;
    const shared: SharedSession = {
      protocolVersion: session.protocolVersion!,
      clientInfo: session.clientInfo,
      clientCapabilities: session.clientCapabilities,
      principal: transport.principal,
      streamPrefix: transport.conn.streamPrefix,
    };
    const hash = sessionHash(transport.sessionId!);
    await this.roundTrip('session.register', () =>
      this.records.create(hash, shared, this.ttlMs, this.clock.now()),
    );
    const replica = new Replica(this, transport, hash, {
      streamPrefix: shared.streamPrefix,
      state: { n: 0, logLevel: undefined, subscriptions: [] },
      holders: new Map(),
    });
    if (transport.isClosed) return;
    this.replicas.set(hash, replica);
    this.sessions.set(session, replica);
    transport.replica = replica;
  }

  async load(sessionId: string): Promise<SharedSession | undefined> {
    const hash = sessionHash(sessionId);
    const heard: ClusterMessage[] = [];
    this.loading.set(hash, heard);
    let record: SessionRecord | undefined;
    try {
      record = await this.roundTrip('session.load', () => this.records.load(hash));
    } finally {
      if (this.loading.get(hash) === heard) this.loading.delete(hash);
    }
    if (record === undefined) return undefined;
    const loaded: Loaded = { ...record, heard };
    return loaded;
  }

  adopt(transport: StreamableServerTransport, shared: SharedSession): void {
    const loaded = shared as Loaded;
    const hash = sessionHash(transport.sessionId!);
    const replica = new Replica(this, transport, hash, loaded);
    this.replicas.set(hash, replica);
    this.sessions.set(transport.session, replica);
    transport.replica = replica;
    for (const m of loaded.heard) replica.receive(m);
  }

  async remove(transport: StreamableServerTransport): Promise<void> {
    await this.roundTrip('session.remove', async () => {
      await this.records.remove(sessionHash(transport.sessionId!));
      await this.eventStore.sessionClosed(transport.sessionId!);
    });
  }

  // ---- SharedSessions ----

  /**
   * `notifications/resources/updated` for `uri`, once to each session of the cluster subscribed to it, whichever
   * process serves it (see SessionStore.notifySubscribers); failures go to `onerror`.
   */
  resourceUpdated(uri: string): void {
    const data = serialize({ jsonrpc: '2.0', method: Method.ResourceUpdated, params: { uri } });
    this.records
      .notifySubscribers(uri, data, this.eventStore, (holder, append) =>
        this.sendTo(holder, { k: 'append', ...append }),
      )
      .catch(this.report);
  }

  has(session: ServerSession): boolean {
    return this.sessions.has(session);
  }

  tellsListChanges(session: ServerSession): boolean {
    return this.sessions.get(session)?.lastHeldStandalone ?? false;
  }

  // ---- ReplicaHost ----

  readonly report = (err: unknown): void => {
    this.host?.report(err);
  };

  sendTo(node: string, m: BusMessage): Promise<boolean> {
    const text = JSON.stringify(m);
    return this.roundTrip(`relay.${m.k}`, () => this.channels.sendTo(node, text));
  }

  /** Sends `body` to process `node` on `topic` (see `direct`); resolves false when that process is not listening. */
  tell(node: string, topic: string, body: unknown): Promise<boolean> {
    return this.sendTo(node, { k: 'direct', t: topic, b: body });
  }

  roundTrip<T>(operation: string, run: () => Promise<T>): Promise<T> {
    const telemetry = this.host?.server.telemetry;
    return telemetry === undefined ? run() : telemetry.roundTrip(operation, run);
  }

  broadcast(m: BusMessage): void {
    this.channels.broadcast(JSON.stringify(m)).catch(this.report);
  }

  forget(replica: Replica): void {
    if (this.replicas.get(replica.hash) !== replica) return;
    this.replicas.delete(replica.hash);
    // Changes stop waiting for this process (if this fails, it acknowledges them anyway: it holds no replica).
    this.records.unregister(replica.hash).catch(() => {});
  }

  follow(stream: SharedStream, writer: string): void {
    this.liveness.follow(stream, writer);
  }

  acknowledged(hash: string, changed: Changed): Promise<void> {
    return this.roundTrip('state.ack', () => this.acks.wait(hash, changed));
  }

  // ---- AckHost ----

  living(nodes: readonly string[]): Promise<boolean[]> {
    return this.liveness.living(nodes);
  }

  // ---- internals ----

  private readonly onMessage = (text: string): void => {
    const m = parseClusterMessage(text);
    if (m === undefined) {
      this.report(
        new Error(`Ignored a message between cluster processes that is not one: ${text.slice(0, 200)}`),
      );
      return;
    }
    if (m.k === 'event') {
      this.events?.receive(m);
      return;
    }
    if (m.k === 'ack') {
      this.acks.heard(m);
      return;
    }
    if (m.k === 'direct') {
      this.direct.receive(m);
      return;
    }
    const replica = this.replicas.get(m.s);
    const heard = replica === undefined ? this.loading.get(m.s) : undefined;
    if (replica !== undefined) replica.receive(m);
    else if (heard !== undefined) heard.push(m);
    else if (m.k === 'forward' || m.k === 'invalid') {
      this.report(
        new Error(
          'Dropped a message the client sent for a request of this process: the session is no longer held here, ' +
            'so nothing waits for it',
        ),
      );
    }
    // Applied, or queued for the replica being loaded (applied before it serves), or none here: the next load reads it.
    if (m.k === 'state' && m.a !== undefined) this.acks.acknowledge(m);
  };

  /**
   * Redis is back after an outage (or a shard failed over): every replica re-reads its record and checks its
   * streams, so what the outage hid is seen (a replica whose record fails to load here finds out at its next
   * request).
   */
  private resync(): void {
    for (const replica of this.replicas.values()) {
      this.records.load(replica.hash).then(
        (record) => replica.resync(record),
        (err) => this.report(err),
      );
    }
  }

  /** Keeps the records of busy replicas alive (a long request, an open GET stream): activity is not only requests. */
  private readonly sweep = (): void => {
    if (this.closed) return;
    for (const replica of this.replicas.values()) if (replica.transport.busy) replica.refresh();
    this.timer = this.clock.setTimeout(this.sweep, this.touchEveryMs);
  };
}
