import type { JsonRpcRequest, Params } from '../../jsonrpc/types.js';
import { CapabilityError } from '../../peer/errors.js';
import { type InputRequest, isInputMethod } from '../../protocol/modern-types.js';
import {
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
  type ListRootsResult,
  type LoggingLevel,
  Method,
  type Result,
} from '../../protocol/types.js';
import { clientCallProblem } from '../client-capabilities.js';
import { LegacyContext } from '../context.js';
import type { ServerSession } from '../legacy/server-session.js';
import type { MethodHandler } from '../methods.js';
import type { Server } from '../server.js';
import { runInTask } from './run-in-task.js';
import { legacyTtl } from './task-options.js';
import { TaskRun } from './task-run.js';
import { legacyTask } from './task-wire.js';

/**
 * The context of a 2025-11-25 task's handler: it runs after its `tools/call` was answered, so what it sends is
 * related to no request (it goes on the session's standalone stream); what it asks of the client becomes the
 * task's `input_required` state, sent by whoever waits on its `tasks/result`, on that stream (InputRelay), so that
 * a client that came back on another session, or through another process, is asked there; `tasks/cancel` aborts
 * its signal.
 */
class LegacyTaskContext extends LegacyContext {
  constructor(
    session: ServerSession,
    request: JsonRpcRequest,
    private readonly run: TaskRun,
    transport: LegacyContext['transport'],
  ) {
    super(session, session, request, run.running, transport);
  }

  override startTask(): Promise<boolean> {
    return Promise.resolve(true);
  }

  override notify(method: string, params?: Params): Promise<void> {
    return this.session.notifySafely(method, params);
  }

  override log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.session.log(level, data, logger);
  }

  override request<R = Record<string, unknown>>(method: string, params?: Params): Promise<R> {
    if (!isInputMethod(method)) {
      return Promise.reject(
        new Error(
          `A task asks the client only for elicitation, sampling or roots, not ${method}: it has no request of its own to send it with`,
        ),
      );
    }
    // Checked against what the session that created the task declared: fails at once, as a request would.
    const problem = clientCallProblem(this.session.clientCapabilities, method, params);
    if (problem !== undefined) return Promise.reject(new CapabilityError(problem));
    const request = (params === undefined ? { method } : { method, params }) as InputRequest;
    return this.run.ask(request) as Promise<R>;
  }

  override listRoots(): Promise<ListRootsResult> {
    return this.request(Method.RootsList);
  }

  override createMessage(params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    return this.request(Method.SamplingCreateMessage, params as unknown as Params);
  }

  override elicit(params: ElicitRequestParams): Promise<ElicitResult> {
    return this.request(Method.ElicitationCreate, params as unknown as Params);
  }
}

/**
 * A 2025-11-25 `tools/call` with a `task` param: answers `CreateTaskResult` (`{ task }`) once the task is
 * stored, and runs the handler in it.
 */
export async function startLegacyTask(
  server: Server,
  handler: MethodHandler,
  params: Params,
  ctx: LegacyContext,
): Promise<Result> {
  const settings = server.tasks!;
  const asked = (params.task as { ttl?: unknown } | undefined)?.ttl;
  const run = await TaskRun.create(
    settings,
    ctx.transport?.principal,
    legacyTtl(settings, asked),
    server.report,
  );
  const request: JsonRpcRequest = { jsonrpc: '2.0', id: ctx.requestId, method: ctx.method, params };
  runInTask(run, server, handler, params, new LegacyTaskContext(ctx.session, request, run, ctx.transport));
  return { task: legacyTask(run.record) };
}
