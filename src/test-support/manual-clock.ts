import type { Clock } from '../util/clock.js';

/**
 * A clock that moves only when told to, for tests of timeouts: `advance(ms)` runs, in time
 * order, every timer that falls due.
 */
export class ManualClock implements Clock {
  private time = 0;
  private nextHandle = 1;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const handle = this.nextHandle++;
    this.timers.set(handle, { at: this.time + Math.max(0, ms), fn });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Timers still waiting. */
  get pending(): number {
    return this.timers.size;
  }

  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      let dueHandle: number | undefined;
      let dueAt = Number.POSITIVE_INFINITY;
      for (const [handle, t] of this.timers) {
        if (t.at <= target && t.at < dueAt) {
          dueAt = t.at;
          dueHandle = handle;
        }
      }
      if (dueHandle === undefined) break;
      const timer = this.timers.get(dueHandle)!;
      this.timers.delete(dueHandle);
      this.time = timer.at;
      timer.fn();
    }
    this.time = target;
  }
}
