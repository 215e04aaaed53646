-- Write a game's read model, move it between the lobby lists, tell live clients its new version, and add the
-- public integration events the write reports to their stream (only when the write moves the game forward).
-- KEYS: 1 read model (hash), 2 meta (hash), 3..5 lobby (open, running, finished), 6 the integration stream
--       (absent: the caller adds the events itself, on a Redis Cluster where the stream is in another slot),
--       7 the webhook registry (set of players), 8 the notifier's stream (both present with 6)
-- ARGV: 1 version, 2 status, 3 game id, 4 lobby score, 5 updates channel, 6 the streams' approximate cap,
--       7 n integration entries, 8..7+n the entries (the __data__ field), 8+n..7+2n the players each entry goes to
--       by webhook ("\n"-separated, "" none), then (field, value) pairs
-- Returns 1 when written, 0 when the read model is already newer, -1 when the game is gone (archived).
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
local stored = redis.call('HMGET', KEYS[1], 'version', 'status')
local current = tonumber(stored[1] or '0')
local version = tonumber(ARGV[1])
if version < current then return 0 end
local entries = tonumber(ARGV[7])
local fields = {'version', ARGV[1], 'status', ARGV[2]}
for i = 8 + 2 * entries, #ARGV, 2 do
  fields[#fields + 1] = ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
end
redis.call('HSET', KEYS[1], unpack(fields))
local statuses = {'open', 'running', 'finished'}
for s = 1, 3 do
  if statuses[s] == ARGV[2] then
    redis.call('ZADD', KEYS[2 + s], ARGV[4], ARGV[3])
  elseif stored[2] ~= ARGV[2] then  -- the status changed: leave the other lists (most writes keep it)
    redis.call('ZREM', KEYS[2 + s], ARGV[3])
  end
end
if stored[2] ~= ARGV[2] and ARGV[2] == 'finished' then
  -- the lobby lists the newest finished games only; their read models stay until archived
  redis.call('ZREMRANGEBYRANK', KEYS[5], 0, -10001)
end
-- A second writer of the same version (another replica) reported these events already.
if KEYS[6] and (version > current or stored[2] ~= ARGV[2]) then
  for i = 8, 7 + entries do
    redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[6], '*', '__data__', ARGV[i])
    -- the notifier reads only the entries of players with a webhook
    for player in string.gmatch(ARGV[i + entries], '[^\n]+') do
      if redis.call('SISMEMBER', KEYS[7], player) == 1 then
        redis.call('XADD', KEYS[8], 'MAXLEN', '~', ARGV[6], '*', '__data__', ARGV[i])
        break
      end
    end
  end
end
redis.call('PUBLISH', ARGV[5], ARGV[3] .. ':' .. ARGV[1])
return 1
