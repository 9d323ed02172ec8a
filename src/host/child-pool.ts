import type { ClientSession } from '../client/client-session.js';
import type { HeldExchange } from './held-exchange.js';
import { type ChildEvents, type ChildSettings, Upstream } from './upstream.js';

/** A child's session while it is up, and the forwarded requests it is serving. */
export interface LiveChild {
  readonly session: ClientSession;
  readonly inFlight: Set<HeldExchange>;
}

/**
 * The forwarded requests each child of a bridge is serving, by the child's session, over all its pools: where a
 * child's own request (sampling, elicitation) finds the client request it belongs to.
 */
export type InFlight = Map<ClientSession, Set<HeldExchange>>;

/**
 * The client request a child's own message (a request, a log) belongs to: the one in flight there, when it is alone.
 * A 2025 stdio server's message says nothing of the request it was made for, so with several there is no telling.
 */
export function soleRequest(serving: ReadonlySet<HeldExchange> | undefined): HeldExchange | undefined {
  if (serving?.size !== 1) return undefined;
  const [exchange] = serving;
  return exchange;
}

/**
 * The children every client of a bridge shares: `size` processes of one command, each with its own session. A
 * request goes to the child that is up with the fewest requests in flight; the ids a client sent never reach a
 * child (each session to a child numbers its own requests), so nothing one client sends can answer or cancel
 * another's. The pool knows which forwarded requests each child is serving, so that a child's own request
 * (sampling, elicitation) can be taken to the client whose request made it.
 */
export class ChildPool {
  private readonly children: Upstream[] = [];
  private readonly live = new Map<ClientSession, LiveChild>();

  constructor(
    settings: ChildSettings,
    size: number,
    /** Where the pool records what its children serve, shared with the bridge's other pools. */
    private readonly inFlight: InFlight,
    /** A child's session is up (again): what the bridge does with each new one (events, log level). */
    private readonly up: (session: ClientSession) => void,
  ) {
    for (let i = 0; i < size; i++) {
      this.children.push(new Upstream(settings, this.events()));
    }
  }

  /** Starts every child; resolves with the first one's session once each handshake succeeded. */
  async start(): Promise<ClientSession> {
    const sessions = await Promise.all(this.children.map((child) => child.start()));
    return sessions[0]!;
  }

  /** The least busy child that is up; undefined if none is. */
  pick(): LiveChild | undefined {
    let best: LiveChild | undefined;
    for (const live of this.live.values()) {
      if (best === undefined || live.inFlight.size < best.inFlight.size) best = live;
    }
    return best;
  }

  /** The sessions of the children that are up. */
  sessions(): IterableIterator<ClientSession> {
    return this.live.keys();
  }

  /** Undefined while a child is up; else how long until one is started again (for Retry-After). */
  retryAfterMs(): number | undefined {
    if (this.live.size > 0) return undefined;
    return Math.min(...this.children.map((child) => child.retryAfterMs()));
  }

  /** Ends every child. */
  async close(): Promise<void> {
    for (const session of this.live.keys()) this.inFlight.delete(session);
    this.live.clear();
    await Promise.all(this.children.map((child) => child.close()));
  }

  /** What one child tells its pool of its life. */
  private events(): ChildEvents {
    let current: ClientSession | undefined;
    return {
      up: (session) => {
        current = session;
        const live: LiveChild = { session, inFlight: new Set() };
        this.live.set(session, live);
        this.inFlight.set(session, live.inFlight);
        this.up(session);
      },
      down: () => {
        if (current === undefined) return;
        this.live.delete(current);
        this.inFlight.delete(current);
        current = undefined;
      },
    };
  }
}
