-- Take an open seat.
-- KEYS: 1 meta, 2 partition feed, 3 partition managed feed (written when the meta has bots = 1)
-- ARGV: 1 seat, 2 player id, 3 seat record (JSON), 4 now, 5 feed message, 6 feed maxlen,
--       7 '1' when the seat's holder keeps the game rated (an authenticated player), '0' otherwise
-- Returns {'ok', status} or {'missing'|'no_such_seat'|'seat_taken'} or {'already_seated', seat}
-- Already seated rewrites the seat's player (the same value): a write, so that a WAIT after this script covers
-- the replication of the first join too (store/durability.py).
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local seats = tonumber(redis.call('HGET', KEYS[1], 'seats'))
local seat = tonumber(ARGV[1])
if seat < 0 or seat >= seats then return {'no_such_seat'} end
for i = 0, seats - 1 do
  if redis.call('HGET', KEYS[1], 'player:' .. i) == ARGV[2] then
    redis.call('HSET', KEYS[1], 'player:' .. i, ARGV[2])
    return {'already_seated', tostring(i)}
  end
end
if redis.call('HSETNX', KEYS[1], 'player:' .. seat, ARGV[2]) == 0 then return {'seat_taken'} end
redis.call('HSET', KEYS[1], 'seat:' .. seat, ARGV[3], 'updated_ms', ARGV[4])
if ARGV[7] == '0' then redis.call('HSET', KEYS[1], 'rated', '0') end
local filled = 0
for i = 0, seats - 1 do
  if redis.call('HEXISTS', KEYS[1], 'player:' .. i) == 1 then filled = filled + 1 end
end
local status = redis.call('HGET', KEYS[1], 'status')
if filled == seats and status == 'open' then
  redis.call('HSET', KEYS[1], 'status', 'running')
  status = 'running'
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*', '__data__', ARGV[5])
if redis.call('HGET', KEYS[1], 'bots') == '1' then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[6], '*', '__data__', ARGV[5])
end
return {'ok', status}
