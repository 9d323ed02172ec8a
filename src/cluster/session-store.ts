import { createHash } from 'node:crypto';
import type { RedisClient } from '../eventstore/redis-client.js';
import { WRITE_FUNCTION } from '../eventstore/redis-event-scripts.js';
import type { RedisEventStore } from '../eventstore/redis-event-store.js';
import { StoreUnavailableError } from '../eventstore/store-unavailable-error.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import type { SharedSession } from '../transport/streamable/session-directory.js';
import { sessionHash } from '../util/session-hash.js';
import type { StateMessage } from './cluster-messages.js';

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

// Record fields: v protocol version, ci client info (JSON), cc client capabilities (JSON), p principal (po: one
// that was not a string),
// sp stream prefix, c created and t last activity (ms since the epoch), n the number of the last change of state,
// ll log level, s:<uri> one per subscription, h:<stream id> the process holding that stream's response.
//
// Subscriber index: per URI, a sorted set `<prefix>:subscribers:<SHA-1 of the URI, hex>` of the sessions whose
// record subscribes to it, each member `<hash>:<stream prefix>` (what a notification needs to name the keys of its
// GET stream) scored with the time (its node's clock, ms) its record was last refreshed, so that
// `resourceUpdated` finds them without scanning sessions. It may hold more than the records say (a session that
// expired, a change cut off by a lost connection): the record decides, and a member whose record says otherwise is
// removed when found. A record lives `ttl` after its last refresh; a member older than twice that is removed when
// the URI's index is next written, and the set itself expires with its newest member.
//
// Every script touches one session's keys, all in its hash slot (`{hash}`), so that a Redis Cluster runs it on
// one shard; the index of a URI is in a slot of its own, and kept by separate commands: a failure between two of
// them leaves a member too many (harmless: the record decides), or fails the subscription that went unindexed.

/** Lua: `clock()`, Redis's clock in ms. */
const CLOCK_FUNCTION = `
local function clock()
  local time = redis.call('TIME')
  return time[1] * 1000 + math.floor(time[2] / 1000)
end
`;

/**
 * INDEX(index of a URI; member, ttl ms) → 1. Puts the member in the index, scored now, drops the members older
 * than twice the TTL (of sessions that ended without unsubscribing), and keeps the set that long.
 */
const INDEX_LUA = `${CLOCK_FUNCTION}
local now, ttl = clock(), tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 2 * ttl)
redis.call('PEXPIRE', KEYS[1], 2 * ttl)
return 1
`;

/** Lua: `subscriptions(record)`, the URIs the record subscribes to. */
const SUBSCRIPTIONS_FUNCTION = `
local function subscriptions(record)
  local subs = {}
  for _, field in ipairs(redis.call('HKEYS', record)) do
    if string.sub(field, 1, 2) == 's:' then subs[#subs + 1] = string.sub(field, 3) end
  end
  return subs
end
`;

/**
 * TOUCH(record; ttl ms, now) → the URIs the record subscribes to (whose index entries the caller refreshes), or
 * nil when the record is gone. Refreshes the record.
 */
const TOUCH_LUA = `${SUBSCRIPTIONS_FUNCTION}
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 't', ARGV[2])
return subscriptions(KEYS[1])
`;

/**
 * CHANGE(record; op, arg, hash, bus) → the state message it published, or nil when the record is gone. Applies
 * one change, numbers it (n, growing), and publishes the whole resulting state, so that every process ends with
 * the latest state whatever order it hears of concurrent changes in (it keeps the highest n). The caller indexes a
 * subscription before, and unindexes an unsubscription after.
 */
const CHANGE_LUA = `${CLOCK_FUNCTION}${SUBSCRIPTIONS_FUNCTION}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local op, arg = ARGV[1], ARGV[2]
if op == 'level' then
  redis.call('HSET', KEYS[1], 'll', arg)
elseif op == 'subscribe' then
  redis.call('HSET', KEYS[1], 's:' .. arg, 1)
else
  redis.call('HDEL', KEYS[1], 's:' .. arg)
end
-- Change numbers only grow, also across a Redis that restarted from an older state (which undoes the changes it
-- lost): the next one is numbered past the clock in ms, so no process ignores it for a number it already holds.
local n = math.max(tonumber(redis.call('HGET', KEYS[1], 'n') or '0') + 1, clock())
redis.call('HSET', KEYS[1], 'n', string.format('%d', n))
local message = cjson.encode({k = 'state', s = ARGV[3], n = n, ll = redis.call('HGET', KEYS[1], 'll'),
  subs = subscriptions(KEYS[1])})
redis.call('PUBLISH', ARGV[4], message)
return message
`;

