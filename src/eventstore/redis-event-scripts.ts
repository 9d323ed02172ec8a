// The Lua scripts of RedisEventStore. Each operation is one script, so Redis runs it atomically: no append can
// slip between the purge check of a replay and the read of its events, and numbering needs no lock.
//
// Layout (see RedisEventStore): KEYS[1] is the session's hash, KEYS[2] the Redis stream holding the events of
// stream ARGV[1]; both in the session's hash slot, and a script touches no other key (a Redis Cluster runs it
// on the slot's master). The session hash holds, per stream id `<id>`:
//   n:<id>  the stream's next index (the count of events ever appended): its presence means "open in this session"
//   b:<id>  the bytes (UTF-8) of the events the Redis stream still holds
//   c:<id>  present once the stream is closed: '1', or 's' when it is sealed (below)
// Event `i` is the Redis stream entry with id `<i + 1>-0` and one field `d` (its data): entries sort by index,
// never by a clock. Only the oldest entries are ever removed (exact XTRIM MAXLEN, or the key expiring or being
// deleted whole), so the stream holds events `next - XLEN` … `next - 1`, and that is the purge check.
// A sealed stream was opened, written and closed by one script (a POST answered at once: its priming event and
// its answer): KEYS[2] is then a string, the MessagePack array of all its events, which expires whole. It is
// closed, so no write touches it again; a replay reads it whole, or finds it expired (every event purged).
// Numbers are written with string.format('%d'): Lua's tostring turns integers past 1e14 into exponent form.

/**
 * A Lua function, for scripts to include: `write(session, events, id, ops, at, ttl, maxEvents, maxBytes)` runs the
 * operations `ops[at]`, `ops[at + 1]`, … on stream `id`, in order, and answers a table with one result per
 * operation:
 *   'o'        open: creates the stream when absent, and refreshes the TTLs → 0
 *   'a', data  append: adds the event, then removes the oldest events while the stream holds more than maxEvents,
 *              or more than maxBytes bytes (an event larger than maxBytes goes at once), keeping b:<id> exact
 *              → the event's index; -1 when the stream is not open in this session, -2 when it is closed
 *   'c'        close: marks the stream closed; a stream that holds no event is forgotten instead (its replay could
 *              only be empty), as the memory store does; nothing for an unknown stream → 0
 * The session hash is read once and written once, and each TTL is refreshed once, however many operations run:
 * one script can open a stream, record its priming event and its answer, and close it.
 */
export const WRITE_FUNCTION = `
local function write(session, events, id, ops, at, ttl, maxEvents, maxBytes)
  local nField, cField, bField = 'n:' .. id, 'c:' .. id, 'b:' .. id
  local meta = redis.call('HMGET', session, nField, cField, bField)
  local next, closed, bytes = tonumber(meta[1]), meta[2] ~= false, tonumber(meta[3] or '0')
  -- len: the entries of the Redis stream, read once when needed; changed: the hash needs writing.
  local len, changed, forgotten = nil, false, false
  local results = {}
  while at <= #ops do
    local op = ops[at]
    if op == 'a' then
      local data = ops[at + 1]
      at = at + 2
      if not next then
        results[#results + 1] = -1
      elseif closed then
        results[#results + 1] = -2
      else
        len = len or redis.call('XLEN', events)
        -- With no entry left (trimmed away, or the key expired), b:<id> counts nothing still held.
        if len == 0 then bytes = 0 end
        bytes = bytes + #data
        redis.call('XADD', events, string.format('%d-0', next + 1), 'd', data)
        len = len + 1
        local drop, from = 0, '-'
        while len - drop > maxEvents or (bytes > maxBytes and drop < len) do
          local batch = redis.call('XRANGE', events, from, '+', 'COUNT', math.max(len - drop - maxEvents, 1))
          for _, entry in ipairs(batch) do
            if len - drop <= maxEvents and bytes <= maxBytes then break end
            bytes = bytes - #entry[2][2]
            drop = drop + 1
            from = '(' .. entry[1]
          end
        end
        if drop == len then
          redis.call('UNLINK', events)
        elseif drop > 0 then
          redis.call('XTRIM', events, 'MAXLEN', len - drop)
        end
        len = len - drop
        results[#results + 1] = next
        next = next + 1
        changed = true
      end
    elseif op == 'o' then
      at = at + 1
      if not next then
        -- A new stream: drop events left by an earlier stream of the same id whose record was lost (eviction).
        redis.call('UNLINK', events)
        next, closed, bytes, len, changed = 0, false, 0, 0, true
      end
      results[#results + 1] = 0
    else
      at = at + 1
      if next and not closed then
        len = len or redis.call('XLEN', events)
        if len == 0 then
          redis.call('UNLINK', events)
          next, forgotten = nil, true
        else
          closed, changed = true, true
        end
      end
      results[#results + 1] = 0
    end
  end
  if not next then
    if forgotten then redis.call('HDEL', session, nField, bField, cField) end
  elseif changed then
    local n, b = string.format('%d', next), string.format('%d', bytes)
    if closed then
      redis.call('HSET', session, nField, n, bField, b, cField, 1)
    else
      redis.call('HSET', session, nField, n, bField, b)
    end
  end
  if next or forgotten then
    redis.call('EXPIRE', session, ttl)
    if next and len ~= 0 then redis.call('EXPIRE', events, ttl) end
  end
  return results
end
`;

