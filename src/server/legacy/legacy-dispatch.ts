import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonRpcRequest, Params } from '../../jsonrpc/types.js';
import { Method, type Result } from '../../protocol/types.js';
import { callerOf } from '../access.js';
import type { LegacyContext } from '../context.js';
import { withInputServed } from '../fulfil-locally.js';
import type { Server } from '../server.js';
import { startLegacyTask } from '../tasks/legacy-task.js';
import { legacyTaskMode } from '../tasks/task-policy.js';

const NO_PARAMS: Params = Object.freeze({});

/**
 * Runs an initialized session's request through the server's legacy method table. A handler that answers
 * `inputRequired` is served here: its requests go to the client as server-to-client requests, and it runs
 * again with the answers, as a modern client's retry would. A tools/call with a `task` param the tool allows
 * becomes a 2025-11-25 task.
 */
export function dispatchLegacy(
  server: Server,
  request: JsonRpcRequest,
  ctx: LegacyContext,
): Result | Promise<Result> {
  const handler = server.legacyMethods[request.method];
  if (handler === undefined)
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
  const params = request.params ?? NO_PARAMS;
  if (
    request.method === Method.ToolsCall &&
    server.tasks !== undefined &&
    legacyTaskMode(server, params, callerOf(ctx.transport)) === 'task'
  ) {
    return startLegacyTask(server, handler, params, ctx);
  }
  return withInputServed(server, handler, params, ctx, handler(server, params, ctx));
}
