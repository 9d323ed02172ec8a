import type { Cluster, Redis } from 'ioredis';
import { loadIoredis } from '../eventstore/load-ioredis.js';
import {
  DEFAULT_REDIS_MAX_RECONNECT_DELAY_MS,
  isClusterClient,
  type RedisClient,
  reconnectDelay,
} from '../eventstore/redis-client.js';
import { keySlot } from './key-slot.js';
import { redisFailure } from './redis-failure.js';

/** What the channels tell the cluster that listens through them. */
export interface ChannelListener {
  /** A message heard on the bus or on this process's inbox. */
  message(text: string): void;
  /** Both channels are listened to (again): whatever was published while they were not was missed. */
  listening(): void;
  /**
   * A shard of the Redis Cluster has another master (a replica took over): what the previous one had not passed
   * on to it (writes, messages) may be lost.
   */
  failedOver(): void;
  report(err: unknown): void;
}

/**
 * The pub/sub of a cluster's processes: the bus (`<prefix>:bus`), which every process listens to, and each
 * process's inbox (`<prefix>:node:<id>`), which only that process listens to. Messages are never stored: one
 * published while its listener is not listening is lost (the cluster re-checks what it may have missed).
 */
export interface Channels {
  /** Whether this process listens to the bus and to its inbox now. */
  readonly listening: boolean;
  /**
   * Publishes `text` to process `node`'s inbox; resolves false when no process listens there (it is gone), true
   * when one does or when that cannot be told. Rejects with StoreUnavailableError.
   */
  sendTo(node: string, text: string): Promise<boolean>;
  /** Publishes `text` on the bus. Rejects with StoreUnavailableError. */
  broadcast(text: string): Promise<void>;
  /** Stops listening. */
  close(): void;
}

/**
 * The channels of process `nodeId` through `client`. On one Redis server: a second connection like `client`,
 * subscribed to both, made anew by ioredis when lost. On a Redis Cluster: see ShardedChannels.
 */
export function openChannels(
  client: RedisClient,
  keyPrefix: string,
  nodeId: string,
  listener: ChannelListener,
): Channels {
  return isClusterClient(client)
    ? new ShardedChannels(client, keyPrefix, nodeId, listener)
    : new ServerChannels(client, keyPrefix, nodeId, listener);
}

/** What the channels of either kind share: their names, and the bus, a classic channel on both. */
abstract class NamedChannels implements Channels {
  listening = false;
  protected readonly bus: string;
  /** What each process's inbox is named: this, and its id. */
  protected readonly nodes: string;
  protected readonly inbox: string;

  constructor(
    private readonly publisher: RedisClient,
    keyPrefix: string,
    nodeId: string,
  ) {
    this.bus = `${keyPrefix}:bus`;
    this.nodes = `${keyPrefix}:node:`;
    this.inbox = this.nodes + nodeId;
  }

  abstract sendTo(node: string, text: string): Promise<boolean>;
  abstract close(): void;

  async broadcast(text: string): Promise<void> {
    await this.publish(this.bus, text);
  }

  /** PUBLISH (through `via`, by default the client): how many listened (on the node that took it). */
  protected async publish(channel: string, text: string, via: RedisClient = this.publisher): Promise<number> {
    try {
      return await via.publish(channel, text);
    } catch (err) {
      throw redisFailure(err);
    }
  }
}

/** The channels on one Redis server: classic pub/sub. */
class ServerChannels extends NamedChannels {
  private readonly subscriber: Redis;

  constructor(client: Redis, keyPrefix: string, nodeId: string, listener: ChannelListener) {
    super(client, keyPrefix, nodeId);
    // Subscriptions are made anew at each connection, where a failure is handled.
    this.subscriber = client.duplicate({ autoResubscribe: false });
    this.subscriber.on('error', ignore);
    this.subscriber.on('message', (_channel: string, text: string) => listener.message(text));
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.bus, this.inbox).then(
        () => {
          this.listening = true;
          listener.listening();
        },
        (err) => listener.report(redisFailure(err)),
      );
    });
    this.subscriber.on('close', () => {
      this.listening = false;
    });
  }

  async sendTo(node: string, text: string): Promise<boolean> {
    return (await this.publish(this.nodes + node, text)) > 0;
  }

  close(): void {
    this.subscriber.disconnect();
  }
}

/**
 * The channels on a Redis Cluster. The bus is a classic channel: a Redis Cluster delivers what is published on one
 * to the subscribers of every node, so the scripts that change a session publish on it in the same step, from the
 * session's shard, and every process hears the changes of one session in the order its shard made them. Each
 * inbox is a sharded channel (SSUBSCRIBE, SPUBLISH), carried only within the shard of its slot: a message for one
 * process crosses no other shard. (Where the server has no sharded pub/sub, Redis before 7.0, the inbox is a
 * classic channel too, and whether its process still listens cannot be told.)
 *
 * One connection of its own listens to both, to the master of the inbox's slot (where SPUBLISH counts its
 * listeners). When it is lost (that master died, or the slot moved), the connection is made again, with backoff,
 * to the slot's master then; the client asks the cluster for its slots meanwhile. The channels also watch the
 * masters the client knows of: a new one for a shard means a failover (`failedOver`).
 */
