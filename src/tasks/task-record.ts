import { ErrorCode } from '../jsonrpc/errors.js';
import type { NewTask, TaskChange, TaskError, TaskRecord, TaskStatus } from './task-store.js';

// What both stores share: the record's rules, the answer for a stopped runner, and the bounds' defaults.

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/** Default `maxTtlMs` of both stores: a day. A task asking for longer, or for no TTL, is kept this long. */
export const DEFAULT_MAX_TASK_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Default `maxTasksPerPrincipal` of both stores. Since a principal's final tasks are freed for its new ones, it is
 * also how many of its tasks may run at once (the spec asks receivers to bound and document that).
 */
export const DEFAULT_MAX_TASKS_PER_PRINCIPAL = 1000;

/** Default `pageSize` of `list`. */
export const DEFAULT_TASK_PAGE_SIZE = 50;

/** What a task whose runner stopped before it finished is answered with, in `statusMessage` and `error`. */
export const RUNNER_STOPPED_MESSAGE =
  'The server process running this task stopped before the task finished (it exited, crashed or lost its ' +
  'connection to the task store), so its outcome is unknown: start it again.';

const RUNNER_STOPPED_ERROR: TaskError = { code: ErrorCode.InternalError, message: RUNNER_STOPPED_MESSAGE };

/** The change that ends a task whose runner stopped. */
export const RUNNER_STOPPED: TaskChange = {
  status: 'failed',
  statusMessage: RUNNER_STOPPED_MESSAGE,
  error: RUNNER_STOPPED_ERROR,
};

/** The TTL a store keeps `requested` for: at most `maxTtlMs`, which also stands for `null` (no TTL asked). */
export function effectiveTtl(requested: number | null, maxTtlMs: number): number {
  if (requested !== null && !(Number.isSafeInteger(requested) && requested > 0)) {
    throw new RangeError(`ttlMs must be a positive integer or null, got ${requested}`);
  }
  return requested === null ? maxTtlMs : Math.min(requested, maxTtlMs);
}

/** A new task's record, created at `now` (ms since the epoch) and kept `ttlMs`. */
export function newRecord(task: NewTask, ttlMs: number, now: number): TaskRecord {
  if (typeof task.taskId !== 'string' || task.taskId === '') {
    throw new RangeError('taskId must be a non-empty string');
  }
  const at = new Date(now).toISOString();
  return {
    taskId: task.taskId,
    principal: task.principal,
    status: 'working',
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs,
    ...(task.pollIntervalMs === undefined ? {} : { pollIntervalMs: task.pollIntervalMs }),
  };
}

/**
 * `record` after `change`, at `now`: the change states the task's whole mutable part (status, message, and the
 * input requests, result or error that go with it); `inputRequests` are kept only while `input_required`.
 */
export function applyChange(record: TaskRecord, change: TaskChange, now: number): TaskRecord {
  if (!STATUSES.has(change.status)) throw new RangeError(`unknown task status "${change.status}"`);
  const { inputRequests: _i, result: _r, error: _e, statusMessage: _m, ...base } = record;
  return {
    ...base,
    status: change.status,
    lastUpdatedAt: new Date(now).toISOString(),
    ...(change.statusMessage === undefined ? {} : { statusMessage: change.statusMessage }),
    ...(change.status === 'input_required' && change.inputRequests !== undefined
      ? { inputRequests: change.inputRequests }
      : {}),
    ...(change.result === undefined ? {} : { result: change.result }),
    ...(change.error === undefined ? {} : { error: change.error }),
  };
}
