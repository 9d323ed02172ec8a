import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createRedisClient } from '../eventstore/redis-client.js';
import { RedisEventStore, type RedisEventStoreOptions } from '../eventstore/redis-event-store.js';
import { StoreUnavailableError } from '../eventstore/store-unavailable-error.js';
import { type Clock, systemClock } from '../session/clock.js';
import type {
  DirectoryHost,
  SessionDirectory,
  SharedSession,
} from '../transport/streamable/session-directory.js';
import type { StreamableServerTransport } from '../transport/streamable/transport.js';
import { type ClusterMessage, parseClusterMessage } from './cluster-messages.js';
import { Replica, type ReplicaHost } from './replica.js';
import { redisFailure, type SessionRecord, SessionStore, sessionHash } from './session-store.js';

/** Default `timeoutMs` of `whenReady`. */
export const DEFAULT_READY_TIMEOUT_MS = 10_000;

export interface RedisClusterOptions {
  /**
   * A URL (`redis://host:port`), or a client to share, made by `createRedisClient` (fail fast, never re-send a
   * command): the cluster and its event store use it for commands, and a second connection of the same
   * settings for messages. `close()` ends the connections the cluster opened, never a client it was given.
   */
  redis: Redis | string;
  /** Start of every key and channel; processes that serve the same sessions use the same. Default 'mcpwire'. */
  keyPrefix?: string;
  /** Bounds of the event store the cluster makes (a RedisEventStore under `<keyPrefix>:events`). */
  eventStore?: Omit<RedisEventStoreOptions, 'redis' | 'keyPrefix'>;
}

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
export class RedisCluster implements SessionDirectory, ReplicaHost {
  readonly nodeId: string;
  readonly eventStore: RedisEventStore;
  readonly records: SessionStore;
  readonly keyPrefix: string;
  epoch = 0;
  /** Set by `bind`: the handler's idle timeout (see there). */
  ttlMs = 0;
  touchEveryMs = 0;
  clock: Clock = systemClock;
  private readonly client: Redis;
  private readonly subscriber: Redis;
  private readonly ownsClient: boolean;
  private readonly bus: string;
  private readonly inbox: string;
  /** Replicas in this process, by session hash. */
  private readonly replicas = new Map<string, Replica>();
  /** Sessions being loaded, by hash: what is heard about them meanwhile, applied once adopted. */
  private readonly loading = new Map<string, ClusterMessage[]>();
  private host: DirectoryHost | undefined;
  private subscribed = false;
  private subscribedOnce = false;
  /** A connection to Redis was lost since the last resync: messages may have been missed. */
  private missed = false;
  /** Callers of `whenReady` waiting. */
  private readonly waiters = new Set<() => void>();
  private timer: unknown;
  private closed = false;

  constructor(options: RedisClusterOptions) {
    this.keyPrefix = options.keyPrefix ?? 'mcpwire';
    this.nodeId = randomBytes(8).toString('base64url');
    this.ownsClient = typeof options.redis === 'string';
    this.client = typeof options.redis === 'string' ? createRedisClient(options.redis) : options.redis;
    // Subscriptions are made anew by `subscribe` at each connection, where a failure is handled.
    this.subscriber = this.client.duplicate({ autoResubscribe: false });
    this.subscriber.on('error', () => {});
    this.bus = `${this.keyPrefix}:bus`;
    this.inbox = `${this.keyPrefix}:node:${this.nodeId}`;
    this.records = new SessionStore(this.client, this.keyPrefix, this.bus);
    this.eventStore = new RedisEventStore({
      ...options.eventStore,
      redis: this.client,
      keyPrefix: `${this.keyPrefix}:events`,
    });
    this.subscriber.on('message', this.onMessage);
    this.subscriber.on('ready', this.subscribe);
    this.subscriber.on('close', () => {
      this.subscribed = false;
    });
    let connectedBefore = this.client.status === 'ready';
    this.client.on('ready', () => {
      this.epoch++;
      if (connectedBefore) this.missed = true;
      connectedBefore = true;
      this.resyncIfMissed();
    });
  }

