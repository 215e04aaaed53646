"""End to end, on the services as processes: the live stream's deltas (`/live?deltas=1`).  For every game type,
bots play a whole game while a seat and a spectator stream it with deltas (and without, for the bytes): the
view rebuilt from the frames is, at every version sent, the view `GET .../view?at=` answers.  A client that
reconnects with the version the hub can diff against gets the same delta bytes as the one that stayed; with
the version it already has, an empty patch; with any other, the full view."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import jsonpatch
import msgspec
import pytest
from websockets.asyncio.client import connect

from benthic.clients.bots_http import play_seat, start_bot_game
from benthic.clients.client import BenthicClient
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine

GAMES = game_types()
# platform and client: tests/e2e/conftest.py


@dataclass
class Frame:
    event: str
    id: int | None
    data: bytes


async def _frames(lines: AsyncIterator[str]) -> AsyncIterator[Frame]:
    """The server-sent events of a stream's lines (comments skipped)."""
    fields: dict[str, str] = {}
    async for line in lines:
        if line == "":
            if "event" in fields:
                yield Frame(fields["event"], int(fields["id"]) if "id" in fields else None, fields["data"].encode())
            fields = {}
        elif not line.startswith(":"):
            key, _, value = line.partition(":")
            fields[key] = value.removeprefix(" ")


def _live_url(platform: LocalPlatform, game_id: str, seat: int | None, token: str | None, query: str) -> str:
    if seat is None:
        return f"{platform.read_url}/games/{game_id}/live?{query}"
    return f"{platform.read_url}/games/{game_id}/seats/{seat}/live?token={token}&{query}"


class Rebuilt:
    """A delta client: the view it holds after each frame, and the data bytes it received."""

    def __init__(self) -> None:
        self.body: dict[str, Any] | None = None
        self.seen: list[tuple[int, dict[str, Any]]] = []
        self.bytes = 0
        self.kinds: dict[str, int] = {"view": 0, "delta": 0}

    def take(self, frame: Frame) -> None:
        self.bytes += len(frame.data)
        self.kinds[frame.event] += 1
        data = msgspec.json.decode(frame.data)
        if frame.event == "view":
            self.body = data
        else:
            assert self.body is not None and data["base"] == self.body["version"], "a delta on another base"
            self.body = jsonpatch.apply_patch(self.body, data["patch"])
        assert self.body is not None and self.body["version"] == frame.id
        self.seen.append((frame.id, self.body))


async def _read(client: BenthicClient, url: str, into: Rebuilt | list[Frame], headers: dict[str, str] | None = None,
                count: int | None = None) -> None:
    """Read the stream at ``url`` to its end (the finished game's view), or ``count`` frames."""
    async with client.http.stream("GET", url, headers=headers, timeout=None) as stream:
        assert stream.status_code == 200, await stream.aread()
        async for frame in _frames(stream.aiter_lines()):
            if frame.event == "closed":
                raise AssertionError(frame.data)
            if isinstance(into, Rebuilt):
                into.take(frame)
            else:
                into.append(frame)
            if count is not None and (count := count - 1) == 0:
                return


@pytest.mark.parametrize("game_type", GAMES)
async def test_deltas_rebuild_every_view_of_a_whole_game(
    platform: LocalPlatform, client: BenthicClient, game_type: str
) -> None:
    engine = get_engine(game_type)
    seats = max(2, engine.min_seats)
    game_id, tokens = await start_bot_game(client, game_type, seats, name=f"dl{random.randrange(10**6)}")
    seat_deltas, spectator_deltas = Rebuilt(), Rebuilt()
    seat_full: list[Frame] = []
    readers = [
        asyncio.create_task(_read(client, _live_url(platform, game_id, 0, tokens[0], "deltas=1"), seat_deltas)),
        asyncio.create_task(_read(client, _live_url(platform, game_id, None, None, "deltas=1"), spectator_deltas)),
        asyncio.create_task(_read(client, _live_url(platform, game_id, 0, tokens[0], ""), seat_full)),
    ]
    await asyncio.sleep(0.5)  # the streams are open before the first move
    await asyncio.gather(*(play_seat(client, game_id, seat, token, rng=random.Random(seat))
                           for seat, token in tokens.items()))
    await asyncio.wait_for(asyncio.gather(*readers), 60)
    last = await _scored_version(client, game_id)

    for rebuilt, seat in ((seat_deltas, 0), (spectator_deltas, None)):
        # each stream ends with the view of the game's last version, the one with its game_scored
        assert rebuilt.body is not None and rebuilt.body["status"] == "finished" and rebuilt.kinds["delta"] > 0
        assert rebuilt.seen[-1][0] == last, (seat, rebuilt.seen[-1][0], last)
        for version, body in rebuilt.seen:
            expected = await client.view(game_id, seat, tokens[0] if seat is not None else None, at=version)
            assert body == expected, (seat, version)
    full_bytes = sum(len(f.data) for f in seat_full)
    assert {f.event for f in seat_full} == {"view"} and seat_full[-1].id == last
    assert seat_deltas.bytes < full_bytes
    print(f"\nBYTES {game_type} seats={len(tokens)} pushes={len(seat_full)} full={full_bytes} "
          f"({full_bytes / len(seat_full):.0f}/push) deltas={seat_deltas.bytes} "
          f"({seat_deltas.bytes / len(seat_full):.0f}/push) frames={seat_deltas.kinds} "
          f"ratio={seat_deltas.bytes / full_bytes:.3f}")


