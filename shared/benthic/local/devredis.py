"""A private redis-server for local runs and tests: AOF on, noeviction, on a free port."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any


def free_port() -> int:
    """A port free now on 127.0.0.1, for a server started a moment later (and perhaps restarted on it).  Drawn at
    random from below the kernel's ephemeral range: a port the kernel hands out (``bind(0)``) is also where it
    takes the source ports of outgoing connections from, so one could take it before the server binds or while
    it restarts; and several test workers drawing at once rarely draw the same one."""
    import random

    low = _ephemeral_low()
    for _ in range(200):
        port = random.randint(10000, low - 1)
        if _free(port):
            return port
    with socket.socket() as sock:  # that range full: let the kernel choose
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ephemeral_low() -> int:
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    return low if low > 12000 else 32768


def free_cluster_port() -> int:
    """A free port p with p + 10000 free too (a cluster node's bus port), below 55536."""
    import random

    for _ in range(200):
        port = random.randint(20000, 45000)
        if all(_free(p) for p in (port, port + 10000)):
            return port
    raise RuntimeError("no free port pair for a cluster node")


def _free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def answers_ping(port: int, timeout: float) -> bool:
    """Whether the Redis (or Sentinel) on 127.0.0.1:``port`` answers PING within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    return True
        except OSError:
            time.sleep(0.05)
    return False


def stop_process(process: subprocess.Popen[Any] | None, timeout: float = 5.0) -> None:
    """SIGTERM, and SIGKILL after ``timeout`` seconds; waits for the process to be gone."""
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class PrivateRedis:
    """``binary``: another server than the ``redis-server`` on the PATH (e.g. a newer Redis-compatible one)."""

    def __init__(self, directory: str | None = None, port: int | None = None, binary: str | None = None) -> None:
        self.port = port or free_port()
        self.directory = Path(directory or tempfile.mkdtemp(prefix="benthic-redis-")).resolve()
        self.binary = binary
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0, extra: tuple[str, ...] = ()) -> PrivateRedis:
        binary = self.binary or shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not on PATH (install Debian's redis-server package)")
        self.directory.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                binary,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--dir", str(self.directory),
                "--appendonly", "yes",
                "--appendfsync", "everysec",
                "--save", "",
                "--maxmemory-policy", "noeviction",
                "--protected-mode", "yes",
                "--logfile", str(self.directory / "redis.log"),
                *extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if answers_ping(self.port, timeout):
            return self
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        stop_process(self.process)
        self.process = None

    def __enter__(self) -> PrivateRedis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if os.environ.get("BENTHIC_KEEP_REDIS_DIR") != "1":
            shutil.rmtree(self.directory, ignore_errors=True)


class PrivateRedisCluster:
    """A Redis Cluster on free ports: `masters` masters (three by default) and `replicas_per_master` replicas of
    each (none by default), for cluster-mode and failover tests.

    With replicas the nodes' `cluster-node-timeout` is 1 s, so a replica takes over a killed master's slots within
    a few seconds, and a replica always considers its data recent enough to take over (validity factor 0)."""

    def __init__(self, masters: int = 3, directory: str | None = None, replicas_per_master: int = 0) -> None:
        root = Path(directory or tempfile.mkdtemp(prefix="benthic-cluster-")).resolve()
        self.root = root
        self.masters = masters
        self.replicas_per_master = replicas_per_master
        count = masters * (1 + replicas_per_master)
        self.nodes = [PrivateRedis(str(root / f"node{i}"), port=free_cluster_port()) for i in range(count)]
        self._slots_of_killed: dict[int, set[int]] = {}

    @property
    def url(self) -> str:
        return self.nodes[0].url

    @property
    def _node_options(self) -> tuple[str, ...]:
        options = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
        if not self.replicas_per_master:
            return (*options, "--cluster-node-timeout", "5000")
        return (*options, "--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0",
                "--repl-diskless-sync-delay", "0")

    def start(self, timeout: float = 30.0) -> PrivateRedisCluster:
        try:
            for node in self.nodes:
                node.start(extra=self._node_options)
            cli = shutil.which("redis-cli")
            if cli is None:
                raise RuntimeError("redis-cli is not on PATH")
            subprocess.run(
                [cli, "--cluster", "create", *(f"127.0.0.1:{n.port}" for n in self.nodes),
                 "--cluster-replicas", str(self.replicas_per_master), "--cluster-yes"],
                check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout,
            )
            self.wait_ready(timeout)
            return self
        except BaseException:
            self.stop()
            raise

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Blocks until every live node reports cluster_state:ok and every replica (`masters` x
        `replicas_per_master` of them) is connected and in sync (master_link_status:up)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if all("cluster_state:ok" in ask(n.port, "CLUSTER", "INFO") for n in self._live_nodes()) \
                        and self._replicas_in_sync():
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("the cluster did not reach cluster_state:ok with every replica in sync")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def master_of_slot(self, slot: int) -> PrivateRedis:
        """The node that owns `slot`, as the first live node answering CLUSTER SLOTS says."""
        for node in self._live_nodes():
            owners = _slot_owners(node.port)
            if owners is not None and slot in owners:
                return self._node_at(owners[slot])
        raise RuntimeError(f"no live node names the owner of slot {slot}")

    def kill_master(self, node: PrivateRedis) -> PrivateRedis:
        """SIGKILLs master `node` (and waits for it to die), remembering its slots for wait_for_promotion."""
        owners = _slot_owners(node.port)
        if owners is None:
            raise RuntimeError(f"node {node.port} does not answer CLUSTER SLOTS")
        self._slots_of_killed[node.port] = {slot for slot, port in owners.items() if port == node.port}
        if not self._slots_of_killed[node.port]:
            raise RuntimeError(f"node {node.port} owns no slot: not a master")
        crash(node)
        return node

    def kill_master_of_slot(self, slot: int) -> PrivateRedis:
        return self.kill_master(self.master_of_slot(slot))

    def wait_for_promotion(self, old_master: PrivateRedis, timeout: float = 30.0) -> PrivateRedis:
        """Blocks until every live node reports cluster_state:ok and names one other node as the owner of all the
        slots `old_master` owned when kill_master killed it; returns that node."""
        slots = self._slots_of_killed[old_master.port]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            owners = {self._owner_seen_by(node, slots) for node in self._live_nodes()}
            if len(owners) == 1 and (port := owners.pop()) not in (None, old_master.port):
                return self._node_at(port)
            time.sleep(0.2)
        raise RuntimeError(f"no node took over the slots of {old_master.port} within {timeout} s")

    def restart(self, node: PrivateRedis) -> PrivateRedis:
        """Starts a killed node again on its port and directory; it rejoins (a killed master comes back as a
        replica of the node that took its slots: wait_ready() waits for it to be in sync)."""
        return node.start(extra=self._node_options)

    def __enter__(self) -> PrivateRedisCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if os.environ.get("BENTHIC_KEEP_REDIS_DIR") != "1":
            shutil.rmtree(self.root, ignore_errors=True)

    def _live_nodes(self) -> list[PrivateRedis]:
        return [node for node in self.nodes if node.process is not None and node.process.poll() is None]

    def _node_at(self, port: int) -> PrivateRedis:
        return next(node for node in self.nodes if node.port == port)

    def _owner_seen_by(self, node: PrivateRedis, slots: set[int]) -> int | None:
        try:
            if "cluster_state:ok" not in ask(node.port, "CLUSTER", "INFO"):
                return None
        except OSError:
            return None
        owners = _slot_owners(node.port) or {}
        ports = {owners.get(slot) for slot in slots}
        return ports.pop() if len(ports) == 1 else None

    def _replicas_in_sync(self) -> bool:
        if not self.replicas_per_master:
            return True
        nodes = ask(self._live_nodes()[0].port, "CLUSTER", "NODES").splitlines()
        slaves = [line.split() for line in nodes if "slave" in line.split()[2]]
        if len(slaves) != self.masters * self.replicas_per_master:
            return False
        if any(fields[7] != "connected" for fields in slaves):
            return False
        ports = [int(fields[1].split("@")[0].rsplit(":", 1)[1]) for fields in slaves]
        return all(ask(port, "INFO", "replication").get("master_link_status") == "up" for port in ports)


def ask(port: int, *command: str, timeout: float = 2.0) -> Any:
    """One command to the Redis (or Sentinel) on 127.0.0.1:`port` over a fresh connection, without retries: the
    reply decoded to str and parsed as redis-py parses it for that command name (INFO: a dict).  OSError when
    nothing answers (or the server is loading), redis.ResponseError when it refuses."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    client = redis.Redis(host="127.0.0.1", port=port, decode_responses=True, socket_timeout=timeout,
                         socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0))
    try:
        return client.execute_command(*command)  # type: ignore[no-untyped-call]  # redis-py: unannotated
    except (redis.ConnectionError, redis.TimeoutError) as error:
        raise OSError(f"127.0.0.1:{port}: {error}") from error
    finally:
        client.close()


def crash(server: PrivateRedis) -> None:
    """SIGKILL, as a crash looks; waits for the process to be gone."""
    if server.process is not None:
        server.process.kill()
        server.process.wait(timeout=10)


def _slot_owners(port: int) -> dict[int, int] | None:
    """slot -> the port of its master, as the node on `port` sees it (None if it does not answer)."""
    try:
        ranges = ask(port, "CLUSTER", "SLOTS")
    except OSError:
        return None
    return {slot: int(entry[2][1]) for entry in ranges for slot in range(int(entry[0]), int(entry[1]) + 1)}
