import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, RequestId } from '../jsonrpc/types.js';
import { type LoggingLevel, Method } from '../protocol/types.js';
import type { SessionReplica } from '../server/http/legacy/session-directory.js';
import type { StreamableServerTransport } from '../server/http/legacy/session-transport.js';
import type { Stream } from '../server/http/legacy/stream.js';
import type { Clock } from '../util/clock.js';
import type { ClusterMessage, StateMessage } from './cluster-messages.js';
import type { Changed, SessionRecord, SessionStore, SharedState, StateChange } from './session-store.js';
import { type SharedStream, sharedStream } from './shared-stream.js';

/** What a replica needs from the cluster it belongs to (see RedisCluster). */
export interface ReplicaHost {
  readonly nodeId: string;
  readonly records: SessionStore;
  readonly clock: Clock;
  /** How long a session's record lives without activity. */
  readonly ttlMs: number;
  /** A replica refreshes its record at most this often while requests come. */
  readonly touchEveryMs: number;
  /** Changes when the connection to Redis was made anew: every replica then refreshes at its next request. */
  readonly epoch: number;
  report(err: unknown): void;
  /** Runs one round trip to Redis, observed as `operation` when the server's telemetry listens. */
  roundTrip<T>(operation: string, run: () => Promise<T>): Promise<T>;
  /** Publishes `m` to process `node`; resolves false when no process listens there (it is gone). */
  sendTo(node: string, m: ClusterMessage): Promise<boolean>;
  /** Publishes `m` to every process; failures are reported. */
  broadcast(m: ClusterMessage): void;
  /**
   * Resolves once the other processes holding a replica of session `hash` (`changed.holders`) applied the change,
   * or are gone, or a bound passed (see ChangeAcks). Never rejects.
   */
  acknowledged(hash: string, changed: Changed): Promise<void>;
  /** The replica closed: it hears no more messages. */
  forget(replica: Replica): void;
  /** A response here follows `stream`, which process `writer` writes: it ends if that process is gone. */
  follow(stream: SharedStream, writer: string): void;
}

/** A notice for the holder of a stream, gathered over one turn of the event loop. */
interface Nudge {
  node: string;
  index: number;
  closed: boolean;
}

/**
 * This process's replica of a shared session: the `SessionReplica` its transport calls, and the receiver of what
 * other processes publish about the session. It keeps the session's shared state applied to the local
 * `ServerSession` (log level, subscriptions: the highest change number wins), knows which process holds the
 * response of each stream (so that events recorded here reach it), and the process each server-to-client
 * request waits in (its id says: `<node id>:<n>`).
 */
export class Replica implements SessionReplica {
  /** The change number of the state applied here; `state` is what it was, to restore after a failed change. */
  private state: SharedState;
  /** The process holding each stream's response, for streams held by another process. */
  private readonly holders = new Map<string, string>();
  /** This process's announcements of holding a stream, not yet heard back on the bus. */
  private readonly announcing = new Map<string, number>();
  /** The session's stream prefix: its GET stream is `<prefix>0`. */
  private readonly streamPrefix: string;
  private readonly standaloneId: string;
  private standaloneSeen = false;
  private touchedAt: number;
  private touchedEpoch: number;
  private nudges: Map<string, Nudge> | undefined;

  constructor(
    private readonly host: ReplicaHost,
    readonly transport: StreamableServerTransport,
    /** The session's hash: its key in Redis and in messages. */
    readonly hash: string,
    record: Pick<SessionRecord, 'state' | 'holders' | 'streamPrefix'>,
  ) {
    this.streamPrefix = record.streamPrefix;
    this.standaloneId = `${record.streamPrefix}0`;
    this.state = { n: -1, logLevel: undefined, subscriptions: [] };
    this.applyState(record.state);
    for (const [streamId, node] of record.holders) this.heldBy(streamId, node);
    this.touchedAt = host.clock.now();
    this.touchedEpoch = host.epoch;
    transport.session.requestIdPrefix = `${host.nodeId}:`;
  }

  // ---- SessionReplica: what the transport tells ----

  active(): void {
    const host = this.host;
    const now = host.clock.now();
    if (now - this.touchedAt < host.touchEveryMs && this.touchedEpoch === host.epoch) return;
    this.touch(now);
  }

