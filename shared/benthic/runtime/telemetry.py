"""Logging (structlog: JSON in production, console in dev) and the Prometheus metrics every service shares.

Metric names: prefix ``benthic_``, base units, ``_total`` counters; labels by service, game type, command,
outcome, error code; never by game or player id.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, Info, generate_latest

from benthic.runtime.config import Settings

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.25, 0.5, 1.0,
                    2.5, 5.0, 10.0)
_LAG_BUCKETS = (0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 0.75, 1.0, 2.5, 5.0,
                10.0, 30.0, 60.0)

BUILD_INFO = Info("benthic_build", "Benthic version and the services this process runs")

HTTP_REQUESTS = Counter(
    "benthic_http_requests_total", "HTTP requests handled", ["service", "method", "route", "status"]
)
HTTP_DURATION = Histogram(
    "benthic_http_request_duration_seconds",
    "HTTP request latency",
    ["service", "method", "route"],
    buckets=_LATENCY_BUCKETS,
)
COMMANDS = Counter(
    "benthic_commands_total",
    "Commands by outcome (accepted, duplicate, rejected, conflict, error) and error code",
    ["game_type", "command", "outcome", "code"],
)
COMMAND_DURATION = Histogram(
    "benthic_command_duration_seconds",
    "Time to decide and append a command (load included)",
    ["game_type"],
    buckets=_LATENCY_BUCKETS,
)
APPEND_CONFLICTS = Counter(
    "benthic_append_conflicts_total",
    "Appends refused for a stale expected version (benthic.store.transact), by game type; the matchmaker's own "
    "streams count as game_type=\"matchmaker\"",
    ["game_type"],
)
SNAPSHOTS_FAILED = Counter("benthic_snapshots_failed_total",
                           "State snapshots that could not be written (left for the next multiple of N)")
EVENTS_APPENDED = Counter("benthic_events_appended_total", "Events appended to game streams", ["game_type"])
GAMES_CREATED = Counter("benthic_games_created_total", "Games created", ["game_type"])
GAMES = Gauge("benthic_games", "Games by status (open, running, finished) from the lobby", ["game_type", "status"])
PROJECTION_LAG = Histogram(
    "benthic_projection_lag_seconds",
    "Time from an event's append to its read models being written",
    ["game_type"],
    buckets=_LAG_BUCKETS,
)
PROJECTED_EVENTS = Counter("benthic_projected_events_total", "Events folded into read models", ["game_type"])
INTEGRATION_EVENTS = Counter(
    "benthic_integration_events_published_total",
    "Public integration events written to the integration stream (docs/INTEGRATION_EVENTS.md), by type",
    ["type"],
)
CONSUMER_LAG = Gauge(
    "benthic_consumer_lag_entries", "Feed entries not yet delivered to the consumer group", ["group"]
)
CONSUMER_PENDING = Gauge(
    "benthic_consumer_pending_entries", "Feed entries delivered but not acknowledged", ["group"]
)
CONSUMER_OLDEST_PENDING = Gauge(
    "benthic_consumer_oldest_pending_seconds", "Idle time of the oldest pending feed entry", ["group"]
)
CONSUMER_CLAIMED = Counter(
    "benthic_consumer_claimed_total", "Pending entries claimed from dead consumers", ["group"]
)
CONSUMER_GROUP_RECREATED = Counter(
    "benthic_consumer_group_recreated_total", "Consumer groups recreated after NOGROUP", ["group"]
)
HANDLER_FAILURES = Counter(
    "benthic_consumer_failures_total", "Feed notifications whose handling failed (left pending)", ["group"]
)
DEAD_LETTERED = Counter(
    "benthic_consumer_dead_lettered_total",
    "Feed entries that failed too often and were moved to the partition's dead-letter stream",
    ["group"],
)
GAMES_SCORED = Counter("benthic_games_scored_total", "Games scored (game_scored appended)", ["game_type"])
SCORING_FAILURES = Counter("benthic_scoring_failures_total", "Failed attempts to score a game", ["game_type"])
RATINGS_UPDATED = Counter("benthic_ratings_updated_total", "Games applied to ratings", ["game_type"])
GAMES_NOT_SUPPORTED = Counter(
    "benthic_games_not_supported_total",
    "Folds refused because this process cannot read the recorded game (engine version, content pack)",
    ["game_type", "code"],
)
REDIS_MEMORY_USED = Gauge("benthic_redis_memory_used_bytes", "Redis used_memory")
REDIS_MEMORY_MAX = Gauge("benthic_redis_memory_max_bytes", "Redis maxmemory (0: no limit)")
REDIS_REPLICAS_CONNECTED = Gauge(
    "benthic_redis_replicas_connected", "Replicas online at the Redis primary, as this process last saw (cluster: "
    "the fewest of any master)")
REDIS_REPLICAS_REQUIRED = Gauge(
    "benthic_redis_replicas_required",
    "Replicas a write must reach before it is acknowledged (BENTHIC_REDIS_ACK_REPLICAS)")
REDIS_REPLICATION_LAG = Gauge(
    "benthic_redis_replication_lag_bytes", "How far the furthest replica lags behind the primary's replication offset")
REDIS_PRIMARY_CHANGES = Counter(
    "benthic_redis_primary_changes_total", "The Redis primary this process reaches changed (a failover or a restart)")
DURABLE_WRITES = ("append", "join", "delete")  # the writes acknowledged only once replicated
DURABILITY_UNCONFIRMED = Counter(
    "benthic_durability_unconfirmed_total", "Writes whose replication (or fsync) could not be confirmed in time",
    ["operation"])
ADMISSION_IN_FLIGHT = Gauge("benthic_admission_in_flight", "Requests being handled (admission control)", ["service"])
ADMISSION_LIMIT = Gauge("benthic_admission_limit", "Requests a process handles at once now (the static limit, or "
                        "the adaptive one)", ["service"])
ADMISSION_QUEUED = Gauge("benthic_admission_queued", "Requests waiting for an admission slot", ["service"])
ADMISSION_WAIT = Histogram("benthic_admission_wait_seconds", "Time admitted requests waited for a slot", ["service"],
                           buckets=_LATENCY_BUCKETS)
ADMISSION_SHED = Counter("benthic_admission_shed_total", "Requests refused 503 overloaded (queue_full, queue_timeout)",
                         ["service", "reason"])
BOUNDS = Gauge("benthic_bound", "The configured bound of each queue and pool of the process (see the setting of "
                                "the same name)", ["bound"])
LIVE_CLIENTS = Gauge("benthic_live_clients", "Clients waiting on long-poll or SSE")
LIVE_STREAMS = Gauge("benthic_live_streams", "Open server-sent-event streams of this process")
LIVE_STREAMS_REFUSED = Counter(
    "benthic_live_streams_refused_total", "SSE streams and long-polls refused at the per-process cap (503)"
)
LIVE_CLIENTS_DROPPED = Counter(
    "benthic_live_clients_dropped_total", "Live clients closed because they fell too far behind"
)
RATE_LIMITED = Counter(
    "benthic_rate_limited_total", "Requests refused by a rate limit (429)", ["action", "scope"]
)
AUTH_REFUSALS = Counter(
    "benthic_auth_refusals_total", "Requests refused for their credential (401/403) by error code", ["code"]
)
SEAT_TOKENS_ISSUED = Counter("benthic_seat_tokens_issued_total", "Seat tokens issued", ["reason"])
TOKENS_REVOKED = Counter("benthic_token_revocations_total", "Operator revocations of seat tokens", ["scope"])
GAMES_ARCHIVED = Counter(
    "benthic_games_archived_total", "Finished games copied to the archive, verified and deleted from Redis",
    ["game_type"],
)
ARCHIVE_FAILURES = Counter(
    "benthic_archive_failures_total", "Failed archiving steps (copy, verify, delete, purge)", ["step"]
)
ARCHIVE_LAG = Gauge(
    "benthic_archive_lag_seconds", "How long the oldest game due for archiving is past its due time (0: none)"
)
ARCHIVE_DUE = Gauge("benthic_archive_due_games", "Scored games waiting for their grace period or their turn")
ARCHIVE_SIZE = Gauge("benthic_archive_size_bytes", "The archive tables' size in PostgreSQL")
ARCHIVE_PURGED = Counter("benthic_archive_purged_total", "Archived games removed by the retention setting")
REDIS_MEMORY_BY_KIND = Gauge(
    "benthic_redis_memory_by_kind_bytes", "Estimated Redis memory by key kind (sampled)", ["kind"]
)
ARCHIVE_STEPS = ("copy", "verify", "delete", "purge")
_THINK_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
BOT_MOVES = Counter("benthic_bot_moves_total", "Moves played by server-side bots (bot seats and the house bot)",
                    ["game_type", "bot"])
BOT_THINK = Histogram("benthic_bot_think_seconds", "Time a bot took to choose its move", ["game_type", "bot"],
                      buckets=_THINK_BUCKETS)
BOT_MOVE_LAG = Histogram(
    "benthic_bot_move_lag_seconds",
    "Time from a bot move being due (prompt plus the configured pause) to its append",
    ["game_type"], buckets=_LAG_BUCKETS,
)
BOT_FAILURES = Counter("benthic_bot_failures_total", "Bot moves that failed (retried after the lease)", ["game_type"])
CLOCK_EXPIRIES = Counter("benthic_clock_expiries_total", "Turn clocks that ran out, by expiry policy",
                         ["game_type", "policy"])
CLOCK_OVERDUE = Gauge("benthic_clock_overdue_seconds",
                      "How far past its deadline the most overdue clock not yet expired is (0: none)")
TAKEOVERS = Counter("benthic_takeovers_total", "Seats the house bot took over (clock, resignation, forfeit)",
                    ["game_type"])
SEAT_RECLAIMS = Counter("benthic_seat_reclaims_total", "Seats players reclaimed after a clock takeover", ["game_type"])
UNDO_OUTCOMES = ("taken_back", "nothing_to_undo", "reveals_information", "another_seat_acted", "undo_off", "game_over")
UNDOS = Counter("benthic_undos_total", "Undo requests answered: taken_back, or the reason of the refusal "
                "(nothing_to_undo, reveals_information, another_seat_acted, undo_off, game_over)", ["outcome"])
RESIGNATIONS = Counter("benthic_resignations_total", "Players who resigned", ["game_type"])
GAMES_ABORTED = Counter("benthic_games_aborted_total", "Games aborted (operator, or a clock's abort policy)",
                        ["game_type"])
# Webhooks (the notifier service)
WEBHOOK_OUTCOMES = ("delivered", "retried", "dead_lettered", "unregistered")
WEBHOOK_DELIVERIES = Counter("benthic_webhook_deliveries_total",
                             "Webhook delivery attempts by outcome (delivered, retried, dead_lettered, unregistered)",
                             ["outcome"])
WEBHOOK_ATTEMPTS = Counter("benthic_webhook_attempts_total",
                           "POSTs to receivers by result (2xx, 4xx, 5xx, other status class, error, blocked)",
                           ["result"])
WEBHOOK_LATENCY = Histogram("benthic_webhook_delivery_seconds", "Time of one POST to a receiver, to its answer",
                            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0))
WEBHOOK_ENQUEUED = Counter("benthic_webhook_enqueued_total", "Deliveries enqueued, by event type", ["event_type"])
WEBHOOK_QUEUE_FULL = Counter("benthic_webhook_queue_full_total",
                             "Integration events left pending because the delivery queue was at its cap")
WEBHOOK_QUEUE_DEPTH = Gauge("benthic_webhook_queue_depth", "Deliveries waiting (due, backing off or being sent)")
WEBHOOK_DEAD_LETTERS = Gauge("benthic_webhook_dead_letters", "Entries of the webhook dead-letter stream")
# The matchmaker (services/matchmaker)
TICKETS_OPENED = Counter("benthic_match_tickets_opened_total", "Matchmaking tickets opened", ["game_type"])
TICKETS_CLOSED = Counter("benthic_match_tickets_closed_total", "Tickets closed, by how (cancelled, expired)",
                         ["reason"])
MATCHES_MADE = Counter("benthic_matches_made_total", "Tables made, by source (wave, invitation)", ["source"])
MATCH_WAVES = Counter("benthic_match_waves_total", "Pairing waves run")
MATCH_PAIRING_SECONDS = Histogram("benthic_match_pairing_seconds", "CPU time of one wave's pairing (folds included)",
                                  buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
                                           60.0))
MATCH_TICKETS_WAITING = Gauge("benthic_match_tickets_waiting", "Tickets waiting for a table")
MATCH_OLDEST_WAITING = Gauge("benthic_match_oldest_waiting_seconds", "How long the oldest waiting ticket has waited")
MATCH_UNSEATED = Gauge("benthic_match_unseated", "Matches made whose game is not created yet")
MATCH_LAST_WAVE = Gauge("benthic_match_last_wave_timestamp_seconds", "When this process last ran a wave (unix time)")
VACATIONS = Counter("benthic_vacations_total", "Vacations started and ended, by reason (started, returned, moved, "
                    "elapsed)", ["event"])
EXPIRY_POLICIES = ("takeover", "forfeit", "abort")


_series: dict[tuple[Any, tuple[str, ...]], Any] = {}


def series(metric: Any, *labels: str) -> Any:
    """``metric.labels(*labels)``, remembered: the per-move paths skip the library's checks and its lock on
    every call.  Bounded, as every label set is (never a game or a player id)."""
    key = (metric, labels)
    child = _series.get(key)
    if child is None:
        child = _series[key] = metric.labels(*labels)
    return child


def count_platform_events(game_type: str, types: list[str]) -> None:
    """The lifecycle counters of one platform commit (benthic.game.lifecycle's event types)."""
    counters = {"seat_taken_over": TAKEOVERS, "seat_reclaimed": SEAT_RECLAIMS, "player_resigned": RESIGNATIONS,
                "game_aborted": GAMES_ABORTED}
    for type_ in types:
        if type_ in counters:
            counters[type_].labels(game_type).inc()


def zero_series(service: str, game_types: tuple[str, ...], groups: tuple[str, ...] = ()) -> None:
    """Create the labelled counters at 0, so ``rate()`` and ``increase()`` see their first increment."""
    for game_type in game_types:
        for code in ("engine_version_unsupported", "content_pack_unavailable"):
            GAMES_NOT_SUPPORTED.labels(game_type, code)
        if service == "command":
            APPEND_CONFLICTS.labels(game_type)
            EVENTS_APPENDED.labels(game_type)
            GAMES_CREATED.labels(game_type)
        elif service == "projection":
            PROJECTED_EVENTS.labels(game_type)
        elif service == "scoring":
            GAMES_SCORED.labels(game_type)
            SCORING_FAILURES.labels(game_type)
            RATINGS_UPDATED.labels(game_type)
        elif service == "archiver":
            GAMES_ARCHIVED.labels(game_type)
        if service in ("command", "bots"):
            for counter in (TAKEOVERS, SEAT_RECLAIMS, RESIGNATIONS, GAMES_ABORTED):
                counter.labels(game_type)
        if service == "bots":
            BOT_FAILURES.labels(game_type)
            for policy in EXPIRY_POLICIES:
                CLOCK_EXPIRIES.labels(game_type, policy)
    if service == "command":
        for outcome in UNDO_OUTCOMES:
            UNDOS.labels(outcome)
    if service == "notifier":
        for outcome in WEBHOOK_OUTCOMES:
            WEBHOOK_DELIVERIES.labels(outcome)
        for result in ("2xx", "4xx", "5xx", "error", "blocked"):
            WEBHOOK_ATTEMPTS.labels(result)
    if service == "matchmaker":
        for game_type in game_types:
            TICKETS_OPENED.labels(game_type)
        for reason in ("cancelled", "expired"):
            TICKETS_CLOSED.labels(reason)
        for source in ("wave", "invitation"):
            MATCHES_MADE.labels(source)
        for event in ("started", "returned", "moved", "elapsed"):
            VACATIONS.labels(event)
    if service == "archiver":
        for step in ARCHIVE_STEPS:
            ARCHIVE_FAILURES.labels(step)
    for group in groups:
        for counter in (CONSUMER_CLAIMED, CONSUMER_GROUP_RECREATED, HANDLER_FAILURES, DEAD_LETTERED):
            counter.labels(group)
    if service:
        for operation in DURABLE_WRITES:
            DURABILITY_UNCONFIRMED.labels(operation)


def metrics_payload() -> tuple[bytes, str]:
    return generate_latest(), CONTENT_TYPE_LATEST


_logger: Any = None  # log()'s proxy


def configure_logging(settings: Settings, service: str) -> None:
    level = getattr(logging, settings.log_level.upper(), logging.INFO)
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if settings.json_logs
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    global _logger
    _logger = None  # the next log() binds under this configuration
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer]
        if settings.json_logs
        else [*shared, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    structlog.contextvars.bind_contextvars(service=service)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(max(level, logging.INFO) if level < logging.INFO else level)
    for noisy in ("uvicorn.access", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def log() -> Any:
    """The process's logger: one proxy, so that after ``configure_logging`` (which caches the bound logger on
    first use) a log call costs no logger construction."""
    global _logger
    if _logger is None:
        _logger = structlog.get_logger("benthic")
    return _logger


class Timer:
    __slots__ = ("start",)

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def red_middleware(service: str) -> Callable[[Any], Any]:
    """ASGI middleware recording HTTP rate, errors and duration by route template.  Each label set's child is
    looked up once (``labels()`` takes a lock and builds a key on every call) and kept: as many as the metric
    has series."""
    counted: dict[tuple[str, str, int], Callable[[], None]] = {}
    timed: dict[tuple[str, str], Callable[[float], None]] = {}

    def factory(app: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        async def middleware(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            started = time.perf_counter()
            status = {"code": 500}

            async def send_wrapper(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start":
                    status["code"] = message["status"]
                await send(message)

            try:
                await app(scope, receive, send_wrapper)
            finally:
                route = scope.get("path_template") or "unmatched"
                method = scope.get("method", "GET")
                code = status["code"]
                count = counted.get((method, route, code))
                if count is None:
                    count = counted[(method, route, code)] = HTTP_REQUESTS.labels(service, method, route, str(code)).inc
                observe = timed.get((method, route))
                if observe is None:
                    observe = timed[(method, route)] = HTTP_DURATION.labels(service, method, route).observe
                count()
                observe(time.perf_counter() - started)

        return middleware

    return factory
