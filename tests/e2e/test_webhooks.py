"""End to end: the notifier service (a real process) delivers the public integration events of games played through
the public API to the webhooks backends registered for their players: signed, retried with backoff, dead-lettered
where the operator reads and re-drives them, and nothing lost when the notifier is killed -9 mid-delivery.  The
receiver is a real HTTP server in this test process (``http.server`` in a thread) that records every request."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import random
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import BenthicClient
from benthic.feed.encoding import DATA_FIELD, decode_message
from benthic.feed.integration import webhook_stream
from benthic.local.localplatform import LocalPlatform
from tests.e2e.waiting import until
from tests.e2e.webhook_receiver import Receiver
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory

STREAM = f"benthic:integration:wh-{uuid.uuid4().hex[:8]}"
NOTIFIED = webhook_stream(STREAM)  # what the notifier's group reads: the entries of players with a webhook
GAME = "nautilus"
MAX_ATTEMPTS = 3
RETRY_BASE_MS = 300
LEASE_S = 3


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.server.shutdown()


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({
        **GENEROUS_LIMITS,
        "BENTHIC_INTEGRATION_STREAM": STREAM,
        "BENTHIC_WEBHOOK_MAX_ATTEMPTS": str(MAX_ATTEMPTS),
        "BENTHIC_WEBHOOK_RETRY_BASE_MS": str(RETRY_BASE_MS),
        "BENTHIC_WEBHOOK_RETRY_MAX_MS": "2000",
        "BENTHIC_WEBHOOK_LEASE_S": str(LEASE_S),
        "BENTHIC_WEBHOOK_TIMEOUT_S": "2",
        "BENTHIC_WEBHOOK_POLL_MS": "50",
        "BENTHIC_CLAIM_IDLE_MS": "1500",
        "BENTHIC_CLAIM_INTERVAL_S": "0.5",
        "BENTHIC_CONSUMER_BLOCK_MS": "200",
        "BENTHIC_MATCH_WAVE_S": "0.5",
    })


def _url(platform: LocalPlatform) -> str:
    return platform.url("notifier")


def _backend(platform: LocalPlatform) -> dict[str, str]:
    return {"Authorization": f"Bearer {platform.mint('backend-wh', ['benthic:matchmaker'])}"}


def _operator(platform: LocalPlatform) -> dict[str, str]:
    return {"Authorization": f"Bearer {platform.operator_token}"}


def _register(platform: LocalPlatform, player: str, url: str, **extra: Any) -> dict[str, Any]:
    answer = httpx.put(f"{_url(platform)}/players/{player}/webhook", json={"url": url, **extra},
                       headers=_backend(platform), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def _verified(request: dict[str, Any], secret: str) -> bool:
    """The receiver's check, as docs/INTEGRATION.md#webhooks shows it (written here from the spec, not imported)."""
    fields = dict(part.split("=", 1) for part in request["headers"]["benthic-signature"].split(","))
    expected = hmac.new(secret.encode(), fields["t"].encode() + b"." + request["body"], hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields["v1"]) and abs(time.time() - int(fields["t"])) < 300


async def _stream_events(platform: LocalPlatform, game_id: str) -> list[dict[str, Any]]:
    redis = Redis.from_url(platform.redis_url)
    try:
        entries = await redis.xrange(STREAM)
    finally:
        await redis.aclose()
    events = [json.loads(decode_message(fields[DATA_FIELD.encode()])) for _, fields in entries]
    return [e for e in events if e["game_id"] == game_id]


def _players(name: str, seats: int = 2) -> list[str]:
    return [f"{name}-{GAME}-{i}" for i in range(seats)]  # as start_bot_game names them


