"""The FastStream broker of the notifier and scoring is chosen from the same Redis settings as every service's
client."""

from __future__ import annotations

import msgspec
from faststream.redis import RedisBroker, RedisClusterBroker, RedisSentinelBroker

from benthic.feed.faststream_groups import redis_broker
from benthic.runtime.config import Settings


def test_one_server_sentinel_and_cluster_each_get_their_broker() -> None:
    base = Settings()
    single = redis_broker(base, "notifier")
    sentinel = redis_broker(msgspec.structs.replace(base, redis_sentinels="10.0.0.1:26379, [::1]:26380",
                                                    redis_sentinel_master="benthic-ha"), "notifier")
    cluster = redis_broker(msgspec.structs.replace(base, redis_cluster=True), "scoring")
    assert type(single) is RedisBroker
    assert type(sentinel) is RedisSentinelBroker
    assert type(cluster) is RedisClusterBroker
    state = sentinel.config.broker_config.connection
    assert (state._sentinels, state._master_name) == ([("10.0.0.1", 26379), ("::1", 26380)], "benthic-ha")
    assert state._sentinel_kwargs["socket_timeout"] == 0.5, "a Sentinel that does not answer is skipped at once"
