"""The notifier's delivery queue on a real Redis (and a Redis Cluster): deliveries enqueued once each, only for
players registered for the event's type, bounded; leased while sent; dead-lettered into a capped stream and
re-driven from it."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from services.notifier.keys import WebhookKeys, delivery_id
from services.notifier.queue import Delivery, DeliveryQueue, QueueFull
from services.notifier.registrations import Registrations, WebhookRequest

KEYS = WebhookKeys("benthic:integration:test")
NOW = 1_800_000_000_000


def _delivery(player: str, event_id: str = "g1:5:turn.started", event_type: str = "turn.started") -> Delivery:
    return Delivery(id=delivery_id(event_id, player), player_id=player, event_id=event_id, event_type=event_type,
                    game_id="g1", body=json.dumps({"id": event_id}), enqueued_at_ms=NOW)


async def _registered(redis: Any, *players: str, events: list[str] | None = None) -> None:
    registrations = Registrations(redis, KEYS)
    for player in players:
        request = WebhookRequest(url="https://hooks.example.com/x", events=events)  # type: ignore[arg-type]
        await registrations.put(player, request, NOW)


async def test_only_registered_players_get_a_delivery_once_each(redis: Any) -> None:
    queue = DeliveryQueue(redis, KEYS, queue_max=100, dead_letter_max=10)
    await _registered(redis, "ann")
    await _registered(redis, "bob", events=["game.finished"])
    deliveries = [_delivery("ann"), _delivery("bob"), _delivery("cid")]
    assert await queue.enqueue(deliveries, NOW) == 1, "bob wants game.finished only, cid has no webhook"
    assert await queue.enqueue(deliveries, NOW) == 0, "the same event again: no second delivery"
    assert await queue.depth() == (1, 0)
    finished = [_delivery(p, "g1:game.finished", "game.finished") for p in ("ann", "bob", "cid")]
    assert await queue.enqueue(finished, NOW) == 2


async def test_the_registry_names_exactly_the_players_with_a_registration(redis: Any) -> None:
    """The projection and the matchmaker copy a player's events to the notifier's stream only when the registry
    names the player: it follows every registration and removal, and is filled from the registrations a notifier
    finds at its start (made before it existed)."""
    registrations = Registrations(redis, KEYS)
    await _registered(redis, "reg-ann", "reg-bob")
    assert await redis.smembers(KEYS.registered) >= {b"reg-ann", b"reg-bob"}
    assert await registrations.delete("reg-bob") and not await registrations.delete("reg-bob")
    assert not await redis.sismember(KEYS.registered, "reg-bob") and await redis.sismember(KEYS.registered, "reg-ann")
    await redis.srem(KEYS.registered, "reg-ann")  # as a registration stored before the registry existed
    assert await registrations.fill_registry() == 1 and await registrations.fill_registry() == 0
    assert await redis.sismember(KEYS.registered, "reg-ann") and not await redis.sismember(KEYS.registered, "reg-bob")


async def test_the_queue_is_bounded_and_refuses_whole_events_beyond_it(redis: Any) -> None:
    queue = DeliveryQueue(redis, KEYS, queue_max=3, dead_letter_max=10)
    await _registered(redis, "ann", "bob")
    assert await queue.enqueue([_delivery("ann", "e1"), _delivery("bob", "e1")], NOW) == 2
    with pytest.raises(QueueFull):
        await queue.enqueue([_delivery("ann", "e2"), _delivery("bob", "e2")], NOW)
    assert await queue.depth() == (2, 0), "nothing of the refused event was added"
    assert await queue.enqueue([_delivery("ann", "e1"), _delivery("bob", "e1")], NOW) == 0, "a duplicate fits"


async def test_a_taken_delivery_is_leased_and_comes_back_when_the_lease_runs_out(redis: Any) -> None:
    queue = DeliveryQueue(redis, KEYS, queue_max=100, dead_letter_max=10)
    await _registered(redis, "ann")
    await queue.enqueue([_delivery("ann")], NOW)
    assert await queue.take_due(NOW - 1, 30_000, 10) == [], "not due yet"
    (taken,) = await queue.take_due(NOW, 30_000, 10)
    assert taken == _delivery("ann")
    assert await queue.take_due(NOW + 29_999, 30_000, 10) == [], "leased: no one else sends it"
    (again,) = await queue.take_due(NOW + 30_000, 30_000, 10)  # its sender died: sent again
    assert again.id == taken.id
    await queue.done(again)
    assert await queue.take_due(NOW + 10**9, 30_000, 10) == [] and await queue.depth() == (0, 0)


async def test_a_retry_keeps_its_attempts_and_a_dead_letter_is_read_and_redriven(redis: Any) -> None:
    queue = DeliveryQueue(redis, KEYS, queue_max=100, dead_letter_max=10)
    await _registered(redis, "ann")
    await queue.enqueue([_delivery("ann")], NOW)
    (taken,) = await queue.take_due(NOW, 30_000, 10)
    failed = msgspec.structs.replace(taken, attempts=1, last_error="HTTP 500")
    await queue.retry(failed, NOW + 1000)
    assert await queue.take_due(NOW + 999, 30_000, 10) == []
    (retried,) = await queue.take_due(NOW + 1000, 30_000, 10)
    assert (retried.attempts, retried.last_error) == (1, "HTTP 500")
    await queue.dead_letter(retried, "1 attempts failed, the last: HTTP 500", NOW + 2000)
    assert await queue.depth() == (0, 1)
    (letter,) = await queue.dead_letters("0", 10)
    assert letter.delivery == retried and letter.dead_at_ms == NOW + 2000 and "HTTP 500" in letter.reason
    assert await queue.dead_letters(letter.entry_id, 10) == [], "the page after the last entry"
    redriven = await queue.redrive(letter.entry_id, NOW + 3000)
    assert redriven is not None and redriven.attempts == 0 and redriven.last_error == ""
    assert await queue.depth() == (1, 0)
    assert [d.id for d in await queue.take_due(NOW + 3000, 30_000, 10)] == [redriven.id]
    assert await queue.redrive(letter.entry_id, NOW) is None


async def test_the_dead_letter_stream_is_capped(redis: Any) -> None:
    queue = DeliveryQueue(redis, KEYS, queue_max=10_000, dead_letter_max=100)
    for i in range(1000):
        await queue.dead_letter(_delivery("ann", f"e{i}"), "given up", NOW)
    held = (await queue.depth())[1]
    assert 100 <= held < 1000, held  # approximate trimming (MAXLEN ~): whole macro nodes at a time


async def test_the_scripts_run_on_a_redis_cluster(redis_cluster: Any) -> None:
    queue = DeliveryQueue(redis_cluster, KEYS, queue_max=100, dead_letter_max=10)
    await _registered(redis_cluster, "ann", "bob")
    assert await queue.enqueue([_delivery("ann"), _delivery("bob")], NOW) == 2
    taken = await queue.take_due(NOW, 30_000, 10)
    assert {d.player_id for d in taken} == {"ann", "bob"}
    for delivery in taken:
        await queue.dead_letter(delivery, "given up", NOW)
    letters = await queue.dead_letters("0", 10)
    assert await queue.redrive(letters[0].entry_id, NOW) is not None
    assert await queue.depth() == (1, 1)
