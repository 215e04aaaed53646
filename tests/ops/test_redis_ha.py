"""The in-cluster Redis of k8s/base/redis, run for real: start.sh and the redis.conf / sentinel.conf of its
ConfigMap start three redis-server processes and three Sentinels on loopback addresses (127.0.0.11-13 and
127.0.0.21-23 stand for the pods' DNS names), as the StatefulSets would, and then:

* a first start makes ordinal 0 the primary and the others its replicas, and every Sentinel finds it;
* killing the primary makes the Sentinels promote a replica (down-after-milliseconds 5000, quorum 2);
* the old primary, started again by start.sh, asks the Sentinels and rejoins as a replica of the new one,
  with the data;
* the preStop hand-over of a primary (a rollout, a drain) moves the primary away before the pod stops;
* a Sentinel started again (its state was an emptyDir) asks the others and monitors the current primary;
* a primary cut off from its replicas refuses writes within min-replicas-max-lag (10 s): bounded split brain.

What this does not show: Kubernetes itself (DNS names, scheduling, volumes, probes), which no test here runs.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ops.opstools import K8S, module, tool

REDIS = ["127.0.0.11", "127.0.0.12", "127.0.0.13"]
SENTINELS = ["127.0.0.21", "127.0.0.22", "127.0.0.23"]
MASTER = "benthic"


def _free_port() -> int:
    """A port free on every one of the six addresses."""
    for _ in range(50):
        port = random.randint(20000, 60000)
        try:
            for host in REDIS + SENTINELS:
                with socket.socket() as probe:
                    probe.bind((host, port))
        except OSError:
            continue
        return port
    raise AssertionError("no free port on the loopback addresses")


def _wait(what: str, check: Callable[[], Any], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except Exception as error:  # noqa: BLE001 - not there yet
            last = error
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


class Cluster:
    """Three Redis servers and three Sentinels, each started by start.sh as its pod would be."""

    def __init__(self, directory: Path) -> None:
        self.redis_module = module("redis")
        tool("redis-server")
        tool("redis-cli")
        data = yaml.safe_load((K8S / "base/redis/config.yaml").read_text())["data"]
        self.directory = directory
        self.script = directory / "start.sh"
        self.script.write_text(data["start.sh"])
        self.redis_conf, self.sentinel_conf = data["redis.conf"], data["sentinel.conf"]
        self.redis_port, self.sentinel_port = _free_port(), _free_port()
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def _env(self, self_name: str, templates: Path, conf_dir: Path) -> dict[str, str]:
        return {
            "PATH": os.environ["PATH"],
            "POD_NAMESPACE": "test",
            "REDIS_HOSTS": " ".join(REDIS),
            "SENTINEL_HOSTS": " ".join(SENTINELS),
            "SELF": self_name,
            "REDIS_PORT": str(self.redis_port),
            "SENTINEL_PORT": str(self.sentinel_port),
            "TEMPLATES": str(templates),
            "CONF_DIR": str(conf_dir),
        }

    def start(self, kind: str, host: str) -> subprocess.Popen[bytes]:
        """`sh start.sh redis|sentinel` for the pod whose name is `host` (its own volume and /tmp)."""
        pod = self.directory / host
        templates, conf_dir, data = pod / "etc", pod / "tmp", pod / "data"
        for path in (templates, conf_dir, data):
            path.mkdir(parents=True, exist_ok=True)
        # The pod's own address and port instead of 0.0.0.0:6379, its own data directory.
        port = self.redis_port if kind == "redis" else self.sentinel_port
        conf = (self.redis_conf if kind == "redis" else self.sentinel_conf).replace("bind 0.0.0.0", f"bind {host}")
        conf = conf.replace("port 6379\n", f"port {port}\n").replace("port 26379\n", f"port {port}\n")
        conf = conf.replace("dir /data\n", f"dir {data}\n").replace("dir /tmp\n", f"dir {conf_dir}\n")
        (templates / "redis.conf").write_text(conf if kind == "redis" else self.redis_conf)
        (templates / "sentinel.conf").write_text(conf if kind == "sentinel" else self.sentinel_conf)
        log = open(pod / f"{kind}.log", "ab")  # noqa: SIM115 - the process owns it
        process = subprocess.Popen(
            ["sh", str(self.script), kind], env=self._env(host, templates, conf_dir), stdout=log, stderr=log
        )
        self.processes[host] = process
        return process

    def log(self, host: str) -> str:
        return "".join(p.read_text(errors="replace") for p in (self.directory / host).glob("*.log"))

    def redis(self, host: str) -> Any:
        return self.redis_module.Redis(host=host, port=self.redis_port, socket_timeout=2, decode_responses=True)

    def sentinel(self, host: str) -> Any:
        return self.redis_module.Redis(host=host, port=self.sentinel_port, socket_timeout=2, decode_responses=True)

    def role(self, host: str) -> str:
        return str(self.redis(host).info("replication")["role"])

    def primaries(self) -> set[str]:
        """What each running Sentinel names as the primary."""
        named = set()
        for host in SENTINELS:
            if host in self.processes and self.processes[host].poll() is None:
                address = self.sentinel(host).execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER)
                named.add(address[0] if address else "")
        return named

    def agreed_primary(self) -> str | None:
        named = self.primaries()
        return next(iter(named)) if len(named) == 1 and "" not in named else None

    def kill(self, host: str, sig: int = signal.SIGKILL) -> None:
        process = self.processes[host]
        process.send_signal(sig)
        if sig in (signal.SIGKILL, signal.SIGTERM):
            process.wait(timeout=10)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()
                process.wait(timeout=10)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    ha = Cluster(tmp_path_factory.mktemp("redis-ha"))
    try:
        # The Redis StatefulSet starts its pods one at a time (OrderedReady), the Sentinels all at once.
        for host in REDIS:
            ha.start("redis", host)
            _wait(f"{host} to answer", lambda h=host: ha.redis(h).ping())
        for host in SENTINELS:
            ha.start("sentinel", host)
        yield ha
    except BaseException:
        for host in REDIS + SENTINELS:
            print(f"--- {host}\n{ha.log(host)[-3000:]}")
        raise
    finally:
        ha.stop()


def _settled(ha: Cluster, primary: str) -> bool:
    """Every Sentinel names `primary` and knows both replicas and both other Sentinels."""
    if ha.primaries() != {primary}:
        return False
    for host in SENTINELS:
        sentinel = ha.sentinel(host)
        replicas = sentinel.execute_command("SENTINEL", "REPLICAS", MASTER)
        peers = sentinel.execute_command("SENTINEL", "SENTINELS", MASTER)
        if len(replicas) != 2 or len(peers) != 2:
            return False
    info = ha.redis(primary).info("replication")
    online = [v for k, v in info.items() if k.startswith("slave") and isinstance(v, dict) and v["state"] == "online"]
    return len(online) == 2


def test_first_start_makes_ordinal_0_the_primary(cluster: Cluster) -> None:
    _wait("the Sentinels to agree on redis-0 with two replicas and two peers", lambda: _settled(cluster, REDIS[0]))
    assert [cluster.role(h) for h in REDIS] == ["master", "slave", "slave"]
    for host in REDIS[1:]:
        assert f"starts as a replica of {REDIS[0]}" in cluster.log(host)
    primary = cluster.redis(REDIS[0])
    assert primary.config_get("min-replicas-to-write") == {"min-replicas-to-write": "1"}
    assert primary.config_get("min-replicas-max-lag") == {"min-replicas-max-lag": "10"}
    primary.set("acknowledged", "before the failover")
    assert primary.execute_command("WAIT", 2, 2000) == 2, "both replicas confirm the write"


def test_a_dead_primary_is_replaced_and_rejoins_as_a_replica(cluster: Cluster) -> None:
    old = _wait("a primary", cluster.agreed_primary)
    killed = time.monotonic()
    cluster.kill(old)
    new = _wait("a replica promoted", lambda: (p := cluster.agreed_primary()) != old and p, timeout=40)
    took = time.monotonic() - killed
    assert new in REDIS and new != old
    assert took < 20, f"failover took {took:.1f} s (down-after-milliseconds is 5 s)"
    assert cluster.redis(new).get("acknowledged") == "before the failover"
    _wait("the promoted replica to take writes", lambda: cluster.redis(new).set("after", "failover"))
    # start.sh asks the Sentinels: the old primary comes back as a replica of the new one, not as a second primary.
    cluster.start("redis", old)
    _wait(f"{old} to answer", lambda: cluster.redis(old).ping())
    assert f"starts as a replica of {new}" in cluster.log(old)
    _wait(
        "the old primary to sync from the new one",
        lambda: cluster.redis(old).info("replication").get("master_link_status") == "up",
    )
    assert cluster.role(old) == "slave"
    _wait("the write made after the failover to reach it", lambda: cluster.redis(old).get("after") == "failover")
    _wait("the Sentinels to settle", lambda: _settled(cluster, new), timeout=40)


def test_prestop_hands_the_primary_over_before_the_pod_stops(cluster: Cluster) -> None:
    primary = _wait("a primary", cluster.agreed_primary)
    env = cluster._env(primary, cluster.directory, cluster.directory)
    started = time.monotonic()
    result = subprocess.run(
        ["sh", str(cluster.script), "prestop"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    took = time.monotonic() - started
    assert result.returncode == 0, result.stdout + result.stderr
    assert cluster.role(primary) == "slave", "preStop returns once this server is a replica"
    assert took < 10, f"the hand-over took {took:.1f} s (the pod's grace period is 45 s)"
    new = _wait("the Sentinels to name the new primary", lambda: (p := cluster.agreed_primary()) != primary and p)
    assert cluster.role(new) == "master"
    # On a replica the hook does nothing and returns at once.
    started = time.monotonic()
    result = subprocess.run(
        ["sh", str(cluster.script), "prestop"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0 and time.monotonic() - started < 5
    _wait("the Sentinels to settle", lambda: _settled(cluster, new), timeout=40)


def test_a_restarted_sentinel_finds_the_current_primary(cluster: Cluster) -> None:
    primary = _wait("a primary", cluster.agreed_primary)
    cluster.kill(SENTINELS[0])
    for path in (cluster.directory / SENTINELS[0] / "tmp").glob("*"):
        path.unlink()  # an emptyDir: the Sentinel's state is gone with the pod
    cluster.start("sentinel", SENTINELS[0])
    _wait("the restarted Sentinel to answer", lambda: cluster.sentinel(SENTINELS[0]).ping())
    assert f"monitors {primary}" in cluster.log(SENTINELS[0])
    _wait("the Sentinels to settle", lambda: _settled(cluster, primary), timeout=40)


def test_a_primary_cut_off_from_its_replicas_stops_taking_writes(cluster: Cluster) -> None:
    """min-replicas-to-write 1 / min-replicas-max-lag 10: replicas that stop acknowledging (here: frozen, as
    behind a network partition) make the primary refuse writes within about 10 s, so a primary on the wrong
    side of a partition cannot take writes for long that a failover on the other side would discard."""
    primary = _wait("a primary", cluster.agreed_primary)
    replicas = [h for h in REDIS if h != primary]
    for host in replicas:
        cluster.kill(host, signal.SIGSTOP)
    frozen = time.monotonic()
    try:
        redis = cluster.redis(primary)

        def refused() -> bool:
            try:
                redis.set("during", "partition")
            except module("redis").exceptions.ResponseError as error:
                return str(error).startswith("NOREPLICAS")
            return False

        _wait("the primary to refuse writes", refused, timeout=25)
        took = time.monotonic() - frozen
        assert 9 <= took <= 15, f"refused after {took:.1f} s, min-replicas-max-lag is 10 s"
    finally:
        for host in replicas:
            cluster.kill(host, signal.SIGCONT)
    _wait("writes to be taken again", lambda: cluster.redis(primary).set("after", "partition"), timeout=20)
