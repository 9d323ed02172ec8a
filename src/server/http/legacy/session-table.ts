import type { StreamableServerTransport } from './session-transport.js';

/**
 * How much later than its last activity a session may sit in the table's order: moving it costs two map operations,
 * so a session is moved at most once per step however many requests it makes (eviction is exact to this much).
 */
export const ACTIVITY_ORDER_STEP_MS = 1000;

/**
 * The sessions a handler holds, by id, kept in order of last activity (least recent first, to `ACTIVITY_ORDER_STEP_MS`)
 * so that at the cap the one to evict is found at the front, with no timer and no field per session beyond its
 * place in the map; and, in order of creation, those whose client has sent nothing since its initialize.
 *
 * Policies, both per process (with a cluster a session ended here goes on in the others, and a later request
 * here loads it again): a session whose client sent nothing after initialize (no `notifications/initialized`)
 * ends `initializeTimeoutMs` after it (`expireUnfinished`, called by the handler's sweep); at the cap, one idle
 * session (no request in flight, no stream held) ends to make room for a new one (`makeRoom`): the oldest
 * unfinished one, else the least recently active; but first, the oldest idle session of whoever asks for room
 * (its principal, or an anonymous client's address: its `origin`), so that a flood from one caller evicts its own
 * sessions before anyone else's. Its client's next request gets 404, the spec's signal to initialize again.
 */
/** The sessions of one origin, ordered as the table orders them all. */
interface OriginSessions {
  readonly unfinished: Set<StreamableServerTransport>;
  /** Least recently active first. */
  readonly order: Set<StreamableServerTransport>;
}

export class SessionTable {
  private readonly byId = new Map<string, StreamableServerTransport>();
  /** Sessions whose client has sent nothing since initialize, by creation order, with the time they were made. */
  private readonly unfinished = new Map<StreamableServerTransport, number>();
  private readonly byOrigin = new Map<string, OriginSessions>();

  constructor(private readonly report: (err: unknown) => void) {}

  get size(): number {
    return this.byId.size;
  }

  get(sessionId: string): StreamableServerTransport | undefined {
    return this.byId.get(sessionId);
  }

  values(): IterableIterator<StreamableServerTransport> {
    return this.byId.values();
  }

  /** Keeps `transport`, opened by `origin` (see `makeRoom`). */
  add(transport: StreamableServerTransport, origin?: string): void {
    this.byId.set(transport.sessionId!, transport);
    if (origin === undefined) return;
    transport.origin = origin;
    const own = this.byOrigin.get(origin);
    if (own === undefined) this.byOrigin.set(origin, { unfinished: new Set(), order: new Set([transport]) });
    else own.order.add(transport);
  }

  /** `transport` answered initialize at `now`: it ends unless its client speaks again in time. */
  initialized(transport: StreamableServerTransport, now: number): void {
    transport.initializing = true;
    this.unfinished.set(transport, now);
    this.originOf(transport)?.unfinished.add(transport);
  }

  delete(transport: StreamableServerTransport): void {
    const id = transport.sessionId!;
    if (this.byId.get(id) === transport) this.byId.delete(id);
    this.unfinished.delete(transport);
    const own = this.originOf(transport);
    if (own === undefined) return;
    own.unfinished.delete(transport);
    own.order.delete(transport);
    if (own.order.size === 0) this.byOrigin.delete(transport.origin!);
  }

  /** The session was active: it moves behind every other (see `ACTIVITY_ORDER_STEP_MS`). */
  touched(transport: StreamableServerTransport): void {
    const id = transport.sessionId!;
    if (this.byId.get(id) !== transport) return;
    this.byId.delete(id);
    this.byId.set(id, transport);
    const own = this.originOf(transport);
    if (own === undefined) return;
    own.order.delete(transport);
    own.order.add(transport);
  }

  /**
   * Ends the sessions whose client has sent nothing for `timeoutMs` since initialize (at `now`), unless a request
   * or stream holds them; the list is in creation order, so the look stops at the first one still in time.
   */
  expireUnfinished(now: number, timeoutMs: number): void {
    for (const [transport, since] of this.unfinished) {
      if (!transport.initializing || transport.isClosed) this.unfinished.delete(transport);
      else if (now - since < timeoutMs) return;
      else if (!transport.busy) this.end(transport, 'unfinished');
    }
  }

  /**
   * Ends one idle session so that a new one of `origin` fits: among that origin's own sessions first, then among
   * all, the oldest unfinished one, else the least recently active (see `firstIdle`). False when every session is
   * busy.
   */
  makeRoom(origin?: string): boolean {
    const own = origin === undefined ? undefined : this.byOrigin.get(origin);
    const victim =
      (own && this.firstIdle(own.unfinished, own.order, own.order.size)) ??
      this.firstIdle(this.unfinished, this.byId.values(), this.byId.size);
    return victim === undefined ? false : this.end(victim, 'evicted');
  }

  /**
   * The oldest idle session of `unfinished` (forgetting those that are no longer), else the first idle one of
   * `order` (`size` long). A busy session passed over moves to the back (it is active now), so the next look starts
   * with the ones behind it; only when every session is busy does a look cost one pass.
   */
  private firstIdle(
    unfinished: Map<StreamableServerTransport, number> | Set<StreamableServerTransport>,
    order: Iterable<StreamableServerTransport>,
    size: number,
  ): StreamableServerTransport | undefined {
    for (const transport of unfinished.keys()) {
      if (!transport.initializing || transport.isClosed) unfinished.delete(transport);
      else if (!transport.busy) return transport;
    }
    // Moved sessions come round again in this iteration: the count stops it after one pass.
    let left = size;
    for (const transport of order) {
      if (left-- === 0) break;
      if (!transport.busy) return transport;
      this.touched(transport);
    }
    return undefined;
  }

  private originOf(transport: StreamableServerTransport): OriginSessions | undefined {
    return transport.origin === undefined ? undefined : this.byOrigin.get(transport.origin);
  }

  private end(transport: StreamableServerTransport, reason: 'unfinished' | 'evicted'): true {
    // Closing forgets it at once (`sessionEnded`); deleting here too keeps the count right whatever the close does.
    this.delete(transport);
    transport.close(reason).catch(this.report);
    return true;
  }
}
