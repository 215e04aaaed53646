-- Store views built on first read, unless the read model has moved on meanwhile (or the game has left Redis).
-- KEYS: 1 read model (hash)
-- ARGV: 1 the version the views show, then (field, value) pairs
-- Returns 1 when written, 0 when the read model is at another version (or gone).
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
local fields = {}
for i = 2, #ARGV, 2 do
  fields[#fields + 1] = ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
end
redis.call('HSET', KEYS[1], unpack(fields))
return 1
