-- Append one commit to a game stream, atomically.
-- KEYS: 1 events (stream), 2 meta (hash), 3 commands (hash: command id -> "first:last"), 4 partition feed,
--       5 partition lifecycle feed, 6 partition managed feed (the games whose meta has bots = 1, after this commit)
-- ARGV: 1 expected version, 2 command id ('' for none), 3 now (ms), 4 commit head (the first entry's `m`),
--       5 feed message ('' for none), 6 feed maxlen, 7 ended ('1' sets status finished),
--       8 event count n, 9 meta pair count m, 10 lifecycle ('1': the feed message also goes to the lifecycle
--       feed), then n event datas, then m x (field, value)
-- Returns {'ok'|'duplicate'|'conflict'|'missing', 'first:last' or '', current version}
-- A duplicate rewrites the meta's version (the same value): a write, so that a WAIT after this script covers the
-- replication of the first commit too, wherever it was made (store/durability.py).
local expected = tonumber(ARGV[1])
if expected ~= 0 and redis.call('EXISTS', KEYS[2]) == 0 then
  return {'missing', '', '0'}
end
local current = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if ARGV[2] ~= '' then
  local first = redis.call('HGET', KEYS[3], ARGV[2])
  if first then
    redis.call('HSET', KEYS[2], 'version', tostring(current))
    return {'duplicate', first, tostring(current)}
  end
end
if current ~= expected then
  return {'conflict', '', tostring(current)}
end
local n = tonumber(ARGV[8])
local m = tonumber(ARGV[9])
for i = 1, n do
  local head = ''
  if i == 1 then head = ARGV[4] end
  redis.call('XADD', KEYS[1], (current + i) .. '-0', 'd', ARGV[10 + i], 'm', head)
end
local last = current + n
local meta = {'version', tostring(last), 'updated_ms', ARGV[3]}
if ARGV[7] == '1' then meta[#meta + 1] = 'status'; meta[#meta + 1] = 'finished' end
for j = 0, m - 1 do
  local at = 11 + n + j * 2
  meta[#meta + 1] = ARGV[at]
  meta[#meta + 1] = ARGV[at + 1]
end
redis.call('HSET', KEYS[2], unpack(meta))
local range = (current + 1) .. ':' .. last
if ARGV[2] ~= '' then redis.call('HSET', KEYS[3], ARGV[2], range) end
if ARGV[5] ~= '' then
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[6], '*', '__data__', ARGV[5])
  if ARGV[10] == '1' then
    redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[6], '*', '__data__', ARGV[5])
  end
  if redis.call('HGET', KEYS[2], 'bots') == '1' then
    redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[6], '*', '__data__', ARGV[5])
  end
end
return {'ok', range, tostring(last)}
