import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { Params } from '../../jsonrpc/types.js';
import type { InputRequests, InputResponses } from '../../protocol/modern-types.js';
import { declaresTasks, isFinal, TASKS_EXTENSION, TASKS_REQUIRED, TaskMethod } from '../../protocol/tasks.js';
import type { Result } from '../../protocol/types.js';
import type { TaskRecord, TaskStore } from '../../tasks/task-store.js';
import { answersTo } from '../client-answer.js';
import type { ServerContext } from '../context.js';
import type { MethodHandler } from '../methods.js';
import type { Server } from '../server.js';
import { InputRelay, refuseClientError } from './input-relay.js';
import { detailedTask, legacyTask, relatedTask } from './task-wire.js';

const EMPTY: Result = Object.freeze({});
const NOTHING_ASKED: InputRequests = Object.freeze({});
const NO_ANSWERS: InputResponses = Object.freeze({});
/** How long a 2025-11-25 tasks/cancel waits for the runner to record the cancellation before it answers. */
const CANCEL_WAIT_MS = 10_000;
/** How often a wait for a task's end looks again, for what sends no change (expiry). */
const RECHECK_MS = 5_000;

const storeOf = (server: Server): TaskStore => server.tasks!.store;
const principalOf = (ctx: ServerContext): string | undefined => ctx.transport?.principal;

/** Unknown, expired and another principal's are one answer (-32602, SEP-2663 and 2025-11-25), so ids cannot be probed. */
function notFound(taskId: string): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `Task not found: ${JSON.stringify(taskId.slice(0, 100))} is unknown to this server or has expired`,
  );
}

async function found(server: Server, params: Params, ctx: ServerContext): Promise<TaskRecord> {
  const taskId = params.taskId as string;
  const record = await storeOf(server).get(taskId, principalOf(ctx));
  if (record === undefined) throw notFound(taskId);
  return record;
}

/** SEP-2663: every tasks/* request must itself declare the extension, else -32021. */
function declared(ctx: ServerContext): void {
  if (declaresTasks(ctx.scope.clientCapabilities)) return;
  throw new McpError(
    ErrorCode.MissingRequiredClientCapability,
    `${ctx.method} needs the "${TASKS_EXTENSION}" extension: declare it in this request's _meta clientCapabilities`,
    TASKS_REQUIRED,
  );
}

/** The 2026-07-28 methods of the Tasks extension. */
export const MODERN_TASK_METHODS: Readonly<Record<string, MethodHandler>> = {
  async [TaskMethod.Get](server, params, ctx) {
    declared(ctx);
    return detailedTask(await found(server, params, ctx));
  },
  /** The answers are checked against what the task asks before they reach it: a wrong one is -32602. */
  async [TaskMethod.Update](server, params, ctx) {
    declared(ctx);
    const record = await found(server, params, ctx);
    const responses = params.inputResponses as InputResponses;
    refuseClientError(responses);
    const answers = answersTo(record.inputRequests ?? NOTHING_ASKED, responses) ?? NO_ANSWERS;
    if (!(await storeOf(server).respond(record.taskId, principalOf(ctx), answers))) {
      throw notFound(record.taskId);
    }
    return EMPTY;
  },
  async [TaskMethod.Cancel](server, params, ctx) {
    declared(ctx);
    const taskId = params.taskId as string;
    if (!(await storeOf(server).requestCancel(taskId, principalOf(ctx)))) throw notFound(taskId);
    return EMPTY;
  },
};

/**
 * The task once it is final, or as it is when `boundMs` ran out; undefined when it is gone. Listens before it
 * reads, so a change between the two is not missed. `observe` sees the task as each read finds it, and `fresh` as
 * it was at the start, after each change heard, and at its end (once, however it was found).
 */
