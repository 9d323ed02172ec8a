import { connectRedis, isRedisAddress, type RedisAddress } from '../../eventstore/redis-address.js';
import type { RedisClient } from '../../eventstore/redis-client.js';
import type { InputResponses } from '../../protocol/modern-types.js';
import { isFinal } from '../../protocol/tasks.js';
import { ChangeListeners } from '../../tasks/change-listeners.js';
import { invalidCursor, TaskLimitError } from '../../tasks/errors.js';
import {
  applyChange,
  DEFAULT_MAX_TASK_TTL_MS,
  DEFAULT_MAX_TASKS_PER_PRINCIPAL,
  DEFAULT_TASK_PAGE_SIZE,
  effectiveTtl,
  newRecord,
  RUNNER_STOPPED,
} from '../../tasks/task-record.js';
import type {
  NewTask,
  TaskChange,
  TaskPage,
  TaskRecord,
  TaskSignal,
  TaskStore,
} from '../../tasks/task-store.js';
import { randomBase64url } from '../../util/base64.js';
import { type Clock, systemClock } from '../../util/clock.js';
import { type Channels, openChannels } from '../channels.js';
import { RedisTaskCommands, SCRIPTS } from './redis-task-commands.js';
import { hashOf, isCursor, memberHash, principalArgs, TaskKeys } from './redis-task-keys.js';
import { ANY, parseRecord, RedisTaskRecords, type Stored } from './redis-task-records.js';
import { RedisTaskSignals } from './redis-task-signals.js';
import { RunnerSweep } from './redis-task-sweep.js';

/** Default `leaseMs`: a process that has not renewed its lease for this long is taken for stopped. */
export const DEFAULT_TASK_LEASE_MS = 10_000;

export interface RedisTaskStoreOptions {
  /**
   * An address (`redis://host:port`, or `{ cluster: ['host:port', …] }`): the store opens its client and `close()`
   * ends it. Or a client to share, made by `createRedisClient` or `createRedisClusterClient` (the store never
   * closes it).
   */
  redis: RedisClient | RedisAddress;
  /** Start of every key and channel the store uses. Default 'mcpwire:tasks'. */
  keyPrefix?: string;
  /**
   * The most tasks of one principal; at the bound its oldest final task is freed, and with none final `create`
   * rejects with TaskLimitError. Default 1000.
   */
  maxTasksPerPrincipal?: number;
  /** The longest a task is kept, which is also how long one without a TTL is kept. Default a day. */
  maxTtlMs?: number;
  /**
   * How long this process's lease lasts; it renews it three times per lease while it runs or watches tasks. A
   * task whose runner's lease is gone is failed, by the sweep every process runs once per lease or by the first
   * read that meets it. Default 10 s.
   */
  leaseMs?: number;
  /** Tasks per `list` page. Default 50. */
  pageSize?: number;
  /** Failures of work no caller waits for (lease renewals, sweeps, taking signals, messages). Default: ignored. */
  onError?: (err: unknown) => void;
  /** Default the system's, whose timers do not keep the process alive. */
  clock?: Clock;
}

const positive = (name: string, value: number) => {
  if (!(Number.isSafeInteger(value) && value > 0)) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return value;
};

/**
 * A TaskStore in Redis (one server or a Redis Cluster), shared by every process using the same Redis and key
 * prefix: a task started through one process is read, answered and cancelled through any other. See
 * src/tasks/README.md for the flow, and src/cluster/README.md ("Tasks") for keys, messages and what a lost one
 * costs. Every method may reject with StoreUnavailableError.
 */
export class RedisTaskStore implements TaskStore {
  readonly keyPrefix: string;
  readonly maxTasksPerPrincipal: number;
  readonly maxTtlMs: number;
  readonly leaseMs: number;
  readonly pageSize: number;
  /** This process, as the runner of the tasks it creates. */
  readonly runnerId = randomBase64url(16);
  private readonly redis: RedisTaskCommands;
  private readonly records: RedisTaskRecords;
  private readonly keys: TaskKeys;
  private readonly ownsClient: boolean;
  private readonly clock: Clock;
  private readonly report: (err: unknown) => void;
  private readonly channels: Channels;
  private readonly listening: Promise<void>;
  /** Tasks this process runs that are not final, with their latest record. */
  private readonly running = new Map<string, TaskRecord>();
  private readonly signals: RedisTaskSignals;
  private readonly sweep: RunnerSweep;
  private readonly changeListeners = new ChangeListeners();
  private timer: unknown;
  /** When the lease was last renewed (this process's clock). */
  private renewedAt = Number.NEGATIVE_INFINITY;
  private closed = false;

