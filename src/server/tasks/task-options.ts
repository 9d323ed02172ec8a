import type { TaskStore } from '../../tasks/task-store.js';

/** How a server runs tools as tasks (`ServerOptions.tasks`). */
export interface TaskOptions {
  /** Where tasks are kept: `MemoryTaskStore` for one process, a shared store for several. */
  store: TaskStore;
  /**
   * How long a task is kept after its creation, in ms; `null`: until the store's own bound frees it. Default one
   * hour. A 2025-11-25 client's `task.ttl` may ask for less, never for more.
   */
  ttlMs?: number | null;
  /** How often a client should poll `tasks/get`, in ms. Default 1000. */
  pollIntervalMs?: number;
}

/** The options with their defaults applied, checked once. */
export interface TaskSettings {
  readonly store: TaskStore;
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
}

const HOUR_MS = 3_600_000;

export function taskSettings(options: TaskOptions | undefined): TaskSettings | undefined {
  if (options === undefined) return undefined;
  if (typeof options.store?.create !== 'function') throw new Error('tasks.store must be a TaskStore');
  const ttlMs = options.ttlMs === undefined ? HOUR_MS : options.ttlMs;
  if (ttlMs !== null && !(Number.isInteger(ttlMs) && ttlMs > 0)) {
    throw new Error('tasks.ttlMs must be a positive whole number of milliseconds, or null');
  }
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  if (!(Number.isInteger(pollIntervalMs) && pollIntervalMs > 0)) {
    throw new Error('tasks.pollIntervalMs must be a positive whole number of milliseconds');
  }
  return { store: options.store, ttlMs, pollIntervalMs };
}

/** The ttl of a 2025-11-25 task: what the client asked (`task.ttl`), within the server's. */
export function legacyTtl(settings: TaskSettings, asked: unknown): number | null {
  if (typeof asked !== 'number' || asked <= 0) return settings.ttlMs;
  return settings.ttlMs === null ? asked : Math.min(asked, settings.ttlMs);
}
