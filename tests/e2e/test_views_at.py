"""Views at any version (`GET /games/{id}/view?at=V`, `GET /games/{id}/seats/{seat}/view?at=V`), end to end: for
every game type, the live views recorded while a game is played over HTTP are served again, byte for byte, at
their versions, while the game runs, once it is over and once it is archived; every version's answer is the engine's
view of the state at the end of the commit that holds it (a version between two events of one commit is a state
nobody saw: benthic.game.commits), with the same redaction (a seat's view at V hides what its live view hid);
versions beyond the game's are 404 version_not_found.  The case of issue 33: a seeded 4-seat Underwater Cities
game replayed to a draw of three special cards, read between the draw's two events, shows the drawn cards to
nobody but the drawer."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import ApiFailure, BenthicClient
from benthic.game import golden
from benthic.game.commits import commit_span
from benthic.game.keys import GameKeys
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from benthic.runtime.redisconn import redis_client
from benthic.views.readmodel import viewer_name
from tests.e2e.waiting import until
from tests.engine_harness import hidden_from, strings_in
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory, raw_game

GAMES = game_types()
CORPUS = Path(__file__).resolve().parents[1] / "golden"
DRAW3_GAME = "underwater_cities/4p/o0/7"  # a seeded game of the corpus whose 57th move draws three special cards
RECORDED_MOVES = 30  # live views are recorded after each of a game's first moves, and at its end


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    running = make_platform({"BENTHIC_ARCHIVE_AFTER_S": "0", "BENTHIC_ARCHIVE_LEASE_S": "1",
                             "BENTHIC_DRAIN_TIMEOUT_S": "1", **GENEROUS_LIMITS})
    running.kill("archiver")  # started again once the games have been read from Redis
    return running


class Recorder:
    """The live views of a game as its viewers got them: (viewer, version) -> (body, ETag)."""

    def __init__(self, http: httpx.AsyncClient, game_id: str, tokens: dict[int, str]) -> None:
        self.http, self.game_id, self.tokens = http, game_id, tokens
        self.views: dict[tuple[int | None, int], tuple[bytes, str]] = {}

    def path(self, viewer: int | None) -> str:
        return f"/games/{self.game_id}/view" if viewer is None else f"/games/{self.game_id}/seats/{viewer}/view"

    def auth(self, viewer: int | None) -> dict[str, str]:
        return {} if viewer is None else {"Authorization": f"Bearer {self.tokens[viewer]}"}

    async def record(self) -> None:
        for viewer in [None, *self.tokens]:
            live = await self.http.get(self.path(viewer), headers=self.auth(viewer))
            if live.status_code == 404:
                continue  # not projected yet
            assert live.status_code == 200, live.text
            self.views[(viewer, int(live.headers["x-benthic-version"]))] = (live.content, live.headers["etag"])

    async def at(self, viewer: int | None, version: int) -> httpx.Response:
        return await self.http.get(self.path(viewer), params={"at": version}, headers=self.auth(viewer))

    async def check_recorded(self, where: str) -> int:
        for (viewer, version), (body, etag) in self.views.items():
            answer = await self.at(viewer, version)
            assert answer.status_code == 200, (where, viewer, version, answer.text)
            assert answer.json() == msgspec.json.decode(body), (where, viewer, version)
            assert answer.content == body and answer.headers["etag"] == etag, (where, viewer, version)
            assert answer.headers["x-benthic-version"] == str(version)
        return len(self.views)


async def _check_every_version(recorder: Recorder, engine: Any, envelopes: list[Any], states: list[Any],
                               viewer: int | None, step: int = 1) -> None:
    """Each version's answer is the engine's view of the state at the end of the commit that holds it, names the
    version before that commit, and shows nothing hidden from the viewer then."""
    inside = 0
    for version in range(1, len(states) + 1, step):
        first, last = commit_span(envelopes, version)
        inside += version != last
        answer = await recorder.at(viewer, version)
        assert answer.status_code == 200, (viewer, version, answer.text)
        served = answer.json()
        state = states[last - 1]
        assert (served["version"], served["seat"]) == (last, viewer), version
        assert answer.headers["x-benthic-version"] == str(last), version
        assert answer.headers["x-benthic-previous-version"] == str(first - 1), version
        assert answer.headers["etag"] == f'"{recorder.game_id}:{last}:{viewer_name(viewer)}"'
        assert served["view"] == msgspec.json.decode(msgspec.json.encode(engine.view(state, viewer))), version
        leaked = hidden_from(engine, state, viewer) & strings_in(served["view"])
        assert not leaked, f"the view of {viewer} at {version} leaks {leaked}"
    assert inside, "no version inside a commit was read"


async def _archived(platform: LocalPlatform, game_id: str) -> bool:
    redis = redis_client(platform.redis_url)
    try:
        return not await redis.exists(*GameKeys(game_id, 16).game_keys())
    finally:
        await redis.aclose()


async def test_views_at_any_version_are_the_live_views_of_then(platform: LocalPlatform,
                                                               client: BenthicClient) -> None:
    http = httpx.AsyncClient(base_url=platform.read_url, timeout=30)
    recorders: dict[str, Recorder] = {}
    last: dict[str, int] = {}
    inside: dict[str, int] = {}  # a version inside a commit, per game type
    try:
        for game_type in GAMES:
            game_id, tokens = await start_bot_game(client, game_type, 2, name=f"at{game_type[:3]}")
            recorder = recorders[game_type] = Recorder(http, game_id, tokens)
            game = HttpGame(client, game_id, tokens, random.Random(game_type))
            await until(lambda g=game_id: client.view(g), "first view", retry_on=(ApiFailure,))
            for moves in range(1, RECORDED_MOVES + 1):
                await game.play(pause_after=moves)
                await recorder.record()
            assert len({v for _, v in recorder.views}) >= 5, "too few versions recorded"
            assert await recorder.check_recorded("running") >= 15  # from Redis, while the game runs

            await game.play()
            await until(lambda g=game_id: _scored(client, g), "game_scored projected", timeout=60,
                        retry_on=(ApiFailure,))
            await recorder.record()  # the final views
            engine, envelopes, states = await raw_game(platform, game_id)
            last[game_type] = len(envelopes)
            assert (None, len(envelopes)) in recorder.views
            await recorder.check_recorded("finished")
            await _check_every_version(recorder, engine, envelopes, states, 0)
            await _check_every_version(recorder, engine, envelopes, states, None, step=7)
            inside[game_type] = next(e.version for e in envelopes if commit_span(envelopes, e.version)[1] > e.version)

            beyond = await recorder.at(1, len(envelopes) + 1)
            assert (beyond.status_code, beyond.json()["code"]) == (404, "version_not_found"), beyond.text
            assert beyond.json()["details"]["current_version"] == len(envelopes)
            for bad in ("0", "-3", "x"):
                refused = await http.get(recorder.path(None), params={"at": bad})
                assert (refused.status_code, refused.json()["code"]) == (400, "invalid_request"), (bad, refused.text)
            other = await http.get(recorder.path(1), params={"at": 1}, headers=recorder.auth(0))
            assert (other.status_code, other.json()["code"]) == (403, "wrong_seat")
            anonymous = await http.get(recorder.path(1), params={"at": 1})
            assert (anonymous.status_code, anonymous.json()["code"]) == (401, "missing_token")
        unknown = await http.get("/games/no-such-game/view", params={"at": 1})
        assert (unknown.status_code, unknown.json()["code"]) == (404, "game_not_found")

        platform.start_service("archiver")
        deadline = time.monotonic() + 120
        for recorder in recorders.values():
            while not await _archived(platform, recorder.game_id):
                assert time.monotonic() < deadline, f"{recorder.game_id} was not archived"
                await asyncio.sleep(0.2)
        for game_type, recorder in recorders.items():  # the same views, now from the archive's events
            await recorder.check_recorded("archived")
            engine = get_engine(game_type)
            answer = await recorder.at(1, last[game_type] // 2)
            assert answer.status_code == 200 and answer.json()["version"] >= last[game_type] // 2
            within = await recorder.at(1, inside[game_type])  # answered at the end of its commit, as from Redis
            end = await recorder.at(1, int(within.headers["x-benthic-version"]))
            assert int(within.headers["x-benthic-version"]) > inside[game_type]
            assert within.content == end.content and within.headers["etag"] == end.headers["etag"]
            assert within.headers["x-benthic-previous-version"] == end.headers["x-benthic-previous-version"]
            beyond = await recorder.at(None, last[game_type] + 1)
            assert (beyond.status_code, beyond.json()["code"]) == (404, "version_not_found"), beyond.text
    finally:
        await http.aclose()


async def _scored(client: BenthicClient, game_id: str) -> dict[str, Any] | None:
    summary = await client.summary(game_id)
    return summary if summary.get("scored") else None


async def test_a_replay_between_the_two_events_of_a_draw_shows_the_cards_to_the_drawer_only(
        platform: LocalPlatform, client: BenthicClient) -> None:
    """Issue 33: a seeded 4-seat Underwater Cities game played (its recorded moves, over HTTP) to a draw of three
    special cards (``special_taken`` then ``special_draw_seen``, one commit).  Read between the two, every viewer
    gets the view at the commit's end, the live view it had then: the drawn cards in the drawer's view only."""
    engine = get_engine("underwater_cities")
    line = next(g for g in golden.read(CORPUS / "underwater_cities" / f"v{engine.engine_version}.jsonl.gz")
                if g["id"] == DRAW3_GAME)
    players = [f"draw3-{seat}" for seat in range(line["seats"])]
    created = await client.create_game("underwater_cities", [{"player_id": p, "name": p} for p in players],
                                       line["options"], seed=line["seed"])
    game_id = created["game_id"]
    tokens = {}
    for player in players:
        granted = await client.seat_token(game_id, player)
        tokens[granted["seat"]] = granted["token"]
    draw = next(i for i, (_, _, c) in enumerate(line["decisions"])
                if c["type"] == "take_special" and c.get("source") == "draw3")
    for _, seat, command in line["decisions"][:draw + 1]:
        played = await client.play(game_id, tokens[seat], command)
    drawer = line["decisions"][draw][1]
    end = played["last_version"]
    live = {viewer: await until(lambda v=viewer: _live_at(client, game_id, v, tokens, end), f"the view of {end}",
                                   retry_on=(ApiFailure,))
            for viewer in [None, *tokens]}

    _, envelopes, _ = await raw_game(platform, game_id)
    taken = next(e for e in envelopes if e.type == "special_taken" and b'"draw3"' in e.data)
    seen = envelopes[taken.version]  # the next entry: the drawer's sight of the three cards
    assert seen.type == "special_draw_seen" and commit_span(envelopes, taken.version) == (taken.version, end)
    drawn = set(msgspec.json.decode(seen.data)["card_ids"])
    for viewer, body in live.items():
        answer = await client.http.get(f"{platform.read_url}{_path(game_id, viewer)}", params={"at": taken.version},
                                       headers={} if viewer is None else {"Authorization": f"Bearer {tokens[viewer]}"})
        assert answer.status_code == 200, answer.text
        assert answer.headers["x-benthic-version"] == str(end)
        assert answer.headers["x-benthic-previous-version"] == str(taken.version - 1)
        assert answer.json() == body, viewer
        shown = drawn & strings_in(answer.json())
        assert shown == (drawn if viewer == drawer else set()), (viewer, shown)
        # a delta's base is a version a viewer saw: one inside the commit gets the whole view of its end
        event, data = await _first_live_event(client, f"{platform.read_url}{_live_path(game_id, viewer)}",
                                              {"deltas": 1, "since": taken.version},
                                              {} if viewer is None else {"Authorization": f"Bearer {tokens[viewer]}"})
        assert event == "view" and msgspec.json.decode(data) == body, (viewer, event)


def _live_path(game_id: str, viewer: int | None) -> str:
    return f"/games/{game_id}/live" if viewer is None else f"/games/{game_id}/seats/{viewer}/live"


async def _first_live_event(client: BenthicClient, url: str, params: dict[str, Any],
                            headers: dict[str, str]) -> tuple[str, str]:
    """(event, data) of a live stream's first event."""
    event = ""
    async with client.http.stream("GET", url, params=params, headers=headers, timeout=30) as stream:
        async for line in stream.aiter_lines():
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                return event, line.removeprefix("data:").strip()
    raise AssertionError(f"{url} sent nothing")


def _path(game_id: str, viewer: int | None) -> str:
    return f"/games/{game_id}/view" if viewer is None else f"/games/{game_id}/seats/{viewer}/view"


async def _live_at(client: BenthicClient, game_id: str, viewer: int | None, tokens: dict[int, str],
                   version: int) -> dict[str, Any] | None:
    """The viewer's live view once it is at ``version``."""
    view = await client.view(game_id, viewer, tokens.get(viewer) if viewer is not None else None)
    assert view["version"] <= version
    return view if view["version"] == version else None
