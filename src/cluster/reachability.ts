import { isClusterClient, type RedisClient } from '../eventstore/redis-client.js';
import { connectNodes } from '../eventstore/redis-cluster-client.js';
import { StoreUnavailableError } from '../eventstore/store-unavailable-error.js';

/** What a cluster does when Redis comes back. */
export interface ReachabilityHost {
  /** Whether the connection that carries messages between processes listens now. */
  readonly listening: boolean;
  /** Redis answers commands again after a loss: tell the others at once that this process lives. */
  back(): void;
  /** Both connections are up after one was lost, or a shard failed over: look again at what may have been missed. */
  resync(): void;
}

/**
 * Whether a cluster's two connections to Redis (commands, and messages between processes) are up; who waits for
 * them; and when what an outage may have hidden must be looked at again. Promise: `resync` is called once per
 * loss (a reconnection, a failover), when both connections are up again; `epoch` grows with each such event.
 */
export class Reachability {
  /** Grows each time Redis came back or a shard failed over: a record refreshed before may be gone. */
  epoch = 0;
  private listenedOnce = false;
  /** A connection to Redis was lost since the last resync: messages may have been missed. */
  private missed = false;
  /** Callers of `whenReady` waiting. */
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly client: RedisClient,
    private readonly host: ReachabilityHost,
  ) {
    let connectedBefore = client.status === 'ready';
    client.on('ready', () => {
      this.epoch++;
      if (connectedBefore) this.missed = true;
      connectedBefore = true;
      this.host.back();
      this.resyncIfMissed();
    });
  }

  /** Why requests cannot be served now (a message to answer 503 with), or undefined when they can. */
  unavailable(): string | undefined {
    if (this.client.status !== 'ready') {
      return (
        'Redis, where this server keeps the sessions its processes share, is unreachable; ' +
        'the server reconnects on its own: retry shortly'
      );
    }
    if (!this.host.listening) {
      return (
        'the connection to Redis that carries messages between this server’s processes is down; ' +
        'the server reconnects on its own: retry shortly'
      );
    }
    return undefined;
  }

  /**
   * Resolves once both connections are up (and, on a Redis Cluster, its nodes connected); rejects with
   * StoreUnavailableError after `timeoutMs` (the connections keep trying).
   */
  async whenReady(timeoutMs: number): Promise<void> {
    const started = Date.now();
    await this.available(timeoutMs);
    // A Redis Cluster's client connects to a node at its first command, and another command meanwhile fails.
    if (isClusterClient(this.client)) await connectNodes(this.client, timeoutMs - (Date.now() - started));
  }

  /** The channels are listened to, for the first time or again (then messages may have been missed). */
  readonly listening = (): void => {
    for (const check of [...this.waiters]) check();
    if (this.listenedOnce) this.missed = true;
    this.listenedOnce = true;
    this.resyncIfMissed();
  };

  /**
   * A shard of the Redis Cluster failed over: what its master had not passed on is lost, as when one Redis
   * restarts.
   */
  readonly failedOver = (): void => {
    this.epoch++;
    this.missed = true;
    this.resyncIfMissed();
  };

  private available(timeoutMs: number): Promise<void> {
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

  private resyncIfMissed(): void {
    if (!this.missed || this.unavailable() !== undefined) return;
    this.missed = false;
    this.host.resync();
  }
}
