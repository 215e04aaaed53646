"""A private Sentinel-managed Redis (a primary, its replicas and three Sentinels as real processes on free ports)
for failover tests and benchmarks."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from benthic.local.devredis import PrivateRedis, answers_ping, ask, crash, free_port, stop_process
from benthic.local.linkproxy import LinkProxy


class PrivateSentinelSet:
    """A primary, `replicas` replicas and `sentinels` Sentinels (quorum: a majority) monitoring it as `master_name`.

    Every redis server has AOF on (fsync every second), noeviction, min-replicas-to-write `min_replicas_to_write`
    with lag `min_replicas_max_lag` (so whichever server is primary refuses writes once it is cut off from its
    replicas) and repl-timeout `repl_timeout`.  `start()` returns once every replica is in sync and every Sentinel
    knows the primary, its replicas and the other Sentinels, i.e. once a failover is possible.

    The Sentinels' down-after is 2 s by default: at 1 s, the period of a Sentinel's PING, they failed over primaries
    that were alive (4 extra failovers in 8 kills on an idle machine; bench/RESULTS.md, 2026-12-02), and a failover
    of a live primary may promote the replica that lacks what WAIT 1 acknowledged.

    With `proxied=True` each replica replicates through its own LinkProxy (`proxy_of(replica)`), so a test can
    cut one replication link.  The failover timeout is then 60 s by default: Sentinel re-points a replica whose
    master address differs from the one it knows (the proxy's) once that much time has passed.  A failover
    re-points the replicas at the new primary directly, without proxies."""

    def __init__(
        self,
        replicas: int = 1,
        sentinels: int = 3,
        master_name: str = "benthic",
        down_after_ms: int = 2000,
        failover_timeout_ms: int | None = None,
        min_replicas_to_write: int = 1,
        min_replicas_max_lag: int = 2,
        repl_timeout: int = 5,
        proxied: bool = False,
        directory: str | None = None,
    ) -> None:
        self.root = Path(directory or tempfile.mkdtemp(prefix="benthic-sentinel-")).resolve()
        self.master_name = master_name
        self.down_after_ms = down_after_ms
        self.failover_timeout_ms = failover_timeout_ms or (60000 if proxied else 2000)
        self.min_replicas_max_lag = min_replicas_max_lag
        self.proxied = proxied
        self.servers = [PrivateRedis(str(self.root / f"redis{i}")) for i in range(1 + replicas)]
        self.sentinels = [PrivateSentinel(self.root / f"sentinel{i}") for i in range(sentinels)]
        self._proxies = {s.port: LinkProxy(self.servers[0].port) for s in self.servers[1:]} if proxied else {}
        self._options = (
            "--min-replicas-to-write", str(min_replicas_to_write),
            "--min-replicas-max-lag", str(min_replicas_max_lag),
            "--repl-timeout", str(repl_timeout),
            # repl-timeout must exceed the ping period, and a full sync should not wait 5 s for more replicas
            "--repl-ping-replica-period", "1",
            "--repl-diskless-sync-delay", "0",
        )

    @property
    def sentinel_addresses(self) -> list[tuple[str, int]]:
        return [("127.0.0.1", s.port) for s in self.sentinels]

    @property
    def sentinels_setting(self) -> str:
        """The value for BENTHIC_REDIS_SENTINELS."""
        return ",".join(f"{host}:{port}" for host, port in self.sentinel_addresses)

    def start(self, timeout: float = 30.0) -> PrivateSentinelSet:
        try:
            primary, replicas = self.servers[0], self.servers[1:]
            primary.start(extra=self._options)
            for proxy in self._proxies.values():
                proxy.start()
            for replica in replicas:
                link = self._proxies[replica.port].port if self.proxied else primary.port
                replica.start(extra=(*self._options, "--replicaof", "127.0.0.1", str(link)))
            self.wait_replicas_online(len(replicas), timeout, sentinels_too=False)
            quorum = len(self.sentinels) // 2 + 1
            for sentinel in self.sentinels:
                sentinel.start(self.master_name, primary.port, quorum, self.down_after_ms, self.failover_timeout_ms)
            self._wait_sentinels_ready(timeout)
            return self
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stops every process and proxy (Sentinels first, so no failover starts while the rest goes down)."""
        for sentinel in self.sentinels:
            sentinel.stop()
        for proxy in self._proxies.values():
            proxy.stop()
        for server in self.servers:
            server.stop()

    def primary(self) -> PrivateRedis:
        """The server most of the answering Sentinels name as master (SENTINEL get-master-addr-by-name)."""
        named = Counter(port for port in self._named_masters() if port is not None)
        if not named:
            raise RuntimeError("no Sentinel names a master")
        return self._server_at(named.most_common(1)[0][0])

    def replicas_of_primary(self) -> list[PrivateRedis]:
        """The servers the current primary lists as connected replicas (INFO replication), in any state."""
        info = ask(self.primary().port, "INFO", "replication")
        return [self._server_at(port) for port, _ in _replica_states(info)]

    def kill_primary(self) -> PrivateRedis:
        """SIGKILLs the current primary, waits for the process to be gone and returns it."""
        primary = self.primary()
        crash(primary)
        return primary

    def wait_for_failover(self, old: PrivateRedis, timeout: float = 30.0) -> PrivateRedis:
        """Blocks until a majority of the Sentinels name the same master other than `old` and that server answers
        ROLE as a master; returns it."""
        majority = len(self.sentinels) // 2 + 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            named = Counter(port for port in self._named_masters() if port not in (None, old.port))
            if named:
                port, votes = named.most_common(1)[0]
                if votes >= majority and _role(port) == "master":
                    return self._server_at(port)
            time.sleep(0.1)
        raise RuntimeError(f"no failover away from {old.port} within {timeout} s")

    def restart(self, server: PrivateRedis, as_replica: bool = False) -> PrivateRedis:
        """Starts a killed server again on its port and directory.

        By default it comes back as a crashed primary does, a master (refusing writes: it has no replica), and
        Sentinel turns it into a replica of the current primary, but only four hello periods (8 s) after it
        noticed the role; wait_replicas_online() returns some 10 to 15 s after the restart.  `as_replica=True`
        starts it as a replica of the current primary at once (directly, never through a proxy), as a supervisor
        asking Sentinel first would: online within a second or two."""
        if server.process is not None and server.process.poll() is None:
            raise RuntimeError(f"the server on port {server.port} is running")
        extra: tuple[str, ...] = self._options
        if as_replica:
            extra = (*extra, "--replicaof", "127.0.0.1", str(self.primary().port))
        return server.start(extra=extra)

    def wait_replicas_online(self, n: int, timeout: float = 30.0, sentinels_too: bool = True) -> None:
        """Blocks until the current primary reports at least `n` replicas with state=online in INFO replication
        and (with `sentinels_too`) every Sentinel lists at least `n` replicas of it that it sees up, so that a
        next failover can pick one."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                port = self.primary().port if sentinels_too else self.servers[0].port
                states = _replica_states(ask(port, "INFO", "replication"))
                if sum(state == "online" for _, state in states) >= n and (
                        not sentinels_too or all(s.replicas_up(self.master_name) >= n for s in self.sentinels)):
                    return
            except (OSError, RuntimeError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the primary did not have {n} replicas online within {timeout} s")

    def proxy_of(self, replica: PrivateRedis) -> LinkProxy:
        """The LinkProxy `replica` replicates through (proxied mode only)."""
        return self._proxies[replica.port]

    def __enter__(self) -> PrivateSentinelSet:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if os.environ.get("BENTHIC_KEEP_REDIS_DIR") != "1":
            shutil.rmtree(self.root, ignore_errors=True)

    def _named_masters(self) -> list[int | None]:
        return [s.named_master(self.master_name) for s in self.sentinels]

    def _server_at(self, port: int) -> PrivateRedis:
        for server in self.servers:
            if server.port == port:
                return server
        raise RuntimeError(f"port {port} is none of this set's servers")

    def _wait_sentinels_ready(self, timeout: float) -> None:
        replicas = len(self.servers) - 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(s.knows_all(self.master_name, replicas, len(self.sentinels) - 1) for s in self.sentinels):
                return
            time.sleep(0.1)
        raise RuntimeError("the Sentinels did not discover each other and the replicas")


class PrivateSentinel:
    """One Sentinel process (redis-server --sentinel) with its config file in `directory`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, name: str, primary_port: int, quorum: int, down_after_ms: int, failover_timeout_ms: int,
              timeout: float = 10.0) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not on PATH (install Debian's redis-server package)")
        self.directory.mkdir(parents=True, exist_ok=True)
        config = self.directory / "sentinel.conf"  # Sentinel rewrites it: it must be a file of its own
        config.write_text("\n".join([
            f"port {self.port}",
            "bind 127.0.0.1",
            f"dir {self.directory}",
            f"logfile {self.directory / 'sentinel.log'}",
            f"sentinel monitor {name} 127.0.0.1 {primary_port} {quorum}",
            f"sentinel down-after-milliseconds {name} {down_after_ms}",
            f"sentinel failover-timeout {name} {failover_timeout_ms}",
            f"sentinel parallel-syncs {name} 1",
            "",
        ]))
        self.process = subprocess.Popen([binary, str(config), "--sentinel"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not answers_ping(self.port, timeout):
            raise RuntimeError(f"Sentinel did not start on port {self.port}")

    def stop(self) -> None:
        stop_process(self.process)
        self.process = None

    def named_master(self, name: str) -> int | None:
        """The port this Sentinel names as master, None if it does not answer."""
        try:
            address = ask(self.port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name, timeout=0.5)
        except OSError:
            return None
        return int(address[1]) if address else None

    def knows_all(self, name: str, replicas: int, other_sentinels: int) -> bool:
        try:
            master = _pairs(ask(self.port, "SENTINEL", "MASTER", name))
        except OSError:
            return False
        return (int(master["num-slaves"]) >= replicas and int(master["num-other-sentinels"]) >= other_sentinels
                and self.replicas_up(name) >= replicas)

    def replicas_up(self, name: str) -> int:
        """How many replicas of the master this Sentinel lists and sees up (candidates for a failover; their
        master-link-status is only refreshed every 10 s, and during a failover every second, so it is not asked)."""
        try:
            replicas = [_pairs(r) for r in ask(self.port, "SENTINEL", "REPLICAS", name)]
        except OSError:
            return 0
        return sum(1 for r in replicas if "s_down" not in r["flags"] and "disconnected" not in r["flags"])


def _pairs(reply: list[str] | dict[str, str]) -> dict[str, str]:
    """A Sentinel map reply: a dict under RESP3, a flat key, value, ... list under RESP2."""
    return reply if isinstance(reply, dict) else dict(zip(reply[::2], reply[1::2], strict=True))


def _role(port: int) -> str | None:
    try:
        return str(ask(port, "ROLE", timeout=0.5)[0])
    except OSError:
        return None


def _replica_states(info: dict[str, object]) -> list[tuple[int, str]]:
    """(port, state) of each replica in a parsed INFO replication."""
    replicas = [value for key, value in info.items() if key.startswith("slave") and isinstance(value, dict)]
    return [(int(r["port"]), str(r["state"])) for r in replicas]
