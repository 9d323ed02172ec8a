import type { JsonRpcNotification } from '../jsonrpc/types.js';
import { TaskMethod } from '../protocol/tasks.js';
import { Inboxes, type TaskFeed, type TaskInbox } from './task-inbox.js';
import { readTask, type Task } from './task-types.js';

/**
 * 2025-11-25: `notifications/tasks/status` as they reach the session, on any of its streams (mcpwire's server
 * sends them on the stream of the `tasks/result` the driver waits on). That revision declares no such thing, and
 * a server may send them for some changes only: a task's pushes count as covering it (`live`) once one for it was
 * heard, and the driver still polls, at its longest interval.
 */
export class LegacyTaskFeed implements TaskFeed {
  private readonly inboxes = new Inboxes(() => {
    this.off?.();
    this.off = undefined;
  });
  private off: (() => void) | undefined;

  constructor(
    /** The session's notifications, until the returned function is called. */
    private readonly notifications: (listener: (n: JsonRpcNotification) => void) => () => void,
    private readonly report: (err: Error) => void,
  ) {}

  follow(taskId: string): TaskInbox {
    const inbox = this.inboxes.add(taskId);
    this.off ??= this.notifications(this.heard);
    return inbox;
  }

  end(): void {
    this.inboxes.end();
  }

  private readonly heard = (notification: JsonRpcNotification): void => {
    if (notification.method !== TaskMethod.StatusNotification) return;
    const inboxes = [...this.inboxes.of(notification.params?.taskId)];
    if (inboxes.length === 0) return;
    let task: Task;
    try {
      task = readTask(notification.params!, 'legacy', notification.method);
    } catch (err) {
      this.report(err as Error);
      return;
    }
    for (const inbox of inboxes) {
      inbox.live = true;
      inbox.push(task);
    }
  };
}
