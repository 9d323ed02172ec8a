import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { Params } from '../../jsonrpc/types.js';
import { declaresTasks, TASKS_EXTENSION, TASKS_REQUIRED, type TaskSupport } from '../../protocol/tasks.js';
import type { Caller } from '../access.js';
import type { ClientScope } from '../client-scope.js';
import type { Server } from '../server.js';
import type { ToolEntry } from '../tools.js';

/**
 * How a tools/call runs: `plain` (a request like any other), `task` (the task is created before the handler
 * runs), or `deferred` (a plain request until the handler calls `ctx.startTask()`, for a tool with `deferTask`).
 */
export type TaskMode = 'plain' | 'task' | 'deferred';

export function taskSupportOf(entry: ToolEntry | undefined): TaskSupport {
  return entry?.def.execution?.taskSupport ?? 'forbidden';
}

/**
 * 2026-07-28 (SEP-2663): the server decides, and only for a request that declared the extension in its own
 * `_meta`; a tool that must run as a task, called without it, is -32021 naming the extension. An unknown tool is
 * left to tools/call, which says so; so is one hidden from the caller, and one it lacks scopes for is refused here.
 */
export function modernTaskMode(server: Server, params: Params, scope: ClientScope, caller: Caller): TaskMode {
  const entry = server.toolEntries.findFor(params.name as string, caller);
  const support = taskSupportOf(entry);
  if (support === 'forbidden') return 'plain';
  if (!declaresTasks(scope.clientCapabilities)) {
    if (support === 'optional') return 'plain';
    throw new McpError(
      ErrorCode.MissingRequiredClientCapability,
      `Tool "${entry!.key}" runs only as a task: declare the "${TASKS_EXTENSION}" extension in this request's _meta clientCapabilities`,
      TASKS_REQUIRED,
    );
  }
  return entry!.def.deferTask === true ? 'deferred' : 'task';
}

/**
 * 2025-11-25 (tasks, tool-level negotiation): the client decides, with the request's `task` param; a tool whose
 * `taskSupport` is absent or `forbidden` called as a task, and a `required` one called without, are -32601.
 */
export function legacyTaskMode(server: Server, params: Params, caller: Caller): 'plain' | 'task' {
  const entry = server.toolEntries.findFor(params.name as string, caller);
  if (entry === undefined) return 'plain';
  const support = taskSupportOf(entry);
  const asked = params.task !== undefined;
  if (asked && support === 'forbidden') {
    throw new McpError(
      ErrorCode.MethodNotFound,
      `Tool "${entry.key}" does not run as a task (execution.taskSupport is "forbidden"): call it without "task"`,
    );
  }
  if (!asked && support === 'required') {
    throw new McpError(
      ErrorCode.MethodNotFound,
      `Tool "${entry.key}" runs only as a task (execution.taskSupport is "required"): call it with a "task" param`,
    );
  }
  return asked ? 'task' : 'plain';
}
