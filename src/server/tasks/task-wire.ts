import { type LegacyTask, type ModernTask, RELATED_TASK_META } from '../../protocol/tasks.js';
import type { TaskRecord } from '../../tasks/task-store.js';

/** The fields both eras' `Task` share. */
function base(record: TaskRecord): Omit<ModernTask, 'ttlMs'> {
  const task: Omit<ModernTask, 'ttlMs'> = {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  return task;
}

/** A 2026 `Task` (what `CreateTaskResult` carries), without the state's payload. */
export function modernTask(record: TaskRecord): ModernTask {
  const task = base(record) as ModernTask;
  task.ttlMs = record.ttlMs;
  if (record.pollIntervalMs !== undefined) task.pollIntervalMs = record.pollIntervalMs;
  return task;
}

/**
 * A 2026 `DetailedTask` (`tasks/get`, `notifications/tasks`): the state's payload inlined, the result as the
 * request would have answered it in 2026 (`resultType: "complete"`, which clients such as ext-tasks require).
 */
export function detailedTask(record: TaskRecord): ModernTask {
  const task = modernTask(record);
  if (record.status === 'input_required') task.inputRequests = record.inputRequests ?? {};
  else if (record.status === 'completed' && record.result !== undefined) {
    task.result = { ...record.result, resultType: 'complete' };
  } else if (record.status === 'failed' && record.error !== undefined) task.error = { ...record.error };
  return task;
}

/**
 * A 2025-11-25 `Task`. There a tool result with `isError` is a `failed` task (2026 says `completed`); the store
 * keeps the 2026 meaning and this view translates.
 */
export function legacyTask(record: TaskRecord): LegacyTask {
  const task = base(record) as LegacyTask;
  if (record.status === 'completed' && record.result?.isError === true) task.status = 'failed';
  task.ttl = record.ttlMs;
  if (record.pollIntervalMs !== undefined) task.pollInterval = record.pollIntervalMs;
  return task;
}

/** `_meta` of a 2025-11-25 message that belongs to a task. */
export const relatedTask = (taskId: string): Record<string, unknown> => ({ [RELATED_TASK_META]: { taskId } });