async def test_a_game_played_through_the_api_notifies_each_seat_s_player_with_a_valid_signature(
    platform: LocalPlatform, client: BenthicClient, receiver: Receiver
) -> None:
    name = f"wh{uuid.uuid4().hex[:4]}"
    players = _players(name)
    secrets = {p: _register(platform, p, f"{receiver.url}/ok/{p}")["secret"] for p in players}
    assert all(len(s) >= 32 for s in secrets.values()), "a generated secret is answered once"
    game_id, tokens = await start_bot_game(client, GAME, 2, name=name)
    await HttpGame(client, game_id, tokens, random.Random(5)).play()

    events = await until(lambda: _finished_on_stream(platform, game_id), "the game's events on the stream")
    turns = [e for e in events if e["type"] == "turn.started"]
    assert len(turns) > 2
    expected = {p: [e["id"] for e in events if e["type"] == "game.finished"
                    or (e["type"] == "turn.started" and i in e["seats"])] for i, p in enumerate(players)}

    def delivered() -> dict[str, list[str]] | None:
        got = {p: [r["headers"]["benthic-event-id"] for r in receiver.of(p)] for p in players}
        return got if all(set(expected[p]) <= set(got[p]) for p in players) else None

    got = await until(_async(delivered), "every turn of each player and the end delivered", timeout=60)
    for index, player in enumerate(players):
        assert set(got[player]) == set(expected[player]), "exactly the player's turns and the game's end"
        for request in receiver.of(player):
            assert _verified(request, secrets[player]), request["headers"]
            event = json.loads(request["body"])
            assert request["headers"]["benthic-event-id"] == event["id"]
            assert request["headers"]["benthic-event-type"] == event["type"]
            assert event["type"] == "game.finished" or index in event["seats"]
            assert not _verified(request, secrets[players[1 - index]]), "signed with the player's own secret"
        bodies = [json.loads(r["body"]) for r in receiver.of(player)]
        on_stream = {e["id"]: e for e in events}
        assert all(b == on_stream[b["id"]] for b in bodies), "the event as published, unchanged"
    lags = sorted(r["wall_ms"] - json.loads(r["body"])["at"] for p in players for r in receiver.of(p))
    print(f"webhook deliveries: {len(lags)}, from the commit to the receiver p50 {lags[len(lags) // 2]:.0f} ms, "
          f"p95 {lags[int(len(lags) * 0.95)]:.0f} ms, max {lags[-1]:.0f} ms")


async def _finished_on_stream(platform: LocalPlatform, game_id: str) -> list[dict[str, Any]] | None:
    events = await _stream_events(platform, game_id)
    return events if any(e["type"] == "game.finished" for e in events) else None


def _async(probe: Any) -> Any:
    async def call() -> Any:
        return probe()
    return call


async def _first_turn_of(platform: LocalPlatform, client: BenthicClient, name: str, mode: str, receiver: Receiver,
                         **registration: Any) -> tuple[dict[str, Any], str]:
    """A game of two players named after ``name`` (both registered at ``/<mode>/<player>``), created by a backend
    (no one moves: one turn only); its first turn.started and the player to move."""
    players = _players(name)
    for player in players:
        _register(platform, player, f"{receiver.url}/{mode}/{player}", events=["turn.started"], **registration)
    game_id, _tokens = await start_bot_game(client, GAME, 2, name=name)

    async def first_turn() -> dict[str, Any] | None:
        return next((e for e in await _stream_events(platform, game_id) if e["type"] == "turn.started"), None)

    turn = await until(first_turn, "the first turn on the stream")
    assert len(turn["seats"]) == 1, turn
    return turn, players[turn["seats"][0]]


