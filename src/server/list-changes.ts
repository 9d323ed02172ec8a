import { type Access, admits, type Caller } from './access.js';
import type { ChangeAudience } from './registry.js';
import type { ServerEvent } from './server-events.js';

/**
 * The list changes of one tick, and whom each concerns: a kind changed for a caller when an entry of that kind
 * that was, or now is, for them changed. A change to an entry every caller sees concerns everyone, and so does
 * every change in a tick when none was guarded: the event then carries no audience, and costs nothing per caller.
 */
export class ListChanges {
  private kinds = 0;
  /** Kinds with a change that concerns every caller. */
  private everyone = 0;
  /** The guarded entries' accesses that changed, with their kind. */
  private guarded: { kind: number; access: Access }[] = [];

  /** `publish` hears each tick's changes as one event, at the end of the tick. */
  constructor(private readonly publish: (event: ServerEvent) => void) {}

  add(kind: number, audience: ChangeAudience): void {
    if (this.kinds === 0) queueMicrotask(this.flush);
    this.kinds |= kind;
    for (const access of audience) {
      if (access === undefined) this.everyone |= kind;
      else if ((this.everyone & kind) === 0) this.guarded.push({ kind, access });
    }
  }

  private readonly flush = (): void => {
    this.publish(this.take());
  };

  /** The event that tells this tick's changes; the accumulator is empty again. */
  private take(): ServerEvent {
    const { kinds, everyone, guarded } = this;
    this.kinds = 0;
    this.everyone = 0;
    this.guarded = [];
    if (everyone === kinds) return { type: 'lists_changed', kinds };
    return {
      type: 'lists_changed',
      kinds,
      kindsFor(caller: Caller): number {
        let heard = everyone;
        for (const { kind, access } of guarded)
          if ((heard & kind) === 0 && admits(access, caller)) heard |= kind;
        return heard;
      },
    };
  }
}
