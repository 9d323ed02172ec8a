import type { TaskSignal } from '../../tasks/task-store.js';
import { type RedisTaskCommands, SCRIPTS } from './redis-task-commands.js';
import { hashOf, type TaskKeys } from './redis-task-keys.js';

/** A task this process watches: its signals go to these listeners. */
interface Watch {
  readonly taskId: string;
  readonly listeners: Set<(signal: TaskSignal) => void>;
}

/**
 * The watches of one process on the tasks it runs. Signals wait in each task's hash; `take` moves those waiting
 * to the listeners (each answered key once, a cancel once), when a message says some wait, when a watch opens,
 * and whenever a message may have been lost (the store calls `takeAll`).
 */
export class RedisTaskSignals {
  /** By task hash. */
  private readonly watches = new Map<string, Watch>();

  constructor(
    private readonly redis: RedisTaskCommands,
    private readonly keys: TaskKeys,
    private readonly report: (err: unknown) => void,
  ) {}

  get size(): number {
    return this.watches.size;
  }

  watch(taskId: string, listener: (signal: TaskSignal) => void): () => void {
    const h = hashOf(taskId);
    const watch = this.watches.get(h) ?? { taskId, listeners: new Set() };
    this.watches.set(h, watch);
    const mine = (signal: TaskSignal) => listener(signal);
    watch.listeners.add(mine);
    this.take(h);
    return () => {
      watch.listeners.delete(mine);
      if (watch.listeners.size === 0 && this.watches.get(h) === watch) this.watches.delete(h);
    };
  }

  /** Takes the signals waiting for the watched task `h` (none if not watched here) to its listeners. */
  take(h: string): void {
    const watch = this.watches.get(h);
    if (watch === undefined) return;
    this.redis.run(SCRIPTS.take, [this.keys.task(h)], [watch.taskId]).then((reply) => {
      if (reply === null) return;
      const [cancel, ...pairs] = reply as [number, ...string[]];
      const signals: TaskSignal[] = cancel === 1 ? [{ kind: 'cancel' }] : [];
      if (pairs.length > 0) {
        // Built as entries: a key such as "__proto__" stays a key.
        const entries: [string, unknown][] = [];
        for (let i = 0; i < pairs.length; i += 2) entries.push([pairs[i], JSON.parse(pairs[i + 1])]);
        signals.push({ kind: 'input', inputResponses: Object.fromEntries(entries) });
      }
      for (const signal of signals) for (const listener of watch.listeners) listener(signal);
    }, this.report);
  }

  takeAll(): void {
    for (const h of this.watches.keys()) this.take(h);
  }

  clear(): void {
    this.watches.clear();
  }
}
