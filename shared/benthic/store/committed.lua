-- The commit of a command id, as a read that a WAIT after it can confirm: when the command was committed, the
-- meta's version is written again (the same value), so the connection's WAIT covers the replication of that
-- commit, wherever it was made (store/durability.py).  Used only when acknowledgements wait for replicas.
-- KEYS: 1 meta, 2 commands (hash: command id -> "first:last")
-- ARGV: 1 command id
-- Returns "first:last", or nil when the command id was never committed
local range = redis.call('HGET', KEYS[2], ARGV[1])
local version = redis.call('HGET', KEYS[1], 'version')
if range and version then redis.call('HSET', KEYS[1], 'version', version) end
return range
