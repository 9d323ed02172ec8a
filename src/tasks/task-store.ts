import type { InputRequests, InputResponses } from '../protocol/modern-types.js';
import type { TaskError, TaskState, TaskStatus } from '../protocol/tasks.js';

export type { TaskError, TaskStatus };

/** A task as the store holds it: what `tasks/get` answers, and whom it belongs to. */
export interface TaskRecord extends TaskState {
  /** Unguessable (at least 128 random bits): knowing it is not enough, the principal must match too. */
  readonly taskId: string;
  /** Who created it; `undefined` when the transport authenticates no one. Only this principal finds it. */
  readonly principal: string | undefined;
}

/** What the creator of a task gives; the store adds the timestamps. */
export interface NewTask {
  readonly taskId: string;
  readonly principal: string | undefined;
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
}

/** A change the runner of a task makes. Moving to a final status clears `inputRequests`. */
export interface TaskChange {
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly inputRequests?: InputRequests;
  readonly result?: Record<string, unknown>;
  readonly error?: TaskError;
}

/** What reaches the runner of a task from the requests of any client, through any process. */
export type TaskSignal =
  | { readonly kind: 'cancel' }
  | { readonly kind: 'input'; readonly inputResponses: InputResponses };

/** One page of a principal's tasks, newest first. */
export interface TaskPage {
  readonly tasks: readonly TaskRecord[];
  readonly nextCursor?: string;
}

/**
 * Keeps tasks so that a client can follow one from any connection, later, through any process that shares the
 * store. Its promise:
 *
 * - Durability: once `create` has resolved, `get` finds the task (in any process sharing the store) until it
 *   expires; a server answers `CreateTaskResult` only after that.
 * - Ownership: every read and every client-side write names the principal; a task of another principal, an
 *   unknown id and an expired task are all the same `undefined` (or `false`), so ids cannot be probed.
 * - Finality: once a task is `completed`, `failed` or `cancelled`, `update` changes nothing and answers false.
 * - Liveness: the runner of a task is this process while it runs; `get` and `list` answer a task that is not
 *   final and whose runner stopped (crashed, killed, lost) as `failed`, with a message that says so, never
 *   `working` forever. How a store learns that a runner stopped is its own (a lease renewed while it runs).
 * - Signals: `requestCancel` and `respond` reach the `watch` listener of the task's runner, in whichever
 *   process it runs, at least once while the watch is open; answered input keys are not delivered again.
 * - Changes: every change of a task's status (create, update, the runner found stopped) reaches every
 *   `onChange` listener of every process sharing the store, for `notifications/tasks`.
 * - Expiry: a task is gone `ttlMs` after its creation.
 * - Bound per principal: a principal holds at most `maxTasksPerPrincipal` tasks (anonymous callers, `undefined`,
 *   are one principal). At the bound, `create` frees that principal's oldest final task; when none of its tasks is
 *   final it rejects with `TaskLimitError` and stores nothing. Another principal's tasks are never freed for it. A
 *   store may bound its total too (`TaskStoreFullError`, after the principal's bound is checked).
 *
 * Every method may reject with `StoreUnavailableError` when the store cannot be reached.
 */
export interface TaskStore {
  /** The most tasks one principal holds (see "Bound per principal"). */
  readonly maxTasksPerPrincipal: number;

  /** Stores a new `working` task, run by this process. Rejects if the id is taken. */
  create(task: NewTask): Promise<TaskRecord>;

  /** The task, if it exists, has not expired and belongs to `principal`. */
  get(taskId: string, principal: string | undefined): Promise<TaskRecord | undefined>;

  /** The runner's change; false when the task is gone or already final. */
  update(taskId: string, change: TaskChange): Promise<boolean>;

  /** A client's answers to the task's input requests (`tasks/update`); false when not found for `principal`. */
  respond(taskId: string, principal: string | undefined, inputResponses: InputResponses): Promise<boolean>;

  /** A client's cancellation (`tasks/cancel`), cooperative; false when not found for `principal`. */
  requestCancel(taskId: string, principal: string | undefined): Promise<boolean>;

  /** The principal's tasks, newest first (`tasks/list` of the 2025 era). */
  list(principal: string | undefined, cursor?: string): Promise<TaskPage>;

  /** Signals for a task this process runs, until the returned function is called. */
  watch(taskId: string, listener: (signal: TaskSignal) => void): () => void;

  /** Every change of any task, until the returned function is called. */
  onChange(listener: (task: TaskRecord) => void): () => void;

  /** Stops timers and connections the store made; tasks this process runs are then seen as stopped. */
  close(): Promise<void>;
}
