import type { Params } from '../jsonrpc/types.js';
import type { RequestOptions } from '../peer/peer-options.js';
import type { InputRequests, InputResponses } from '../protocol/modern-types.js';
import type { TaskSupport } from '../protocol/tasks.js';
import {
  type CallToolResult,
  type JsonObject,
  Method,
  type ProgressNotificationParams,
  type ServerCapabilities,
} from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import type { Clock } from '../util/clock.js';
import type { Client } from './client.js';
import { driveTask, type TaskHost } from './task-driver.js';
import type { TaskInbox } from './task-inbox.js';
import { createdTask, type TaskRequestOptions } from './task-types.js';

/** What tool calls as tasks need of their ClientSession. */
export interface TaskSession {
  era(): Era;
  capabilities(): ServerCapabilities;
  /** `Client.tasks`: the limits, or undefined when tasks are off. */
  readonly limits: Client['tasks'];
  /** A request as the session's era sends it. */
  request<R>(method: string, params: Params, options: RequestOptions | undefined): Promise<R>;
  fulfil(requests: InputRequests, signal: AbortSignal): Promise<InputResponses>;
  /** An inbox for what the server pushes of `taskId` (the session's task feed). */
  follow(taskId: string): TaskInbox;
  /** The session closed: its task feed ends (`TaskFeed.end`). */
  end(): void;
  /** Progress no pending request claims, until the returned function is called. */
  onProgress(listener: (params: ProgressNotificationParams) => void): () => void;
  /** The capability check of tools/call, then what tools/list said of the tool. */
  lookup(name: string, options: RequestOptions | undefined): Promise<TaskSupport | undefined>;
  readonly clock: Clock;
  readonly maxTotalTimeoutMs: number;
  report(err: Error): void;
}

/** A tools/call answered, as `followToolCall` needs it. */
export interface SentCall {
  readonly answer: Record<string, unknown>;
  /** Legacy, when a task was asked for with `onprogress`: the token its progress goes on under. */
  readonly progressToken?: string;
}

let calls = 0;

/** The TaskHost of a session: how a task is followed there. Only made with tasks on. */
export function taskHost(session: TaskSession): TaskHost {
  const era = session.era();
  const tasks = session.capabilities().tasks as { cancel?: unknown } | undefined;
  return {
    era,
    request: (method, params, options) => session.request(method, params, options),
    fulfil: (requests, signal) => session.fulfil(requests, signal),
    follow: (taskId) => session.follow(taskId),
    canCancel: era === 'modern' || tasks?.cancel !== undefined,
    clock: session.clock,
    maxTotalTimeoutMs: session.maxTotalTimeoutMs,
    limits: session.limits!,
    report: (err) => session.report(err),
  };
}

/**
 * Sends tools/call. A legacy one asks for a task (2025-11-25: the client decides) when tasks are on, the
 * server declared `tasks.requests.tools.call` and the tool's `taskSupport` is `optional` or `required`; a
 * modern one never does (the server decides, from the extension the request declares).
 */
export async function sendToolCall(
  session: TaskSession,
  name: string,
  args: JsonObject | undefined,
  support: TaskSupport | undefined,
  options: RequestOptions | undefined,
): Promise<SentCall> {
  const params: Params = args === undefined ? { name } : { name, arguments: args };
  const limits = session.limits;
  const takes = (session.capabilities().tasks as { requests?: { tools?: { call?: unknown } } } | undefined)
    ?.requests?.tools?.call;
  let progressToken: string | undefined;
  if (
    session.era() === 'legacy' &&
    limits !== undefined &&
    takes !== undefined &&
    (support === 'optional' || support === 'required')
  ) {
    params.task = limits.ttlMs === undefined ? {} : { ttl: limits.ttlMs };
    // A token of our own, known past the call's answer: the task's progress goes on under it (2025-11-25).
    if (options?.onprogress !== undefined) {
      progressToken = `task-${++calls}`;
      params._meta = { progressToken };
    }
  }
  const answer = await session.request<Record<string, unknown>>(Method.ToolsCall, params, options);
  return { answer, progressToken };
}

/** The call's result: the answer itself, or, when it is a task, what following the task gives. */
export async function followToolCall(
  session: TaskSession,
  sent: SentCall,
  options: TaskRequestOptions | undefined,
): Promise<CallToolResult> {
  // Without tasks on, nothing was asked for: a `task` member of a legacy result is only a member.
  const task = session.limits === undefined ? undefined : createdTask(sent.answer, session.era());
  if (task === undefined) return sent.answer as CallToolResult;
  const { progressToken } = sent;
  const onprogress = options?.onprogress;
  const off =
    progressToken === undefined || onprogress === undefined
      ? undefined
      : session.onProgress((p) => {
          if (p.progressToken === progressToken) {
            onprogress({ progress: p.progress, total: p.total, message: p.message });
          }
        });
  try {
    return await driveTask(taskHost(session), task, options);
  } finally {
    off?.();
  }
}
