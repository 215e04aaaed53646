-- Delete an archived, verified game from Redis: every key of the game in one atomic step, and only if
-- nothing moved since it was copied (meta and read model still at the copied version).  Its due entry
-- stays, pushed to ARGV[3]: the ratings marker (another slot) is deleted when the game comes due again.
-- KEYS: 1 meta, 2 read model, 3 due set, 4 .. 3+n the game's other keys, then the lobby sets to leave.
-- ARGV: 1 game id, 2 version copied, 3 when to come back (ms), 4 n
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return 'gone' end
if version ~= ARGV[2] or redis.call('HGET', KEYS[2], 'version') ~= ARGV[2] then return 'changed' end
local n = tonumber(ARGV[4])
redis.call('DEL', KEYS[1], KEYS[2], unpack(KEYS, 4, 3 + n))
for i = 4 + n, #KEYS do
  redis.call('ZREM', KEYS[i], ARGV[1])
end
redis.call('ZADD', KEYS[3], 'XX', ARGV[3], ARGV[1])
return 'deleted'
