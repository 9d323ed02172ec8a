import type { ClusterMessaging } from '../cluster/direct-messages.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/types.js';
import type { ServerSession } from '../server/legacy/server-session.js';
import type { ChildPool } from './child-pool.js';
import type { ClusterRounds, IsolatedHere, SessionChange } from './cluster-rounds.js';
import { begin, type Elsewhere } from './forward.js';
import type { HeldExchange, HeldExchanges, RoundClient } from './held-exchange.js';
import { alsoOn, type IsolatedChildren, type Isolation, type SessionHome } from './isolated-children.js';

/** How long a process's claim of a session lasts unrenewed; it renews its claims three times as often. */
const CLAIM_TTL_MS = 60_000;

const noop = () => {};

/**
 * `isolate` in a cluster. A session's child lives in one process, the first that claimed the session (the
 * cluster's `claims`), while its requests may reach any: a process that does not hold the child sends each request
 * there whole (ClusterRounds `call`), and tells it when the session's roots change or it subscribes. The holder
 * renews its claim while the child lives, lets go when the session ends everywhere (not when only its copy here
 * closes: see SessionHome), and gives the child up when another process holds the claim. A process that finds the
 * holder gone (a request to it reaches nobody) claims the session in its place and starts a child: what the old
 * one held is lost, as when a child restarts, and the request in flight there failed with the error of a child
 * that ended.
 */
export class ClusterIsolation implements Isolation, IsolatedHere, SessionHome {
  private readonly local: IsolatedChildren;
  /** Sessions whose child is here, whose claims this process renews. */
  private readonly mine = new Set<string>();
  /** Sessions whose child another process holds, by id: that process (as last found). */
  private readonly elsewhere = new Map<string, string>();
  /** Copies here of sessions whose child is elsewhere, whose roots changes are told there. */
  private readonly watched = new WeakSet<ServerSession>();
  private readonly renewal: NodeJS.Timeout;

  constructor(
    private readonly cluster: ClusterMessaging,
    private readonly rounds: ClusterRounds,
    private readonly exchanges: HeldExchanges,
    /** The session `id` as this process holds it (a copy loaded if need be): StreamableHTTPHandler.session. */
    private readonly sessions: (id: string) => Promise<ServerSession | undefined>,
    children: (home: SessionHome) => IsolatedChildren,
    private readonly timeoutMs: number,
    private readonly report: (message: string) => void,
  ) {
    this.local = children(this);
    this.renewal = setInterval(() => this.renew(), CLAIM_TTL_MS / 3);
    this.renewal.unref();
  }

  homeOf(session: ServerSession): Promise<ChildPool | Elsewhere> {
    const id = session.connection.sessionId;
    if (id === undefined || this.local.has(id)) return this.local.homeOf(session);
    return this.claimed(session, id);
  }

  subscribe(session: ServerSession, uri: string): void {
    const id = session.connection.sessionId;
    const holder = id === undefined ? undefined : this.elsewhere.get(id);
    if (holder === undefined) this.local.subscribe(session, uri);
    else this.rounds.changed(holder, id!, { subscribe: uri });
  }

  async close(): Promise<void> {
    clearInterval(this.renewal);
    await this.local.close();
  }

  // ---- IsolatedHere: what the other processes send ----

  async begin(
    sid: string,
    method: string,
    params: Params,
    client: RoundClient,
    progress: boolean,
  ): Promise<HeldExchange> {
    if (!this.local.has(sid) && (await this.claim(sid)) !== this.cluster.nodeId) {
      throw new McpError(
        ErrorCode.InternalError,
        `The server process of this session moved to another process of the bridge while ${method} was sent: send it again`,
      );
    }
    const session = await this.sessions(sid);
    if (session === undefined) {
      if (!this.local.has(sid)) this.left(sid);
      throw new McpError(ErrorCode.InvalidRequest, 'The session has ended: start a new one with initialize');
    }
    const pool = await this.here(session, sid);
    return begin(pool, this.exchanges.idPrefix, method, params, client, progress, this.timeoutMs);
  }

  changed(sid: string, change: SessionChange): void {
    if ('roots' in change) this.local.rootsChanged(sid);
    else this.local.subscribe(sid, change.subscribe);
  }

  // ---- SessionHome ----

  find(id: string): Promise<ServerSession | undefined> {
    return this.sessions(id);
  }

  left(id: string): void {
    this.mine.delete(id);
    this.cluster.claims.release(claimName(id)).catch(noop);
  }

  // ----

  /** Where session `id` is served, claimed for this process when nobody holds it; `gone`: a holder that is. */
  private async claimed(session: ServerSession, id: string, gone?: string): Promise<ChildPool | Elsewhere> {
    const holder = (gone === undefined ? this.elsewhere.get(id) : undefined) ?? (await this.claim(id, gone));
    if (holder === this.cluster.nodeId) return this.here(session, id);
    this.watch(session, id);
    return {
      call: (method, params, ctx) => this.rounds.call(holder, id, method, params, ctx),
      takeOver: () => this.claimed(session, id, holder),
    };
  }

  private async claim(id: string, gone?: string): Promise<string> {
    const holder = await this.cluster.claims.claim(claimName(id), CLAIM_TTL_MS, gone);
    if (holder === this.cluster.nodeId) this.elsewhere.delete(id);
    else this.elsewhere.set(id, holder);
    return holder;
  }

  private here(session: ServerSession, id: string): Promise<ChildPool> {
    this.mine.add(id);
    return this.local.homeOf(session);
  }

  /** The session's roots changing here is told to the process holding its child; its copy closing forgets where. */
  private watch(session: ServerSession, id: string): void {
    if (this.watched.has(session)) return;
    this.watched.add(session);
    alsoOn(session, 'onrootschanged', () => {
      const holder = this.elsewhere.get(id);
      if (holder !== undefined) this.rounds.changed(holder, id, { roots: true });
    });
    alsoOn(session, 'onclose', () => this.elsewhere.delete(id));
  }

  /** Renews the claims of the children here; a child whose session another process now holds is given up. */
  private renew(): void {
    const me = this.cluster.nodeId;
    let failed: Error | undefined;
    const renewals = [...this.mine].map((id) =>
      this.cluster.claims.claim(claimName(id), CLAIM_TTL_MS).then(
        (holder) => {
          if (holder === me) return;
          this.report(`an isolated session's child moved to process ${holder}: the one here ends`);
          this.local.end(id);
        },
        (err: Error) => {
          failed = err;
        },
      ),
    );
    Promise.all(renewals).then(() => {
      if (failed !== undefined)
        this.report(`isolated sessions' claims could not be renewed: ${failed.message}`);
    });
  }
}

function claimName(sessionId: string): string {
  return `bridge.isolated:${sessionId}`;
}
