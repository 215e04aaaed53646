-- Take up to ARGV[3] games due by ARGV[1] and lease them: their score moves to ARGV[2], so no other
-- archiver takes them before then, and a dead archiver's games come back by themselves.
-- KEYS: 1 due set.  ARGV: 1 now (ms), 2 lease end (ms), 3 how many
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, game in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[2], game)
end
return due
