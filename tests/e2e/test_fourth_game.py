"""A fourth game is its package and one registration: the bench's counter engine (bench/counter_engine.py), named
only in ``BENTHIC_EXTRA_ENGINES`` and nowhere else in the product, is listed, created, played to its end over the
HTTP API, scored, its platform events told in both languages, and watched in the web client, which has no layout
of its own for it (services/projection/web/js/games/generic.js); the services run as processes."""

from __future__ import annotations

import asyncio
import time

import pytest

from benthic.local.localplatform import LocalPlatform
from tests.e2e.test_web_client import Page, _beside_the_browser, browser  # noqa: F401 - the browser fixture
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory, platform_client

GAME = "counter"
MOVES = 6


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({"BENTHIC_EXTRA_ENGINES": "bench.counter_engine:ENGINE", **GENEROUS_LIMITS})


async def _played_to_the_end(platform: LocalPlatform) -> str:
    async with platform_client(platform) as api:
        assert GAME in {t["game_type"] for t in await api.game_types()}
        players = ["toy-ana", "toy-bo"]
        game_id = (await api.create_game(GAME, [{"player_id": p} for p in players], options={"moves": MOVES}))[
            "game_id"]
        tokens = [(await api.seat_token(game_id, p))["token"] for p in players]
        legal = [await api.legal(game_id, token) for token in tokens]
        moves = 0
        while any(options["commands"] for options in legal):
            seat = next(s for s, options in enumerate(legal) if options["commands"])
            played = await api.play(game_id, tokens[seat], legal[seat]["commands"][0], include_legal=True)
            moves += 1
            legal[seat] = {"commands": played["legal"]}  # the next legal commands, in the same answer
            legal[1 - seat] = await api.legal(game_id, tokens[1 - seat])
        assert moves == MOVES

        deadline = time.monotonic() + 60
        while not (await api.summary(game_id)).get("scored"):
            assert time.monotonic() < deadline, "the toy game was never scored"
            await asyncio.sleep(0.2)
        scores = await api.scores(game_id)
        assert sorted(r["seat"] for r in scores["results"]) == [0, 1], scores
        for language in ("en", "pt"):
            told = (await api.http.get(f"{platform.read_url}/games/{game_id}/history", params={"lang": language}))
            assert told.status_code == 200 and told.headers["content-language"] == language, told.text
            events = told.json()["events"]
            assert len(events) > MOVES, events
            # the toy tells none of its own events; the platform's are told in the language asked for
            assert [e["event"]["type"] for e in events if e["text"]] == ["game_scored"], events
        return game_id


def test_a_toy_game_registered_by_one_line_plays_end_to_end(platform: LocalPlatform, browser) -> None:  # noqa: F811
    game_id = _beside_the_browser(_played_to_the_end(platform))
    for language in ("en", "pt"):
        page = Page(browser, platform.read_url, locale=language)
        try:
            page.goto(f"#/game/{game_id}/watch")
            page.page.wait_for_selector(".game[data-version]")
            assert page.version() > 0
            # no layout of its own: the view's plain values (the count after MOVES increments), the moves, the history
            page.page.wait_for_selector(f"[data-testid=table] dl.stats dd:text-is('{MOVES}')")
            page.page.wait_for_selector("[data-testid=history] li")
            page.page.wait_for_selector("[data-testid=final] table")  # its scores: no breakdown to explain them
            assert "null" not in page.page.inner_text("[data-testid=final]"), "the final scores show a null"
            page.shot(f"fourth-game-{language}")
        finally:
            page.close()