function untilFinal(
  store: TaskStore,
  first: TaskRecord,
  principal: string | undefined,
  signal: AbortSignal,
  boundMs?: number,
  observe?: (record: TaskRecord, fresh: boolean) => void,
): Promise<TaskRecord | undefined> {
  observe?.(first, true);
  if (isFinal(first.status)) return Promise.resolve(first);
  return new Promise((resolve, reject) => {
    let latest: TaskRecord | undefined = first;
    let finished = false;
    let toldFinal = false;
    const done = (record: TaskRecord | undefined): void => {
      if (finished) return;
      finished = true;
      // A read may find the end before its change is heard: the end is told all the same, before the answer.
      if (record !== undefined && isFinal(record.status) && !toldFinal) observe?.(record, true);
      stop();
      clearInterval(recheck);
      if (bound !== undefined) clearTimeout(bound);
      signal.removeEventListener('abort', aborted);
      resolve(record);
    };
    const look = (): void => {
      if (finished) return;
      store.get(first.taskId, principal).then((record) => {
        if (finished) return;
        latest = record;
        if (record === undefined || isFinal(record.status)) done(record);
        else observe?.(record, false);
      }, reject);
    };
    const stop = store.onChange((task) => {
      if (task.taskId !== first.taskId) return;
      if (isFinal(task.status)) toldFinal = true;
      observe?.(task, true);
      if (isFinal(task.status)) look();
    });
    const recheck = setInterval(look, RECHECK_MS);
    recheck.unref?.();
    const bound = boundMs === undefined ? undefined : setTimeout(() => done(latest), boundMs);
    const aborted = (): void => done(latest);
    signal.addEventListener('abort', aborted);
    look();
  });
}

/** The 2025-11-25 methods of the experimental core tasks. */
export const LEGACY_TASK_METHODS: Readonly<Record<string, MethodHandler>> = {
  async [TaskMethod.Get](server, params, ctx) {
    return legacyTask(await found(server, params, ctx));
  },
  /**
   * Waits for the task's end, then answers exactly what the request would have (2025-11-25, result retrieval).
   * Meanwhile what the task asks of the client, and each change of it, goes on this request's stream (InputRelay).
   */
  async [TaskMethod.Result](server, params, ctx) {
    const store = storeOf(server);
    const first = await found(server, params, ctx);
    const relay = new InputRelay(store, ctx, server.report);
    let record: TaskRecord | undefined;
    try {
      record = await untilFinal(store, first, principalOf(ctx), ctx.signal, undefined, relay.observe);
    } finally {
      relay.stop();
    }
    if (record === undefined) throw notFound(first.taskId);
    if (record.status === 'completed' && record.result !== undefined) {
      const meta = {
        ...(record.result._meta as Record<string, unknown> | undefined),
        ...relatedTask(record.taskId),
      };
      return { ...record.result, _meta: meta };
    }
    if (record.status === 'failed' && record.error !== undefined) {
      const { code, message, data } = record.error;
      throw new McpError(code, message, data);
    }
    if (!isFinal(record.status)) throw new McpError(ErrorCode.RequestCancelled, 'tasks/result was cancelled');
    throw new McpError(
      ErrorCode.InvalidParams,
      `Task ${JSON.stringify(record.taskId)} ended ${record.status}${record.statusMessage ? ` (${record.statusMessage})` : ''}: it has no result`,
    );
  },
  /** Only to an authenticated caller: initialize announced `tasks.list` to no one else (see anonymousCapabilities). */
  async [TaskMethod.List](server, params, ctx) {
    const principal = principalOf(ctx);
    if (principal === undefined) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        'tasks/list is served only to an authenticated caller: without a principal every caller would list ' +
          "every other's tasks. Keep the ids of the tasks you start and read them with tasks/get",
      );
    }
    let page: Awaited<ReturnType<TaskStore['list']>>;
    try {
      page = await storeOf(server).list(principal, params.cursor as string | undefined);
    } catch (err) {
      if (params.cursor === undefined) throw err;
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid cursor: list again without it (${(err as Error).message})`,
      );
    }
    const result: Result = { tasks: page.tasks.map(legacyTask) };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return result;
  },
  /** 2025-11-25: a final task cannot be cancelled (-32602); a cancelled one is answered once it is recorded. */
  async [TaskMethod.Cancel](server, params, ctx) {
    const store = storeOf(server);
    const principal = principalOf(ctx);
    const first = await found(server, params, ctx);
    if (isFinal(first.status)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Cannot cancel task: already in terminal status '${legacyTask(first).status}'`,
      );
    }
    if (!(await store.requestCancel(first.taskId, principal))) throw notFound(first.taskId);
    const record = await untilFinal(store, first, principal, ctx.signal, CANCEL_WAIT_MS);
    if (record === undefined) throw notFound(first.taskId);
    return legacyTask(record);
  },
};
