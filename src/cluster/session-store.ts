import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
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
// Subscriber index: per URI, a sorted set `<prefix>:subscribers:<SHA-1 of the URI, hex>` of the hashes of the
// sessions whose record subscribes to it, each scored with the time (Redis's clock, ms) its record was last
// refreshed, so that `resourceUpdated` finds them without scanning sessions. It may hold more than the records say
// (a session that expired, a change cut off by a lost connection): the record decides, and a member whose record
// says otherwise is removed when found. A record lives `ttl` after its last refresh, and a member older than
// twice that is removed by the next subscription to the URI; the set itself expires with its newest member.
// The scripts that keep it touch a key outside the session's slot: the cluster runs on one Redis (with its
// replicas), not on a sharded Redis Cluster.

/** Lua: `clock()`, Redis's clock in ms; `index(…)`, which puts session `h` in the subscriber index of `uri`. */
const INDEX_FUNCTIONS = `
local function clock()
  local time = redis.call('TIME')
  return time[1] * 1000 + math.floor(time[2] / 1000)
end
local function index(prefix, uri, h, now, ttl)
  local key = prefix .. redis.sha1hex(uri)
  redis.call('ZADD', key, now, h)
  redis.call('PEXPIRE', key, 2 * ttl)
  return key
end
`;

/**
 * TOUCH(record; ttl ms, now, hash, index prefix) → 1, or 0 when the record is gone. Refreshes the record and its
 * entries in the subscriber index.
 */
const TOUCH_LUA = `${INDEX_FUNCTIONS}
local ttl = tonumber(ARGV[1])
if redis.call('PEXPIRE', KEYS[1], ttl) == 0 then return 0 end
redis.call('HSET', KEYS[1], 't', ARGV[2])
local now = clock()
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 's:' then index(ARGV[4], string.sub(field, 3), ARGV[3], now, ttl) end
end
return 1
`;

/**
 * CHANGE(record; op, arg, hash, bus, index prefix, ttl ms) → the state message it published, or false when the
 * record is gone. Applies one change (a subscription also to the subscriber index), numbers it (n, growing), and
 * publishes the whole resulting state, so that every process ends with the latest state whatever order it hears
 * of concurrent changes in (it keeps the highest n).
 */
const CHANGE_LUA = `${INDEX_FUNCTIONS}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local op, arg, now = ARGV[1], ARGV[2], clock()
if op == 'level' then
  redis.call('HSET', KEYS[1], 'll', arg)
elseif op == 'subscribe' then
  redis.call('HSET', KEYS[1], 's:' .. arg, 1)
  local ttl = tonumber(ARGV[6])
  local key = index(ARGV[5], arg, ARGV[3], now, ttl)
  -- What sessions that ended without unsubscribing left behind.
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - 2 * ttl)
else
  redis.call('HDEL', KEYS[1], 's:' .. arg)
  redis.call('ZREM', ARGV[5] .. redis.sha1hex(arg), ARGV[3])
end
-- Change numbers only grow, also across a Redis that restarted from an older state (which undoes the changes it
-- lost): the next one is numbered past the clock in ms, so no process ignores it for a number it already holds.
local n = math.max(tonumber(redis.call('HGET', KEYS[1], 'n') or '0') + 1, now)
redis.call('HSET', KEYS[1], 'n', string.format('%d', n))
local subs = {}
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 's:' then subs[#subs + 1] = string.sub(field, 3) end
end
local message = cjson.encode({k = 'state', s = ARGV[3], n = n, ll = redis.call('HGET', KEYS[1], 'll'), subs = subs})
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
 * REMOVE(record; hash, bus, index prefix) → 1 when the record existed. Deletes it and its entries in the
 * subscriber index, and tells every process.
 */
const REMOVE_LUA = `
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 's:' then redis.call('ZREM', ARGV[3] .. redis.sha1hex(string.sub(field, 3)), ARGV[1]) end
end
local existed = redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], cjson.encode({k = 'closed', s = ARGV[1]}))
return existed
`;

/**
 * NOTIFY(record, events session; uri, data, ttl s, maxEvents, maxBytes, hash, node channel prefix) → the index
 * of the event `data` became in the session's GET stream, whose holder it tells (an `append` message); -1 when
 * the record is gone or not subscribed to `uri`; -2 when no process ever held the session's GET stream (so, as
 * in one process, there is no stream to record it in); -3 when the stream refused it. Every key it touches is
 * in the session's slot.
 */
const NOTIFY_LUA = `${WRITE_FUNCTION}
local meta = redis.call('HMGET', KEYS[1], 's:' .. ARGV[1], 'sp')
if not meta[1] then return -1 end
local stream = meta[2] .. '0'
local holder = redis.call('HGET', KEYS[1], 'h:' .. stream)
if not holder then return -2 end
local i = write(KEYS[2], KEYS[2] .. ':' .. stream, stream, {'o', 'a', ARGV[2]}, 1, ARGV[3], tonumber(ARGV[4]),
  tonumber(ARGV[5]))[2]
