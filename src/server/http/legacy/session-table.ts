import type { StreamableServerTransport } from './session-transport.js';

/**
 * How much later than its last activity a session may sit in the table's order: moving it costs two map operations,
 * so a session is moved at most once per step however many requests it makes (eviction is exact to this much).
 */
export const ACTIVITY_ORDER_STEP_MS = 1000;

/**
 * How far into each order `makeRoom` looks for an idle session of the caller's own. A caller flooding the table
 * holds most of its front; one that does not has its sessions spread, and the usual rule applies.
 */
const OWN_LOOKAHEAD = 64;

/** Who asks for room: a principal, or an anonymous client's address. */
export interface Caller {
  readonly principal: unknown;
  readonly address: string | undefined;
}

function isCallers(transport: StreamableServerTransport, caller: Caller): boolean {
  return caller.principal !== undefined
    ? transport.principal === caller.principal
    : transport.principal === undefined && transport.address === caller.address;
}

/**
 * The sessions a handler holds, by id, kept in order of last activity (least recent first, to `ACTIVITY_ORDER_STEP_MS`)
 * so that at the cap the one to evict is found at the front, with no timer and no field per session beyond its
 * place in the map; and, in order of creation, those whose client has sent nothing since its initialize.
 *
 * Policies, both per process (with a cluster a session ended here goes on in the others, and a later request
 * here loads it again): a session whose client sent nothing after initialize (no `notifications/initialized`)
 * ends `initializeTimeoutMs` after it (`expireUnfinished`, called by the handler's sweep); at the cap, one idle
 * session (no request in flight, no stream held) ends to make room for a new one (`makeRoom`): the oldest
 * unfinished one, else the least recently active; but first, among the first `OWN_LOOKAHEAD` of each, one of the
 * caller asking for room (the same principal, or for an anonymous caller the same address), so that a flood from
 * one caller evicts its own sessions before anyone else's. Its client's next request gets 404, the spec's signal to
 * initialize again.
 */
export class SessionTable {
  private readonly byId = new Map<string, StreamableServerTransport>();
  /** Sessions whose client has sent nothing since initialize, by creation order, with the time they were made. */
  private readonly unfinished = new Map<StreamableServerTransport, number>();

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

  /** Keeps `transport`; `address`: its anonymous client's (see `makeRoom`). */
  add(transport: StreamableServerTransport, address?: string): void {
    this.byId.set(transport.sessionId!, transport);
    if (transport.principal === undefined) transport.address = address;
  }

  /** `transport` answered initialize at `now`: it ends unless its client speaks again in time. */
  initialized(transport: StreamableServerTransport, now: number): void {
    transport.initializing = true;
    this.unfinished.set(transport, now);
  }

  delete(transport: StreamableServerTransport): void {
    const id = transport.sessionId!;
    if (this.byId.get(id) === transport) this.byId.delete(id);
    this.unfinished.delete(transport);
  }

  /** The session was active: it moves behind every other (see `ACTIVITY_ORDER_STEP_MS`). */
  touched(transport: StreamableServerTransport): void {
    const id = transport.sessionId!;
    if (this.byId.get(id) !== transport) return;
    this.byId.delete(id);
    this.byId.set(id, transport);
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
   * Ends one idle session so that a new one fits: the oldest unfinished one, else the least recently active.
   * False when every session is busy. A busy session passed over moves to the back (it is active now), so the
   * next look starts with the ones behind it; only when every session is busy does a look cost one pass.
   */
  makeRoom(caller?: Caller): boolean {
    const own = caller === undefined ? undefined : this.callersIdle(caller);
    if (own !== undefined) return this.end(own, 'evicted');
    for (const transport of this.unfinished.keys()) {
      if (!transport.initializing || transport.isClosed) this.unfinished.delete(transport);
      else if (!transport.busy) return this.end(transport, 'evicted');
    }
    // Moved sessions come round again in this iteration: the count stops it after one pass.
    let left = this.byId.size;
    for (const transport of this.byId.values()) {
      if (left-- === 0) break;
      if (!transport.busy) return this.end(transport, 'evicted');
      this.touched(transport);
    }
    return false;
  }

  /** An idle session of `caller` near the front of either order: the oldest unfinished, else least recently active. */
  private callersIdle(caller: Caller): StreamableServerTransport | undefined {
    let looked = 0;
    for (const transport of this.unfinished.keys()) {
      if (looked++ === OWN_LOOKAHEAD) break;
      if (transport.initializing && this.idleOf(transport, caller)) return transport;
    }
    looked = 0;
    for (const transport of this.byId.values()) {
      if (looked++ === OWN_LOOKAHEAD) break;
      if (this.idleOf(transport, caller)) return transport;
    }
    return undefined;
  }

  private idleOf(transport: StreamableServerTransport, caller: Caller): boolean {
    return !transport.busy && !transport.isClosed && isCallers(transport, caller);
  }

  private end(transport: StreamableServerTransport, reason: 'unfinished' | 'evicted'): true {
    // Closing forgets it at once (`sessionEnded`); deleting here too keeps the count right whatever the close does.
    this.delete(transport);
    transport.close(reason).catch(this.report);
    return true;
  }
}
