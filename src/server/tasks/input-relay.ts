import { ErrorCode, McpError, toErrorObject } from '../../jsonrpc/errors.js';
import type { Params } from '../../jsonrpc/types.js';
import { CapabilityError } from '../../peer/errors.js';
import type { InputRequest } from '../../protocol/modern-types.js';
import { TaskMethod } from '../../protocol/tasks.js';
import type { TaskRecord, TaskStore } from '../../tasks/task-store.js';
import { clientCallProblem } from '../client-capabilities.js';
import type { ServerContext } from '../context.js';
import { legacyTask, relatedTask } from './task-wire.js';

/**
 * Where an answer of the client is the JSON-RPC error it sent instead of a result: the handler's call rejects
 * with it. Only this relay sets it; a 2026 `tasks/update` carrying it is refused (`refuseClientError`).
 */
const CLIENT_ERROR = 'mcpwire/clientError';

/** The error a relayed answer carries, if it is one. */
export function relayedError(answer: unknown): McpError | undefined {
  const error = (answer as Record<string, unknown> | null | undefined)?.[CLIENT_ERROR] as
    | { code: number; message: string; data?: unknown }
    | undefined;
  return error === undefined ? undefined : McpError.fromObject(error);
}

/** -32602 for a 2026 answer that claims to be a relayed error: it is the server's to set. */
export function refuseClientError(inputResponses: Record<string, unknown>): void {
  for (const key of Object.keys(inputResponses)) {
    const answer = inputResponses[key];
    if (typeof answer === 'object' && answer !== null && Object.hasOwn(answer, CLIENT_ERROR)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid params: inputResponses.${key} has "${CLIENT_ERROR}", which only the server sets; answer with the result itself`,
      );
    }
  }
}

/**
 * 2025-11-25: what a task asks of the client goes where the client waits for it, the stream of its `tasks/result`
 * (the spec's input_required flow), whichever session and process that is: the task's `inputRequests` (held in
 * the store, so any process sees them) are sent as requests related to the `tasks/result`, tagged with the task,
 * and each answer goes back through the store to the task's runner (`respond`, once per key: the first answer
 * wins). An error the client answers with (or a timeout, or its session lacking the capability) reaches the
 * handler's call as that error; a waiter that goes away first answers nothing, and the next one asks again. The
 * task as it is when the wait begins, and at each change, is also told on that stream (`notifications/tasks/status`),
 * so the client that waits hears how it goes, whichever session it waits on.
 */
export class InputRelay {
  private readonly asked = new Set<string>();
  private readonly done = new AbortController();

  constructor(
    private readonly store: TaskStore,
    private readonly ctx: ServerContext,
    private readonly report: (err: unknown) => void,
  ) {}

  /** The task as read; `fresh`: at the start of the wait or as a change was heard, so the client is told. */
  readonly observe = (record: TaskRecord, fresh: boolean): void => {
    if (fresh) this.ctx.notify(TaskMethod.StatusNotification, legacyTask(record)).catch(this.report);
    if (record.status !== 'input_required' || record.inputRequests === undefined) return;
    for (const [key, request] of Object.entries(record.inputRequests)) {
      if (this.asked.has(key)) continue;
      this.asked.add(key);
      this.relay(record, key, request);
    }
  };

  /** The wait is over: what is still out is withdrawn (the client is told, and its late answer dropped). */
  stop(): void {
    this.done.abort();
  }

  private async relay(record: TaskRecord, key: string, request: InputRequest): Promise<void> {
    const ctx = this.ctx;
    const params: Params = {
      ...request.params,
      _meta: {
        ...(request.params?._meta as Record<string, unknown> | undefined),
        ...relatedTask(record.taskId),
      },
    };
    let answer: unknown;
    try {
      const problem = clientCallProblem(ctx.session?.clientCapabilities, request.method, params);
      if (problem !== undefined) throw new CapabilityError(problem);
      answer = await ctx.request(request.method, params, { signal: this.done.signal });
    } catch (err) {
      if (ctx.signal.aborted || this.done.signal.aborted) return;
      answer = { [CLIENT_ERROR]: toErrorObject(err) };
    }
    await this.store.respond(record.taskId, record.principal, { [key]: answer }).catch(this.report);
  }
}
