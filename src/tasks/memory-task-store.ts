import type { InputResponses } from '../protocol/modern-types.js';
import { isFinal } from '../protocol/tasks.js';
import { type Clock, systemClock } from '../util/clock.js';
import { ChangeListeners } from './change-listeners.js';
import { invalidCursor, TaskLimitError, TaskStoreFullError } from './errors.js';
import {
  applyChange,
  DEFAULT_MAX_TASK_TTL_MS,
  DEFAULT_MAX_TASKS_PER_PRINCIPAL,
  DEFAULT_TASK_PAGE_SIZE,
  effectiveTtl,
  newRecord,
  RUNNER_STOPPED,
} from './task-record.js';
import type { NewTask, TaskChange, TaskPage, TaskRecord, TaskSignal, TaskStore } from './task-store.js';

export interface MemoryTaskStoreOptions {
  /** The most tasks held; at the bound the oldest final task is freed, and with none final `create` refuses. Default 10 000. */
  maxTasks?: number;
  /** The most tasks of one principal; at the bound its oldest final task is freed. Default 1000. */
  maxTasksPerPrincipal?: number;
  /** The longest a task is kept, which is also how long a task without a TTL is kept. Default a day. */
  maxTtlMs?: number;
  /** How often expired tasks are freed (they are never answered once expired, swept or not). Default a minute. */
  sweepIntervalMs?: number;
  /** Tasks per `list` page. Default 50. */
  pageSize?: number;
  /** Default the system's, whose timers do not keep the process alive. */
  clock?: Clock;
}

/** A task as this store holds it. */
interface Entry {
  record: TaskRecord;
  /** Creation order, for `list` and its cursor. */
  readonly seq: number;
  readonly expiresAt: number;
  gone: boolean;
  /** Input keys answered so far: each reaches the runner once. */
  readonly answered: Set<string>;
  /** Signals not yet delivered (no watch was open). */
  pendingInput: InputResponses | undefined;
  cancel: 'no' | 'pending' | 'delivered';
}

/** A principal's entries in creation order; removed ones are skipped, and compacted away once they are half. */
interface Index {
  entries: Entry[];
  gone: number;
}

/** The entries of `index` still held. */
const heldBy = (index: Index | undefined) => (index === undefined ? 0 : index.entries.length - index.gone);

const positive = (name: string, value: number) => {
  if (!(Number.isSafeInteger(value) && value > 0)) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return value;
};

const CURSOR = /^m(\d{1,15})$/;

/**
 * A TaskStore in this process's memory: the runner of every task is this process, so tasks live and end with it
 * (`close` fails those still running). Bounded per principal by `maxTasksPerPrincipal` (its oldest final task is
 * freed first; with all of its tasks still running, `create` rejects with TaskLimitError), in all by `maxTasks`
 * (the same, over every principal, with TaskStoreFullError) and by each task's TTL (at most `maxTtlMs`); expired
 * tasks are never answered, and a timer that does not keep the process alive frees them.
 */
