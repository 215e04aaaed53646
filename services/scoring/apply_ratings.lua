-- Apply one game's new ratings, exactly once, unless another game moved a player's rating meanwhile.
-- KEYS: 1 marker, 2 leaderboard, 3.. player hashes.  ARGV: 1 marker value (JSON: benthic.game.rated), then per player:
--       expected revision, player id, mu, sigma, win (0/1), name, ordinal.
-- Returns 'applied', 'rated' (the marker exists: rated before) or 'moved' (re-read and try again).
if redis.call('EXISTS', KEYS[1]) == 1 then return 'rated' end
for i = 3, #KEYS do
  local at = 2 + (i - 3) * 7
  local rev = redis.call('HGET', KEYS[i], 'rev') or '0'
  if rev ~= ARGV[at] then return 'moved' end
end
for i = 3, #KEYS do
  local at = 2 + (i - 3) * 7
  redis.call('HINCRBY', KEYS[i], 'rev', 1)
  redis.call('HINCRBY', KEYS[i], 'games', 1)
  redis.call('HINCRBY', KEYS[i], 'wins', tonumber(ARGV[at + 4]))
  redis.call('HSET', KEYS[i], 'mu', ARGV[at + 2], 'sigma', ARGV[at + 3], 'name', ARGV[at + 5])
  redis.call('ZADD', KEYS[2], ARGV[at + 6], ARGV[at + 1])
end
redis.call('SET', KEYS[1], ARGV[1])
return 'applied'
