"""ScriptBatcher against a real Redis: concurrent calls share a pipeline and, on one server, one fused EVALSHA;
every call keeps its own keys, arguments, effects and reply, and an error stays the failing call's own."""

from __future__ import annotations

import asyncio
import re

import pytest
from redis.exceptions import OutOfMemoryError, ResponseError

from benthic.store.pipelining import ScriptBatcher

pytestmark = pytest.mark.asyncio

# Appends its argument to a list key; answers the new length, or nil / an error / a raised error on request.
SCRIPT = """
if ARGV[1] == 'nil' then return nil end
if ARGV[1] == 'error_reply' then return redis.error_reply('REFUSED ' .. KEYS[1]) end
if ARGV[1] == 'raise' then return redis.call('INCR', KEYS[1]) end
local length = redis.call('RPUSH', KEYS[1], unpack(ARGV))
return {length, KEYS[1], #KEYS}
"""


async def _commands_processed(redis, command: str) -> int:  # type: ignore[no-untyped-def]
    stats = await redis.info("commandstats")
    return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))


async def test_concurrent_calls_run_as_one_fused_script_with_their_own_replies_and_errors(redis) -> None:
    batcher = ScriptBatcher(redis, SCRIPT, max_fused=64)
    await redis.set("a-string", "x")  # RPUSH on a string raises WRONGTYPE inside the script
    calls = [(["list:1"], ["a"]), (["list:2"], ["b", "c"]), (["list:1"], ["d"]), (["list:3"], ["nil"]),
             (["list:4"], ["error_reply"]), (["a-string"], ["raise"]), (["list:2"], ["e"])]
    await batcher(["warm"], ["w"])  # loads the scripts
    await redis.config_resetstat()
    results = await batcher.many(calls)
    assert results[0] == [1, b"list:1", 1]
    assert results[1] == [2, b"list:2", 1]
    assert results[2] == [2, b"list:1", 1]
    assert results[3] is None
    assert isinstance(results[4], ResponseError) and "REFUSED list:4" in str(results[4])
    assert isinstance(results[5], ResponseError) and "not an integer" in str(results[5])
    assert results[6] == [3, b"list:2", 1]
    assert await redis.lrange("list:1", 0, -1) == [b"a", b"d"]
    assert await redis.lrange("list:2", 0, -1) == [b"b", b"c", b"e"]
    assert await _commands_processed(redis, "evalsha") == 1  # seven calls, one script run


async def test_calls_fused_while_the_first_call_still_loads_the_scripts(redis) -> None:
    """The first call of a new batcher loads its scripts; a second flusher that starts meanwhile, with calls to
    fuse, must not see the plain script loaded and the fused one not yet (it sent a nil SHA: a command answered
    500 in a CI run, when the first concurrent commands met a fresh rate-limit batcher)."""
    batcher = ScriptBatcher(redis, SCRIPT, max_fused=64)
    first = asyncio.create_task(batcher(["first"], ["a"]))
    while batcher._sha is None and not first.done():  # the first flusher is loading
        await asyncio.sleep(0)
    results = await batcher.many([(["fused:1"], ["b"]), (["fused:2"], ["c"]), (["fused:1"], ["d"])])
    assert results == [[1, b"fused:1", 1], [1, b"fused:2", 1], [2, b"fused:1", 1]], results
    assert await first == [1, b"first", 1]


async def test_an_error_in_a_fused_call_is_the_one_redis_py_raises_for_it(redis) -> None:
    batcher = ScriptBatcher(redis, "return redis.call('SET', KEYS[1], ARGV[1])")
    limit = (await redis.config_get("maxmemory"))["maxmemory"]
    await redis.config_set("maxmemory", "1")  # noeviction: every write is refused
    try:
        results = await batcher.many([(["k1"], ["a"]), (["k2"], ["b"])])
    finally:
        await redis.config_set("maxmemory", limit)
    assert all(isinstance(r, OutOfMemoryError) for r in results), results
    assert await batcher.many([(["k1"], ["a"]), (["k2"], ["b"])]) == [b"OK", b"OK"]


RAISING = """
if ARGV[1] == 'not_an_integer' then return redis.call('INCR', KEYS[1]) end
if ARGV[1] == 'wrong_type' then return redis.call('LPUSH', KEYS[1], 'x') end
if ARGV[1] == 'lua' then error('user error') end
error({err = ARGV[1]})
"""