  /**
   * Resolves once both connections to Redis are up and this process listens to the others (until then every
   * request gets a 503); rejects with StoreUnavailableError after `timeoutMs` (the cluster keeps trying).
   */
  whenReady(timeoutMs = DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    if (this.unavailable() === undefined) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const settle = (err?: Error) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        this.client.off('ready', check);
        if (err === undefined) resolve();
        else reject(err);
      };
      const check = () => {
        if (this.unavailable() === undefined) settle();
      };
      const timer = setTimeout(
        () => settle(new StoreUnavailableError(`Redis could not be reached within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.add(check);
      this.client.on('ready', check);
    });
  }

  /**
   * Stops: ends the connections the cluster opened (a client it was given stays open). Close the handler first:
   * its sessions go on in the other processes. What Redis holds stays.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.subscriber.disconnect();
    if (!this.ownsClient) return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }

  // ---- SessionDirectory ----

  bind(host: DirectoryHost): void {
    if (this.host !== undefined) throw new Error('A RedisCluster serves one StreamableHTTPHandler');
    this.host = host;
    this.clock = host.clock;
    // A session idle everywhere for this long ends. A handler whose sessions never time out still bounds what
    // abandoned ones leave in Redis: they live as long as their events do.
    const eventsTtlMs = this.eventStore.ttlSeconds * 1000;
    this.ttlMs = host.idleTimeoutMs > 0 ? host.idleTimeoutMs : eventsTtlMs;
    if (this.ttlMs > eventsTtlMs) {
      throw new Error(
        `The event store keeps a stream ${this.eventStore.ttlSeconds} s after its last event, less than an idle ` +
          `session lives (${this.ttlMs} ms): raise the cluster's eventStore.ttlSeconds, or lower sessionIdleTimeoutMs`,
      );
    }
    this.touchEveryMs = Math.max(1, Math.floor(this.ttlMs / 10));
    this.timer = this.clock.setTimeout(this.sweep, this.touchEveryMs);
  }

  unavailable(): string | undefined {
    if (this.client.status !== 'ready') {
      return (
        'Redis, where this server keeps the sessions its processes share, is unreachable; ' +
        'the server reconnects on its own: retry shortly'
      );
    }
    if (!this.subscribed) {
      return (
        'the connection to Redis that carries messages between this server’s processes is down; ' +
        'the server reconnects on its own: retry shortly'
      );
    }
    return undefined;
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
    await this.records.create(hash, shared, this.ttlMs, this.clock.now());
    const replica = new Replica(this, transport, hash, {
      streamPrefix: shared.streamPrefix,
      state: { n: 0, logLevel: undefined, subscriptions: [] },
      holders: new Map(),
    });
    if (transport.isClosed) return;
    this.replicas.set(hash, replica);
    transport.replica = replica;
  }

  async load(sessionId: string): Promise<SharedSession | undefined> {
    const hash = sessionHash(sessionId);
    const heard: ClusterMessage[] = [];
    this.loading.set(hash, heard);
    let record: SessionRecord | undefined;
    try {
      record = await this.records.load(hash);
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
    transport.replica = replica;
    for (const m of loaded.heard) replica.receive(m);
  }

  async remove(transport: StreamableServerTransport): Promise<void> {
    await this.records.remove(sessionHash(transport.sessionId!));
    await this.eventStore.sessionClosed(transport.sessionId!);
  }

  // ---- ReplicaHost ----

  readonly report = (err: unknown): void => {
    this.host?.report(err);
  };

  async sendTo(node: string, m: ClusterMessage): Promise<boolean> {
    try {
      return (await this.client.publish(`${this.keyPrefix}:node:${node}`, JSON.stringify(m))) > 0;
    } catch (err) {
      throw redisFailure(err);
    }
  }

  broadcast(m: ClusterMessage): void {
    this.client.publish(this.bus, JSON.stringify(m)).catch((err) => this.report(redisFailure(err)));
  }

  forget(replica: Replica): void {
    if (this.replicas.get(replica.hash) === replica) this.replicas.delete(replica.hash);
  }

  // ---- internals ----

  /** At each connection of the subscriber: listens to the bus and to this process's inbox. */
  private readonly subscribe = (): void => {
    this.subscriber.subscribe(this.bus, this.inbox).then(
      () => {
        this.subscribed = true;
        for (const check of [...this.waiters]) check();
        if (this.subscribedOnce) this.missed = true;
        this.subscribedOnce = true;
        this.resyncIfMissed();
      },
      (err) => this.report(redisFailure(err)),
    );
  };

  private readonly onMessage = (_channel: string, text: string): void => {
    const m = parseClusterMessage(text);
    if (m === undefined) {
      this.report(
        new Error(`Ignored a message between cluster processes that is not one: ${text.slice(0, 200)}`),
      );
      return;
    }
    const replica = this.replicas.get(m.s);
    if (replica !== undefined) {
      replica.receive(m);
      return;
    }
    const heard = this.loading.get(m.s);
    if (heard !== undefined) heard.push(m);
    else if (m.k === 'forward') {
      this.report(
        new Error(
          'Dropped a message the client sent for a request of this process: the session is no longer held here, ' +
            'so nothing waits for it',
        ),
      );
    }
  };

  /**
   * Once both connections are back after one was lost, every replica re-reads its record and checks its streams:
   * what the outage hid is seen (a replica whose record fails to load here finds out at its next request).
   */
  private resyncIfMissed(): void {
    if (!this.missed || this.unavailable() !== undefined) return;
    this.missed = false;
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
