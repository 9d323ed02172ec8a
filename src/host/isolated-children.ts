import type { ClientSession } from '../client/client-session.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import { oneSession, relayEvents } from './child-events.js';
import { ChildPool, type InFlight } from './child-pool.js';
import type { ChildSettings } from './upstream.js';

/** The 2025 session each isolated child serves, by the child's session: the one client it may ask anything. */
export type Owners = WeakMap<ClientSession, ServerSession>;

/**
 * One child per 2025 session (`--isolate`): started at the session's first forwarded request, ended with the
 * session (DELETE, idle timeout, the server closing), so that no state of the child is shared between clients.
 * What the child tells goes to its session alone; what it asks (roots, sampling, elicitation) goes to the session
 * even with no request in flight, and the session's roots changing is told to it. At most `max` at once: past it, a new session's first request
 * is refused with an error saying so.
 */
export class IsolatedChildren {
  private readonly pools = new Map<ServerSession, Promise<ChildPool>>();

  constructor(
    private readonly settings: ChildSettings,
    private readonly max: number,
    private readonly inFlight: InFlight,
    private readonly owners: Owners,
  ) {}

  /** Sessions with a child of their own now. */
  get size(): number {
    return this.pools.size;
  }

  /** The pool of `session`'s own child, started on first use; rejects when it cannot be started. */
  poolOf(session: ServerSession): Promise<ChildPool> {
    const held = this.pools.get(session);
    if (held !== undefined) return held;
    if (this.pools.size >= this.max) {
      return Promise.reject(
        new McpError(
          ErrorCode.InternalError,
          `The bridge already runs ${this.max} server processes, one per session: end a session (DELETE) or retry later`,
        ),
      );
    }
    // A restarted child is subscribed again to what the session subscribed to.
    session.subscriptions ??= new Set();
    const subscribed = session.subscriptions;
    const pool = new ChildPool(this.settings, 1, this.inFlight, (child) => {
      this.owners.set(child, session);
      relayEvents(child, oneSession(session), subscribed, this.settings.report);
    });
    const started = pool.start().then(
      () => pool,
      async (err: Error) => {
        this.pools.delete(session);
        await pool.close();
        throw new McpError(
          ErrorCode.InternalError,
          `The server process of this session could not be started: ${err.message}`,
        );
      },
    );
    this.pools.set(session, started);
    const previous = session.onclose;
    session.onclose = (cause) => {
      this.end(session);
      previous?.(cause);
    };
    const rootsChanged = session.onrootschanged;
    session.onrootschanged = () => {
      rootsChanged?.();
      for (const child of pool.sessions()) {
        child
          .rootsChanged()
          .catch((err) =>
            this.settings.report(`roots/list_changed to the child server failed: ${err.message}`),
          );
      }
    };
    return started;
  }

  /** Ends every session's child. */
  async close(): Promise<void> {
    await Promise.all([...this.pools.keys()].map((session) => this.end(session)));
  }

  private async end(session: ServerSession): Promise<void> {
    const pool = this.pools.get(session);
    this.pools.delete(session);
    await pool?.then(
      (p) => p.close(),
      () => {},
    );
  }
}