  constructor(options: RedisTaskStoreOptions) {
    this.keyPrefix = options.keyPrefix ?? 'mcpwire:tasks';
    this.maxTasksPerPrincipal = positive(
      'maxTasksPerPrincipal',
      options.maxTasksPerPrincipal ?? DEFAULT_MAX_TASKS_PER_PRINCIPAL,
    );
    this.maxTtlMs = positive('maxTtlMs', options.maxTtlMs ?? DEFAULT_MAX_TASK_TTL_MS);
    this.leaseMs = positive('leaseMs', options.leaseMs ?? DEFAULT_TASK_LEASE_MS);
    this.pageSize = positive('pageSize', options.pageSize ?? DEFAULT_TASK_PAGE_SIZE);
    this.clock = options.clock ?? systemClock;
    this.report = options.onError ?? (() => {});
    this.ownsClient = isRedisAddress(options.redis);
    const client: RedisClient = isRedisAddress(options.redis) ? connectRedis(options.redis) : options.redis;
    this.redis = new RedisTaskCommands(client);
    this.keys = new TaskKeys(this.keyPrefix);
    this.records = new RedisTaskRecords(this.redis, this.keys, this.report);
    this.signals = new RedisTaskSignals(this.redis, this.keys, this.report);
    this.sweep = new RunnerSweep(this.redis, this.keys, this.runnerId, this.failStopped, this.report);
    this.sweep.start(this.clock, this.leaseMs);
    let heard: () => void = () => {};
    this.listening = new Promise((resolve) => {
      heard = resolve;
    });
    this.channels = openChannels(client, this.keyPrefix, this.runnerId, {
      message: (text) => this.heard(text),
      listening: () => {
        heard();
        this.signals.takeAll();
      },
      failedOver: () => this.signals.takeAll(),
      report: this.report,
    });
  }

  /** Resolves once this store hears the other processes (changes made before are not heard). */
  whenListening(): Promise<void> {
    return this.listening;
  }

  async create(task: NewTask): Promise<TaskRecord> {
    const ttl = effectiveTtl(task.ttlMs, this.maxTtlMs);
    const record = newRecord(task, ttl, this.clock.now());
    const h = hashOf(record.taskId);
    const [all, exp, fin] = this.keys.index(record.principal);
    const indexed = (await this.redis.run(
      SCRIPTS.index,
      [all, exp, fin],
      [h, String(ttl), String(this.maxTasksPerPrincipal), String(this.maxTtlMs)],
    )) as [0] | [1, string, ...string[]];
    if (indexed[0] === 0) throw new TaskLimitError(this.maxTasksPerPrincipal);
    const [, member, ...freed] = indexed;
    if (freed.length > 0) {
      await this.redis.command((c) => c.unlink(...freed.map((m) => this.keys.task(memberHash(m)))));
    }
    // The lease before the task: a task is never seen before the lease that says its runner lives.
    if (!(this.clock.now() - this.renewedAt < this.leaseMs / 3)) await this.renew();
    // Listed as this process's before it exists, so that the sweep finds it if this process dies.
    const mine = this.keys.runnerTasks(this.runnerId);
    await this.redis.command((c) => c.multi().sadd(mine, record.taskId).pexpire(mine, this.maxTtlMs).exec());
    this.running.set(record.taskId, record);
    this.schedule();
    const [hasP, p] = principalArgs(record.principal);
    const created = await this.redis
      .run(
        SCRIPTS.create,
        [this.keys.task(h)],
        [record.taskId, hasP, p, this.runnerId, JSON.stringify(record), String(ttl), this.keys.bus, member],
      )
      .catch((err) => {
        this.running.delete(record.taskId);
        throw err;
      });
    if (created !== 1) {
      this.running.delete(record.taskId);
      await this.redis.command((c) => c.zrem(all, member));
      await this.redis.command((c) => c.zrem(exp, member));
      throw new RangeError('A task with this id exists already: ids must be unique');
    }
    return record;
  }

  async get(taskId: string, principal: string | undefined): Promise<TaskRecord | undefined> {
    const found = await this.records.read(taskId, principal);
    return found === undefined ? undefined : (await this.alive([found]))[0];
  }

  async update(taskId: string, change: TaskChange): Promise<boolean> {
    const current = this.running.get(taskId) ?? (await this.records.read(taskId, ANY))?.record;
    if (current === undefined) return false;
    const changed = await this.records.write(current, applyChange(current, change, this.clock.now()), '');
    if (changed !== undefined && !isFinal(change.status)) {
      this.running.set(taskId, changed);
    } else if (this.running.delete(taskId)) {
      const mine = this.keys.runnerTasks(this.runnerId);
      this.redis.command((c) => c.srem(mine, taskId)).catch(this.report);
    }
    this.schedule();
    return changed !== undefined;
  }

  async respond(
    taskId: string,
    principal: string | undefined,
    inputResponses: InputResponses,
  ): Promise<boolean> {
    const pairs: string[] = [];
    for (const key of Object.keys(inputResponses)) {
      pairs.push(key, JSON.stringify(inputResponses[key] ?? null));
    }
    return this.records.signal(SCRIPTS.respond, taskId, principal, pairs);
  }

  async requestCancel(taskId: string, principal: string | undefined): Promise<boolean> {
    return this.records.signal(SCRIPTS.cancel, taskId, principal, []);
  }

