import type { ClientSession } from '../client/client-session.js';
import type { HeldExchange } from './held-exchange.js';
import { type ChildEvents, type ChildSettings, StdioChild } from './stdio-child.js';

/** A child's session while it is up, and the forwarded requests it is serving. */
interface Live {
  readonly child: StdioChild;
  readonly inFlight: Set<HeldExchange>;
}

/**
 * The children every client of a bridge shares: `size` processes of one command, each with its own session. A
 * request goes to the child that is up with the fewest requests in flight; the ids a client sent never reach a
 * child (each session to a child numbers its own requests), so nothing one client sends can answer or cancel
 * another's. The pool knows which forwarded requests each child is serving, so that a child's own request
 * (sampling, elicitation) can be taken to the client whose request made it.
 */
export class ChildPool {
  private readonly children: StdioChild[] = [];
  private readonly live = new Map<ClientSession, Live>();

  constructor(
    settings: ChildSettings,
    size: number,
    /** A child's session is up (again): what the bridge does with each new one (events, log level). */
    private readonly up: (session: ClientSession) => void,
  ) {
    for (let i = 0; i < size; i++) {
      const child: StdioChild = new StdioChild(
        settings,
        this.eventsOf(() => child),
      );
      this.children.push(child);
    }
  }

  /** Starts every child; resolves with the first one's session once each handshake succeeded. */
  async start(): Promise<ClientSession> {
    const sessions = await Promise.all(this.children.map((child) => child.start()));
    return sessions[0]!;
  }

  /** The session of the least busy child that is up, and the set its forwarded requests go in; undefined if none is. */
  pick(): (Live & { session: ClientSession }) | undefined {
    let best: (Live & { session: ClientSession }) | undefined;
    for (const [session, live] of this.live) {
      if (best === undefined || live.inFlight.size < best.inFlight.size) best = { ...live, session };
    }
    return best;
  }

  /** The sessions of the children that are up. */
  sessions(): IterableIterator<ClientSession> {
    return this.live.keys();
  }

  /** The forwarded requests the child behind `session` is serving now. */
  inFlightOf(session: ClientSession): ReadonlySet<HeldExchange> | undefined {
    return this.live.get(session)?.inFlight;
  }

  /** Undefined while a child is up; else how long until one is started again (for Retry-After). */
  retryAfterMs(): number | undefined {
    if (this.live.size > 0) return undefined;
    return Math.min(...this.children.map((child) => child.retryAfterMs()));
  }

  /** Ends every child. */
  async close(): Promise<void> {
    this.live.clear();
    await Promise.all(this.children.map((child) => child.close()));
  }

  private eventsOf(child: () => StdioChild): ChildEvents {
    let current: ClientSession | undefined;
    return {
      up: (session) => {
        current = session;
        this.live.set(session, { child: child(), inFlight: new Set() });
        this.up(session);
      },
      down: () => {
        if (current !== undefined) this.live.delete(current);
        current = undefined;
      },
    };
  }
}