/** HOLD(record; stream id, node, hash, bus) → 1, or 0 when the record is gone. Records and announces the holder. */
const HOLD_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'h:' .. ARGV[1], ARGV[2])
redis.call('PUBLISH', ARGV[4], cjson.encode({k = 'hold', s = ARGV[3], x = ARGV[1], by = ARGV[2]}))
return 1
`;

/**
 * REMOVE(record; hash, bus) → {stream prefix, URI…} of the record, whose index entries the caller removes; {}
 * when there was none. Deletes it, and tells every process.
 */
const REMOVE_LUA = `${SUBSCRIPTIONS_FUNCTION}
local out = {}
local sp = redis.call('HGET', KEYS[1], 'sp')
if sp then
  out = subscriptions(KEYS[1])
  table.insert(out, 1, sp)
  redis.call('DEL', KEYS[1])
end
redis.call('PUBLISH', ARGV[2], cjson.encode({k = 'closed', s = ARGV[1]}))
return out
`;

/**
 * NOTIFY(record, events session, events GET stream; uri, data, ttl s, maxEvents, maxBytes, GET stream id) →
 * {index, holder}: the index of the event `data` became in the session's GET stream, and the process holding that
 * stream (which the caller tells); -1 when the record is gone or not subscribed to `uri`; -2 when no process ever
 * held the session's GET stream (so, as in one process, there is no stream to record it in); -3 when the stream
 * refused it.
 */
const NOTIFY_LUA = `${WRITE_FUNCTION}
local meta = redis.call('HMGET', KEYS[1], 's:' .. ARGV[1], 'h:' .. ARGV[6])
if not meta[1] then return -1 end
if not meta[2] then return -2 end
local i = write(KEYS[2], KEYS[3], ARGV[6], {'o', 'a', ARGV[2]}, 1, ARGV[3], tonumber(ARGV[4]),
  tonumber(ARGV[5]))[2]
if i < 0 then return -3 end
return {i, meta[2]}
`;

interface Script {
  readonly lua: string;
  readonly sha: string;
}
const script = (lua: string): Script => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });
const INDEX = script(INDEX_LUA);
const TOUCH = script(TOUCH_LUA);
const CHANGE = script(CHANGE_LUA);
const HOLD = script(HOLD_LUA);
const REMOVE = script(REMOVE_LUA);
const NOTIFY = script(NOTIFY_LUA);

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
  ) {
    this.indexPrefix = `${keyPrefix}:subscribers:`;
  }

  /** The record key of the session with hash `h`. */
  key(h: string): string {
    return `${this.keyPrefix}:session:{${h}}`;
  }

  /** Writes the record of a session that just initialized. */
  async create(h: string, session: SharedSession, ttlMs: number, now: number): Promise<void> {
    const fields: Record<string, string> = {
      v: session.protocolVersion,
      sp: session.streamPrefix,
      n: '0',
      c: String(now),
      t: String(now),
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

  /** The record, or undefined when there is none (the session ended, expired, or never was). */
  async load(h: string): Promise<SessionRecord | undefined> {
    let fields: Record<string, string>;
    try {
      fields = await this.client.hgetall(this.key(h));
    } catch (err) {
      throw redisFailure(err);
    }
    return parseRecord(fields);
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
   * Applies `change` to session `h` (stream prefix `sp`) and publishes the resulting state; undefined when the
   * record is gone. `ttlMs` is how long a record lives without a refresh (it bounds what the subscriber index
   * keeps of sessions that expired).
   */
  async change(h: string, sp: string, change: StateChange, ttlMs: number): Promise<StateMessage | undefined> {
    const arg = change.op === 'level' ? change.level : change.uri;
    // Sent at once, in call order: the changes of one session made here reach its record in the order they were
    // made. A subscription is indexed too before it is answered; if that fails, so does the request (the record's
    // next refresh indexes it).
    const indexed = change.op === 'subscribe' ? this.index(change.uri, indexMember(h, sp), ttlMs) : undefined;
    const [reply] = await Promise.all([
      this.run(CHANGE, [this.key(h)], change.op, arg, h, this.bus),
      indexed,
    ]);
    // A member left behind (the command failed) goes with the first update that finds the record says otherwise.
    if (change.op === 'unsubscribe') this.unindex(change.uri, indexMember(h, sp)).catch(ignore);
    return typeof reply === 'string' ? (JSON.parse(reply) as StateMessage) : undefined;
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
  private async run(s: Script, keys: readonly string[], ...args: string[]): Promise<unknown> {
    try {
      return await this.client.evalsha(s.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw redisFailure(err);
    }
    // Redis does not have the script yet (first use, after a restart, a replica that took over): EVAL sends it
    // and caches it.
    try {
      return await this.client.eval(s.lua, keys.length, ...keys, ...args);
    } catch (err) {
      throw redisFailure(err);
    }
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

/** A failed Redis call, in the words a client and an operator need (the HTTP layer answers it with 503). */
export function redisFailure(err: unknown): StoreUnavailableError {
  if (err instanceof StoreUnavailableError) return err.as('shared session state');
  const message = err instanceof Error ? err.message : String(err);
  let detail: string;
  if (message.startsWith("Stream isn't writeable")) detail = 'Redis is not connected';
  else if (message === 'Command timed out') detail = 'Redis did not answer in time';
  else detail = `Redis failed (${message})`;
  return new StoreUnavailableError(detail, { cause: err, store: 'shared session state' });
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
