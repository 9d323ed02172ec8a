import type { RedisClient } from '../eventstore/redis-client.js';
import type { Clock } from '../util/clock.js';
import type { SharedStream } from './shared-stream.js';

/**
 * Which processes of a cluster are alive: each keeps a key, `<prefix>:{alive}:<id>`, with a TTL of `ms`,
 * refreshed three times per period (one hash slot for all, so that one MGET reads those of several processes on a
 * Redis Cluster). A process whose key is missing at two checks a whole period apart is taken for dead (killed, or
 * cut off from Redis): the streams it was writing end for the responses here that follow them.
 */
export class Liveness {
  /** What the key of each process is named: this, and its id. */
  private readonly prefix: string;
  private timer: unknown;
  private clock: Clock | undefined;
  private stopped = false;
  /** Streams that responses here follow, and the process writing each. */
  private readonly followed = new Map<SharedStream, string>();
  /** Processes writing streams followed here whose key was missing, since when (this clock's ms). */
  private readonly missing = new Map<string, number>();
  /** Processes found dead: their ids are never used again. */
  private readonly dead = new Set<string>();

  constructor(
    private readonly client: RedisClient,
    keyPrefix: string,
    private readonly nodeId: string,
    /** The period. */
    readonly ms: number,
    /** Whether Redis and the other processes can be reached now. */
    private readonly connected: () => boolean,
  ) {
    this.prefix = `${keyPrefix}:{alive}:`;
  }

  /** Starts beating on `clock`. */
  start(clock: Clock): void {
    this.clock = clock;
    this.beat();
  }

  /** Refreshes this process's key (while Redis answers; failures show as 503s already). */
  announce(): void {
    if (this.stopped || this.client.status !== 'ready') return;
    this.client.set(this.prefix + this.nodeId, '1', 'PX', this.ms).catch(ignore);
  }

  /** A response here follows `stream`, which process `writer` writes: it ends if that process is gone. */
  follow(stream: SharedStream, writer: string): void {
    this.followed.set(stream, writer);
  }

  /** Whether each of `nodes` has its key now. */
  async living(nodes: readonly string[]): Promise<boolean[]> {
    const values = await this.client.mget(nodes.map((node) => this.prefix + node));
    return values.map((value) => value !== null);
  }

  /** Stops beating and removes this process's key: streams it still wrote end sooner for their followers. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.clock!.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.client.status === 'ready') await this.client.del(this.prefix + this.nodeId).catch(ignore);
  }

  /** Three times per period: this process is alive; are the writers of the streams followed here? */
  private readonly beat = (): void => {
    if (this.stopped) return;
    this.timer = this.clock!.setTimeout(this.beat, Math.floor(this.ms / 3));
    this.announce();
    // The streams followed now, by writer.
    const followed = new Map<string, SharedStream[]>();
    for (const [stream, node] of this.followed) {
      if (stream.isFinished || !stream.held) {
        this.followed.delete(stream);
        continue;
      }
      const streams = followed.get(node);
      if (streams === undefined) followed.set(node, [stream]);
      else streams.push(stream);
    }
    for (const node of this.missing.keys()) if (!followed.has(node)) this.missing.delete(node);
    for (const [node, streams] of followed) {
      if (!this.dead.has(node)) continue;
      followed.delete(node);
      for (const stream of streams) stream.writerGone();
    }
    if (followed.size === 0 || !this.connected()) return;
    const nodes = [...followed.keys()];
    this.living(nodes).then((alive) => {
      const now = this.clock!.now();
      nodes.forEach((node, i) => {
        if (alive[i]) {
          this.missing.delete(node);
          return;
        }
        // Missing at two checks a whole period apart: not a process that reconnects or is slow for a moment.
        const since = this.missing.get(node);
        if (since === undefined) this.missing.set(node, now);
        else if (now - since >= this.ms) {
          this.missing.delete(node);
          this.dead.add(node);
          for (const stream of followed.get(node)!) stream.writerGone();
        }
      });
    }, ignore);
  };
}

const ignore = (): void => {};
