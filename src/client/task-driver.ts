import { McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import { RequestCancelledError, RequestTimeoutError } from '../peer/errors.js';
import type { RequestOptions } from '../peer/peer-options.js';
import type { InputRequests, InputResponses } from '../protocol/modern-types.js';
import { isFinal, TaskMethod } from '../protocol/tasks.js';
import type { CallToolResult } from '../protocol/types.js';
import type { Era } from '../protocol/versions.js';
import type { Clock } from '../util/clock.js';
import { newer, type TaskInbox } from './task-inbox.js';
import {
  type ClientTaskOptions,
  readTask,
  type Task,
  TaskCancelledError,
  type TaskRequestOptions,
} from './task-types.js';

/** What following a task needs of its session. */
export interface TaskHost {
  readonly era: Era;
  /** Sends a request as the session's era does (modern: the `_meta` envelope, `Mcp-Name: <taskId>`). */
  request<R>(method: string, params: Params, options: RequestOptions): Promise<R>;
  /** Fulfils a task's input requests with the Client's handlers (modern). */
  fulfil(requests: InputRequests, signal: AbortSignal): Promise<InputResponses>;
  /** What the server pushes of the task, while it is followed. */
  follow(taskId: string): TaskInbox;
  /** False when a legacy server did not declare `tasks.cancel`. */
  readonly canCancel: boolean;
  readonly clock: Clock;
  /** The session's `maxTotalTimeoutMs`, for calls that give none. */
  readonly maxTotalTimeoutMs: number;
  readonly limits: Required<Omit<ClientTaskOptions, 'ttlMs'>>;
  report(err: Error): void;
}

/** The label of what the caller waits for, in the errors it may get. */
const CALL = 'tools/call';

/**
 * Follows a task to its end and resolves with the tool call's result. It hears what the server pushes of the task
 * (its inbox: 2026 `notifications/tasks` on the session's listen stream, 2025 `notifications/tasks/status`) and
 * polls `tasks/get`: at the server's `pollIntervalMs` (bounded by the client's limits) while nothing pushes the
 * task's changes, at the longest interval (`maxPollIntervalMs`) while something does, and once whenever pushes may
 * have missed a change. It calls `ontask` when the status or message changes, and on `input_required` answers
 * with the Client's handlers: modern, each new key of `inputRequests` once, sent with `tasks/update`. Legacy, it
 * waits on `tasks/result` from the start (the server sends its requests on that stream, which the handlers
 * answer, and answers it once the task is final): while it waits nothing needs polling but `ontask`.
 *
 * `completed` resolves with the result (legacy: what `tasks/result` answers, a tool error included),
 * `failed` rejects with the task's JSON-RPC error as an McpError, `cancelled` with TaskCancelledError.
 *
 * Time: `timeout` bounds each poll (a poll answered is the server alive, as progress is for a plain request; a
 * legacy `tasks/result` waits as long as the task runs), `maxTotalTimeoutMs` the whole call from the start. When
 * the caller gives up (its signal aborts, the total time runs out, a handler fails) the task is cancelled with
 * `tasks/cancel` before the rejection; errors of the server or the connection leave it running, to be resumed
 * by its id.
 */
export async function driveTask(
  host: TaskHost,
  first: Task,
  options: TaskRequestOptions = {},
): Promise<CallToolResult> {
  const { signal, ontask } = options;
  const taskId = first.taskId;
  const started = host.clock.now();
  const maxTotal = options.maxTotalTimeoutMs ?? host.maxTotalTimeoutMs;
  const answered = new Set<string>();
  const inbox = host.follow(taskId);
  let task = first;
  let shown: string | undefined;
  /** Legacy: the `tasks/result` in flight. */
  let waiter: Promise<CallToolResult> | undefined;
  let giveUp = false;

  const remaining = () => maxTotal - (host.clock.now() - started);
  const requestOptions = (timeout = options.timeoutMs): RequestOptions => {
    const left = remaining();
    if (left <= 0) {
      giveUp = true;
      throw new RequestTimeoutError(CALL, maxTotal, 'maxTotalTimeoutMs');
    }
    return { signal, timeoutMs: timeout, maxTotalTimeoutMs: Number.isFinite(left) ? left : undefined };
  };
  const legacyResult = () => {
    waiter ??= host.request<CallToolResult>(
      TaskMethod.Result,
      { taskId },
      requestOptions(Number.POSITIVE_INFINITY),
    );
    // It may fail while a poll is awaited; the loop reads the failure when it next races it.
    waiter.catch(() => {});
    return waiter;
  };
  const poll = async () =>
    readTask(
      await host.request<Record<string, unknown>>(TaskMethod.Get, { taskId }, requestOptions()),
      host.era,
      TaskMethod.Get,
    );

  const tell = (current: Task) => {
    const seen = `${current.status}\0${current.statusMessage ?? ''}`;
    if (seen === shown) return;
    shown = seen;
    try {
      ontask?.(current);
    } catch (err) {
      host.report(err as Error);
    }
  };

  /** Legacy: tasks/result answered; `ontask` hears the final status, as pushed or, if none was, polled once. */
  const tellFinal = async () => {
    if (ontask === undefined) return;
    const { pushed } = inbox.take();
    if (pushed !== undefined) task = newer(task, pushed);
    try {
      if (!isFinal(task.status)) task = newer(task, await poll());
    } catch {
      return; // The result is in hand; a task the server already let go of has no status left to tell.
    }
    tell(task);
  };

  try {
    for (;;) {
      tell(task);
      if (task.status === 'cancelled') throw new TaskCancelledError(taskId, task.statusMessage);
      // Modern: what the status promises rides with the task, except on a CreateTaskResult (polled for it).
      if (host.era === 'modern') {
        if (task.result !== undefined) return task.result;
        if (task.error !== undefined) throw McpError.fromObject(task.error);
        if (task.inputRequests !== undefined) await answer(task, requestOptions());
      } else {
        const waiting = legacyResult();
        if (isFinal(task.status)) {
          const result = await waiting;
          await tellFinal();
          return result;
        }
      }
      // A final state without its payload (a CreateTaskResult) is read at once; nothing will be pushed after it.
      const every = isFinal(task.status)
        ? 0
        : inbox.live
          ? host.limits.maxPollIntervalMs
          : interval(host, task);
      const pause = sleep(host.clock, Math.min(every, Math.max(0, remaining())), signal);
      let woke: 'timer' | 'inbox' | CallToolResult;
      try {
        woke = await Promise.race([
          pause.done.then(() => 'timer' as const),
          inbox.arrival().then(() => 'inbox' as const),
          ...(waiter === undefined ? [] : [waiter]),
        ]);
      } finally {
        pause.stop();
      }
      if (typeof woke === 'object') {
        await tellFinal();
        return woke;
      }
      const { pushed, reread } = inbox.take();
      if (pushed !== undefined) task = newer(task, pushed);
      if (woke === 'timer' || reread) task = newer(task, await poll());
    }
  } catch (err) {
    if (err instanceof RequestTimeoutError && err.limit === 'maxTotalTimeoutMs') giveUp = true;
    if (signal?.aborted || giveUp) {
      await cancel(host, taskId, options.timeoutMs);
      if (signal?.aborted) throw new RequestCancelledError(CALL, signal.reason);
    }
    throw err;
  } finally {
    inbox.stop();
  }

  /** Modern: the input requests not answered yet, fulfilled and sent with tasks/update. */
  async function answer(current: Task, sending: RequestOptions): Promise<void> {
    const requests = current.inputRequests ?? {};
    const fresh: InputRequests = {};
    for (const key of Object.keys(requests)) if (!answered.has(key)) fresh[key] = requests[key];
    if (Object.keys(fresh).length === 0) return;
    let inputResponses: InputResponses;
    try {
      inputResponses = await host.fulfil(fresh, signal ?? new AbortController().signal);
    } catch (err) {
      // The client cannot go on, and nobody else will answer: the task would wait until it expires.
      giveUp = true;
      throw err;
    }
    await host.request(TaskMethod.Update, { taskId, inputResponses }, sending);
    for (const key of Object.keys(fresh)) answered.add(key);
  }
}

/** `tasks/cancel`, best effort: a failure is reported, never thrown over the error that led here. */
export async function cancel(host: TaskHost, taskId: string, timeout: number | undefined): Promise<void> {
  if (!host.canCancel) {
    host.report(new Error(`Task ${taskId} is left to run: the server did not declare tasks.cancel`));
    return;
  }
  try {
    await host.request(TaskMethod.Cancel, { taskId }, { timeoutMs: timeout });
  } catch (err) {
    host.report(new Error(`Could not cancel task ${taskId}: ${(err as Error).message}`, { cause: err }));
  }
}

/** The server's interval, within the client's bounds. */
function interval(host: TaskHost, task: Task): number {
  const { minPollIntervalMs, maxPollIntervalMs, defaultPollIntervalMs } = host.limits;
  const asked = task.pollIntervalMs ?? defaultPollIntervalMs;
  return Math.min(maxPollIntervalMs, Math.max(minPollIntervalMs, asked));
}

/**
 * Waits `ms` on the session's clock: `done` resolves undefined then, and rejects at once when the caller aborts;
 * `stop` ends the wait early (its timer and listener gone), leaving `done` pending.
 */
function sleep(
  clock: Clock,
  ms: number,
  signal: AbortSignal | undefined,
): { done: Promise<undefined>; stop: () => void } {
  let stop = () => {};
  const done = new Promise<undefined>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new RequestCancelledError(CALL, signal.reason));
      return;
    }
    const onAbort = () => {
      stop();
      reject(new RequestCancelledError(CALL, signal!.reason));
    };
    const handle = clock.setTimeout(() => {
      stop();
      resolve(undefined);
    }, ms);
    // Unlike a request's timer, this wait is what the caller awaits: it must keep the process alive.
    (handle as { ref?: () => void }).ref?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    stop = () => {
      clock.clearTimeout(handle);
      signal?.removeEventListener('abort', onAbort);
    };
  });
  return { done, stop };
}
