import type { Claims } from './claims.js';
import type { DirectMessage } from './cluster-messages.js';

/** What a layer above the cluster does with the messages of its topic sent to this process. */
export type DirectHandler = (body: unknown) => void;

/**
 * Messages between the processes of a cluster for the layers above it (a bridge's held requests, say), each on a
 * topic of its own: the cluster carries them to the one process named and hands each to its topic's handler, and
 * knows nothing of what they hold. A message of a topic nobody here handles is reported.
 */
export class DirectMessages {
  private readonly handlers = new Map<string, DirectHandler>();

  constructor(private readonly report: (err: Error) => void) {}

  /** Hands this process's messages on `topic` to `handler` (one per topic; a second replaces the first). */
  on(topic: string, handler: DirectHandler): void {
    this.handlers.set(topic, handler);
  }

  receive(m: DirectMessage): void {
    const handler = this.handlers.get(m.t);
    if (handler === undefined) {
      this.report(
        new Error(`Ignored a message on topic ${JSON.stringify(m.t)}: nothing in this process handles it`),
      );
      return;
    }
    handler(m.b);
  }
}

/** What a layer above the cluster needs to talk to the other processes of it (a RedisCluster is one). */
export interface ClusterMessaging {
  /** This process's id in the cluster. */
  readonly nodeId: string;
  /** Where messages to this process arrive, by topic. */
  readonly direct: Pick<DirectMessages, 'on'>;
  /** Sends `body` to process `node` on `topic`; resolves false when that process is not listening. */
  tell(node: string, topic: string, body: unknown): Promise<boolean>;
  /** Whether each of `nodes` is alive. */
  living(nodes: readonly string[]): Promise<boolean[]>;
  /** Which process holds what lives in one process at a time. */
  readonly claims: Claims;
}
