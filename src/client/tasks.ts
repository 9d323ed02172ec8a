import { isObject } from '../jsonrpc/parse.js';
import { CapabilityError } from '../peer/errors.js';
import type { RequestOptions } from '../peer/peer-options.js';
import type { InputResponses } from '../protocol/modern-types.js';
import { TASKS_EXTENSION, TaskMethod } from '../protocol/tasks.js';
import type { CallToolResult, Cursor, JsonObject, ServerCapabilities } from '../protocol/types.js';
import { sendToolCall, type TaskSession, taskHost } from './task-call.js';
import { driveTask, type TaskHost } from './task-driver.js';
import { createdTask, readTask, type Task, type TaskRequestOptions, type TaskStart } from './task-types.js';

/** One page of `tasks/list` (legacy era). */
export interface TaskListPage {
  readonly tasks: Task[];
  readonly nextCursor?: string;
}

/**
 * `session.tasks`: tool calls as tasks, followed by hand (the Tasks extension `io.modelcontextprotocol/tasks`
 * in the modern era, 2025-11-25's experimental tasks in the legacy one). `callTool` already runs a task to its
 * end when the server answers with one; this is for a caller that keeps the id and picks the task up later,
 * from any connection to the same server (and, where the server binds tasks to a principal, as the same one).
 *
 * Every method needs the Client option `tasks` and a server that declared tasks; otherwise it rejects with
 * CapabilityError, sending nothing.
 */
export class ClientTasks {
  constructor(private readonly session: TaskSession) {}

  /**
   * Calls a tool, leaving a task to the caller: `{ task }` when the server made one (the server decides in
   * the modern era; in the legacy era this asks for one when the tool's `execution.taskSupport` allows),
   * `{ result }` when it answered at once.
   */
  async start(name: string, args?: JsonObject, options?: RequestOptions): Promise<TaskStart> {
    const host = this.check();
    const support = await this.session.lookup(name, options);
    const { answer } = await sendToolCall(this.session, name, args, support, options);
    const task = createdTask(answer, host.era);
    return task === undefined ? { result: answer as CallToolResult } : { task };
  }

  /** The task as the server has it now (`tasks/get`). */
  async get(taskId: string, options: RequestOptions = {}): Promise<Task> {
    const host = this.check();
    const raw = await host.request<Record<string, unknown>>(TaskMethod.Get, { taskId }, options);
    return readTask(raw, host.era, TaskMethod.Get);
  }

  /**
   * Answers the task's input requests, by their keys (`tasks/update`; modern era only: a legacy server asks
   * over the session, and the Client's handlers answer there).
   */
  async update(taskId: string, inputResponses: InputResponses, options: RequestOptions = {}): Promise<void> {
    const host = this.check();
    if (host.era !== 'modern') {
      throw new CapabilityError(
        'tasks/update belongs to the Tasks extension (2026-07-28); a 2025-11-25 server asks for input over ' +
          'the session, where the Client handlers answer: use resume()',
      );
    }
    await host.request(TaskMethod.Update, { taskId, inputResponses }, options);
  }

  /** Asks the server to cancel the task (`tasks/cancel`); cancellation is cooperative. */
  async cancel(taskId: string, options: RequestOptions = {}): Promise<void> {
    const host = this.check();
    if (!host.canCancel) {
      throw new CapabilityError('The server did not declare tasks.cancel, so tasks/cancel was not sent');
    }
    await host.request(TaskMethod.Cancel, { taskId }, options);
  }

  /**
   * Follows a task by its id to its end and resolves with the tool call's result, as callTool would have:
   * input requests answered with the Client's handlers, `ontask` told of each status, the task cancelled
   * when `signal` aborts. The result is not checked against the tool's outputSchema (the tool is not named).
   */
  async resume(taskId: string, options: TaskRequestOptions = {}): Promise<CallToolResult> {
    return this.follow(await this.get(taskId, options), options);
  }

  /** Follows a task already read (from `start` or `get`) to its end; see `resume`. */
  follow(task: Task, options: TaskRequestOptions = {}): Promise<CallToolResult> {
    return driveTask(this.check(), task, options);
  }

  /** One page of this client's tasks (`tasks/list`; legacy era only, and when the server declared `tasks.list`). */
  async list(cursor?: Cursor, options: RequestOptions = {}): Promise<TaskListPage> {
    const host = this.check();
    if (host.era === 'modern') {
      throw new CapabilityError(
        "The Tasks extension has no tasks/list (a server must not reveal one caller's tasks to another): " +
          'keep the ids of the tasks you start',
      );
    }
    if ((this.session.capabilities().tasks as { list?: unknown }).list === undefined) {
      throw new CapabilityError('The server did not declare tasks.list, so tasks/list was not sent');
    }
    const page = await host.request<{ tasks?: unknown; nextCursor?: unknown }>(
      TaskMethod.List,
      cursor === undefined ? {} : { cursor },
      options,
    );
    const tasks = Array.isArray(page.tasks) ? page.tasks : [];
    return {
      tasks: tasks.map((t) => readTask(t as Record<string, unknown>, 'legacy', TaskMethod.List)),
      ...(typeof page.nextCursor === 'string' ? { nextCursor: page.nextCursor } : {}),
    };
  }

  /** The host, once the Client enabled tasks and the server declared them. */
  private check(): TaskHost {
    if (this.session.limits === undefined) {
      throw new CapabilityError('Tasks are off for this client: give the Client the option `tasks: true`');
    }
    const host = taskHost(this.session);
    if (!serverTakesTasks(this.session.capabilities(), host.era)) {
      throw new CapabilityError(
        host.era === 'modern'
          ? `The server did not declare the ${TASKS_EXTENSION} extension, so no task request was sent`
          : 'The server did not declare the tasks capability, so no task request was sent',
      );
    }
    return host;
  }
}

/** Whether the server declared tasks: the extension (modern), the experimental `tasks` capability (legacy). */
export function serverTakesTasks(capabilities: ServerCapabilities, era: TaskHost['era']): boolean {
  if (era === 'legacy') return isObject(capabilities.tasks);
  const extensions = capabilities.extensions as Record<string, unknown> | undefined;
  return isObject(extensions?.[TASKS_EXTENSION]);
}
