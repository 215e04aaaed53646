"""Settings, read from the environment once per process (names are in the README)."""

from __future__ import annotations

import os
import socket
from functools import cache
from pathlib import Path

import msgspec


class Settings(msgspec.Struct, frozen=True):
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_cluster: bool = False  # REDIS_URL names a node of a Redis Cluster
    partitions: int = 16
    # HMAC keys for seat tokens, "kid:secret,kid:secret": the first signs, all verify (rotation).
    token_keys: tuple[tuple[str, bytes], ...] = ()
    operator_token: str = ""
    environment: str = "dev"  # "production" switches logs to JSON
    log_level: str = "info"
    log_format: str = ""  # "json" | "console"; empty: by environment
    snapshot_every: int = 200  # events between state snapshots
    state_cache_games: int = 20_000  # games whose folded state a service keeps in memory (~15-30 KB each)
    max_body_bytes: int = 64 * 1024
    conflict_retries: int = 8  # re-decides after a version conflict without expected_version
    feed_maxlen: int = 200_000  # approximate cap of each partition feed (entries)
    consumer_name: str = ""
    claim_idle_ms: int = 30_000  # a pending entry idle this long belongs to a dead consumer
    claim_interval_s: float = 5.0
    shutdown_timeout_s: int = 20  # HTTP: how long open requests may finish after SIGTERM
    drain_timeout_s: float = 10.0  # on shutdown, how long in-flight batches may finish (k8s grace must exceed it)
    projection_pause_ms: int = 0  # the projection rests this long after each batch (larger, fewer batches)
    scoring_pause_ms: int = 250  # scoring rests this long after each batch: fewer reads, scores a bit later
    consumer_batch: int = 64
    consumer_block_ms: int = 100
    metrics_interval_s: float = 5.0
    long_poll_max_s: float = 30.0
    redis_pool: int = 64  # Redis connections per process; requests wait for a free one
    redis_pool_timeout_s: float = 2.0  # ... this long, then answer 503 store_unavailable
    live_streams_max: int = 10_000  # SSE streams and long-polls per projection process (503 beyond)
    live_buffer: int = 16  # versions a live client may fall behind before it is closed
    command_port: int = 8001
    projection_port: int = 8002
    scoring_port: int = 8003
    host: str = "127.0.0.1"

    @property
    def json_logs(self) -> bool:
        if self.log_format:
            return self.log_format == "json"
        return self.environment == "production"


def _token_keys(raw: str) -> tuple[tuple[str, bytes], ...]:
    keys = []
    for item in filter(None, (part.strip() for part in raw.split(","))):
        kid, _, secret = item.partition(":")
        if not secret:
            kid, secret = "k1", kid
        keys.append((kid, secret.encode()))
    return tuple(keys)


def _read_setting_files(env: dict[str, str]) -> dict[str, str]:
    """Settings from files (a mounted Secret): for every setting NAME (``REDIS_URL``, ``BENTHIC_*``), a
    ``NAME_FILE`` names a file whose text, less one trailing newline, is the value.  Setting both NAME and
    NAME_FILE is an error; so is a file that cannot be read.  A NAME_FILE that is itself a setting's name is
    that setting, not a pointer."""
    names = {f"BENTHIC_{field.name.upper()}" for field in msgspec.structs.fields(Settings)} | {"REDIS_URL"}
    for name in sorted(names):
        pointer = f"{name}_FILE"
        if pointer in names or pointer not in env:
            continue
        if name in env:
            raise SystemExit(f"{name} and {pointer} are both set: set one of them")
        try:
            text = Path(env[pointer]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise SystemExit(f"{pointer}: cannot read {env[pointer]!r}: {error}") from None
        env[name] = text[:-2] if text.endswith("\r\n") else text.removesuffix("\n")
    return env


def from_env(env: dict[str, str] | None = None) -> Settings:
    env = _read_setting_files(dict(os.environ if env is None else env))
    defaults = Settings()

    def get(name: str, default: object) -> object:
        value = env.get(f"BENTHIC_{name.upper()}")
        if value is None:
            return default
        if isinstance(default, bool):
            return value.lower() in ("1", "true", "yes")
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
        return value

    values: dict[str, object] = {}
    for field in msgspec.structs.fields(Settings):
        if field.name in ("redis_url", "token_keys"):
            continue
        values[field.name] = get(field.name, getattr(defaults, field.name))
    values["redis_url"] = env.get("REDIS_URL", env.get("BENTHIC_REDIS_URL", defaults.redis_url))
    values["token_keys"] = _token_keys(env.get("BENTHIC_TOKEN_KEYS", ""))
    if values["environment"] == "dev":
        # Insecure, well-known defaults so `benthic serve` works out of the box on a laptop; production
        # refuses to start without real keys (see check_production).
        values["token_keys"] = values["token_keys"] or (("dev", b"insecure-dev-key"),)
        values["operator_token"] = values["operator_token"] or "dev-operator-token"
    if not values["consumer_name"]:
        values["consumer_name"] = env.get("POD_NAME") or f"{socket.gethostname()}-{os.getpid()}"
    return Settings(**values)  # type: ignore[arg-type]


def check_production(settings: Settings) -> None:
    if settings.environment != "dev":
        if not settings.token_keys:
            raise SystemExit("BENTHIC_TOKEN_KEYS is required outside dev (kid:secret[,kid:secret])")
        if len(settings.operator_token) < 16:
            raise SystemExit("BENTHIC_OPERATOR_TOKEN (16+ characters) is required outside dev")


@cache
def settings() -> Settings:
    return from_env()
