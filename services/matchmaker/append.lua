-- Append one commit of matchmaker events to a stream, atomically, if the stream is at the expected version.
-- KEYS: 1 the stream (entry ID = <version>-0), 2 its head (hash: version).  Both carry the stream's hash tag.
-- ARGV: 1 expected version, then the events' JSON.
-- Returns {'ok', last version} or {'conflict', current version}.
local current = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if current ~= tonumber(ARGV[1]) then
  return {'conflict', tostring(current)}
end
for i = 2, #ARGV do
  redis.call('XADD', KEYS[1], (current + i - 1) .. '-0', 'd', ARGV[i])
end
local last = current + #ARGV - 1
redis.call('HSET', KEYS[2], 'version', tostring(last))
return {'ok', tostring(last)}