@pytest.mark.parametrize("raised", ["not_an_integer", "wrong_type", "lua", "NOPERM no permissions",
                                    "READONLY You cannot write against a read only replica.", "NOSCRIPT gone"])
async def test_a_raised_error_is_the_exception_redis_py_raises_for_the_call_alone(redis, raised: str) -> None:
    """The error of a fused call, raised inside the script, is what redis-py raises for the same call made
    alone: the same class and message (to which Redis appends the script's line for a call alone; a Lua error
    names its line, one further down in the fused wrapper), and the same status code where Redis names one (a
    Lua error alone is answered as ERR)."""
    await redis.set("a-string", "x")
    results = await ScriptBatcher(redis, RAISING).many([(["a-string"], [raised]), (["a-string"], [raised])])
    with pytest.raises(ResponseError) as alone:
        await redis.eval(RAISING, 1, "a-string", raised)
    for fused in results:
        assert type(fused) is type(alone.value), (fused, alone.value)
        assert fused.status_code == (None if raised == "lua" else alone.value.status_code)
        fused_text, alone_text = (re.sub(r"^user_script:\d+: ", "", str(e)) for e in (fused, alone.value))
        assert fused_text and alone_text.startswith(fused_text), (fused, alone.value)


async def test_fused_groups_are_bounded_and_a_lone_call_is_a_plain_evalsha(redis) -> None:
    batcher = ScriptBatcher(redis, SCRIPT, max_fused=3)
    await batcher(["warm"], ["w"])
    await redis.config_resetstat()
    results = await batcher.many([([f"list:{i}"], [str(i)]) for i in range(7)])  # groups of 3, 3, 1
    assert results == [[1, f"list:{i}".encode(), 1] for i in range(7)]
    assert await _commands_processed(redis, "evalsha") == 3
    assert await batcher(["list:0"], ["again"]) == [2, b"list:0", 1]


async def test_calls_made_while_a_pipeline_is_in_flight_join_the_next(redis) -> None:
    batcher = ScriptBatcher(redis, SCRIPT, max_in_flight=1)
    await batcher(["warm"], ["w"])
    await redis.config_resetstat()
    results = await asyncio.gather(*(batcher([f"list:{i % 5}"], [str(i)]) for i in range(100)))
    assert sorted(r[0] for r in results) == sorted(list(range(1, 21)) * 5)
    assert await _commands_processed(redis, "evalsha") < 100


async def test_a_script_with_flags_is_never_fused(redis) -> None:
    batcher = ScriptBatcher(redis, "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])")
    assert batcher.max_fused == 1
    await redis.set("k", "v")
    assert await batcher.many([(["k"], []), (["k"], [])]) == [b"v", b"v"]


async def test_the_scripts_are_loaded_again_after_redis_forgets_them(redis) -> None:
    batcher = ScriptBatcher(redis, SCRIPT)
    assert await batcher.many([(["list:1"], ["a"]), (["list:2"], ["b"])]) == [[1, b"list:1", 1], [1, b"list:2", 1]]
    await redis.script_flush()
    assert await batcher.many([(["list:1"], ["c"]), (["list:2"], ["d"])]) == [[2, b"list:1", 1], [2, b"list:2", 1]]
    await redis.script_flush()
    assert await batcher(["list:1"], ["e"]) == [3, b"list:1", 1]
    assert await redis.lrange("list:1", 0, -1) == [b"a", b"c", b"e"]


async def test_on_a_cluster_calls_are_never_fused(redis_cluster_url) -> None:  # type: ignore[no-untyped-def]
    from benthic.runtime.redisconn import redis_client

    cluster = redis_client(redis_cluster_url, cluster=True)
    try:
        batcher = ScriptBatcher(cluster, SCRIPT)
        assert batcher.max_fused == 1
        keys = [f"{{slot{i}}}:list" for i in range(6)]  # different slots, most on different masters
        await cluster.delete(*keys)
        results = await batcher.many([([key], ["x"]) for key in keys])
        assert results == [[1, key.encode(), 1] for key in keys]
    finally:
        await cluster.aclose()