async def _scored_version(client: BenthicClient, game_id: str) -> int:
    """The game's last version, the one that folds its ``game_scored`` (waited for: the scoring service appends it
    a moment after the end)."""
    for _ in range(600):
        summary = await client.summary(game_id)
        if summary["scored"]:
            return int(summary["version"])
        await asyncio.sleep(0.1)
    raise AssertionError(f"{game_id} was not scored")


async def _move(client: BenthicClient, game_id: str, tokens: dict[int, str]) -> int:
    """One legal command of a prompted seat; the game's new version."""
    for token in tokens.values():
        legal = await client.legal(game_id, token)
        if legal["commands"]:
            answer = await client.play(game_id, token, legal["commands"][0], expected_version=legal["version"])
            return int(answer["last_version"])
    raise AssertionError("no seat has a move")


async def _until(frames: list[Frame], count: int) -> None:
    for _ in range(200):
        if len(frames) >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{len(frames)} frames, not {count}")


async def test_a_reconnect_gets_the_shared_delta_an_empty_one_or_the_full_view(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    game_id, tokens = await start_bot_game(client, "aquatica", 2, name=f"rc{random.randrange(10**6)}")
    spectator = _live_url(platform, game_id, None, None, "deltas=1")

    async def first_frame(url: str, headers: dict[str, str] | None = None) -> Frame:
        frames: list[Frame] = []
        await asyncio.wait_for(_read(client, url, frames, headers, count=1), 10)
        return frames[0]

    staying: list[Frame] = []  # a client that stays: the hub keeps the step to the newest view meanwhile
    stays = asyncio.create_task(_read(client, spectator, staying))
    try:
        await _until(staying, 1)
        assert staying[0].event == "view"
        before = staying[0].id
        after = await _move(client, game_id, tokens)
        await _until(staying, 2)
        newest = await _move(client, game_id, tokens)
        await _until(staying, 3)
        assert [(f.event, f.id) for f in staying[1:]] == [("delta", after), ("delta", newest)]

        again = await first_frame(f"{spectator}&since={after}")  # a reconnect on the hub's previous version
        assert (again.event, again.data) == ("delta", staying[2].data)  # the very bytes the staying client got
        patch = msgspec.json.decode(again.data)["patch"]
        assert jsonpatch.apply_patch(await client.view(game_id, at=after), patch) == await client.view(game_id)
        current = await first_frame(spectator, {"Last-Event-ID": str(newest)})  # as EventSource reconnects
        assert current.event == "delta" and msgspec.json.decode(current.data) == {
            "version": newest, "base": newest, "patch": []}
        missed = await first_frame(f"{spectator}&since={before}")  # it missed a version: the full view
        assert missed.event == "view" and msgspec.json.decode(missed.data) == await client.view(game_id)
        plain = await first_frame(f"{platform.read_url}/games/{game_id}/live?since={after}")  # no deltas asked
        assert plain.event == "view" and plain.id == newest
        seat = await first_frame(_live_url(platform, game_id, 1, tokens[1], f"deltas=1&since={before}"))
        assert seat.event == "view"  # nobody watched seat 1's view: no step to diff against
    finally:
        stays.cancel()
    response = await client.http.get(f"{platform.read_url}/games/{game_id}/live?deltas=1&since=-1")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_request")
    # an id that is no version (EventSource sends the header by itself): not refused, the full view
    foreign = await first_frame(f"{spectator}&since={newest}", {"Last-Event-ID": "abc"})
    assert foreign.event == "delta"  # ignored: ?since= holds
    foreign = await first_frame(spectator, {"Last-Event-ID": "-3"})
    assert foreign.event == "view"


def _socket_url(platform: LocalPlatform, game_id: str, token: str, query: str) -> str:
    return platform.command_url.replace("http://", "ws://") + f"/games/{game_id}/play?token={token}&{query}"


async def _socket_views(url: str, into: Rebuilt, count: int | None = None) -> None:
    """Take the view pushes of a play socket (``count`` of them, or until cancelled: the socket stays open)."""
    async with connect(url) as socket:
        while True:
            answer = msgspec.json.decode(await socket.recv())
            if answer.get("push") == "turn":
                continue
            assert answer.get("push") in ("view", "delta"), answer
            data = msgspec.json.encode(answer["result"])
            into.take(Frame(answer["push"], answer["result"]["version"], data))
            if count is not None and (count := count - 1) == 0:
                return


async def _pushed(into: Rebuilt, version: int) -> None:
    """Until the view of ``version`` was pushed (bounded by the caller)."""
    while not into.seen or into.seen[-1][0] < version:
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("game_type", GAMES)
async def test_the_play_socket_pushes_deltas_that_rebuild_every_view(
    platform: LocalPlatform, client: BenthicClient, game_type: str
) -> None:
    game_id, tokens = await start_bot_game(client, game_type, 2, name=f"ws{random.randrange(10**6)}")
    deltas, full = Rebuilt(), Rebuilt()
    readers = [asyncio.create_task(_socket_views(_socket_url(platform, game_id, tokens[0], "push=views&deltas=1"),
                                                 deltas)),
               asyncio.create_task(_socket_views(_socket_url(platform, game_id, tokens[0], "push=turns,views"),
                                                 full))]
    await asyncio.sleep(0.5)
    await asyncio.gather(*(play_seat(client, game_id, seat, token, rng=random.Random(seat))
                           for seat, token in tokens.items()))
    last = await _scored_version(client, game_id)
    try:  # the pushes go on to the view of the game's last version, the one with its game_scored
        await asyncio.wait_for(asyncio.gather(_pushed(deltas, last), _pushed(full, last)), 60)
    finally:
        for reader in readers:
            reader.cancel()
        for reader in readers:  # a reader's own failure is the test's
            with contextlib.suppress(asyncio.CancelledError):
                await reader
    assert deltas.kinds["delta"] > 0 and full.kinds["delta"] == 0 and deltas.bytes < full.bytes
    assert deltas.seen[-1][0] == full.seen[-1][0] == last
    print(f"\nSOCKET BYTES {game_type} pushes={full.kinds['view']} full={full.bytes} deltas={deltas.bytes} "
          f"frames={deltas.kinds} ratio={deltas.bytes / full.bytes:.3f}")
    assert deltas.body is not None and deltas.body["status"] == "finished"
    for version, body in deltas.seen:
        assert body == await client.view(game_id, 0, tokens[0], at=version), version

    # a reconnect with the version the client has: an empty patch; with one the server cannot diff against: the
    # full view
    again = Rebuilt()
    again.body = await client.view(game_id, 0, tokens[0])
    since = again.body["version"]
    url = _socket_url(platform, game_id, tokens[0], f"push=views&deltas=1&since={since}")
    await asyncio.wait_for(_socket_views(url, again, count=1), 10)
    assert again.kinds == {"view": 0, "delta": 1} and again.seen[0][0] == since
    missed = Rebuilt()
    await asyncio.wait_for(_socket_views(_socket_url(platform, game_id, tokens[0], "push=views&deltas=1&since=1"),
                                         missed, count=1), 10)
    assert missed.kinds == {"view": 1, "delta": 0}
    async with connect(_socket_url(platform, game_id, tokens[0], "push=views&deltas=1&since=x")) as socket:
        refused = msgspec.json.decode(await socket.recv())
        assert (refused["status"], refused["error"]["code"]) == (400, "invalid_request")