/**
 * A Lua function: `seal(session, events, id, ops, at, ttl, maxEvents, maxBytes)` runs the operations as `write`
 * would, answering the same results, when they open a new stream, append at least one event and close it, all
 * within the bounds (nothing to purge); it stores the stream sealed (see the layout above) in four commands
 * (`HEXISTS`, `SET` with its TTL, `HSET`, `EXPIRE`) instead of a Redis stream's eight, and with a few hundred bytes
 * instead of a stream node's 4 KiB. Any other operations, or a stream that exists, answer nil: run `write`.
 */
export const SEAL_FUNCTION = `
local function seal(session, events, id, ops, at, ttl, maxEvents, maxBytes)
  if ops[at] ~= 'o' or ops[#ops] ~= 'c' then return nil end
  local data, bytes, i = {}, 0, at + 1
  while i < #ops do
    if ops[i] ~= 'a' then return nil end
    data[#data + 1] = ops[i + 1]
    bytes = bytes + #ops[i + 1]
    i = i + 2
  end
  if i ~= #ops or #data == 0 or #data > maxEvents or bytes > maxBytes then return nil end
  local nField = 'n:' .. id
  if redis.call('HEXISTS', session, nField) == 1 then return nil end
  redis.call('SET', events, cmsgpack.pack(data), 'EX', ttl)
  redis.call('HSET', session, nField, string.format('%d', #data), 'c:' .. id, 's')
  redis.call('EXPIRE', session, ttl)
  local results = {0}
  for k = 1, #data do results[k + 1] = k - 1 end
  results[#data + 2] = 0
  return results
end
`;

/**
 * WRITE(session 1, events 1, session 2, events 2, …; ttl, maxEvents, maxBytes, id 1, count 1, op, [data], op, …,
 * id 2, count 2, …) → per stream, in order, one result per operation (see WRITE_FUNCTION and SEAL_FUNCTION): the
 * operations on several streams, `count` arguments each, in one script. On a Redis Cluster the caller sends one
 * stream per script, whose keys share a slot.
 */
export const WRITE_LUA = `${WRITE_FUNCTION}${SEAL_FUNCTION}
local ttl, maxEvents, maxBytes = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local replies, at = {}, 4
for k = 1, #KEYS, 2 do
  local id, count, ops = ARGV[at], tonumber(ARGV[at + 1]), {}
  for j = 1, count do ops[j] = ARGV[at + 1 + j] end
  at = at + 2 + count
  replies[#replies + 1] = seal(KEYS[k], KEYS[k + 1], id, ops, 1, ttl, maxEvents, maxBytes)
    or write(KEYS[k], KEYS[k + 1], id, ops, 1, ttl, maxEvents, maxBytes)
end
return replies
`;

/**
 * AFTER(session, events; id, index) → {0, closed (0|1), {data…}} with every event after `index` (of a Redis stream or a
 * sealed one);
 * {1} when the stream is not open in this session; {2, next} when `index` >= next (never issued);
 * {3, firstHeld} when an event after `index` is no longer held. Reads only.
 */
export const AFTER_LUA = `
local meta = redis.call('HMGET', KEYS[1], 'n:' .. ARGV[1], 'c:' .. ARGV[1])
if not meta[1] then return {1} end
local next, index = tonumber(meta[1]), tonumber(ARGV[2])
if index >= next then return {2, next} end
if meta[2] == 's' then
  local sealed = redis.call('GET', KEYS[2])
  if not sealed then
    if index + 1 < next then return {3, next} end
    return {0, 1, {}}
  end
  local all, events = cmsgpack.unpack(sealed), {}
  for i = index + 2, next do events[#events + 1] = all[i] end
  return {0, 1, events}
end
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
