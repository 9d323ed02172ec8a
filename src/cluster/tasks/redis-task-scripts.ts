// The Lua scripts of RedisTaskStore. Each operation on a task is one script on the task's hash (its only key, so
// a Redis Cluster runs it on the slot's master), and a change others must hear of is published in the same step:
// a status change and the message announcing it are one, and a change found by several processes at once (a
// runner found stopped) is made, and published, once.
//
// The task's hash (KEYS[1]) holds:
//   id      the task id (the key names a hash of it: this rules out a collision answering another task)
//   p       the principal; absent when the task has none (`undefined`)
//   r       the id of the process that runs it (its lease is `<prefix>:runner:<r>`)
//   s       the status
//   rec     the TaskRecord as JSON, as `get` answers it
//   q:<k>   input key k is asked now (while input_required)
//   d:<k>   input key k was answered: never delivered again (keys are unique for a task's lifetime)
//   i:<k>   the answer to k (JSON), waiting for the runner to take it
//   cx      '1' a cancel waits for the runner, '2' it took it
//   ix      its member in its principal's index
// Messages on the bus (ARGV): 'c' followed by the record's JSON, a change; 's' followed by the task's hash, a
// signal waits for its runner (which then takes it with TAKE).
//
// The per-principal index (three keys in the principal's slot, `{ph}`) lists its tasks by member
// `<µs, 16 digits>:<task hash>`, numbered by Redis's clock when the task was indexed and always past the newest
// member (so strictly in creation order): `all` (every score 0, read newest first by lex order), `exp` (scored by
// when the task expires, on Redis's clock) and `fin` (the final ones, score 0: oldest first by lex order).

const PRELUDE = `
local function final(s) return s == 'completed' or s == 'failed' or s == 'cancelled' end
-- Whether the task is id's (any id when id is '', for a listing) and principal p's (hasP '1'; '0' the task has
-- none; 'any' whoever's, for its runner).
local function owned(key, id, hasP, p)
  local f = redis.call('HMGET', key, 'id', 'p')
  if f[1] == false or (id ~= '' and f[1] ~= id) then return false end
  if hasP == '1' then return f[2] == p end
  if hasP == '0' then return f[2] == false end
  return hasP == 'any'
end
-- Deletes the fields of the hash whose names start with one of prefixes.
local function drop(key, prefixes)
  local gone = {}
  for _, field in ipairs(redis.call('HKEYS', key)) do
    local head = string.sub(field, 1, 2)
    for _, prefix in ipairs(prefixes) do
      if head == prefix then gone[#gone + 1] = field end
    end
  end
  if #gone > 0 then redis.call('HDEL', key, unpack(gone)) end
end
`;

/** CREATE(task; id, hasP, p, runner, rec, ttl ms, bus, index member) → 1, or 0 when the id is taken. */
export const CREATE_LUA = `${PRELUDE}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fields = {'id', ARGV[1], 'r', ARGV[4], 's', 'working', 'rec', ARGV[5], 'ix', ARGV[8]}
if ARGV[2] == '1' then fields[#fields + 1] = 'p'; fields[#fields + 1] = ARGV[3] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PUBLISH', ARGV[7], 'c' .. ARGV[5])
return 1
`;

/** GET(task; id, hasP, p) → [rec, runner], or nil when not the principal's (or gone). */
export const GET_LUA = `${PRELUDE}
if not owned(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then return nil end
return redis.call('HMGET', KEYS[1], 'rec', 'r')
`;

/**
 * UPDATE(task; id, rec, status, bus, runner, asked key…) → the task's index member, or 0 when gone or final. An empty runner updates
 * whoever runs it; else only if that process still does (a runner found stopped: once, by one process).
 */
export const UPDATE_LUA = `${PRELUDE}
local f = redis.call('HMGET', KEYS[1], 'id', 's', 'r')
if f[1] ~= ARGV[1] or final(f[2]) then return 0 end
if ARGV[5] ~= '' and f[3] ~= ARGV[5] then return 0 end
if final(ARGV[3]) then drop(KEYS[1], {'q:', 'i:'}) else drop(KEYS[1], {'q:'}) end
local fields = {'rec', ARGV[2], 's', ARGV[3]}
for i = 6, #ARGV do fields[#fields + 1] = 'q:' .. ARGV[i]; fields[#fields + 1] = '1' end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('PUBLISH', ARGV[4], 'c' .. ARGV[2])
return redis.call('HGET', KEYS[1], 'ix') or ''
`;

