import { WRITE_FUNCTION } from '../eventstore/redis-event-scripts.js';
import { script } from './lua-script.js';

// The Lua scripts of SessionStore: each operation on a session's record is one script, so Redis runs it whole, and
// those that other processes must hear of publish in the same step.
//
// Record fields: v protocol version, ci client info (JSON), cc client capabilities (JSON), p principal (po: one
// that was not a string),
// sp stream prefix, c created and t last activity (ms since the epoch), n the number of the last change of state,
// ll log level, s:<uri> one per subscription, h:<stream id> the process holding that stream's response, r:<node> one
// per process holding a replica (written by the script that creates or loads it there, so a change made at the same
// time either lists that process or is in what it loads; removed when the replica ends there, or when a change finds
// that process gone).
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

/**
 * Lua: `listed(record)`, what follows the kind in each field of the record listing something, by kind:
 * `listed(record)['s:']` its URIs, `['r:']` the processes holding a replica.
 */
const LISTED_FUNCTION = `
local function listed(record)
  local out = {['s:'] = {}, ['r:'] = {}}
  for _, field in ipairs(redis.call('HKEYS', record)) do
    local list = out[string.sub(field, 1, 2)]
    if list then list[#list + 1] = string.sub(field, 3) end
  end
  return out
end
`;

/**
 * LOAD(record; node) → the record's fields and values, {} when there is none. Registers `node` as holding a
 * replica in the same step: a change made after it lists that process, one made before it is in what it reads.
 */
const LOAD_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
redis.call('HSET', KEYS[1], 'r:' .. ARGV[1], 1)
return redis.call('HGETALL', KEYS[1])
`;

/**
 * TOUCH(record; ttl ms, now) → the URIs the record subscribes to (whose index entries the caller refreshes), or
 * nil when the record is gone. Refreshes the record.
 */
const TOUCH_LUA = `${LISTED_FUNCTION}
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 't', ARGV[2])
return listed(KEYS[1])['s:']
`;

/**
 * CHANGE(record; op, arg, hash, bus, node) → {the state message it published, the other processes holding a
 * replica…}, or nil when the record is gone. Applies one change, numbers it (n, growing), and publishes the whole
 * resulting state, so that every process ends with the latest state whatever order it hears of concurrent changes
 * in (it keeps the highest n); `node`, the process making it, sends it to the others listed and waits for them. The
 * caller indexes a subscription before, and unindexes an unsubscription after.
 */
const CHANGE_LUA = `${CLOCK_FUNCTION}${LISTED_FUNCTION}
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
local fields = listed(KEYS[1])
local message = cjson.encode({k = 'state', s = ARGV[3], n = n, ll = redis.call('HGET', KEYS[1], 'll'),
  subs = fields['s:']})
redis.call('PUBLISH', ARGV[4], message)
local out = {message}
for _, node in ipairs(fields['r:']) do
  if node ~= ARGV[5] then out[#out + 1] = node end
end
return out
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
const REMOVE_LUA = `${LISTED_FUNCTION}
local out = {}
local sp = redis.call('HGET', KEYS[1], 'sp')
if sp then
  out = listed(KEYS[1])['s:']
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

export const INDEX = script(INDEX_LUA);
export const LOAD = script(LOAD_LUA);
export const TOUCH = script(TOUCH_LUA);
export const CHANGE = script(CHANGE_LUA);
export const HOLD = script(HOLD_LUA);
export const REMOVE = script(REMOVE_LUA);
export const NOTIFY = script(NOTIFY_LUA);
