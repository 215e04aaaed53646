-- Keep the newest snapshot of a game: a slower writer never replaces a newer one (unless the engine changed).
-- KEYS: 1 snapshot (hash), 2 meta.  ARGV: 1 engine version, 2 stream version, 3 state (compressed),
--       4 the game's lifecycle (benthic.lifecycle, msgpack)
-- Returns 1 when written, 0 when an equal or newer snapshot is kept, -1 when the game is gone (archived).
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
local kept = tonumber(redis.call('HGET', KEYS[1], 'version') or '-1')
if tonumber(ARGV[2]) > kept or redis.call('HGET', KEYS[1], 'engine') ~= ARGV[1] then
  redis.call('HSET', KEYS[1], 'engine', ARGV[1], 'version', ARGV[2], 'state', ARGV[3], 'life', ARGV[4])
  return 1
end
return 0