/**
 * RESPOND(task; id, hasP, p, bus, task hash, key, answer, key, answer…) → 1, or 0 when not the principal's. Keeps
 * the answers to keys asked now and never answered, for the runner, and tells it.
 */
export const RESPOND_LUA = `${PRELUDE}
if not owned(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then return 0 end
if redis.call('HGET', KEYS[1], 's') ~= 'input_required' then return 1 end
local kept = 0
for i = 6, #ARGV, 2 do
  local k = ARGV[i]
  if redis.call('HEXISTS', KEYS[1], 'q:' .. k) == 1 and redis.call('HSETNX', KEYS[1], 'd:' .. k, '1') == 1 then
    redis.call('HSET', KEYS[1], 'i:' .. k, ARGV[i + 1])
    kept = kept + 1
  end
end
if kept > 0 then redis.call('PUBLISH', ARGV[4], 's' .. ARGV[5]) end
return 1
`;

/** CANCEL(task; id, hasP, p, bus, task hash) → 1, or 0 when not the principal's. The first one of a task tells the runner. */
export const CANCEL_LUA = `${PRELUDE}
if not owned(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then return 0 end
if final(redis.call('HGET', KEYS[1], 's')) then return 1 end
if redis.call('HSETNX', KEYS[1], 'cx', '1') == 1 then redis.call('PUBLISH', ARGV[4], 's' .. ARGV[5]) end
return 1
`;

/** TAKE(task; id) → [cancel 0|1, key, answer, key, answer…] the runner had not taken yet; nil when gone. */
export const TAKE_LUA = `${PRELUDE}
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return nil end
local out = {0}
if redis.call('HGET', KEYS[1], 'cx') == '1' then
  redis.call('HSET', KEYS[1], 'cx', '2')
  out[1] = 1
end
local taken = {}
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, 2) == 'i:' then
    out[#out + 1] = string.sub(fields[i], 3)
    out[#out + 1] = fields[i + 1]
    taken[#taken + 1] = fields[i]
  end
end
if #taken > 0 then redis.call('HDEL', KEYS[1], unpack(taken)) end
return out
`;

/**
 * INDEX(all, exp, fin; task hash, ttl ms, max, keep ms) → [1, its member, members freed to make room…], or [0]
 * (and nothing changed) when the principal holds `max` tasks and too few are final. Drops the members of expired
 * tasks first; the keys live `keep` ms after the last task added (the longest TTL).
 */
export const INDEX_LUA = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local us = t[1] * 1000000 + t[2]
local newest = redis.call('ZREVRANGEBYLEX', KEYS[1], '+', '-', 'LIMIT', 0, 1)
if #newest > 0 then us = math.max(us, tonumber(string.sub(newest[1], 1, 16)) + 1) end
local member = string.format('%016d', us) .. ':' .. ARGV[1]
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)
if #expired > 0 then
  redis.call('ZREM', KEYS[1], unpack(expired))
  redis.call('ZREM', KEYS[2], unpack(expired))
  redis.call('ZREM', KEYS[3], unpack(expired))
end
local out = {1, member}
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3]) + 1
if over > 0 then
  if redis.call('ZCARD', KEYS[3]) < over then return {0} end
  local oldest = redis.call('ZRANGE', KEYS[3], 0, over - 1)
  redis.call('ZREM', KEYS[1], unpack(oldest))
  redis.call('ZREM', KEYS[2], unpack(oldest))
  redis.call('ZREM', KEYS[3], unpack(oldest))
  for _, m in ipairs(oldest) do out[#out + 1] = m end
end
redis.call('ZADD', KEYS[1], 0, member)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), member)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return out
`;

/** FINISHED(all, fin; member) → 1: the task is final, so the bound may free it; nothing if the index dropped it. */
export const FINISHED_LUA = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false then return 0 end
redis.call('ZADD', KEYS[2], 0, ARGV[1])
redis.call('PEXPIRE', KEYS[2], math.max(redis.call('PTTL', KEYS[1]), 1))
return 1
`;
