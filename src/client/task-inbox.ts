import { isFinal } from '../protocol/tasks.js';
import type { Task } from './task-types.js';

/** Where a session hears what the server pushes of its tasks, in its era (one feed per session). */
export interface TaskFeed {
  /** An inbox for the pushes about `taskId`, until its `stop`. */
  follow(taskId: string): TaskInbox;
  /**
   * The session closed: every inbox, and any made later, is told to read its task again at once. That read fails
   * (the session is closed), so a driver waiting for its next poll ends now, not when the poll was due.
   */
  end(): void;
}

/**
 * What the server pushed of one task a driver follows: the newest state heard (`notifications/tasks` of 2026,
 * `notifications/tasks/status` of 2025), word to read the task again (pushes may have missed changes: a stream
 * opened, broke, or stopped covering it), and whether pushes cover it now (`live`), which is when the driver
 * polls only as a safety net. The feed writes it; one driver reads it.
 */
export class TaskInbox {
  /** True while the server is known to push this task's changes. */
  live = false;
  private pushed: Task | undefined;
  private reread = false;
  private wake: (() => void) | undefined;

  constructor(
    readonly taskId: string,
    private readonly leave: (inbox: TaskInbox) => void,
  ) {}

  /** Resolves once something came since the last `take` (at once if it has). */
  arrival(): Promise<void> {
    if (this.pushed !== undefined || this.reread) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /** What came since the last `take`: the newest state pushed, and whether to read the task again. */
  take(): { pushed: Task | undefined; reread: boolean } {
    const taken = { pushed: this.pushed, reread: this.reread };
    this.pushed = undefined;
    this.reread = false;
    return taken;
  }

  /** The driver is done with it. */
  stop(): void {
    this.leave(this);
  }

  /** @internal The feed heard a state of the task. */
  push(task: Task): void {
    this.pushed = this.pushed === undefined ? task : newer(this.pushed, task);
    this.ring();
  }

  /** @internal Pushes cover the task from now on, or no longer: either way, read it once. */
  cover(live: boolean): void {
    if (live === this.live) return;
    this.live = live;
    this.resync();
  }

  /** @internal Pushes may have been missed (a stream broke and was opened again). */
  resync(): void {
    this.reread = true;
    this.ring();
  }

  private ring(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** A feed's inboxes, by task id; `emptied` is told when the last one stops. */
export class Inboxes {
  private readonly byId = new Map<string, Set<TaskInbox>>();
  private ended = false;

  constructor(private readonly emptied: () => void) {}

  /** A new inbox for `taskId`. */
  add(taskId: string): TaskInbox {
    const inbox = new TaskInbox(taskId, this.leave);
    if (this.ended) inbox.resync();
    const inboxes = this.byId.get(taskId) ?? new Set();
    inboxes.add(inbox);
    this.byId.set(taskId, inboxes);
    return inbox;
  }

  /** The inboxes of `taskId`. */
  of(taskId: unknown): Iterable<TaskInbox> {
    return this.byId.get(taskId as string) ?? [];
  }

  /** Every inbox. */
  *all(): Iterable<TaskInbox> {
    for (const inboxes of this.byId.values()) yield* inboxes;
  }

  /** The feed ended (`TaskFeed.end`): every inbox, and any added later, reads its task again. */
  end(): void {
    this.ended = true;
    for (const inbox of this.all()) inbox.resync();
  }

  /** The task ids followed now. */
  ids(): string[] {
    return [...this.byId.keys()];
  }

  get size(): number {
    return this.byId.size;
  }

  private readonly leave = (inbox: TaskInbox): void => {
    const inboxes = this.byId.get(inbox.taskId);
    if (!inboxes?.delete(inbox)) return;
    if (inboxes.size === 0) this.byId.delete(inbox.taskId);
    if (this.byId.size === 0) this.emptied();
  };
}

/**
 * The later of two states of a task: pushes and polls may cross, so `incoming` is kept unless it was updated
 * before `held`, or `held` is final and `incoming` is not (a final task never changes again).
 */
export function newer(held: Task, incoming: Task): Task {
  if (isFinal(held.status) && !isFinal(incoming.status)) return held;
  return Date.parse(incoming.lastUpdatedAt) < Date.parse(held.lastUpdatedAt) ? held : incoming;
}
