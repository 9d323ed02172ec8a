import { createHash } from 'node:crypto';
import type { RedisClient } from '../eventstore/redis-client.js';
import type { RedisEventStore } from '../eventstore/redis-event-store.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import type { SharedSession } from '../server/http/legacy/session-directory.js';
import { sessionHash } from '../util/session-hash.js';
import type { StateMessage } from './cluster-messages.js';
import { runScript, type Script } from './lua-script.js';
import { redisFailure } from './redis-failure.js';
import { CHANGE, HOLD, INDEX, LOAD, NOTIFY, REMOVE, TOUCH } from './session-scripts.js';

/**
 * A session's key in Redis and in messages is `sessionHash` of its id: the keyspace and the channels never show a
 * session id (a credential); `{…}` keeps a session's keys in one Redis Cluster slot, the same one as its events in
 * a RedisEventStore.
 */
export { sessionHash };

/** The per-session state that requests change, and how many changes made it. */
export interface SharedState {
  readonly n: number;
  readonly logLevel: LoggingLevel | undefined;
  readonly subscriptions: readonly string[];
}

/** What a change of state made: the state it published, and the other processes holding a replica of the session. */
export interface Changed {
  readonly state: StateMessage;
  /** The processes the record lists as holding a replica, but the one that made the change. */
  readonly holders: readonly string[];
}

/** A session as its record holds it. */
export interface SessionRecord extends SharedSession {
  readonly state: SharedState;
  /** The process that last took each stream's response, by stream id. */
  readonly holders: ReadonlyMap<string, string>;
}

/** One change of shared state, as a request made it. */
export type StateChange =
  | { readonly op: 'level'; readonly level: LoggingLevel }
  | { readonly op: 'subscribe' | 'unsubscribe'; readonly uri: string };

// The record's fields, the subscriber index and the scripts that keep them: session-scripts.ts.

/**
 * What `notify` did with a resource update for one session: recorded it as event `index` of GET stream `stream`,
 * whose response process `holder` holds (and must be told); or not: the record is gone or not subscribed (-1), no
 * process ever held its GET stream (-2), or the stream refused it (-3).
 */
export type Notified =
  | { readonly index: number; readonly stream: string; readonly holder: string }
  | -1
  | -2
  | -3;

/**
 * The session records of a cluster, one Redis hash per session under `<keyPrefix>:session:{hash}`, with a TTL that
 * activity refreshes: a record that expired is a session that ended (idle), in every process. Each operation on a
 * record is one command or one Lua script, so it is atomic, and the scripts that change what other processes must
 * know publish it on `bus` in the same step: every process hears the changes in the order Redis made them.
 *
 * Every method rejects with StoreUnavailableError when Redis cannot be reached or does not answer in time.
 */
export class SessionStore {
  /** What the key of each URI's subscriber index starts with. */
  private readonly indexPrefix: string;

  constructor(
    private readonly client: RedisClient,
    readonly keyPrefix: string,
    /** The channel every process of the cluster listens to. */
    readonly bus: string,
    /** The process this store serves: the records list it among the processes holding a replica of the session. */
    readonly node: string,
  ) {
    this.indexPrefix = `${keyPrefix}:subscribers:`;
  }

  /** The record key of the session with hash `h`. */
  key(h: string): string {
    return `${this.keyPrefix}:session:{${h}}`;
  }

  /** Writes the record of a session that just initialized (here: this process holds a replica). */
  async create(h: string, session: SharedSession, ttlMs: number, now: number): Promise<void> {
    const fields: Record<string, string> = {
      v: session.protocolVersion,
      sp: session.streamPrefix,
      n: '0',
      c: String(now),
      t: String(now),
      [`r:${this.node}`]: '1',
    };
    if (session.clientInfo !== undefined) fields.ci = JSON.stringify(session.clientInfo);
    if (session.clientCapabilities !== undefined) fields.cc = JSON.stringify(session.clientCapabilities);
    if (typeof session.principal === 'string') fields.p = session.principal;
    else if (session.principal !== undefined) fields.po = '1';
    const key = this.key(h);
    try {
      const replies = await this.client.multi().hset(key, fields).pexpire(key, ttlMs).exec();
      const failed = replies?.find(([err]) => err !== null)?.[0];
      if (failed) throw failed;
    } catch (err) {
      throw redisFailure(err);
    }
  }

