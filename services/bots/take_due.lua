-- Take up to ARGV[3] games due by ARGV[1] and lease them: their score moves to ARGV[2], so no other replica
-- takes them before then, and a dead replica's games come back by themselves.
-- KEYS: 1 due set.  ARGV: 1 now (ms), 2 lease end (ms), 3 how many.
-- Returns {{game, due, game, due, ...}, the earliest score left (a due time or a lease end; false: none)}
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[3]))
for i = 1, #due, 2 do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[2], due[i])
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {due, first[2] or false}
