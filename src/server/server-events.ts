import type { Caller } from './access.js';

/** Which lists changed, as bits, so that the changes of one tick make one notification per kind. */
export const ListKind = { Tools: 1, Resources: 2, Prompts: 4 } as const;

/**
 * What a server tells its clients without being asked: lists that changed (one event per tick, `kinds` a set
 * of `ListKind` bits) and a resource that was updated. Legacy sessions and modern listen streams each
 * subscribe; each decides what its client asked for. `remote`: published by another process of a cluster
 * (see src/cluster/event-bus.ts), so not to be sent to the others again.
 */
export type ServerEvent =
  | {
      readonly type: 'lists_changed';
      readonly kinds: number;
      /**
       * Which of `kinds` changed for this caller, when some changes concern only some callers (entries guarded by
       * an `Access`); absent: all of them, for everyone.
       */
      readonly kindsFor?: (caller: Caller) => number;
      readonly remote?: true;
    }
  | { readonly type: 'resource_updated'; readonly uri: string; readonly remote?: true };

/** The kinds of a `lists_changed` event that changed for `caller`. */
export function kindsHeardBy(event: Extract<ServerEvent, { type: 'lists_changed' }>, caller: Caller): number {
  return event.kindsFor === undefined ? event.kinds : event.kindsFor(caller);
}

export type ServerEventListener = (event: ServerEvent) => void;

/**
 * The server's event bus within one process. Promise: every listener hears every event published after it
 * subscribed, in order, once; a listener that throws is reported to `onerror` and the others still hear it.
 */
export class ServerEvents {
  private readonly listeners = new Set<ServerEventListener>();
  /**
   * Hears the URIs a 2026 client's listen names for updates when it opens (a 2025 session's `resources/subscribe`
   * goes through the method table), for what must be told in turn: a bridge's child.
   */
  watched: ((uris: readonly string[]) => void) | undefined;

  constructor(private readonly onerror: (err: unknown) => void) {}

  /** Listeners subscribed now. */
  get size(): number {
    return this.listeners.size;
  }

  /** Hears every later event until the returned function is called. */
  subscribe(listener: ServerEventListener): () => void {
    // A wrapper, so that the same function subscribed twice is two subscriptions.
    const entry: ServerEventListener = (event) => listener(event);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  publish(event: ServerEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.onerror(err);
      }
    }
  }
}
