import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { RequestOptions } from '../peer/peer-options.js';
import { inputRequestsProblem } from '../protocol/input-requests.js';
import { isObject } from '../protocol/param-checks.js';
import type { TaskError, TaskState, TaskStatus } from '../protocol/tasks.js';
import type { CallToolResult } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';

export type { TaskError, TaskStatus };

/**
 * A task as this client shows it, in either era: the extension's field names (`ttlMs`, `pollIntervalMs`;
 * 2025-11-25 says `ttl`, `pollInterval`). `inputRequests`, `result` and `error` come only from a modern
 * `tasks/get` (a legacy server hands input requests over the session and the result through `tasks/result`).
 */
export type Task = TaskState<CallToolResult>;

/** What starting a tool call as a task gave: a task to follow, or (the server chose) the result at once. */
export type TaskStart = { readonly task: Task } | { readonly result: CallToolResult };

/** Limits on how a client follows its tasks (`ClientOptions.tasks`). */
export interface ClientTaskOptions {
  /** The least time between two polls, whatever the server asks. Default 100 ms. */
  minPollIntervalMs?: number;
  /**
   * The most time between two polls, whatever the server asks; also the time between polls while the server
   * pushes the task's changes (a listen stream's `notifications/tasks`, 2025's `notifications/tasks/status`),
   * when polls are only a safety net. Default 30 s.
   */
  maxPollIntervalMs?: number;
  /** Between polls when the server suggests nothing. Default 1 s. */
  defaultPollIntervalMs?: number;
  /** Legacy era: the `ttl` asked for with each task (the server may choose another). Default: none asked. */
  ttlMs?: number;
}

/** `RequestOptions` of a call that may run as a task. */
export interface TaskRequestOptions extends RequestOptions {
  /**
   * Called with the task when it is created (or resumed) and each time its status or message changes: its
   * `taskId` is what `session.tasks.resume` needs to pick it up later, from any connection.
   */
  ontask?: (task: Task) => void;
}

/** A task ended `cancelled` (by this client, another one, or the server): it has no result. */
export class TaskCancelledError extends McpError {
  override name = 'TaskCancelledError';
  constructor(
    readonly taskId: string,
    statusMessage: string | undefined,
  ) {
    super(
      ErrorCode.RequestCancelled,
      `Task ${taskId} was cancelled${statusMessage ? `: ${statusMessage}` : ''}; it has no result`,
      { taskId },
    );
  }
}

const STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/**
 * What a modern task of each status carries besides its fields (`DetailedTask`), under `field`; `wanted` says what
 * should be there, when what is there is not that.
 */
const PAYLOAD: Readonly<Record<string, { field: string; wanted: (v: unknown) => string | undefined }>> = {
  input_required: {
    field: 'inputRequests',
    wanted: (v) => {
      const problem = inputRequestsProblem(v);
      return (
        problem && `an object of input requests, as an input_required task needs (inputRequests${problem})`
      );
    },
  },
  completed: {
    field: 'result',
    wanted: (v) => (isObject(v) ? undefined : 'an object, as a completed task needs'),
  },
  failed: {
    field: 'error',
    wanted: (v) =>
      isObject(v) && typeof v.code === 'number' && typeof v.message === 'string'
        ? undefined
        : 'a JSON-RPC error ({code, message}), as a failed task needs',
  },
};

/**
 * The task a tools/call answered with, if it answered with one: `resultType: "task"` and the task's fields
 * (modern), or a `task` member (legacy `CreateTaskResult`). Anything else is an ordinary result: undefined.
 */
export function createdTask(result: Record<string, unknown>, era: Era): Task | undefined {
  if (era === 'modern') {
    return result.resultType === 'task' ? readTask(result, era, 'tools/call', false) : undefined;
  }
  const task = result.task;
  return isObject(task) ? readTask(task, era, 'tools/call', false) : undefined;
}

/**
 * A task read from the wire, in this client's shape; an McpError naming the field when it is not a task
 * (a server's mistake must fail loudly, not poll forever). `detailed`: a modern `tasks/get` answer, which
 * must carry what its status promises (`inputRequests`, `result`, `error`); a `CreateTaskResult` need not.
 */
export function readTask(raw: Record<string, unknown>, era: Era, method: string, detailed = true): Task {
  const bad = (field: string, want: string) =>
    new McpError(
      ErrorCode.InvalidRequest,
      `The server answered ${method} with a task whose "${field}" is not ${want}`,
      { result: raw },
    );
  if (typeof raw.taskId !== 'string' || raw.taskId === '') throw bad('taskId', 'a non-empty string');
  if (typeof raw.status !== 'string' || !STATUSES.has(raw.status)) {
    throw bad('status', 'working, input_required, completed, failed or cancelled');
  }
  const ttl = era === 'modern' ? raw.ttlMs : raw.ttl;
  const poll = era === 'modern' ? raw.pollIntervalMs : raw.pollInterval;
  const task: Record<string, unknown> = {
    taskId: raw.taskId,
    status: raw.status,
    createdAt: typeof raw.createdAt === 'string' ? raw.createdAt : '',
    lastUpdatedAt: typeof raw.lastUpdatedAt === 'string' ? raw.lastUpdatedAt : '',
    ttlMs: typeof ttl === 'number' ? ttl : null,
  };
  if (typeof raw.statusMessage === 'string') task.statusMessage = raw.statusMessage;
  if (typeof poll === 'number' && Number.isFinite(poll)) task.pollIntervalMs = poll;
  if (era === 'modern') {
    const payload = PAYLOAD[raw.status];
    const value = payload === undefined ? undefined : raw[payload.field];
    if (payload !== undefined && (value !== undefined || detailed)) {
      const wanted = payload.wanted(value);
      if (wanted !== undefined) throw bad(payload.field, wanted);
      task[payload.field] = value;
    }
  }
  return task as unknown as Task;
}
