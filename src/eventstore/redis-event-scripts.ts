// The Lua scripts of RedisEventStore. Each operation is one script, so Redis runs it atomically: no append can
// slip between the purge check of a replay and the read of its events, and numbering needs no lock.
//
// Layout (see RedisEventStore): KEYS[1] is the session's hash, KEYS[2] (when given) the Redis stream holding
// the events of stream ARGV[1]. The session hash holds, per stream id `<id>`:
//   n:<id>  the stream's next index (the count of events ever appended): its presence means "open in this session"
//   b:<id>  the bytes (UTF-8) of the events the Redis stream still holds
//   c:<id>  present once the stream is closed
// Event `i` is the Redis stream entry with id `<i + 1>-0` and one field `d` (its data): entries sort by index,
// never by a clock. Only the oldest entries are ever removed (exact XTRIM MAXLEN, or the key expiring or being
// deleted whole), so the stream holds events `next - XLEN` … `next - 1`, and that is the purge check.
// Numbers are written with string.format('%d'): Lua's tostring turns integers past 1e14 into exponent form.

/** OPEN(session, events; id, ttl) → 0. Creates the stream when absent, and refreshes the TTLs. */
export const OPEN_LUA = `
local n = 'n:' .. ARGV[1]
if redis.call('HSETNX', KEYS[1], n, 0) == 1 then
  -- A new stream: drop events left by an earlier stream of the same id whose record was lost (eviction).
  redis.call('UNLINK', KEYS[2])
else
  redis.call('EXPIRE', KEYS[2], ARGV[2])
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 0
`;

/**
 * APPEND(session, events; id, data, ttl, maxEvents, maxBytes) → the event's index, -1 when the stream is not
 * open in this session, -2 when it is closed. Adds the event, then removes the oldest events while the stream
 * holds more than maxEvents, or more than maxBytes bytes (an event larger than maxBytes goes at once), keeping
 * b:<id> exact. Refreshes both TTLs.
 */
export const APPEND_LUA = `
local id = ARGV[1]
local meta = redis.call('HMGET', KEYS[1], 'n:' .. id, 'c:' .. id, 'b:' .. id)
if not meta[1] then return -1 end
if meta[2] then return -2 end
local index = tonumber(meta[1])
local len = redis.call('XLEN', KEYS[2])
local bytes = #ARGV[2]
-- With no entry left (trimmed away, or the key expired), b:<id> counts nothing still held.
if len > 0 then bytes = bytes + tonumber(meta[3] or '0') end
redis.call('XADD', KEYS[2], string.format('%d-0', index + 1), 'd', ARGV[2])
len = len + 1
local maxEvents, maxBytes = tonumber(ARGV[4]), tonumber(ARGV[5])
local drop, from = 0, '-'
while len - drop > maxEvents or (bytes > maxBytes and drop < len) do
  local batch = redis.call('XRANGE', KEYS[2], from, '+', 'COUNT', math.max(len - drop - maxEvents, 1))
  for _, entry in ipairs(batch) do
    if len - drop <= maxEvents and bytes <= maxBytes then break end
    bytes = bytes - #entry[2][2]
    drop = drop + 1
    from = '(' .. entry[1]
  end
end
if drop == len then
  redis.call('UNLINK', KEYS[2])
else
  if drop > 0 then redis.call('XTRIM', KEYS[2], 'MAXLEN', len - drop) end
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
redis.call('HSET', KEYS[1], 'n:' .. id, string.format('%d', index + 1), 'b:' .. id, string.format('%d', bytes))
redis.call('EXPIRE', KEYS[1], ARGV[3])
return index
`;

/**
 * AFTER(session, events; id, index) → {0, closed (0|1), {data…}} with every event after `index`;
 * {1} when the stream is not open in this session; {2, next} when `index` >= next (never issued);
 * {3, firstHeld} when an event after `index` is no longer held. Reads only.
 */
export const AFTER_LUA = `
local meta = redis.call('HMGET', KEYS[1], 'n:' .. ARGV[1], 'c:' .. ARGV[1])
if not meta[1] then return {1} end
local next, index = tonumber(meta[1]), tonumber(ARGV[2])
if index >= next then return {2, next} end
local first = next - redis.call('XLEN', KEYS[2])
if index + 1 < first then return {3, first} end
local events = {}
if index + 1 < next then
  for i, entry in ipairs(redis.call('XRANGE', KEYS[2], string.format('%d', index + 2), '+')) do
    events[i] = entry[2][2]
  end
end
return {0, meta[2] and 1 or 0, events}
`;

/**
 * STREAM_CLOSED(session, events; id, ttl) → 0. Marks the stream closed; a stream that holds no event is
 * forgotten instead (its replay could only be empty), as the memory store does. No-op for an unknown stream.
 */
export const STREAM_CLOSED_LUA = `
local id = ARGV[1]
if redis.call('HEXISTS', KEYS[1], 'n:' .. id) == 0 then return 0 end
if redis.call('XLEN', KEYS[2]) == 0 then
  redis.call('HDEL', KEYS[1], 'n:' .. id, 'b:' .. id, 'c:' .. id)
  redis.call('UNLINK', KEYS[2])
else
  redis.call('HSET', KEYS[1], 'c:' .. id, 1)
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 0
`;

/**
 * SESSION_CLOSED(session) → the number of streams deleted. Deletes the Redis stream of every stream the session
 * hash lists (their keys are `<session key>:<id>`, in the session's hash slot), then the hash.
 */
export const SESSION_CLOSED_LUA = `
local streams = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 'n:' then
    redis.call('UNLINK', KEYS[1] .. ':' .. string.sub(field, 3))
    streams = streams + 1
  end
end
redis.call('UNLINK', KEYS[1])
return streams
`;