export class MemoryTaskStore implements TaskStore {
  readonly maxTasks: number;
  readonly maxTasksPerPrincipal: number;
  readonly maxTtlMs: number;
  readonly pageSize: number;
  private readonly sweepIntervalMs: number;
  private readonly clock: Clock;
  /** By id, in creation order. */
  private readonly tasks = new Map<string, Entry>();
  private readonly byPrincipal = new Map<string | undefined, Index>();
  private readonly watchers = new Map<string, Set<(signal: TaskSignal) => void>>();
  private readonly changeListeners = new ChangeListeners();
  private seq = 0;
  private timer: unknown;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.maxTasks = positive('maxTasks', options.maxTasks ?? 10_000);
    this.maxTasksPerPrincipal = positive(
      'maxTasksPerPrincipal',
      options.maxTasksPerPrincipal ?? DEFAULT_MAX_TASKS_PER_PRINCIPAL,
    );
    this.maxTtlMs = positive('maxTtlMs', options.maxTtlMs ?? DEFAULT_MAX_TASK_TTL_MS);
    this.sweepIntervalMs = positive('sweepIntervalMs', options.sweepIntervalMs ?? 60_000);
    this.pageSize = positive('pageSize', options.pageSize ?? DEFAULT_TASK_PAGE_SIZE);
    this.clock = options.clock ?? systemClock;
    this.timer = this.clock.setTimeout(this.sweep, this.sweepIntervalMs);
  }

  /** Tasks held now, expired ones not swept yet included. */
  get size(): number {
    return this.tasks.size;
  }

  async create(task: NewTask): Promise<TaskRecord> {
    const now = this.clock.now();
    const ttl = effectiveTtl(task.ttlMs, this.maxTtlMs);
    const record = newRecord(task, ttl, now);
    const held = this.tasks.get(task.taskId);
    if (held !== undefined && !this.expired(held, now)) {
      throw new RangeError('A task with this id exists already: ids must be unique');
    }
    if (held !== undefined) this.remove(held);
    this.makeRoom(now, record.principal);
    const entry: Entry = {
      record,
      seq: ++this.seq,
      expiresAt: now + ttl,
      gone: false,
      answered: new Set(),
      pendingInput: undefined,
      cancel: 'no',
    };
    this.tasks.set(record.taskId, entry);
    const index = this.byPrincipal.get(record.principal);
    if (index === undefined) this.byPrincipal.set(record.principal, { entries: [entry], gone: 0 });
    else index.entries.push(entry);
    this.changed(record);
    return record;
  }

  async get(taskId: string, principal: string | undefined): Promise<TaskRecord | undefined> {
    return this.find(taskId, principal)?.record;
  }

  async update(taskId: string, change: TaskChange): Promise<boolean> {
    const entry = this.live(taskId);
    if (entry === undefined || isFinal(entry.record.status)) return false;
    entry.record = applyChange(entry.record, change, this.clock.now());
    if (isFinal(change.status)) {
      entry.pendingInput = undefined;
      if (entry.cancel === 'pending') entry.cancel = 'delivered';
    }
    this.changed(entry.record);
    return true;
  }

  async respond(
    taskId: string,
    principal: string | undefined,
    inputResponses: InputResponses,
  ): Promise<boolean> {
    const entry = this.find(taskId, principal);
    if (entry === undefined) return false;
    const asked = entry.record.status === 'input_required' ? entry.record.inputRequests : undefined;
    if (asked === undefined) return true;
    // Built as entries: a key such as "__proto__" stays a key.
    const accepted: [string, unknown][] = [];
    for (const key of Object.keys(inputResponses)) {
      if (!Object.hasOwn(asked, key) || entry.answered.has(key)) continue;
      entry.answered.add(key);
      accepted.push([key, inputResponses[key]]);
    }
    if (accepted.length > 0) {
      entry.pendingInput = Object.fromEntries([...Object.entries(entry.pendingInput ?? {}), ...accepted]);
      this.deliver(entry);
    }
    return true;
  }

  async requestCancel(taskId: string, principal: string | undefined): Promise<boolean> {
    const entry = this.find(taskId, principal);
    if (entry === undefined) return false;
    if (!isFinal(entry.record.status) && entry.cancel === 'no') {
      entry.cancel = 'pending';
      this.deliver(entry);
    }
    return true;
  }

  async list(principal: string | undefined, cursor?: string): Promise<TaskPage> {
    let before = Number.POSITIVE_INFINITY;
    if (cursor !== undefined) {
      const match = CURSOR.exec(cursor);
      if (match === null) throw invalidCursor();
      before = Number(match[1]);
    }
    const entries = this.byPrincipal.get(principal)?.entries ?? [];
    const now = this.clock.now();
    // The newest entry older than the cursor's: entries are sorted by seq.
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (entries[mid].seq < before) lo = mid + 1;
      else hi = mid;
    }
    const tasks: TaskRecord[] = [];
    let last = 0;
    for (let i = lo - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry.gone || this.expired(entry, now)) continue;
      if (tasks.length === this.pageSize) return { tasks, nextCursor: `m${last}` };
      tasks.push(entry.record);
      last = entry.seq;
    }
    return { tasks };
  }

  watch(taskId: string, listener: (signal: TaskSignal) => void): () => void {
    const listeners = this.watchers.get(taskId) ?? new Set();
    this.watchers.set(taskId, listeners);
    const mine = (signal: TaskSignal) => listener(signal);
    listeners.add(mine);
    const entry = this.live(taskId);
    if (entry !== undefined) this.deliver(entry);
    return () => {
      listeners.delete(mine);
      if (listeners.size === 0 && this.watchers.get(taskId) === listeners) this.watchers.delete(taskId);
    };
  }

  onChange(listener: (task: TaskRecord) => void): () => void {
    return this.changeListeners.add(listener);
  }

  async close(): Promise<void> {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    for (const entry of this.tasks.values()) {
      if (!isFinal(entry.record.status)) await this.update(entry.record.taskId, RUNNER_STOPPED);
    }
  }

  /** The entry of `taskId` for `principal`, unexpired; `undefined` alike when any of that fails. */
  private find(taskId: string, principal: string | undefined): Entry | undefined {
    const entry = this.live(taskId);
    return entry !== undefined && entry.record.principal === principal ? entry : undefined;
  }

  private live(taskId: string): Entry | undefined {
    if (typeof taskId !== 'string') return undefined;
    const entry = this.tasks.get(taskId);
    if (entry === undefined) return undefined;
    if (!this.expired(entry, this.clock.now())) return entry;
    this.remove(entry);
    return undefined;
  }

  private expired(entry: Entry, now: number): boolean {
    return now >= entry.expiresAt;
  }

  /**
   * Room for one more task of `principal`: at its bound, its oldest task that is final or expired is freed (else
   * TaskLimitError); then at the store's, the oldest such task of anyone (else TaskStoreFullError).
   */
  private makeRoom(now: number, principal: string | undefined): void {
    const index = this.byPrincipal.get(principal);
    if (heldBy(index) >= this.maxTasksPerPrincipal && !this.freeOne(index!.entries, now)) {
      throw new TaskLimitError(this.maxTasksPerPrincipal);
    }
    if (this.tasks.size >= this.maxTasks && !this.freeOne(this.tasks.values(), now)) {
      throw new TaskStoreFullError(this.maxTasks);
    }
  }

  /** Frees the first of `entries` (oldest first) that is final or expired; false when every one still runs. */
  private freeOne(entries: Iterable<Entry>, now: number): boolean {
    for (const entry of entries) {
      if (!entry.gone && (isFinal(entry.record.status) || this.expired(entry, now))) {
        this.remove(entry);
        return true;
      }
    }
    return false;
  }

  private remove(entry: Entry): void {
    entry.gone = true;
    this.tasks.delete(entry.record.taskId);
    const index = this.byPrincipal.get(entry.record.principal)!;
    if (++index.gone * 2 < index.entries.length) return;
    index.entries = index.entries.filter((e) => !e.gone);
    index.gone = 0;
    if (index.entries.length === 0) this.byPrincipal.delete(entry.record.principal);
  }

  /** Hands the task's pending signals to its watchers, if it has any (each listener in a microtask of its own). */
  private deliver(entry: Entry): void {
    const listeners = this.watchers.get(entry.record.taskId);
    if (listeners === undefined || listeners.size === 0) return;
    const signals: TaskSignal[] = [];
    if (entry.cancel === 'pending') {
      entry.cancel = 'delivered';
      signals.push({ kind: 'cancel' });
    }
    if (entry.pendingInput !== undefined) {
      signals.push({ kind: 'input', inputResponses: entry.pendingInput });
      entry.pendingInput = undefined;
    }
    for (const signal of signals) {
      for (const listener of listeners) queueMicrotask(() => listener(signal));
    }
  }

  private changed(record: TaskRecord): void {
    this.changeListeners.emit(record);
  }

  private readonly sweep = (): void => {
    const now = this.clock.now();
    for (const entry of this.tasks.values()) if (this.expired(entry, now)) this.remove(entry);
    this.timer = this.clock.setTimeout(this.sweep, this.sweepIntervalMs);
  };
}
