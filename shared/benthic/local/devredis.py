"""A private redis-server for local runs and tests: AOF on, noeviction, on a free port."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


class PrivateRedis:
    def __init__(self, directory: str | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.directory = Path(directory or tempfile.mkdtemp(prefix="benthic-redis-")).resolve()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0, extra: tuple[str, ...] = ()) -> PrivateRedis:
        binary = shutil.which("redis-server")
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
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process = None

    def __enter__(self) -> PrivateRedis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if os.environ.get("BENTHIC_KEEP_REDIS_DIR") != "1":
            shutil.rmtree(self.directory, ignore_errors=True)


class PrivateRedisCluster:
    """A three-master Redis Cluster on free ports (no replicas), for cluster-mode tests."""

    def __init__(self, masters: int = 3, directory: str | None = None) -> None:
        root = Path(directory or tempfile.mkdtemp(prefix="benthic-cluster-")).resolve()
        self.root = root
        self.nodes = [PrivateRedis(str(root / f"node{i}"), port=free_cluster_port()) for i in range(masters)]

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self, timeout: float = 30.0) -> PrivateRedisCluster:
        try:
            for node in self.nodes:
                node.start(extra=("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                  "--cluster-node-timeout", "5000"))
            cli = shutil.which("redis-cli")
            if cli is None:
                raise RuntimeError("redis-cli is not on PATH")
            subprocess.run(
                [cli, "--cluster", "create", *(f"127.0.0.1:{n.port}" for n in self.nodes),
                 "--cluster-replicas", "0", "--cluster-yes"],
                check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout,
            )
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                states = [
                    subprocess.run([cli, "-p", str(n.port), "cluster", "info"], capture_output=True, text=True).stdout
                    for n in self.nodes
                ]
                if all("cluster_state:ok" in s for s in states):
                    return self
                time.sleep(0.2)
            raise RuntimeError("the cluster did not reach cluster_state:ok")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def __enter__(self) -> PrivateRedisCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if os.environ.get("BENTHIC_KEEP_REDIS_DIR") != "1":
            shutil.rmtree(self.root, ignore_errors=True)
