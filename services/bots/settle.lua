-- Done with a leased game: remove it from the due set unless it was scheduled again meanwhile (its score is no
-- longer the lease this replica set).
-- KEYS: 1 due set.  ARGV: 1 game id, 2 the lease end (ms) set when it was taken
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
