import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import { CapabilityError } from '../peer/errors.js';
import { TaskMethod } from '../protocol/tasks.js';
import type { Listen } from './listen.js';
import { Inboxes, type TaskFeed, type TaskInbox } from './task-inbox.js';
import { readTask } from './task-types.js';

/** One listen stream and the task ids its acknowledgement honoured. */
interface Stream {
  readonly listen: Listen;
  readonly ids: ReadonlySet<string>;
}

/**
 * 2026-07-28, the Tasks extension: `notifications/tasks` on one `subscriptions/listen` stream per session, whose
 * filter names every task the session follows. A task followed anew opens a stream naming it too (the follows of
 * one turn together), and the old stream closes once the new one is acknowledged, so no change falls between;
 * the stream closes when nothing is followed. A task counts as covered (`live`) from the acknowledgement that
 * honours its id, and the inbox is told to read it once then (what changed before was not pushed), and again
 * after a stream broke and was opened again. When the stream cannot be had (a refusal, a server that honours no
 * task ids, a stream that ends or fails for good) the followed tasks are polled; a server without listen or task
 * notifications is not asked again by this session.
 */
export class ModernTaskFeed implements TaskFeed {
  private readonly inboxes = new Inboxes(() => this.refresh());
  private current: Stream | undefined;
  /** A stream is being opened; `again`: the followed set changed meanwhile. */
  private opening = false;
  private again = false;
  /** The server has no task notifications for this session: poll. */
  private off = false;

  constructor(
    /** Opens a listen for these task ids (`ClientSession.listen`). */
    private readonly open: (taskIds: string[]) => Promise<Listen>,
    private readonly report: (err: Error) => void,
  ) {}

  follow(taskId: string): TaskInbox {
    const inbox = this.inboxes.add(taskId);
    if (this.current?.ids.has(taskId)) inbox.cover(true);
    else this.refresh();
    return inbox;
  }

  end(): void {
    this.off = true;
    this.inboxes.end();
  }

  /** Makes the stream name what is followed now, or closes it when nothing is. */
  private refresh(): void {
    if (this.off) return;
    if (this.opening) {
      this.again = true;
      return;
    }
    const wanted = this.inboxes.ids();
    const current = this.current;
    if (wanted.length === 0) {
      this.current = undefined;
      current?.listen.close().catch(() => {});
      return;
    }
    if (current !== undefined && wanted.every((id) => current.ids.has(id))) return;
    this.opening = true;
    // The follows of this turn (a Promise.all of calls) go on one stream.
    queueMicrotask(() => this.openStream());
  }

  private async openStream(): Promise<void> {
    let stream: Stream | undefined;
    try {
      const listen = await this.open(this.inboxes.ids());
      const ids = new Set(listen.honoured.taskIds ?? []);
      if (ids.size === 0) {
        this.off = true;
        await listen.close();
      } else stream = { listen, ids };
    } catch (err) {
      if (refusedForGood(err)) this.off = true;
      else this.report(new Error(`Task notifications unavailable, polling: ${(err as Error).message}`));
    }
    this.opening = false;
    if (stream !== undefined) this.switchTo(stream);
    if (this.again || this.inboxes.size === 0) {
      this.again = false;
      this.refresh();
    }
  }

  private switchTo(stream: Stream): void {
    const previous = this.current;
    this.current = stream;
    previous?.listen.close().catch(() => {});
    for (const inbox of this.inboxes.all()) inbox.cover(stream.ids.has(inbox.taskId));
    this.read(stream).catch((err) => this.report(err as Error));
  }

  private async read(stream: Stream): Promise<void> {
    for await (const event of stream.listen) {
      if (event.type === 'resync') {
        for (const inbox of this.inboxes.all()) if (stream.ids.has(inbox.taskId)) inbox.resync();
        continue;
      }
      const notification = event.notification;
      if (notification.method !== TaskMethod.Notification) continue;
      const inboxes = [...this.inboxes.of(notification.params?.taskId)];
      if (inboxes.length === 0) continue;
      try {
        const task = readTask(notification.params!, 'modern', notification.method);
        for (const inbox of inboxes) inbox.push(task);
      } catch (err) {
        this.report(err as Error);
      }
    }
    // Closed by this feed (replaced, or nothing followed), ended by the server, or failed for good.
    if (this.current !== stream) return;
    this.current = undefined;
    for (const inbox of this.inboxes.all()) inbox.cover(false);
  }
}

/** A refusal that will not change for this session: no listen, or no task notifications on it. */
function refusedForGood(err: unknown): boolean {
  return err instanceof CapabilityError || (err instanceof McpError && err.code === ErrorCode.MethodNotFound);
}
