"""Settings, read from the environment once per process (every one documented in docs/CONFIGURATION.md)."""

from __future__ import annotations

import os
import socket
from functools import cache
from pathlib import Path

import msgspec


class Settings(msgspec.Struct, frozen=True):
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_cluster: bool = False  # REDIS_URL names a node of a Redis Cluster
    # Sentinel mode: "host:port,host:port" of the Sentinels and the name they monitor; the primary is asked of
    # them (and asked again after a failover).  REDIS_URL then only gives the database, user and password.
    redis_sentinels: str = ""
    redis_sentinel_master: str = "benthic"
    # Acknowledge a write only once `WAIT redis_ack_replicas redis_ack_timeout_ms` confirms it reached that many
    # replicas (0: once the primary has it); with redis_ack_fsync, `WAITAOF 1 N` (Redis >= 7.2): also fsynced.
    redis_ack_replicas: int = 0
    redis_ack_timeout_ms: int = 1000
    redis_ack_fsync: bool = False
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
    # The public integration events (docs/INTEGRATION_EVENTS.md): one stream, capped at about this many entries
    integration_stream: str = "benthic:integration"
    integration_maxlen: int = 100_000
    consumer_name: str = ""
    claim_idle_ms: int = 30_000  # a pending entry idle this long belongs to a dead consumer
    claim_interval_s: float = 5.0
    shutdown_timeout_s: int = 20  # HTTP: how long open requests may finish after SIGTERM
    drain_timeout_s: float = 10.0  # on shutdown, how long in-flight batches may finish (k8s grace must exceed it)
    projection_pause_ms: int = 20  # the projection rests this long after each batch (larger, fewer batches)
    bots_pause_ms: int = 50  # the bots service rests this long after each batch of its managed feed
    consumer_batch: int = 64
    consumer_block_ms: int = 2000  # a blocked read returns as soon as an entry arrives: only idle polling
    metrics_interval_s: float = 5.0
    long_poll_max_s: float = 30.0
    redis_pool: int = 64  # Redis connections per process; requests wait for a free one
    redis_pool_timeout_s: float = 2.0  # ... this long, then answer 503 store_unavailable
    admission_limit: int = 64  # requests a process handles at once (0: no admission control) ...
    admission_queue: int = 256  # ... requests that may wait for one of those slots (503 overloaded beyond) ...
    admission_queue_ms: float = 100.0  # ... and how long (a burst) ...
    admission_overload_ms: float = 5.0  # ... or this long, for admission_queue_ms after a wait ran out
    admission_adaptive: bool = False  # the limit follows request times (TCP Vegas), admission_limit its ceiling ...
    admission_min_limit: int = 4  # ... and this its floor
    live_streams_max: int = 10_000  # SSE streams and long-polls per projection process (503 beyond)
    live_buffer: int = 16  # versions a live client may fall behind before it is closed
    http_server: str = "uvicorn"  # the ASGI server under the APIs: uvicorn, or granian (Rust; embedded in the loop)
    command_port: int = 8001
    projection_port: int = 8002
    scoring_port: int = 8003
    archiver_port: int = 8004
    bots_port: int = 8005
    # Server-side bots and turn clocks (the bots service)
    bot_move_delay_ms: int = 300  # pause between a prompt and a bot's move, so people can follow
    bot_lease_s: float = 5.0  # a bot move or clock expiry taken by a replica that died is retried after this
    bot_poll_ms: int = 100  # how soon a bot move or deadline is taken once due (a local check, no I/O)
    bot_idle_poll_ms: int = 2000  # the due sets read at least this often (what another replica scheduled)
    # The archive of finished games (PostgreSQL DSN; empty: no archive, and `make run` starts a private one)
    archive_url: str = ""
    archive_after_s: float = 300.0  # grace period between game_scored and archiving
    archive_retention_days: int = 0  # archived games older than this are purged; 0 keeps them forever
    archive_batch: int = 20  # games the archiver takes per step and partition
    archive_pool: int = 4  # PostgreSQL connections per process
    archive_lease_s: float = 60.0  # a taken game is retried after this long if its archiver died
    # Turn notifications by webhook (the notifier service, services/notifier; docs/INTEGRATION.md#webhooks)
    notifier_port: int = 8006
    webhook_max_attempts: int = 8  # attempts of one delivery before it goes to the dead-letter stream
    webhook_retry_base_ms: int = 1000  # the first retry's delay; it doubles per attempt (with jitter) ...
    webhook_retry_max_ms: int = 600_000  # ... up to this
    webhook_timeout_s: float = 5.0  # one POST to a receiver: connect, send and answer
    webhook_lease_s: float = 30.0  # a delivery taken by a notifier that died is sent again after this
    webhook_queue_max: int = 100_000  # deliveries waiting (due or backing off); beyond, events wait on the stream
    webhook_dead_letter_max: int = 10_000  # approximate cap of the dead-letter stream
    webhook_concurrency: int = 16  # POSTs in flight per notifier process
    webhook_poll_ms: int = 200  # how often due deliveries are looked for
    # Receivers on loopback, private, link-local or reserved addresses are refused (SSRF); true for local dev.
    webhook_allow_private: bool = False
    # Matchmaking (the matchmaker service, services/matchmaker; docs/INTEGRATION.md#matchmaking)
    matchmaker_port: int = 8007
    match_wave_s: float = 10.0  # a pairing wave this often
    match_tickets_per_player: int = 3  # open tickets a player may hold at once
    match_ticket_ttl_s: int = 7 * 86_400  # a ticket's expiry unless it names one (expires_in, at most 30 days)
    match_window_base: float = 3.0  # rating gap (the leaderboard's ordinal) a ticket accepts in its first wave ...
    match_window_growth: float = 3.0  # ... widened this much per wave it missed ...
    match_window_max: float = 40.0  # ... up to this
    match_priority: int = 200  # pairing weight per wave missed (a rating point of gap weighs 100)
    match_keep_s: int = 7 * 86_400  # matched, cancelled or expired tickets still answer their state this long
    invitation_ttl_s: int = 3 * 86_400  # an invitation's expiry unless it names one
    # Vacation budget (days): granted at the first vacation, added every 30 days, at most, charged at least per use
    vacation_initial_days: int = 10
    vacation_days_per_month: int = 3
    vacation_cap_days: int = 30
    vacation_min_charge_days: int = 1
    host: str = "127.0.0.1"
    # --- players and trust (identity, seat tokens, abuse limits) ---------------------------------------------
    # Player and backend JWTs, verified against the identity provider's JWKS (a URL or a file).  Without either,
    # dev mode uses the built-in development issuer (insecure; refused outside dev).
    jwt_issuer: str = ""
    jwt_audience: str = ""
    jwks_url: str = ""
    jwks_file: str = ""
    jwks_cache_s: float = 300.0  # a fetched JWKS is used this long, then fetched again
    jwks_cooldown_s: float = 10.0  # least time between two fetches forced by an unknown key id
    jwt_leeway_s: float = 30.0  # clock skew allowed on exp / nbf / iat
    dev_issuer_dir: str = ".run/dev-issuer"  # the development issuer's key pair (dev mode only)
    seat_token_ttl_s: int = 3600  # seat tokens expire after this; players refresh them with their JWT
    # Rate limits in the `limits` notation ("30/second", "10/minute;100/hour"); empty: no limit.
    limit_create_per_player: str = "10/minute"
    limit_create_per_ip: str = "60/minute"
    limit_join_per_player: str = "30/minute"
    limit_join_per_ip: str = "120/minute"
    limit_command_per_player: str = "30/second"
    limit_command_per_ip: str = "300/second"
    limit_token_per_player: str = "60/minute"
    limit_token_per_ip: str = "300/minute"
    max_open_games_per_player: int = 20  # unfinished games a player may hold a seat in (0: no cap)
    forwarded_allow_ips: str = "127.0.0.1"  # proxies whose X-Forwarded-For names the client (comma list, or *)
    # --- browsers (the web client at /app of the read API) ----------------------------------------------------
    # Origins allowed to call the API from a browser (CORS), comma-separated ("*": any); empty: none.  The web
    # client is served by the read API and calls the command API on another port: list the read API's origin.
    cors_origins: str = ""
    # The command API's URL as browsers reach it (the web client's config); empty: the page's host with
    # BENTHIC_COMMAND_PORT.
    public_command_url: str = ""
    public_matchmaker_url: str = ""  # the matchmaker API's URL as browsers reach it (empty: page host, its port)
    # directories of extra content packs (os.pathsep-separated in BENTHIC_CONTENT_DIRS), besides the built-in ones
    content_dirs: tuple[str, ...] = ()

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
        if field.name in ("redis_url", "token_keys", "content_dirs"):
            continue
        values[field.name] = get(field.name, getattr(defaults, field.name))
    values["redis_url"] = env.get("REDIS_URL", env.get("BENTHIC_REDIS_URL", defaults.redis_url))
    values["token_keys"] = _token_keys(env.get("BENTHIC_TOKEN_KEYS", ""))
    values["content_dirs"] = tuple(p for p in env.get("BENTHIC_CONTENT_DIRS", "").split(os.pathsep) if p.strip())
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
    check_identity(settings)


def check_identity(settings: Settings) -> None:
    """An identity provider is configured completely, or (dev only) the development issuer stands in."""
    if settings.jwks_url and settings.jwks_file:
        raise SystemExit("set one of BENTHIC_JWKS_URL and BENTHIC_JWKS_FILE, not both")
    if settings.jwks_url or settings.jwks_file:
        if not settings.jwt_issuer or not settings.jwt_audience:
            raise SystemExit("BENTHIC_JWT_ISSUER and BENTHIC_JWT_AUDIENCE are required with a JWKS")
    elif settings.environment != "dev":
        raise SystemExit(
            "BENTHIC_JWKS_URL or BENTHIC_JWKS_FILE (with BENTHIC_JWT_ISSUER and BENTHIC_JWT_AUDIENCE) is required "
            "outside dev: the built-in development issuer is insecure"
        )
    if settings.seat_token_ttl_s <= 0:
        raise SystemExit("BENTHIC_SEAT_TOKEN_TTL_S must be positive")


@cache
def settings() -> Settings:
    return from_env()
