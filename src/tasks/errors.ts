import { ErrorCode, McpError } from '../jsonrpc/errors.js';

// A task the store refuses to create: nothing was stored. Neither is an McpError, so the server reports it to
// `onerror` (it shows in metrics) and the caller gets -32603 with the message; `httpStatus` is what a 2026-07-28
// response carrying only this error is sent with (a 2025 session's answer travels in-band, on 200).

/**
 * The caller's principal holds its maximum of tasks (`maxTasksPerPrincipal`) and none of them has finished, so
 * none can be freed: 429, the caller may try again once one of its tasks ends. Anonymous callers are one principal.
 */
export class TaskLimitError extends Error {
  override name = 'TaskLimitError';
  readonly httpStatus = 429;
  constructor(readonly maxTasksPerPrincipal: number) {
    super(
      `Too many tasks: this client already holds the maximum of ${maxTasksPerPrincipal} tasks on this server and ` +
        'none of them has finished. Wait for one to end, or cancel one (tasks/cancel), then call again.',
    );
  }
}

/**
 * The store holds its maximum of tasks over every principal (`MemoryTaskStore`'s `maxTasks`) and none of them
 * has finished: 503, the server is full for now.
 */
export class TaskStoreFullError extends Error {
  override name = 'TaskStoreFullError';
  readonly httpStatus = 503;
  constructor(readonly maxTasks: number) {
    super(
      `Cannot start a task: the task store holds its maximum of ${maxTasks} tasks and none of them has ` +
        'finished, so none can be freed. Try again once a task ends.',
    );
  }
}

/** The `list` cursor was not issued by this store: -32602 with a message a client can act on. */
export function invalidCursor(): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    'Invalid cursor: not one this server issued for tasks/list. List again without a cursor.',
  );
}
