import { ErrorCode, McpError } from '../jsonrpc/errors.js';

/**
 * A task store at its bound holds only tasks still running, so it frees none for a new one. Nothing was stored;
 * a server answers the request with an error carrying this message.
 */
export class TaskStoreFullError extends Error {
  override name = 'TaskStoreFullError';
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