async def test_a_receiver_failing_twice_gets_the_event_on_the_third_attempt_after_backoff(
    platform: LocalPlatform, client: BenthicClient, receiver: Receiver
) -> None:
    secret = "a-secret-of-the-backend-0123456789"
    turn, player = await _first_turn_of(platform, client, f"fl{uuid.uuid4().hex[:4]}", "flaky", receiver,
                                        secret=secret)
    requests = await until(_async(lambda: [r for r in receiver.of(player)
                                           if r["headers"]["benthic-event-id"] == turn["id"]][:3]
                                  if len(receiver.of(player)) >= 3 else None), "three attempts", timeout=30)
    assert [r["headers"]["benthic-delivery-attempt"] for r in requests] == ["1", "2", "3"]
    assert all(_verified(r, secret) for r in requests)
    gaps = [b["at"] - a["at"] for a, b in zip(requests, requests[1:], strict=False)]
    # full jitter over [ceiling/2, ceiling]: at least half the base, then half of twice the base
    assert gaps[0] >= RETRY_BASE_MS / 2 / 1000 * 0.9 and gaps[1] >= RETRY_BASE_MS / 1000 * 0.9, gaps
    await asyncio.sleep(RETRY_BASE_MS * 4 / 1000)
    assert len([r for r in receiver.of(player) if r["headers"]["benthic-event-id"] == turn["id"]]) == 3, \
        "delivered on the third attempt: not sent again"
    metrics = httpx.get(f"{_url(platform)}/metrics", timeout=10).text
    assert 'benthic_webhook_deliveries_total{outcome="retried"}' in metrics
    assert "benthic_webhook_delivery_seconds_bucket" in metrics


async def test_a_receiver_always_failing_ends_in_the_dead_letters_the_operator_reads_and_redrives(
    platform: LocalPlatform, client: BenthicClient, receiver: Receiver
) -> None:
    turn, player = await _first_turn_of(platform, client, f"dl{uuid.uuid4().hex[:4]}", "fail", receiver)

    async def dead() -> dict[str, Any] | None:
        page = httpx.get(f"{_url(platform)}/ops/webhooks/dead-letters", params={"limit": 1000},
                         headers=_operator(platform), timeout=10).json()
        return next((d for d in page["dead_letters"] if d["delivery"]["event_id"] == turn["id"]), None)

    letter = await until(dead, "the delivery in the dead letters", timeout=30)
    assert letter["delivery"]["player_id"] == player and letter["delivery"]["attempts"] == MAX_ATTEMPTS
    assert "HTTP 500" in letter["reason"] and json.loads(letter["delivery"]["body"]) == turn
    assert len(receiver.of(player)) == MAX_ATTEMPTS
    refused = httpx.get(f"{_url(platform)}/ops/webhooks/dead-letters", headers=_backend(platform), timeout=10)
    assert refused.status_code == 403 and refused.json()["code"] == "operator_only"

    # the backend fixes its receiver; the operator sends the dead letter again
    _register(platform, player, f"{receiver.url}/ok/{player}", events=["turn.started"])
    redriven = httpx.post(f"{_url(platform)}/ops/webhooks/dead-letters/{letter['entry_id']}/redrive",
                          headers=_operator(platform), timeout=10)
    assert redriven.status_code == 200, redriven.text
    ok = await until(_async(lambda: [r for r in receiver.of(player) if r["mode"] == "ok"]), "the redriven delivery")
    assert ok[0]["headers"]["benthic-event-id"] == turn["id"] and ok[0]["headers"]["benthic-delivery-attempt"] == "1"
    assert await dead() is None, "it left the dead letters"
    again = httpx.post(f"{_url(platform)}/ops/webhooks/dead-letters/{letter['entry_id']}/redrive",
                       headers=_operator(platform), timeout=10)
    assert again.status_code == 404 and again.json()["code"] == "dead_letter_not_found"