  /**
   * The record, or undefined when there is none (the session ended, expired, or never was). Registers this process
   * as holding a replica, in the same step: a change made later waits for it (see `change`).
   */
  async load(h: string): Promise<SessionRecord | undefined> {
    const flat = (await this.run(LOAD, [this.key(h)], this.node)) as string[];
    const fields: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
    return parseRecord(fields);
  }

  /** This process no longer holds a replica of session `h` (or `node` is gone): changes stop waiting for it. */
  async unregister(h: string, node = this.node): Promise<void> {
    try {
      await this.client.hdel(this.key(h), `r:${node}`);
    } catch (err) {
      throw redisFailure(err);
    }
  }

  /**
   * Keeps the record of session `h` (stream prefix `sp`) alive for `ttlMs` more, and its entries in the subscriber
   * index; false when it is gone.
   */
  async touch(h: string, sp: string, ttlMs: number, now: number): Promise<boolean> {
    const subs = (await this.run(TOUCH, [this.key(h)], String(ttlMs), String(now))) as string[] | null;
    if (subs === null) return false;
    await Promise.all(subs.map((uri) => this.index(uri, indexMember(h, sp), ttlMs)));
    return true;
  }

  /**
   * Applies `change` to session `h` (stream prefix `sp`), publishes the resulting state on the bus, and answers it
   * with the other processes that hold a replica (the caller makes sure they applied it); undefined when the record
   * is gone. `ttlMs` is how long a record lives without a refresh (it bounds what the subscriber index keeps of
   * sessions that expired).
   */
  async change(h: string, sp: string, change: StateChange, ttlMs: number): Promise<Changed | undefined> {
    const arg = change.op === 'level' ? change.level : change.uri;
    // Sent at once, in call order: the changes of one session made here reach its record in the order they were
    // made. A subscription is indexed too before it is answered; if that fails, so does the request (the record's
    // next refresh indexes it).
    const indexed = change.op === 'subscribe' ? this.index(change.uri, indexMember(h, sp), ttlMs) : undefined;
    const [reply] = (await Promise.all([
      this.run(CHANGE, [this.key(h)], change.op, arg, h, this.bus, this.node),
      indexed,
    ])) as [[string, ...string[]] | null, unknown];
    // A member left behind (the command failed) goes with the first update that finds the record says otherwise.
    if (change.op === 'unsubscribe') this.unindex(change.uri, indexMember(h, sp)).catch(ignore);
    if (reply === null) return undefined;
    const [state, ...holders] = reply;
    return { state: JSON.parse(state) as StateMessage, holders };
  }

  /**
   * The sessions the subscriber index lists for `uri`, as members (`<hash>:<stream prefix>`) for `notify`: every
   * session whose record subscribes to it, and maybe some that no longer do (`notify` tells).
   */
  async subscribers(uri: string): Promise<string[]> {
    try {
      return await this.client.zrange(this.indexPrefix + sha1(uri), '0', '-1');
    } catch (err) {
      throw redisFailure(err);
    }
  }

  /**
   * If the record of the session `member` names subscribes to `uri`, records `data` in the session's GET stream in
   * `events`, and answers where, and which process holds that stream's response (the caller tells it, which writes
   * the event to its response); see Notified for what else. When the record is gone or does not subscribe, also
   * drops the member from the index.
   */
  async notify(member: string, uri: string, data: string, events: RedisEventStore): Promise<Notified> {
    const at = member.indexOf(':');
    const h = member.slice(0, at);
    const stream = `${member.slice(at + 1)}0`;
    // biome-ignore format: the script's keys, then its arguments, in its order
    const reply = (await this.run(NOTIFY, [this.key(h), events.sessionKeyOf(h), events.streamKeyOf(h, stream)],
      uri, data, String(events.ttlSeconds), String(events.maxEventsPerStream), String(events.maxBytesPerStream),
      stream)) as [number, string] | -1 | -2 | -3;
    if (reply === -1) await this.unindex(uri, member);
    return Array.isArray(reply) ? { index: reply[0], stream, holder: reply[1] } : reply;
  }

