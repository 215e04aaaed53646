-- Schedule a scored game for archiving (a repeated notification changes nothing).
-- KEYS: 1 due set, 2 since set (same {pK} slot).  ARGV: 1 game id, 2 due time (ms)
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
return 1