if i < 0 then return -3 end
redis.call('PUBLISH', ARGV[7] .. holder, cjson.encode({k = 'append', s = ARGV[6], x = stream, i = i}))
return i
`;

interface Script {
  readonly lua: string;
  readonly sha: string;
}
const script = (lua: string): Script => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });
const TOUCH = script(TOUCH_LUA);
const CHANGE = script(CHANGE_LUA);
const HOLD = script(HOLD_LUA);
const REMOVE = script(REMOVE_LUA);
const NOTIFY = script(NOTIFY_LUA);

/**
 * The session records of a cluster, one Redis hash per session under `<keyPrefix>:session:{hash}`, with a TTL that
 * activity refreshes: a record that expired is a session that ended (idle), in every process. Each operation is
 * one command or one Lua script, so it is atomic, and the scripts that change what other processes must know
 * publish it on `bus` in the same step: every process hears the changes in the order Redis made them.
 *
 * Every method rejects with StoreUnavailableError when Redis cannot be reached or does not answer in time.
 */
export class SessionStore {
  /** What the key of each URI's subscriber index starts with. */
  private readonly indexPrefix: string;

  constructor(
    private readonly client: Redis,
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

  /** Keeps the record (and its subscriptions) alive for `ttlMs` more; false when it is gone. */
  async touch(h: string, ttlMs: number, now: number): Promise<boolean> {
    return (await this.run(TOUCH, this.key(h), String(ttlMs), String(now), h, this.indexPrefix)) === 1;
  }

  /**
   * Applies `change` and publishes the resulting state; undefined when the record is gone. `ttlMs` is how long
   * a record lives without a refresh (it bounds what the subscriber index keeps of sessions that expired).
   */
  async change(h: string, change: StateChange, ttlMs: number): Promise<StateMessage | undefined> {
    const arg = change.op === 'level' ? change.level : change.uri;
    const reply = await this.run(
      CHANGE,
      this.key(h),
      change.op,
      arg,
      h,
      this.bus,
      this.indexPrefix,
      String(ttlMs),
    );
    return typeof reply === 'string' ? (JSON.parse(reply) as StateMessage) : undefined;
  }

  /**
   * The hashes of the sessions the subscriber index lists for `uri`: every session whose record subscribes to it,
   * and maybe some that no longer do (`notify` tells).
   */
  async subscribers(uri: string): Promise<string[]> {
    try {
      return await this.client.zrange(this.indexPrefix + sha1(uri), '0', '-1');
    } catch (err) {
      throw redisFailure(err);
    }
  }

  /**
   * If the record of session `h` subscribes to `uri`, records `data` in the session's GET stream in `events` and
   * tells the process holding that stream (on its channel, `<nodes><node id>`), which writes it to its response:
   * the index of the event, or -2 when no process ever held the session's GET stream (the message has nowhere to
   * go, as in one process) or -3 when the stream refused it. When the record is gone or does not subscribe: drops
   * the session from the index and answers -1.
   */
  async notify(
    h: string,
    uri: string,
    data: string,
    events: RedisEventStore,
    nodes: string,
  ): Promise<number> {
    const reply = (await this.run(
      NOTIFY,
      this.key(h),
      events.sessionKeyOf(h),
      uri,
      data,
      String(events.ttlSeconds),
      String(events.maxEventsPerStream),
      String(events.maxBytesPerStream),
      h,
      nodes,
    )) as number;
    if (reply === -1) {
      try {
        await this.client.zrem(this.indexPrefix + sha1(uri), h);
      } catch (err) {
        throw redisFailure(err);
      }
    }
    return reply;
  }

  /** Records and announces that `nodeId` holds the response of stream `streamId`; false when the record is gone. */
  async hold(h: string, streamId: string, nodeId: string): Promise<boolean> {
    return (await this.run(HOLD, this.key(h), streamId, nodeId, h, this.bus)) === 1;
  }

  /** Deletes the record and tells every process that the session ended. */
  async remove(h: string): Promise<void> {
    await this.run(REMOVE, this.key(h), h, this.bus, this.indexPrefix);
  }

  /** Runs script `s` on `key` (and on `events`, the session's key in the event store, for NOTIFY). */
  private async run(s: Script, key: string, ...args: string[]): Promise<unknown> {
    const keys = s === NOTIFY ? 2 : 1;
    try {
      return await this.client.evalsha(s.sha, keys, key, ...args);
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw redisFailure(err);
    }
    // Redis does not have the script yet (first use, or after a restart): EVAL sends it and caches it.
    try {
      return await this.client.eval(s.lua, keys, key, ...args);
    } catch (err) {
      throw redisFailure(err);
    }
  }
}

/** A URI's name in the subscriber index: Lua's `redis.sha1hex` of it. */
function sha1(uri: string): string {
  return createHash('sha1').update(uri).digest('hex');
}

/** A failed Redis call, in the words a client and an operator need (the HTTP layer answers it with 503). */
export function redisFailure(err: unknown): StoreUnavailableError {
  if (err instanceof StoreUnavailableError) return err;
  const message = err instanceof Error ? err.message : String(err);
  let detail: string;
  if (message.startsWith("Stream isn't writeable")) detail = 'Redis is not connected';
  else if (message === 'Command timed out') detail = 'Redis did not answer in time';
  else detail = `Redis failed (${message})`;
  return new StoreUnavailableError(`${detail}; the shared session state could not be reached`, {
    cause: err,
  });
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