  async share(request: JsonRpcRequest): Promise<void> {
    const host = this.host;
    let changed: Changed | undefined;
    try {
      changed = await host.roundTrip('state.share', () =>
        host.records.change(this.hash, this.streamPrefix, stateChange(request), host.ttlMs),
      );
    } catch (err) {
      this.restore();
      throw err;
    }
    if (changed === undefined) {
      this.restore();
      this.gone();
      throw new Error('the session has ended');
    }
    this.applyState(fromMessage(changed.state));
    // Read-your-writes: the answer leaves once the other processes that hold the session have applied it, so that a
    // request the client sends next sees it wherever it lands.
    if (changed.holders.length > 0) await host.acknowledged(this.hash, changed);
  }

  /**
   * The process waiting for this message of the client, when it is another one: a response (or progress) to a
   * request whose id names that process. Undefined for every other message.
   */
  elsewhere(message: JsonRpcMessage): string | undefined {
    if (!('method' in message)) return this.asker(message.id);
    if (message.method === Method.Progress && !('id' in message))
      return this.asker(message.params?.progressToken);
    return undefined;
  }

  /** Sends the message to the process waiting for it, when that is another one (`elsewhere`); false when not. */
  forward(message: JsonRpcMessage): boolean {
    const node = this.elsewhere(message);
    if (node === undefined) return false;
    const id = 'method' in message ? message.params?.progressToken : message.id;
    this.sendToAsker(node, { k: 'forward', s: this.hash, m: message }, id);
    return true;
  }

  failAnswer(id: RequestId, problem: string): boolean {
    const node = this.asker(id);
    if (node === undefined) return false;
    this.sendToAsker(node, { k: 'invalid', s: this.hash, i: id, p: problem }, id);
    return true;
  }

  /** The process that made request `id` of the server's (its id says: `<node id>:<n>`), when it is another one. */
  private asker(id: unknown): string | undefined {
    if (typeof id !== 'string') return undefined;
    const node = id.slice(0, id.indexOf(':'));
    return node.length !== this.host.nodeId.length || node === this.host.nodeId ? undefined : node;
  }

  /** Sends what the client sent for request `id` to the process that made it, and reports it when that one is gone. */
  private sendToAsker(node: string, m: ClusterMessage, id: unknown): void {
    this.host.sendTo(node, m).then(
      (listening) => {
        if (!listening) {
          this.host.report(
            new Error(
              `Dropped a message the client sent for request ${JSON.stringify(id)}: the server process that ` +
                'made that request is gone, so nothing waits for it',
            ),
          );
        }
      },
      (err) => this.host.report(err),
    );
  }

  cancel(notification: JsonRpcNotification): void {
    this.host.broadcast({ k: 'cancel', s: this.hash, by: this.host.nodeId, m: notification });
  }

  held(held: Stream): void {
    const stream = sharedStream(held);
    const id = stream.id;
    this.holders.delete(id);
    if (id === this.standaloneId) this.standaloneSeen = true;
    // A POST stream another process writes (`<session's stream prefix><node id>.<n>`): watched while followed.
    else if (stream.follower)
      this.host.follow(stream, id.slice(this.standaloneId.length - 1, id.lastIndexOf('.')));
    this.announcing.set(id, (this.announcing.get(id) ?? 0) + 1);
    this.host.records.hold(this.hash, id, this.host.nodeId).then(
      (alive) => {
        if (alive) stream.catchUp();
        else this.gone();
      },
      (err) => {
        this.heard(id);
        this.host.report(err);
      },
    );
  }

  recorded(stream: Stream, index: number, closed: boolean): void {
    const node = this.holders.get(stream.id);
    if (node === undefined) return;
    let nudges = this.nudges;
    if (nudges === undefined) {
      nudges = this.nudges = new Map();
      setImmediate(this.flushNudges);
    }
    const nudge = nudges.get(stream.id);
    if (nudge === undefined) nudges.set(stream.id, { node, index, closed });
    else {
      nudge.node = node;
      if (index > nudge.index) nudge.index = index;
      if (closed) nudge.closed = true;
    }
  }

  /**
   * This process is the last known to have held the session's GET stream: it tells the session of list
   * changes, whichever process's list changed, so that the session hears each once (recorded in the stream, it
   * reaches the client now or on resumption). No process does while the session never opened it.
   */
  get lastHeldStandalone(): boolean {
    return this.transport.conn.standalone !== undefined && !this.holders.has(this.standaloneId);
  }

  get standaloneOpen(): boolean {
    return this.standaloneSeen;
  }

  closed(): void {
    // Whatever ended it here (idle here, shutdown, the server closing its session), the session goes on in
    // the other processes: only DELETE (`remove`) and expiry end it everywhere.
    this.host.forget(this);
  }

  // ---- what other processes tell ----