async def test_a_notifier_killed_mid_delivery_and_while_events_arrive_loses_nothing(
    platform: LocalPlatform, client: BenthicClient, receiver: Receiver
) -> None:
    name = f"kl{uuid.uuid4().hex[:4]}"
    players = _players(name)
    for player in players:
        _register(platform, player, f"{receiver.url}/hold/{player}")
    game_id, tokens = await start_bot_game(client, GAME, 2, name=name)
    held = await until(_async(lambda: receiver.of(players[0]) + receiver.of(players[1])),
                       "the first delivery, held by the receiver")
    with _notifier_down(platform):  # killed -9 while the POST waits for its answer
        await HttpGame(client, game_id, tokens, random.Random(9)).play()  # events arrive while no notifier runs

    events = await until(lambda: _finished_on_stream(platform, game_id), "the game's events on the stream")
    expected = {p: {e["id"] for e in events if e["type"] == "game.finished"
                    or (e["type"] == "turn.started" and i in e["seats"])} for i, p in enumerate(players)}

    def answered() -> bool:
        # a request answered 200: a later one of the same event (the first of each is held, then 200 too late)
        got = {p: {r["headers"]["benthic-event-id"] for r in receiver.of(p)} for p in players}
        return all(expected[p] <= got[p] for p in players)

    await until(_async(answered), "every delivery after the restart", timeout=90)
    first = held[0]["headers"]["benthic-event-id"]
    # The held request counts in `answered` as it arrived: its resend may come after the rest, once its lease ran out.
    await until(_async(lambda: sum(r["headers"]["benthic-event-id"] == first
                                   for r in receiver.of(held[0]["player"])) >= 2),
                "the delivery cut off by the kill sent again after its lease", timeout=LEASE_S * 5)


@contextlib.contextmanager
def _notifier_down(platform: LocalPlatform) -> Iterator[None]:
    """The notifier killed -9 for the block, then started again and ready (also when the block failed)."""
    platform.kill("notifier")
    try:
        yield
    finally:
        platform.start_service("notifier")
        platform.wait_ready(60, ("notifier",))


async def test_events_read_by_a_notifier_that_died_before_queueing_them_are_claimed_and_delivered(
    platform: LocalPlatform, client: BenthicClient, receiver: Receiver
) -> None:
    """A notifier that read entries of the group and died before acknowledging them (played here by this test,
    reading as consumer ``dead-notifier`` of the ``notifier`` group): another one claims them once idle."""
    name = f"cl{uuid.uuid4().hex[:4]}"
    players = _players(name)
    redis = Redis.from_url(platform.redis_url)
    for player in players:
        _register(platform, player, f"{receiver.url}/ok/{player}", events=["turn.started"])
    try:
        with _notifier_down(platform):
            game_id, _tokens = await start_bot_game(client, GAME, 2, name=name)

            async def first_turn() -> dict[str, Any] | None:
                return next((e for e in await _stream_events(platform, game_id) if e["type"] == "turn.started"),
                            None)

            turn = await until(first_turn, "the first turn on the stream")
            taken = await redis.xreadgroup("notifier", "dead-notifier", {NOTIFIED: ">"}, count=10_000)
            assert taken and taken[0][1], "the dead notifier holds the new entries, unacknowledged"
            pending = await redis.xpending(NOTIFIED, "notifier")
            assert pending["pending"] >= len(taken[0][1])
        player = players[turn["seats"][0]]
        got = await until(_async(lambda: [r for r in receiver.of(player)
                                          if r["headers"]["benthic-event-id"] == turn["id"]]),
                          "the claimed event delivered", timeout=30)
        assert json.loads(got[0]["body"]) == turn
        owners = {c["name"].decode(): c["pending"] for c in await redis.xinfo_consumers(NOTIFIED, "notifier")}
        assert owners.get("dead-notifier", 0) == 0, "every entry the dead notifier held was claimed"
    finally:
        await redis.aclose()


