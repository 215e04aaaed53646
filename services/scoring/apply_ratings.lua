-- Apply one game's new ratings, exactly once, unless another game moved a player's rating meanwhile; in the same
-- step, add the public rating.changed events to the integration stream.
-- KEYS: 1 marker, 2 leaderboard, 3..2+p player hashes, 3+p the integration stream (absent: no events here, the
--       caller adds them: on a Redis Cluster the stream is in another slot)
-- ARGV: 1 marker value, 2 p players, 3 the stream's approximate cap, then per player: expected revision, player
--       id, mu, sigma, win (0/1), name, ordinal; then the integration entries (the __data__ field), one per player.
-- Returns 'applied', 'rated' (the marker exists: rated before) or 'moved' (re-read and try again).
if redis.call('EXISTS', KEYS[1]) == 1 then return 'rated' end
local players = tonumber(ARGV[2])
for i = 3, 2 + players do
  local at = 4 + (i - 3) * 7
  local rev = redis.call('HGET', KEYS[i], 'rev') or '0'
  if rev ~= ARGV[at] then return 'moved' end
end
for i = 3, 2 + players do
  local at = 4 + (i - 3) * 7
  redis.call('HINCRBY', KEYS[i], 'rev', 1)
  redis.call('HINCRBY', KEYS[i], 'games', 1)
  redis.call('HINCRBY', KEYS[i], 'wins', tonumber(ARGV[at + 4]))
  redis.call('HSET', KEYS[i], 'mu', ARGV[at + 2], 'sigma', ARGV[at + 3], 'name', ARGV[at + 5])
  redis.call('ZADD', KEYS[2], ARGV[at + 6], ARGV[at + 1])
end
redis.call('SET', KEYS[1], ARGV[1])
local stream = KEYS[3 + players]
if stream then
  for i = 4 + 7 * players, #ARGV do
    redis.call('XADD', stream, 'MAXLEN', '~', ARGV[3], '*', '__data__', ARGV[i])
  end
end
return 'applied'
