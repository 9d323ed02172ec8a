import type { JsonRpcRequest, Params } from '../../jsonrpc/types.js';
import { isFinal, TaskMethod } from '../../protocol/tasks.js';
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
import { CapabilityError } from '../../session/errors.js';
import type { RequestOptions } from '../../session/session.js';
import type { TaskStore } from '../../tasks/task-store.js';
import { clientCallProblem } from '../client-capabilities.js';
import { LegacyContext } from '../context.js';
import type { MethodHandler } from '../methods.js';
import type { Server } from '../server.js';
import type { ServerSession } from '../server-session.js';
import { runInTask } from './run-in-task.js';
import { legacyTtl } from './task-options.js';
import { TaskRun } from './task-run.js';
import { legacyTask, relatedTask } from './task-wire.js';

/**
 * The context of a 2025-11-25 task's handler: it runs after its `tools/call` was answered, so what it sends is
 * related to no request (it goes on the session's standalone stream); its requests to the client carry the
 * task in `_meta` (`io.modelcontextprotocol/related-task`) and hold the task `input_required` while they are out;
 * `tasks/cancel` aborts its signal.
 */
class LegacyTaskContext extends LegacyContext {
  constructor(
    session: ServerSession,
    request: JsonRpcRequest,
    private readonly run: TaskRun,
    transport: LegacyContext['transport'],
  ) {
    super(session, request, run.running, transport);
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

  override request<R = Record<string, unknown>>(
    method: string,
    params?: Params,
    options?: RequestOptions,
  ): Promise<R> {
    const problem = clientCallProblem(this.session.clientCapabilities, method, params);
    if (problem !== undefined) return Promise.reject(new CapabilityError(problem));
    const meta = {
      ...(params?._meta as Record<string, unknown> | undefined),
      ...relatedTask(this.run.taskId),
    };
    return this.run.whileAsking(() => super.request<R>(method, { ...params, _meta: meta }, options));
  }

  override listRoots(options?: RequestOptions): Promise<ListRootsResult> {
    return this.request(Method.RootsList, undefined, options);
  }

  override createMessage(
    params: CreateMessageRequestParams,
    options?: RequestOptions,
  ): Promise<CreateMessageResult> {
    return this.request(Method.SamplingCreateMessage, params as unknown as Params, options);
  }

  override elicit(params: ElicitRequestParams, options?: RequestOptions): Promise<ElicitResult> {
    return this.request(Method.ElicitationCreate, params as unknown as Params, options);
  }

  /** Cancelled with the task, not with the request that created it (which was answered). */
  protected override related(options: RequestOptions = {}): RequestOptions {
    const signal = options.signal ? AbortSignal.any([options.signal, this.signal]) : this.signal;
    return { ...options, signal };
  }
}

/** Sends the session `notifications/tasks/status` on each change of its task, until the task is final (2025-11-25, MAY). */
function tellStatus(store: TaskStore, session: ServerSession, taskId: string): void {
  const stop = store.onChange((task) => {
    if (task.taskId !== taskId) return;
    if (isFinal(task.status)) stop();
    session.notifySafely(TaskMethod.StatusNotification, legacyTask(task));
  });
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
  tellStatus(settings.store, ctx.session, run.taskId);
  runInTask(run, server, handler, params, new LegacyTaskContext(ctx.session, request, run, ctx.transport));
  return { task: legacyTask(run.record) };
}