BAD_INPUTS = [
    ({"url": "ftp://example.com/hook"}, 400, "invalid_webhook_url"),
    ({"url": "https://user:pw@example.com/hook"}, 400, "invalid_webhook_url"),
    ({"url": "https:///nohost"}, 400, "invalid_webhook_url"),
    ({"url": "https://example.com/hook#frag"}, 400, "invalid_webhook_url"),
    ({"url": "https://example.com/" + "a" * 2100}, 400, "invalid_webhook_url"),
    ({"url": "https://example.com/hook", "secret": "short"}, 400, "invalid_request"),
    ({"url": "https://example.com/hook", "secret": "x" * 20 + "\n"}, 400, "invalid_request"),
    ({"url": "https://example.com/hook", "secret": "x" * 10 + "\t" + "x" * 10}, 400, "invalid_request"),
    ({"url": "https://example.com/hook", "events": ["game.scored"]}, 400, "invalid_request"),
    ({"url": "https://example.com/hook", "events": []}, 400, "invalid_request"),
    ({"url": "https://example.com/hook", "colour": "red"}, 400, "invalid_request"),
    ({}, 400, "invalid_request"),
]


@pytest.mark.parametrize(("body", "status", "code"), BAD_INPUTS)
def test_bad_registrations_get_clear_errors(platform: LocalPlatform, body: dict[str, Any], status: int,
                                            code: str) -> None:
    answer = httpx.put(f"{_url(platform)}/players/pat/webhook", json=body, headers=_backend(platform), timeout=10)
    assert (answer.status_code, answer.json()["code"]) == (status, code), answer.text
    assert answer.json()["message"]


def test_who_may_register_and_what_is_answered(platform: LocalPlatform) -> None:
    url = f"{_url(platform)}/players/quinn/webhook"
    body = {"url": "https://hooks.example.com/benthic"}
    missing = httpx.put(url, json=body, timeout=10)
    assert (missing.status_code, missing.json()["code"]) == (401, "missing_token")
    assert missing.headers["www-authenticate"].startswith("Bearer")
    player = httpx.put(url, json=body, headers={"Authorization": f"Bearer {platform.mint('quinn')}"}, timeout=10)
    assert (player.status_code, player.json()["code"]) == (403, "backend_only")
    forged = httpx.put(url, json=body, headers={"Authorization": "Bearer not-a-jwt"}, timeout=10)
    assert (forged.status_code, forged.json()["code"]) == (401, "invalid_token")
    bad_id = httpx.get(f"{_url(platform)}/players/bad%20id/webhook", headers=_backend(platform), timeout=10)
    assert (bad_id.status_code, bad_id.json()["code"]) == (400, "invalid_request")
    unknown = httpx.get(url, headers=_backend(platform), timeout=10)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "webhook_not_found")

    put = httpx.put(url, json={**body, "secret": "0123456789abcdef0123"}, headers=_operator(platform), timeout=10)
    assert put.status_code == 200 and put.json()["secret"] is None, "a secret given is never answered"
    got = httpx.get(url, headers=_backend(platform), timeout=10).json()
    assert got["url"] == body["url"] and got["events"] == ["turn.started", "game.finished", "match.found",
                                                                "ticket.expired"] and got["secret"] is None
    assert httpx.delete(url, headers=_backend(platform), timeout=10).status_code == 204
    gone = httpx.delete(url, headers=_backend(platform), timeout=10)
    assert (gone.status_code, gone.json()["code"]) == (404, "webhook_not_found")
    allowed = httpx.options(url, timeout=10)
    assert allowed.status_code == 204 and allowed.headers["allow"] == "DELETE, GET, OPTIONS, PUT"
    document = httpx.get(f"{_url(platform)}/schema/openapi.json", timeout=10).json()
    put_doc = document["paths"]["/players/{player_id}/webhook"]["put"]["responses"]
    assert {"invalid_webhook_url", "webhook_url_not_public"} <= set(
        put_doc["400"]["content"]["application/json"]["schema"]["properties"]["code"]["enum"])


