/**
 * Tasks on the wire, in both eras: the Tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`,
 * SEP-2663: `tasks/get`, `tasks/update`, `tasks/cancel`, `resultType: "task"`, `notifications/tasks`) and the
 * experimental core tasks of 2025-11-25 (the `task` request param, `tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel`, `notifications/tasks/status`). The fields differ by era (`ttlMs` against `ttl`), the states
 * do not.
 */

import type { Params } from '../jsonrpc/types.js';
import type { InputRequests } from './modern-types.js';
import {
  isNumber,
  isObject,
  optionalObject,
  optionalString,
  type ParamsCheck,
  type Problem,
  requestMeta,
  requiredString,
} from './param-checks.js';

/** The extension's name, under `capabilities.extensions` of both sides. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** `_meta` key of 2025-11-25 that ties a message to its task. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

export const TaskMethod = {
  Get: 'tasks/get',
  /** 2026 only: the client's answers to a task's `inputRequests`. */
  Update: 'tasks/update',
  Cancel: 'tasks/cancel',
  /** 2025-11-25 only: waits for the task's end and answers what the request would have. */
  Result: 'tasks/result',
  /** 2025-11-25 only. */
  List: 'tasks/list',
  /** 2026: a task's state on a listen stream that asked for its id. */
  Notification: 'notifications/tasks',
  /** 2025-11-25. */
  StatusNotification: 'notifications/tasks/status',
} as const;

/** Where a task is. The last three are final. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Whether `status` is final: `completed`, `failed` or `cancelled`, which a task never leaves. */
export function isFinal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A JSON-RPC error, as a failed task carries it. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * A task in the extension's terms, whoever holds it: the store (its record), a client (what it shows). `R` is the
 * type of the result a completed task holds.
 */
export interface TaskState<R = Record<string, unknown>> {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  /** How long the task is kept after its creation; `null`: no limit said. */
  readonly ttlMs: number | null;
  /** How often the server would like to be polled. */
  readonly pollIntervalMs?: number;
  /** While `input_required`: what the task waits for, by key; answered with `tasks/update`. */
  readonly inputRequests?: InputRequests;
  /** When `completed`: the tool call's result. */
  readonly result?: R;
  /** When `failed`: the JSON-RPC error the call ended with. */
  readonly error?: TaskError;
}

/** A task as `tasks/get` and `notifications/tasks` carry it (2026: `DetailedTask`). */
export interface ModernTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  inputRequests?: InputRequests;
  result?: Record<string, unknown>;
  error?: TaskError;
  [key: string]: unknown;
}

/** A task as 2025-11-25 carries it (`Task`: `ttl` and `pollInterval`, no result inlined). */
export interface LegacyTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
  [key: string]: unknown;
}

/** How a tool may run (`execution.taskSupport`); absent means `forbidden`. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** True when a modern request's client capabilities declare the extension. */
export function declaresTasks(capabilities: Record<string, unknown> | undefined): boolean {
  const extensions = capabilities?.extensions;
  return isObject(extensions) && extensions[TASKS_EXTENSION] !== undefined;
}

/** What a -32021 for the extension carries as `data` (SEP-2663, capability negotiation). */
export const TASKS_REQUIRED = Object.freeze({
  requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
});

function taskId(p: Params): Problem {
  return requiredString(p, 'taskId') ?? requestMeta(p);
}

function updateTask(p: Params): Problem {
  if (typeof p.taskId !== 'string') return '.taskId must be a string';
  if (!isObject(p.inputResponses)) return '.inputResponses must be an object (answers by inputRequests key)';
  return requestMeta(p);
}

function listTasks(p: Params): Problem {
  return optionalString(p, 'cursor') ?? requestMeta(p);
}

/** The `task` param of a 2025-11-25 request: an object whose `ttl`, when given, is a count of milliseconds. */
export function taskParam(p: Params): Problem {
  const problem = optionalObject(p, 'task');
  if (problem !== undefined) return problem;
  const ttl = (p.task as Record<string, unknown> | undefined)?.ttl;
  if (ttl === undefined || ttl === null || (isNumber(ttl) && Number.isInteger(ttl) && ttl >= 0)) {
    return undefined;
  }
  return '.task.ttl must be a whole number of milliseconds, or null';
}

/** The params checks of the tasks methods, for `validateParams`. Null prototype, as its own table's. */
export const TASK_PARAM_CHECKS: Readonly<Record<string, ParamsCheck | undefined>> = Object.assign(
  Object.create(null),
  {
    [TaskMethod.Get]: taskId,
    [TaskMethod.Update]: updateTask,
    [TaskMethod.Cancel]: taskId,
    [TaskMethod.Result]: taskId,
    [TaskMethod.List]: listTasks,
  },
);
