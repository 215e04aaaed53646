-- Copy one integration entry to the notifier's stream when one of the players it goes to has a webhook (on a
-- Redis Cluster, where write_read_model.lua cannot: the registry and that stream share the notifier's slot).
-- KEYS: 1 the webhook registry (set of players), 2 the notifier's stream
-- ARGV: 1 the stream's approximate cap, 2 the entry (the __data__ field), 3.. the players it goes to
-- Returns 1 when copied, 0 when none of them is registered.
for i = 3, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', '__data__', ARGV[2])
    return 1
  end
end
return 0
