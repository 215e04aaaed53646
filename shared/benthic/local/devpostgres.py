"""A private PostgreSQL server for local runs and tests: ``initdb`` into its own folder and ``postgres`` on a
free port, listening only on a unix socket in that folder (no TCP), trust authentication for that socket.

PostgreSQL refuses to run as root; as root (CI, these machines) the server runs as the ``postgres`` user
(Debian's package creates it), or ``nobody`` when there is none, and owns its folder.  ``durable=False``
(the tests) turns fsync off for a fast start and fast commits: a crash of the machine may then lose data,
which is fine for a throwaway server and not for ``make run``'s ``.run/postgres``.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benthic.local.devredis import free_port

SUPERUSER = "benthic"
DATABASE = "benthic"
_SOCKET_PATH_MAX = 100  # unix socket paths are limited to ~107 bytes, ".s.PGSQL.NNNNN" included


def postgres_bindir() -> Path | None:
    """Where ``initdb`` and ``postgres`` live: on PATH, else Debian's /usr/lib/postgresql/<newest>/bin."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("postgres"):
        return Path(on_path).resolve().parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(Path(p).parts[-3]), reverse=True
    )
    return Path(candidates[0]).parent if candidates else None


def _reachable(folder: Path, user: str) -> bool:
    """Can ``user`` enter ``folder`` (every parent on the way included)?"""
    shutil.chown(folder, user)
    return subprocess.run(["test", "-x", str(folder)], user=user, check=False).returncode == 0


def _run_as() -> str | None:
    """The unprivileged user to run the server as when we are root (None: run as ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise RuntimeError("running as root and neither a 'postgres' nor a 'nobody' user exists to run PostgreSQL")


class PrivatePostgres:
    def __init__(self, directory: str | None = None, port: int | None = None, durable: bool = False) -> None:
        self.port = port or free_port()
        self.directory = Path(directory or tempfile.mkdtemp(prefix="benthic-pg-")).resolve()
        self.durable = durable
        self.process: subprocess.Popen[bytes] | None = None
        self._socket_dir: Path | None = None
        self._relocated = False  # the data live in a folder of ours, not the one asked for

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    @property
    def socket_dir(self) -> Path:
        if self._socket_dir is None:
            short_enough = len(str(self.directory / f".s.PGSQL.{self.port}")) <= _SOCKET_PATH_MAX
            self._socket_dir = self.directory if short_enough else Path(tempfile.mkdtemp(prefix="bpg-"))
        return self._socket_dir

    @property
    def dsn(self) -> str:
        """A libpq connection URI (psycopg and every libpq tool take it)."""
        return f"postgresql://{SUPERUSER}@/{DATABASE}?host={self.socket_dir}&port={self.port}"

    def start(self, timeout: float = 60.0) -> PrivatePostgres:
        bindir = postgres_bindir()
        if bindir is None:
            raise RuntimeError(
                "PostgreSQL's initdb/postgres were not found on PATH nor under /usr/lib/postgresql/*/bin "
                "(install Debian's postgresql package, or set BENTHIC_ARCHIVE_URL to a server of yours)"
            )
        user = _run_as()
        self.directory.mkdir(parents=True, exist_ok=True)
        if user is not None and not _reachable(self.directory, user):
            self._relocate(user)
        for folder in {self.directory, self.socket_dir}:
            if user is not None:
                shutil.chown(folder, user)
            folder.chmod(0o700)
        log = self.directory / "postgres.log"
        if not (self.data_dir / "PG_VERSION").exists():
            done = subprocess.run(
                [str(bindir / "initdb"), "-D", str(self.data_dir), "-U", SUPERUSER, "-A", "trust",
                 "-E", "UTF8", "--locale=C", "--no-instructions", *(() if self.durable else ("--no-sync",))],
                user=user, capture_output=True, text=True, cwd=self.directory, check=False,
            )
            if done.returncode != 0:
                raise RuntimeError(f"initdb failed in {self.data_dir}: {done.stderr.strip() or done.stdout.strip()}")
        settings = {
            "listen_addresses": "",
            "unix_socket_directories": str(self.socket_dir),
            "max_connections": "200",
            "shared_buffers": "64MB",
        }
        if not self.durable:
            settings.update(fsync="off", synchronous_commit="off", full_page_writes="off")
        args = [str(bindir / "postgres"), "-D", str(self.data_dir), "-p", str(self.port)]
        for name, value in settings.items():
            args += ["-c", f"{name}={value}"]
        with open(log, "ab") as out:
            if user is not None:
                shutil.chown(log, user)
            self.process = subprocess.Popen(
                args, user=user, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.directory
            )
        try:
            self._wait_ready(timeout, log)
            self._create_database()
        except BaseException:
            self.stop()
            raise
        return self

    def _relocate(self, user: str) -> None:
        """The server's user cannot reach the folder asked for (a parent is private to root, like pytest's
        temporary folders): keep the data where it can, in a temporary folder (a stable one when durable,
        so `make run` finds its data again), and say where in the folder asked for."""
        asked = self.directory
        if self.durable:
            digest = hashlib.sha1(str(asked).encode()).hexdigest()[:12]
            self.directory = Path(tempfile.gettempdir()) / f"benthic-postgres-{digest}"
            self.directory.mkdir(mode=0o700, exist_ok=True)
        else:
            self.directory = Path(tempfile.mkdtemp(prefix="benthic-pg-"))
        self._socket_dir = None
        self._relocated = True
        (asked / "WHERE.txt").write_text(f"user {user} cannot reach this folder; the data are in {self.directory}\n")

    def _wait_ready(self, timeout: float, log: Path) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            if self.process is not None and self.process.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                raise RuntimeError(f"postgres exited with {self.process.returncode}: {tail}")
            try:
                with psycopg.connect(self.admin_dsn, connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"postgres did not accept connections within {timeout}s; see {log}") from None
                time.sleep(0.1)

    @property
    def admin_dsn(self) -> str:
        return f"postgresql://{SUPERUSER}@/postgres?host={self.socket_dir}&port={self.port}"

    def _create_database(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone() is None:
                conn.execute(f'CREATE DATABASE "{DATABASE}"')

    def stop(self) -> None:
        """A fast shutdown (SIGINT): open transactions are rolled back, committed data stay."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(2)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self._socket_dir is not None and self._socket_dir != self.directory:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
        if self._relocated and not self.durable:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> PrivatePostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if os.environ.get("BENTHIC_KEEP_REDIS_DIR") != "1":
            shutil.rmtree(self.directory, ignore_errors=True)
