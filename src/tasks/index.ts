// Tasks (issue 16): the store contract and the in-memory store. The Redis store is in `mcpwire/cluster`.
export { invalidCursor, TaskLimitError, TaskStoreFullError } from './errors.js';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './memory-task-store.js';
export { newTaskId } from './task-id.js';
export {
  applyChange,
  DEFAULT_MAX_TASK_TTL_MS,
  DEFAULT_MAX_TASKS_PER_PRINCIPAL,
  DEFAULT_TASK_PAGE_SIZE,
  RUNNER_STOPPED,
  RUNNER_STOPPED_MESSAGE,
} from './task-record.js';
export type {
  NewTask,
  TaskChange,
  TaskError,
  TaskPage,
  TaskRecord,
  TaskSignal,
  TaskStatus,
  TaskStore,
} from './task-store.js';