  async list(principal: string | undefined, cursor?: string): Promise<TaskPage> {
    if (cursor !== undefined && !isCursor(cursor)) throw invalidCursor();
    const keys = this.keys.index(principal);
    const start = cursor === undefined ? '+' : `(${cursor}`;
    const members = await this.redis.command((c) =>
      c.zrevrangebylex(keys[0], start, '-', 'LIMIT', 0, this.pageSize + 1),
    );
    const page = members.slice(0, this.pageSize);
    const { found, gone } = await this.records.readMembers(page, principal);
    // Tasks expired (or freed) before their index entry: dropped, as later creates would.
    if (gone.length > 0) await Promise.all(keys.map((k) => this.redis.command((c) => c.zrem(k, ...gone))));
    const tasks = await this.alive(found);
    return members.length > this.pageSize ? { tasks, nextCursor: page[page.length - 1] } : { tasks };
  }

  watch(taskId: string, listener: (signal: TaskSignal) => void): () => void {
    const stop = this.signals.watch(taskId, listener);
    this.schedule();
    return stop;
  }

  onChange(listener: (task: TaskRecord) => void): () => void {
    return this.changeListeners.add(listener);
  }

  /**
   * Fails the tasks this process still runs (others see why at once, not a lease later), ends its lease, stops
   * listening, and ends the client when the store opened it. What Redis holds stays.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.sweep.stop();
    const running = [...this.running.values()];
    this.running.clear();
    this.signals.clear();
    const stopped = (r: TaskRecord) =>
      this.records.write(r, applyChange(r, RUNNER_STOPPED, this.clock.now()), this.runnerId);
    await Promise.allSettled(running.map(stopped));
    const self = this.runnerId;
    await this.redis
      .command((c) =>
        Promise.all([
          c.del(this.keys.lease(self)),
          c.del(this.keys.runnerTasks(self)),
          c.srem(this.keys.runners, self),
        ]),
      )
      .catch(this.report);
    this.channels.close();
    this.redis.dispose();
    if (!this.ownsClient) return;
    try {
      await this.redis.client.quit();
    } catch {
      this.redis.client.disconnect();
    }
  }

  /**
   * `found` as `get` answers them: a task that is not final and whose runner's lease is gone is failed (by one
   * script that checks it still is not, and publishes the change once, whichever process finds it first).
   */
  private async alive(found: readonly Stored[]): Promise<TaskRecord[]> {
    const suspects = new Set<string>();
    for (const { record, runner } of found) {
      if (!isFinal(record.status) && !(runner === this.runnerId && !this.closed)) suspects.add(runner);
    }
    if (suspects.size === 0) return found.map((f) => f.record);
    const runners = [...suspects];
    const leases = await Promise.all(
      runners.map((r) => this.redis.command((c) => c.exists(this.keys.lease(r)))),
    );
    const dead = new Set(runners.filter((_, i) => leases[i] === 0));
    return Promise.all(
      found.map(async ({ record, runner }) => {
        if (isFinal(record.status) || !dead.has(runner)) return record;
        const failed = applyChange(record, RUNNER_STOPPED, this.clock.now());
        // Lost the race: the runner finished it, or another process failed it first. What is stored stands.
        return (
          (await this.records.write(record, failed, runner)) ??
          (await this.records.read(record.taskId, record.principal))?.record ??
          failed
        );
      }),
    );
  }
  /** A message of the bus: a change for the listeners, or a signal for a task watched here. */
  private heard(text: string): void {
    if (text.startsWith('s')) {
      this.signals.take(text.slice(1));
      return;
    }
    let record: TaskRecord;
    try {
      record = parseRecord(text.slice(1));
    } catch (err) {
      this.report(err);
      return;
    }
    // Failed elsewhere (its runner was taken for stopped): no longer run here.
    if (isFinal(record.status)) this.running.delete(record.taskId);
    this.changeListeners.emit(record);
  }

  /** Renews the lease, then lists this process among the runners (again: a sweep may have taken it for dead). */
  private async renew(): Promise<void> {
    const at = this.clock.now();
    await this.redis.command((c) => c.set(this.keys.lease(this.runnerId), '1', 'PX', this.leaseMs));
    await this.redis.command((c) => c.sadd(this.keys.runners, this.runnerId));
    this.renewedAt = at;
  }

  /** Fails the unfinished tasks of `runner`, found stopped by the sweep. */
  private readonly failStopped = async (runner: string, taskIds: readonly string[]): Promise<void> => {
    const found = await Promise.all(taskIds.map((id) => this.records.read(id, ANY)));
    await this.alive(found.filter((f): f is Stored => f !== undefined && f.runner === runner));
  };

  /** Renews the lease and takes signals three times per lease while tasks run or are watched here. */
  private schedule(): void {
    if (this.closed || this.timer !== undefined || (this.running.size === 0 && this.signals.size === 0))
      return;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        if (this.running.size > 0) this.renew().catch(this.report);
        this.signals.takeAll();
        this.schedule();
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
  }
}
