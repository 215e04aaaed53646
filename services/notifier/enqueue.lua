-- Enqueue one integration event's deliveries, atomically, once each.
-- KEYS: 1 deliveries (hash), 2 due (zset), 3.. the registration of each candidate player (hash)
-- ARGV: 1 now (ms), 2 queue cap, 3 event type, then per candidate: delivery id, delivery (JSON)
-- Returns the number of deliveries added, or -1 when the queue is at its cap (nothing added).
local now, cap, event_type = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local wanted = {}
for i = 3, #KEYS do
  local events = redis.call('HGET', KEYS[i], 'events')
  local id = ARGV[2 + (i - 2) * 2]
  if events and string.find(',' .. events .. ',', ',' .. event_type .. ',', 1, true)
     and redis.call('HEXISTS', KEYS[1], id) == 0 then
    table.insert(wanted, {id, ARGV[3 + (i - 2) * 2]})
  end
end
if #wanted > 0 and redis.call('ZCARD', KEYS[2]) + #wanted > cap then return -1 end
for _, delivery in ipairs(wanted) do
  redis.call('HSET', KEYS[1], delivery[1], delivery[2])
  redis.call('ZADD', KEYS[2], now, delivery[1])
end
return #wanted