  /** A message about this session from another process (or this one's own, heard back). */
  receive(m: ClusterMessage): void {
    switch (m.k) {
      case 'state':
        this.applyState(fromMessage(m));
        return;
      case 'hold':
        this.heldBy(m.x, m.by);
        return;
      case 'closed':
        this.transport.close('deleted').catch(this.host.report);
        return;
      case 'cancel':
        if (m.by !== this.host.nodeId) this.transport.deliver(m.m);
        return;
      case 'append': {
        const stream = this.transport.conn.stream(m.x);
        if (stream !== undefined) sharedStream(stream).recordedElsewhere(m.i, m.c === 1);
        return;
      }
      case 'forward':
        this.transport.deliver(m.m);
        return;
      case 'invalid':
        this.transport.conn.receiver?.invalidAnswer?.(m.i, m.p);
        return;
    }
  }

  /**
   * After the connection to the other processes was down (messages may have been missed): applies the record as
   * it is now, and checks every stream held here against the store.
   */
  resync(record: SessionRecord | undefined): void {
    if (record === undefined) {
      this.gone();
      return;
    }
    this.applyState(record.state);
    this.announcing.clear();
    for (const [streamId, node] of record.holders) this.heldBy(streamId, node);
    for (const stream of this.transport.conn.streams()) sharedStream(stream).catchUp();
  }

  /** Refreshes the record now (a request runs here for longer than its TTL, or a response holds a stream). */
  refresh(): void {
    this.touch(this.host.clock.now());
  }

  // ---- internals ----

  private touch(now: number): void {
    const host = this.host;
    this.touchedAt = now;
    this.touchedEpoch = host.epoch;
    host.records.touch(this.hash, this.streamPrefix, host.ttlMs, now).then(
      (alive) => {
        if (!alive) this.gone();
      },
      (err) => {
        // Try again at the next request.
        this.touchedAt = 0;
        host.report(err);
      },
    );
  }

  /** Process `node` announced that it holds stream `streamId` (announcements arrive in the order Redis made them). */
  private heldBy(streamId: string, node: string): void {
    if (streamId === this.standaloneId) this.standaloneSeen = true;
    if (node === this.host.nodeId) {
      this.heard(streamId);
      this.holders.delete(streamId);
      return;
    }
    // An announcement of ours is still on its way: Redis made it after this one, so it wins.
    if (this.announcing.has(streamId)) return;
    this.holders.set(streamId, node);
    const stream = this.transport.conn.stream(streamId);
    if (stream === undefined) return;
    sharedStream(stream).handOver();
    // Events recorded here before the news: the new holder checks that it has them.
    if (stream.lastIndex >= 0) this.recorded(stream, stream.lastIndex, false);
  }

  private heard(streamId: string): void {
    const count = this.announcing.get(streamId);
    if (count === undefined) return;
    if (count <= 1) this.announcing.delete(streamId);
    else this.announcing.set(streamId, count - 1);
  }

  private readonly flushNudges = (): void => {
    const nudges = this.nudges!;
    this.nudges = undefined;
    for (const [streamId, { node, index, closed }] of nudges) {
      const m: ClusterMessage = closed
        ? { k: 'append', s: this.hash, x: streamId, i: index, c: 1 }
        : { k: 'append', s: this.hash, x: streamId, i: index };
      this.host.sendTo(node, m).then(
        (listening) => {
          // That process is gone: its client will resume the stream elsewhere, from the store.
          if (!listening && this.holders.get(streamId) === node) this.holders.delete(streamId);
        },
        (err) => this.host.report(err),
      );
    }
  };

  private applyState(state: SharedState): void {
    if (state.n <= this.state.n) return;
    this.state = state;
    this.restore();
  }

  /** Puts the shared state on the local session (after a change made here could not be shared, too). */
  private restore(): void {
    const session = this.transport.session;
    const { logLevel, subscriptions } = this.state;
    session.logLevel = logLevel;
    session.subscriptions = subscriptions.length === 0 ? undefined : new Set(subscriptions);
  }

  private gone(): void {
    this.transport.close('gone').catch(this.host.report);
  }
}

function stateChange(request: JsonRpcRequest): StateChange {
  const params = request.params as { level?: LoggingLevel; uri?: string };
  switch (request.method) {
    case Method.LoggingSetLevel:
      return { op: 'level', level: params.level! };
    case Method.ResourcesSubscribe:
      return { op: 'subscribe', uri: params.uri! };
    default:
      return { op: 'unsubscribe', uri: params.uri! };
  }
}

function fromMessage(m: StateMessage): SharedState {
  return {
    n: m.n,
    logLevel: m.ll === false ? undefined : m.ll,
    subscriptions: Array.isArray(m.subs) ? m.subs : [],
  };
}