class ShardedChannels extends NamedChannels {
  private subscriber: Redis | undefined;
  /** The inbox's hash slot. */
  private readonly slot: number;
  /** Whether the server has sharded pub/sub (until SSUBSCRIBE says it has not). */
  private sharded = true;
  /** The masters the client knew of at its last refresh, sorted, joined. */
  private masters = '';
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly maxDelay: number;

  constructor(
    private readonly client: Cluster,
    keyPrefix: string,
    nodeId: string,
    private readonly listener: ChannelListener,
  ) {
    super(client, keyPrefix, nodeId);
    this.slot = keySlot(this.inbox);
    this.maxDelay = DEFAULT_REDIS_MAX_RECONNECT_DELAY_MS;
    client.on('refresh', this.onRefresh);
    client.on('ready', this.connect);
    if (client.status === 'ready') this.connect();
  }

  async sendTo(node: string, text: string): Promise<boolean> {
    if (!this.sharded) {
      await this.publish(this.nodes + node, text);
      return true;
    }
    try {
      return ((await this.client.spublish(this.nodes + node, text)) as number) > 0;
    } catch (err) {
      throw redisFailure(err);
    }
  }

  /**
   * Every broadcast goes through one node, the master of the inbox's slot: PUBLISH has no key, so the client would
   * send each to a master of its choosing, and two broadcasts of this process could reach the others reversed.
   * (While the slots are unknown, or across a failover, any node.)
   */
  override async broadcast(text: string): Promise<void> {
    await this.publish(this.bus, text, this.master());
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.client.off('refresh', this.onRefresh);
    this.client.off('ready', this.connect);
    this.subscriber?.disconnect();
  }

  /** Connects to the master of the inbox's slot and listens, unless a connection is up or being made. */
  private readonly connect = (): void => {
    if (this.closed || this.subscriber !== undefined || this.timer !== undefined) return;
    try {
      this.open();
    } catch (err) {
      this.listener.report(redisFailure(err));
      this.retry();
    }
  };

  private open(): void {
    const node = this.master();
    if (node === undefined) throw new Error(`no master is known for slot ${this.slot}`);
    // The node's settings (credentials, TLS, timeouts), but one attempt: a lost connection is made again here,
    // perhaps to another node.
    const { Redis } = loadIoredis();
    const subscriber = new Redis({
      ...node.options,
      lazyConnect: false,
      readOnly: false,
      autoResubscribe: false,
      enableOfflineQueue: true,
      retryStrategy: () => null,
    });
    this.subscriber = subscriber;
    subscriber.on('error', ignore);
    subscriber.on('message', this.onMessage);
    subscriber.on('smessage', this.onMessage);
    // The slot moved to another shard (its listeners are unsubscribed): listen there.
    subscriber.on('moved', () => subscriber.disconnect());
    subscriber.once('end', () => {
      if (this.subscriber === subscriber) this.subscriber = undefined;
      this.listening = false;
      this.retry();
    });
    subscriber.once('ready', () => {
      this.subscribe(subscriber).catch((err) => {
        this.listener.report(redisFailure(err));
        subscriber.disconnect();
      });
    });
  }

  /** The client's connection to the master of the inbox's slot, when it knows the slot's master. */
  private master(): Redis | undefined {
    const master = this.client.slots[this.slot]?.[0];
    return this.client.nodes('master').find((n) => nodeKey(n) === master);
  }

  private async subscribe(subscriber: Redis): Promise<void> {
    await subscriber.subscribe(this.bus);
    try {
      await subscriber.ssubscribe(this.inbox);
    } catch (err) {
      if (!(err instanceof Error && /unknown command/i.test(err.message))) throw err;
      this.sharded = false;
      await subscriber.subscribe(this.inbox);
    }
    if (this.subscriber !== subscriber) return;
    this.attempt = 0;
    this.listening = true;
    this.listener.listening();
  }

  /** After a lost connection or a failed attempt: the next, with backoff, once the client has asked for the slots. */
  private retry(): void {
    if (this.closed || this.timer !== undefined) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.client.refreshSlotsCache(() => this.connect());
      },
      reconnectDelay(++this.attempt, this.maxDelay),
    );
  }

  private readonly onMessage = (_channel: string, text: string): void => {
    this.listener.message(text);
  };

  /** The client learned the slots anew: a shard with a new master failed over; a moved inbox is followed. */
  private readonly onRefresh = (): void => {
    const masters = [...new Set(this.client.slots.map((nodes) => nodes[0]))].sort().join(',');
    const before = this.masters;
    this.masters = masters;
    if (before !== '' && masters !== before) this.listener.failedOver();
    const subscriber = this.subscriber;
    if (subscriber === undefined) return;
    if (nodeKey(subscriber) !== this.client.slots[this.slot]?.[0]) subscriber.disconnect();
  };
}

/** How ioredis names a node in its slots: `host:port`. */
function nodeKey(node: Redis): string {
  return `${node.options.host}:${node.options.port}`;
}

const ignore = (): void => {};