def test_private_addresses_are_refused_unless_allowed(platform: LocalPlatform) -> None:
    platform.start_service("notifier", env={"BENTHIC_WEBHOOK_ALLOW_PRIVATE": "false"}, name="strict")
    try:
        platform.wait_ready(60, ("strict",))
        for url in ("http://127.0.0.1:9/hook", "http://10.1.2.3/hook", "http://[::1]/hook", "http://localhost/h",
                    "http://169.254.169.254/latest/meta-data", "http://[::ffff:192.168.1.1]/hook",
                    "http://2130706433/hook", "http://0x7f000001/hook", "http://0177.0.0.1/hook", "http://127.1/hook",
                    "http://127.0.0.1./hook", "http://localhost./hook", "http://0xa9fea9fe/latest/meta-data"):
            answer = httpx.put(f"{platform.url('strict')}/players/rae/webhook", json={"url": url},
                               headers=_backend(platform), timeout=10)
            assert (answer.status_code, answer.json()["code"]) == (400, "webhook_url_not_public"), url
        for url in ("https://1.1.1.1/hook", "https://hooks.example.com/benthic"):
            public = httpx.put(f"{platform.url('strict')}/players/rae/webhook", json={"url": url},
                               headers=_backend(platform), timeout=10)
            assert public.status_code == 200, public.text
    finally:
        platform.kill("strict")


async def test_the_notifier_goes_on_when_its_consumer_group_is_deleted_under_it(
    platform: LocalPlatform, client: BenthicClient, receiver: Receiver
) -> None:
    """The group ``notifier`` destroyed under the running notifier (a failover to a replica that lost it, a FLUSH:
    FastStream stops a subscriber for good on NOGROUP): the same process makes the group again, is ready again and
    delivers the turns of a game started afterwards.  (Last in the module: the group made again from ID 0 reads
    the whole stream again, so earlier games' players get their turns a second time.)"""
    process = platform.processes["notifier"]
    redis = Redis.from_url(platform.redis_url)
    try:
        await redis.xgroup_destroy(NOTIFIED, "notifier")
        turn, player = await _first_turn_of(platform, client, f"ng{uuid.uuid4().hex[:4]}", "ok", receiver)
        await until(_async(lambda: [r for r in receiver.of(player) if r["headers"]["benthic-event-id"] == turn["id"]]),
                    "a turn delivered after the group was lost", timeout=60)
        assert [g["name"] for g in await redis.xinfo_groups(NOTIFIED)] == [b"notifier"]
        assert platform.processes["notifier"] is process and process.poll() is None, "the same notifier process"
        ready = await until(_async(lambda: httpx.get(f"{_url(platform)}/readyz", timeout=5).status_code == 200),
                            "the notifier ready again", timeout=30)
        assert ready
    finally:
        await redis.aclose()


async def test_the_matchmakers_match_found_and_ticket_expired_reach_the_players_webhooks(
    platform: LocalPlatform, receiver: Receiver
) -> None:
    name = f"mm{uuid.uuid4().hex[:4]}"
    players = [f"{name}-{i}" for i in range(3)]
    for player in players:
        _register(platform, player, f"{receiver.url}/ok/{player}", events=["match.found", "ticket.expired"])
    backend = _backend(platform)
    matchmaker = platform.url("matchmaker")
    for player, body in zip(players, [{}, {}, {"game_type": "aquatica", "expires_in": 1}], strict=True):
        answer = httpx.post(f"{matchmaker}/matchmaking/tickets", headers=backend, timeout=10,
                            json={"game_type": GAME, "pace": "live", "player_id": player, **body})
        assert answer.status_code == 201, answer.text

    def delivered() -> list[dict[str, Any]] | None:
        bodies = [json.loads(r["body"]) for p in players for r in receiver.of(p)]
        return bodies if len(bodies) >= 3 else None

    bodies = await until(_async(delivered), "match.found twice and ticket.expired once", timeout=30)
    found = [b for b in bodies if b["type"] == "match.found"]
    assert len(found) == 2 and found[0]["id"] == found[1]["id"] and found[0]["game_id"]
    assert sorted(s["player_id"] for s in found[0]["seats"]) == players[:2]
    expired = [b for b in bodies if b["type"] == "ticket.expired"]
    assert [e["player_id"] for e in expired] == [players[2]]
