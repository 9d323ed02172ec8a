import type { ClientSession } from '../client/client-session.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import { oneSession, relayEvents, subscribeIn } from './child-events.js';
import { ChildPool, type InFlight } from './child-pool.js';
import type { Elsewhere } from './forward.js';
import type { ChildSettings } from './upstream.js';

/** The 2025 session an isolated child serves, as this process holds it now: the one client it may ask anything. */
export interface Isolated {
  session: ServerSession;
}

/** Each isolated child's session, by the child's session with the bridge. */
export type Owners = WeakMap<ClientSession, Isolated>;

/**
 * Where an isolated session is found again when this process's copy of it closes: in a cluster (see
 * ClusterIsolation) a copy closes here while the session goes on (idle here, evicted), and only a session that
 * ended everywhere ends its child.
 */
export interface SessionHome {
  /** The session `id` as this process holds it now (loaded again if need be); undefined once it ended. */
  find(id: string): Promise<ServerSession | undefined>;
  /** The child of session `id` ended here. */
  left(id: string): void;
}

/** How a bridge gives each 2025 session a child of its own: in one process (IsolatedChildren), or a cluster. */
export interface Isolation {
  /** Where `session`'s requests are served: its own child, started on first use (rejects when it cannot be). */
  homeOf(session: ServerSession): Promise<ChildPool | Elsewhere>;
  /** Asks `session`'s child for updates of `uri` too. */
  subscribe(session: ServerSession, uri: string): void;
  /** Ends every session's child. */
  close(): Promise<void>;
}

interface Held extends Isolated {
  readonly pool: Promise<ChildPool>;
  /** Every URI the session asked updates of, asked again of a restarted child. */
  readonly subscribed: Set<string>;
}

/**
 * One child per 2025 session (`--isolate`): started at the session's first forwarded request, ended with the
 * session (DELETE, idle timeout, the server closing), so that no state of the child is shared between clients.
 * What the child tells goes to its session alone; what it asks (roots, sampling, elicitation) goes to the session
 * even with no request in flight, and the session's roots changing is told to it. At most `max` at once: past it,
 * a new session's first request is refused with an error saying so.
 */
export class IsolatedChildren implements Isolation {
  /** By session id (by the session itself when it has none: stdio). */
  private readonly held = new Map<unknown, Held>();

  constructor(
    private readonly settings: ChildSettings,
    private readonly max: number,
    private readonly inFlight: InFlight,
    private readonly owners: Owners,
    private readonly home?: SessionHome,
  ) {}

  /** Whether session `id` has its child here. */
  has(id: string): boolean {
    return this.held.has(id);
  }

  homeOf(session: ServerSession): Promise<ChildPool> {
    const key = keyOf(session);
    const found = this.held.get(key);
    if (found !== undefined) {
      if (found.session !== session && found.session.isClosed) this.bind(found, session);
      return found.pool;
    }
    if (this.held.size >= this.max) {
      return Promise.reject(
        new McpError(
          ErrorCode.InternalError,
          `The bridge already runs ${this.max} server processes, one per session: end a session (DELETE) or retry later`,
        ),
      );
    }
    const subscribed = new Set(session.subscriptions);
    let held: Held | undefined;
    const pool = new ChildPool(this.settings, 1, this.inFlight, (child) => {
      this.owners.set(child, held!);
      relayEvents(child, oneSession(held!), subscribed, this.settings.report);
    });
    const started = pool.start().then(
      () => pool,
      async (err: Error) => {
        this.end(key);
        throw new McpError(
          ErrorCode.InternalError,
          `The server process of this session could not be started: ${err.message}`,
        );
      },
    );
    held = { session, pool: started, subscribed };
    this.held.set(key, held);
    this.bind(held, session);
    return started;
  }

  /** Asks the child of `session` (or of the session of that id) for updates of `uri` too. */
  async subscribe(session: ServerSession | string, uri: string): Promise<void> {
    const held = this.held.get(keyOf(session));
    if (held === undefined) return;
    held.subscribed.add(uri);
    for (const child of await sessionsOf(held)) {
      subscribeIn(child, [uri], held.subscribed, this.settings.report);
    }
  }

  /** Tells session `id`'s child that the client's roots changed. */
  async rootsChanged(id: unknown): Promise<void> {
    const held = this.held.get(id);
    if (held === undefined) return;
    for (const child of await sessionsOf(held)) {
      child
        .rootsChanged()
        .catch((err) =>
          this.settings.report(`roots/list_changed to the child server failed: ${err.message}`),
        );
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.held.keys()].map((key) => this.end(key)));
  }

  /** Ends session `id`'s child. */
  async end(key: unknown): Promise<void> {
    const held = this.held.get(key);
    if (held === undefined) return;
    this.held.delete(key);
    if (typeof key === 'string') this.home?.left(key);
    await held.pool.then(
      (p) => p.close(),
      () => {},
    );
  }

  /** The child serves `session` from now on: it hears of its roots changing, and of it ending. */
  private bind(held: Held, session: ServerSession): void {
    held.session = session;
    const key = keyOf(session);
    alsoOn(session, 'onclose', () => this.lost(key, held, session));
    alsoOn(session, 'onrootschanged', () => this.rootsChanged(key));
  }

  /** `session` closed here: the child ends, unless the session goes on elsewhere (then it serves the copy found). */
  private lost(key: unknown, held: Held, session: ServerSession): void {
    if (this.held.get(key) !== held || held.session !== session) return;
    if (this.home === undefined || typeof key !== 'string') {
      this.end(key);
      return;
    }
    this.home.find(key).then(
      (found) => {
        if (held.session !== session) return;
        if (found === undefined || found.isClosed) this.end(key);
        else this.bind(held, found);
      },
      (err: Error) => {
        this.settings.report(
          `an isolated session could not be found again, so its child ends: ${err.message}`,
        );
        this.end(key);
      },
    );
  }
}

/** Has `session` run `then` after what its `hook` did until now (each hook is one property). */
export function alsoOn(session: ServerSession, hook: 'onclose' | 'onrootschanged', then: () => void): void {
  const before = session[hook];
  session[hook] = (cause?: Error) => {
    before?.(cause);
    then();
  };
}

/** The sessions of `held`'s child that are up (none when it did not start: that was answered already). */
async function sessionsOf(held: Held): Promise<Iterable<ClientSession>> {
  return held.pool.then(
    (pool) => pool.sessions(),
    () => [],
  );
}

function keyOf(session: ServerSession | string): unknown {
  return typeof session === 'string' ? session : (session.connection.sessionId ?? session);
}
