"""The local high-availability harness (benthic.local.devha, .linkproxy, .devredis) against real redis-server and
Sentinel processes: failovers, a cut replication link, a cluster replica's promotion."""

from __future__ import annotations

import socket
import time

import pytest
import redis

from benthic.local.devha import PrivateSentinelSet
from benthic.local.devredis import PrivateRedis, PrivateRedisCluster
from benthic.local.linkproxy import LinkProxy

pytestmark = pytest.mark.timeout(90)


def client(server: PrivateRedis) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=server.port, decode_responses=True, socket_timeout=5)


def wait_acks(connection: redis.Redis, replicas: int, timeout_ms: int) -> int:
    return int(connection.execute_command("WAIT", replicas, timeout_ms))


def test_sentinel_failover_promotes_the_replica_with_the_acknowledged_write() -> None:
    with PrivateSentinelSet() as ha:
        assert ha.sentinels_setting == ",".join(f"127.0.0.1:{port}" for _, port in ha.sentinel_addresses)
        primary = ha.primary()
        (replica,) = ha.replicas_of_primary()
        assert {primary, replica} == set(ha.servers)
        client(primary).set("k", "before")
        assert wait_acks(client(primary), 1, 1000) == 1
        assert client(replica).get("k") == "before"

        killed = ha.kill_primary()
        assert killed is primary and primary.process is not None and primary.process.poll() is not None
        promoted = ha.wait_for_failover(killed, timeout=20)
        assert promoted is replica and ha.primary() is replica
        assert client(promoted).get("k") == "before"

        ha.restart(killed)  # comes back a master; Sentinel turns it into a replica of the new primary
        ha.wait_replicas_online(1, timeout=40)
        assert ha.replicas_of_primary() == [killed]
        client(promoted).set("k", "after")
        assert wait_acks(client(promoted), 1, 1000) == 1
        assert client(killed).get("k") == "after"


def test_a_cut_replication_link_stops_acknowledgements_then_writes_and_heals() -> None:
    with PrivateSentinelSet(proxied=True) as ha:
        primary = ha.primary()
        (replica,) = ha.replicas_of_primary()
        proxy = ha.proxy_of(replica)
        assert client(replica).info("replication")["master_port"] == proxy.port
        writer = client(primary)
        writer.set("before", 1)
        assert wait_acks(writer, 1, 1000) == 1

        proxy.cut()
        writer.set("during", 1)
        assert wait_acks(writer, 1, 300) == 0
        time.sleep(ha.min_replicas_max_lag + 1)
        refusal = first_refusal(writer, within=3.0)
        assert str(refusal).startswith("NOREPLICAS"), refusal
        assert client(replica).get("during") is None

        proxy.heal()
        deadline = time.monotonic() + 10
        while True:
            try:
                writer.set("after", 1)
                if wait_acks(writer, 1, 500) == 1:
                    break
            except redis.ResponseError:
                pass
            assert time.monotonic() < deadline, "the replica did not catch up after heal()"
            time.sleep(0.1)
        assert client(replica).mget("before", "during", "after") == ["1", "1", "1"]


def first_refusal(writer: redis.Redis, within: float) -> redis.ResponseError:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            writer.set("refused?", 1)
        except redis.ResponseError as error:
            return error
        time.sleep(0.1)
    raise AssertionError(f"writes were still accepted {within} s after the replica's lag passed its limit")


def test_cluster_replica_takes_over_a_killed_master_with_its_acknowledged_write() -> None:
    with PrivateRedisCluster(replicas_per_master=1) as cluster:
        assert len(cluster.nodes) == 6
        key = "game:{ha-harness}"
        slot = int(client(cluster.nodes[0]).execute_command("CLUSTER", "KEYSLOT", key))
        master = cluster.master_of_slot(slot)
        client(master).set(key, "v")
        assert wait_acks(client(master), 1, 1000) == 1

        assert cluster.kill_master_of_slot(slot) is master
        owner = cluster.wait_for_promotion(master, timeout=20)
        assert owner is not master and cluster.master_of_slot(slot) is owner
        assert client(owner).get(key) == "v"


def test_link_proxy_discards_during_a_cut_and_closes_those_connections_on_heal() -> None:
    with PrivateRedis() as server, LinkProxy(server.port) as proxy:
        old = socket.create_connection(("127.0.0.1", proxy.port), timeout=0.5)
        old.sendall(b"PING\r\n")
        assert old.recv(16) == b"+PONG\r\n"

        proxy.cut()
        old.sendall(b"PING\r\n")
        with pytest.raises(TimeoutError):  # no answer, and no EOF either
            old.recv(16)
        during = socket.create_connection(("127.0.0.1", proxy.port), timeout=0.5)
        during.sendall(b"PING\r\n")
        with pytest.raises(TimeoutError):
            during.recv(16)

        proxy.heal()
        for closed in (old, during):
            try:
                assert closed.recv(16) == b""
            except ConnectionResetError:
                pass
            closed.close()
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=0.5) as fresh:
            fresh.sendall(b"PING\r\n")
            assert fresh.recv(16) == b"+PONG\r\n"
