-- Take the deliveries due now: each is leased (its due time moved to the lease's end) so that no other notifier
-- sends it meanwhile, and sent again after the lease if this one dies before settling it.
-- KEYS: 1 deliveries (hash), 2 due (zset).  ARGV: 1 now (ms), 2 lease end (ms), 3 count.
-- Returns id, delivery, id, delivery, ...
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local taken = {}
for _, id in ipairs(ids) do
  local delivery = redis.call('HGET', KEYS[1], id)
  if delivery then
    redis.call('ZADD', KEYS[2], ARGV[2], id)
    table.insert(taken, id)
    table.insert(taken, delivery)
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return taken