  /**
   * `notify` for every session the subscriber index lists for `uri`: whichever process serves it, and whether or not
   * any holds a replica of it, each session subscribed gets `data` recorded in its GET stream (which every process
   * can resume), and `tell` hears which process holds that stream's response, to tell it (it writes the event to its
   * response). Costs one command, and one script per listed session. Rejects when the index cannot be read; a
   * failure for one session does not stop the others, and rejects once they are done.
   */
  async notifySubscribers(
    uri: string,
    data: string,
    events: RedisEventStore,
    tell: (holder: string, append: { s: string; x: string; i: number }) => Promise<unknown>,
  ): Promise<void> {
    const members = await this.subscribers(uri);
    const told = members.map(async (member) => {
      const done = await this.notify(member, uri, data, events);
      if (typeof done !== 'number')
        await tell(done.holder, { s: member.slice(0, member.indexOf(':')), x: done.stream, i: done.index });
    });
    for (const outcome of await Promise.allSettled(told))
      if (outcome.status === 'rejected') throw outcome.reason;
  }

  /** Records and announces that `nodeId` holds the response of stream `streamId`; false when the record is gone. */
  async hold(h: string, streamId: string, nodeId: string): Promise<boolean> {
    return (await this.run(HOLD, [this.key(h)], streamId, nodeId, h, this.bus)) === 1;
  }

  /** Deletes the record, tells every process that the session ended, and drops it from the subscriber index. */
  async remove(h: string): Promise<void> {
    const [sp, ...subs] = (await this.run(REMOVE, [this.key(h)], h, this.bus)) as string[];
    // What is left behind (a command failed) goes with the first update that finds the record gone.
    for (const uri of subs) this.unindex(uri, indexMember(h, sp)).catch(ignore);
  }

  /** Puts `member` in the subscriber index of `uri`. */
  private async index(uri: string, member: string, ttlMs: number): Promise<void> {
    await this.run(INDEX, [this.indexPrefix + sha1(uri)], member, String(ttlMs));
  }

  private async unindex(uri: string, member: string): Promise<void> {
    try {
      await this.client.zrem(this.indexPrefix + sha1(uri), member);
    } catch (err) {
      throw redisFailure(err);
    }
  }

  /** Runs script `s` on `keys`, all in one hash slot. */
  private run(s: Script, keys: readonly string[], ...args: string[]): Promise<unknown> {
    return runScript(this.client, s, keys, args);
  }
}

/** How the subscriber index names a session: what `notify` needs to find its record and its GET stream. */
function indexMember(h: string, sp: string): string {
  return `${h}:${sp}`;
}

const ignore = (): void => {};

/** A URI's name in the subscriber index: Lua's `redis.sha1hex` of it. */
function sha1(uri: string): string {
  return createHash('sha1').update(uri).digest('hex');
}

/** The principal of a session created by a principal that was not a string: no request's principal equals it. */
const UNCOMPARABLE: unknown = Object.freeze({ uncomparable: true });

function parseRecord(fields: Record<string, string>): SessionRecord | undefined {
  const protocolVersion = fields.v;
  const streamPrefix = fields.sp;
  if (protocolVersion === undefined || streamPrefix === undefined) return undefined;
  const subscriptions: string[] = [];
  const holders = new Map<string, string>();
  for (const field in fields) {
    if (field.startsWith('s:')) subscriptions.push(field.slice(2));
    else if (field.startsWith('h:')) holders.set(field.slice(2), fields[field]);
  }
  return {
    protocolVersion,
    streamPrefix,
    clientInfo: parseJson(fields.ci) as Implementation | undefined,
    clientCapabilities: parseJson(fields.cc) as ClientCapabilities | undefined,
    principal: fields.po === '1' ? UNCOMPARABLE : fields.p,
    state: { n: Number(fields.n ?? 0), logLevel: fields.ll as LoggingLevel | undefined, subscriptions },
    holders,
  };
}

function parseJson(text: string | undefined): unknown {
  return text === undefined ? undefined : JSON.parse(text);
}
