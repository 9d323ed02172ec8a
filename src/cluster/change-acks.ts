import type { Clock } from '../util/clock.js';
import type { AckMessage, BusMessage, StateMessage } from './cluster-messages.js';
import type { Changed, SessionStore } from './session-store.js';

/** What ChangeAcks needs from the cluster it serves (see RedisCluster). */
export interface AckHost {
  readonly nodeId: string;
  readonly records: SessionStore;
  readonly clock: Clock;
  /** The bound of a wait: a process silent for this long may be gone (its liveness key says). */
  readonly livenessMs: number;
  /** Publishes `m` to process `node`; resolves false when no process listens there (it is gone). */
  sendTo(node: string, m: BusMessage): Promise<boolean>;
  /** Whether each of `nodes` still has its liveness key. */
  living(nodes: readonly string[]): Promise<boolean[]>;
  report(err: unknown): void;
}

/** A change of session `hash`, numbered `n`, waiting for the processes in `pending`. */
interface Wait {
  readonly hash: string;
  readonly n: number;
  readonly pending: Set<string>;
  readonly resolve: () => void;
  timer: unknown;
}

/**
 * Read-your-writes for a session's state (log level, subscriptions) across processes. The process that changed it
 * sends the new state to each other process the record lists as holding a replica, and the answer to the request
 * waits until each acknowledged it (`wait`); each process acknowledges a state sent to it once it applied it to its
 * replica, or queued it for the replica it is loading, or holds none (then its next load reads the record, which
 * has it): from then on every request it serves sees the change. A process that no longer listens (it died) is not
 * waited for and leaves the record; one silent for `livenessMs` is no longer waited for either, and leaves the
 * record only if its liveness key is gone (else it is slow, which is reported).
 */
export class ChangeAcks {
  /** The changes made here that still wait, by session hash. */
  private readonly waits = new Map<string, Set<Wait>>();

  constructor(private readonly host: AckHost) {}

  /**
   * Sends `changed.state` to `changed.holders` and resolves once each acknowledged it, is gone, or `livenessMs`
   * passed. Never rejects: the change is made whatever the others do.
   */
  wait(hash: string, { state, holders }: Changed): Promise<void> {
    const host = this.host;
    return new Promise((resolve) => {
      const wait: Wait = { hash, n: state.n, pending: new Set(holders), resolve, timer: undefined };
      const waits = this.waits.get(hash);
      if (waits === undefined) this.waits.set(hash, new Set([wait]));
      else waits.add(wait);
      wait.timer = host.clock.setTimeout(() => this.expire(wait), host.livenessMs);
      const m: StateMessage = { ...state, a: host.nodeId };
      for (const node of holders) {
        host.sendTo(node, m).then(
          (listening) => {
            if (listening) return;
            this.settle(wait, node);
            host.records.unregister(hash, node).catch(ignore);
          },
          (err) => {
            this.settle(wait, node);
            host.report(err);
          },
        );
      }
    });
  }

  /** Process `m.a` waits for this one to apply `m`, which it did (the caller applied it first). */
  acknowledge(m: StateMessage): void {
    const ack: AckMessage = { k: 'ack', s: m.s, n: m.n, by: this.host.nodeId };
    this.host.sendTo(m.a!, ack).catch(this.host.report);
  }

  /** A process applied change `ack.n` of a session: the changes made here up to that number stop waiting for it. */
  heard(ack: AckMessage): void {
    const waits = this.waits.get(ack.s);
    if (waits === undefined) return;
    for (const wait of waits) if (wait.n <= ack.n) this.settle(wait, ack.by);
  }

  /** Stops every wait (the cluster closes). */
  close(): void {
    for (const waits of this.waits.values()) for (const wait of waits) this.finish(wait);
  }

  private settle(wait: Wait, node: string): void {
    if (wait.pending.delete(node) && wait.pending.size === 0) this.finish(wait);
  }

  private finish(wait: Wait): void {
    const waits = this.waits.get(wait.hash);
    if (waits === undefined || !waits.delete(wait)) return;
    if (waits.size === 0) this.waits.delete(wait.hash);
    this.host.clock.clearTimeout(wait.timer);
    wait.resolve();
  }

  /** `livenessMs` passed: the answer leaves; the silent processes that are gone leave the record. */
  private expire(wait: Wait): void {
    const late = [...wait.pending];
    this.finish(wait);
    const host = this.host;
    host.living(late).then((alive) => {
      late.forEach((node, i) => {
        if (!alive[i]) {
          host.records.unregister(wait.hash, node).catch(ignore);
          return;
        }
        host.report(
          new Error(
            `Server process ${node} did not acknowledge a change of a session's log level or subscriptions within ` +
              `${host.livenessMs} ms; the change is answered, but until that process applies it, a request it serves ` +
              'may see the previous state',
          ),
        );
      });
    }, ignore);
  }
}

const ignore = (): void => {};
