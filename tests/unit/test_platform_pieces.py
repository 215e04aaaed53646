"""Pure pieces of the platform: tokens, settings, the feed message format."""

from __future__ import annotations

import msgspec
import pytest
from faststream.redis.parser import BinaryMessageFormatV1

from benthic.feed.encoding import decode_message, encode_message, encode_notification
from benthic.feed.keys import feed_key
from benthic.feed.notification import Notification, notification_decoder
from benthic.game.keys import GameKeys, partition_of
from benthic.runtime.config import from_env
from benthic.trust.auth import SeatTokens, TokenError, bearer, is_operator


def test_seat_tokens_verify_and_rotate() -> None:
    old = SeatTokens((("k1", b"one"),))
    rotated = SeatTokens((("k2", b"two"), ("k1", b"one")))
    token = old.issue("g1", 2, "alice").token
    claim = rotated.verify(token)
    assert (claim.game_id, claim.seat, claim.player_id) == ("g1", 2, "alice")
    assert rotated.issue("g1", 0, "bob").token.startswith("k2.")
    with pytest.raises(TokenError):
        SeatTokens((("k2", b"two"),)).verify(token)  # k1 retired
    kid, payload, signature = token.split(".")
    forged_payload = payload[:-2] + ("AA" if payload[-2:] != "AA" else "BB")
    for bad in ("", "a.b", f"{kid}.{forged_payload}.{signature}", f"{kid}.{payload}.{signature[:-3]}xyz", "x.y.z"):
        with pytest.raises(TokenError):
            old.verify(bad)


def test_bearer_and_operator() -> None:
    assert bearer("Bearer abc") == "abc" and bearer("bearer  abc ") == "abc"
    assert bearer("Basic abc") is None and bearer(None) is None and bearer("Bearer ") is None
    assert is_operator("secret-operator", "secret-operator")
    assert not is_operator("other", "secret-operator") and not is_operator(None, "x") and not is_operator("", "")


def test_settings_from_env() -> None:
    settings = from_env({"REDIS_URL": "redis://r:1/2", "BENTHIC_PARTITIONS": "4", "BENTHIC_TOKEN_KEYS": "a:x,b:y",
                         "BENTHIC_ENVIRONMENT": "production", "BENTHIC_CLAIM_INTERVAL_S": "0.5", "POD_NAME": "pod-7"})
    assert settings.redis_url == "redis://r:1/2" and settings.partitions == 4
    assert settings.token_keys == (("a", b"x"), ("b", b"y")) and settings.json_logs
    assert settings.claim_interval_s == 0.5 and settings.consumer_name == "pod-7"
    assert settings.operator_token == ""  # production gets no dev defaults
    dev = from_env({})
    assert dev.token_keys and dev.operator_token and not dev.json_logs


def test_feed_messages_parse_with_faststream() -> None:
    body, headers = BinaryMessageFormatV1.parse(encode_message(b'{"a":1}', {"correlation_id": "c", "x": "y"}))
    assert body == b'{"a":1}' and headers == {"correlation_id": "c", "x": "y"}
    note = Notification("g1", "nautilus", "events", 3, 5, 99, True, ["a", "b"])
    body, headers = BinaryMessageFormatV1.parse(encode_notification(note))
    assert notification_decoder.decode(body) == note
    assert msgspec.json.decode(body)["ended"] is True


async def test_feed_messages_decode_ours_and_faststreams() -> None:
    note = Notification("g1", "nautilus", "events", 3, 5, 99, True, ["a", "b"])
    assert notification_decoder.decode(decode_message(encode_notification(note))) == note
    theirs = await BinaryMessageFormatV1.encode(message=b'{"a":1}', reply_to=None, headers={"correlation_id": "c"},
                                          correlation_id="c")
    assert decode_message(theirs) == b'{"a":1}'
    assert decode_message(b'{"a":1}') == b'{"a":1}'  # a bare body (no envelope) is taken as is


def test_game_keys_share_one_hash_slot() -> None:
    keys = GameKeys("game-123", 16)
    tag = f"{{p{partition_of('game-123', 16)}}}"
    for key in (keys.events, keys.meta, keys.commands, keys.snapshot, feed_key(keys.partition), keys.read_model,
                keys.lobby("nautilus", "open"), keys.updates):
        assert key.startswith(tag)


def test_the_hiredis_packer_writes_what_redis_py_writes() -> None:
    from redis.asyncio import Connection

    from benthic.runtime.redisconn import HiredisPackedConnection

    ours, theirs = HiredisPackedConnection(), Connection()
    for command in [("EVALSHA", "ab12", 2, "{p1}:k", b"\x00\xffbin", 7, -3, 2.5, "é"), ("CLIENT SETNAME", "x"),
                    (b"XACK", b"{p0}:feed", "g", b"1-0", b"2-0"), ("SET", "k", memoryview(b"mv")),
                    ("SET", "k", bytearray(b"ba"))]:
        assert b"".join(ours.pack_command(*command)) == b"".join(theirs.pack_command(*command))
    big = ("SET", "k", b"v" * 100_000)
    assert b"".join(ours.pack_command(*big)) == b"".join(theirs.pack_command(*big))
