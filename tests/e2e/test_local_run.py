"""`make run`'s demo (benthic.local.localrun.demo) against the services as processes: the bot games are rated
and the final leaderboards are not empty (issue 25: a greedy bot seated twice under one player id made every
game of more than two seats unrated, and the demo read the leaderboards before the ratings were applied), and
the progress is one line, not a line per move."""

from __future__ import annotations

import asyncio
import contextlib
import io

import httpx
import pytest

from benthic.clients.client import BenthicClient
from benthic.local.house import house_player
from benthic.local.localplatform import LocalPlatform
from benthic.local.localrun import Progress, bot_seats, demo, progress_line
from benthic.rules import game_types
from tests.e2e.waiting import until
from tests.platform_helpers import PlatformFactory, platform_client


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({"BENTHIC_BOT_MOVE_DELAY_MS": "0", "BENTHIC_DRAIN_TIMEOUT_S": "2",
                          "BENTHIC_MATCH_WAVE_S": "1"})


def test_bot_seats_have_player_ids_of_their_own() -> None:
    for bots in ("greedy", "random"):
        seats = bot_seats(4, bots)
        ids = [(s["bot"], s.get("level")) for s in seats if s]
        assert len(set(ids)) == 4, ids


def test_the_progress_line_is_a_bar_of_the_games_over() -> None:
    line = progress_line({"a": 10, "b": 7}, {"a"}, {"a": "nautilus", "b": "aquatica"}, 3.2)
    assert line.startswith("  [" + "#" * 12 + "." * 12 + "] 1/2 games over")
    assert "nautilus v10 done" in line and "aquatica v7" in line and "aquatica v7 done" not in line


async def test_the_demo_shows_rated_leaderboards_and_a_progress_line(
        platform: LocalPlatform, capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()  # not a terminal: a line every 10 s and when a game ends
    await demo(platform, seats=3, bots="random", ratings_timeout_s=60, progress=Progress(out))
    printed = capsys.readouterr().out
    boards = printed[printed.index("Leaderboards"):].splitlines()[1:]
    client = platform_client(platform)
    for game_type in game_types():
        row = next(line for line in boards if line.strip().startswith(game_type))
        assert "(empty)" not in row and "unrated" not in row, row
        # the session's Redis holds other modules' rated players too, so the demo's bots need not be on top
        rated = {p["player_id"]: p["games"] for p in (await client.leaderboard(game_type, 500))["players"]}
        assert all(rated.get(f"bot:random@{level}", 0) >= 1 for level in (1, 2, 3)), rated
    await client.aclose()
    progress = out.getvalue().splitlines()
    games = len(game_types())
    assert progress[-1].startswith("  [" + "#" * 24 + "]") and f"{games}/{games}" in progress[-1]
    assert len(progress) <= 2 * len(game_types()) + 12, progress  # never a line per move


async def test_a_new_user_asking_for_a_game_is_seated_with_the_house_player_who_plays(
        platform: LocalPlatform) -> None:
    client = platform_client(platform)
    house = asyncio.create_task(house_player(client, platform.url("matchmaker"), platform.mint).run())
    newcomer = httpx.AsyncClient(base_url=platform.url("matchmaker"), timeout=10,
                                 headers={"Authorization": f"Bearer {platform.mint('newcomer')}"})
    try:
        async def house_waits() -> bool:
            tickets = (await httpx.AsyncClient(base_url=platform.url("matchmaker"), headers={
                "Authorization": f"Bearer {platform.mint('house')}"}).get("/players/me/tickets")).json()["tickets"]
            return {t["game_type"] for t in tickets if t["status"] == "waiting"} == set(game_types())

        await until(house_waits, "the house waits for a game of every type")
        ticket = (await newcomer.post("/matchmaking/tickets", json={"game_type": "nautilus", "seats": 2})).json()

        async def seated() -> dict[str, object] | None:
            answer = (await newcomer.get(f"/matchmaking/tickets/{ticket['ticket_id']}")).json()
            return answer if answer["seated"] else None

        answer = await until(seated, "the newcomer seated")
        game_id = str(answer["game_id"])
        summary = await until(lambda: client.summary(game_id), "the game projected", retry_on=(Exception,))
        assert sorted(s["player_id"] for s in summary["seats"]) == ["house", "newcomer"]
        house_seat = 1 - int(answer["seat"])  # type: ignore[call-overload]
        if (await client.legal(game_id, (await client.seat_token(game_id, "newcomer"))["token"]))["commands"]:
            return  # the newcomer is drawn to move first: the house waits for them
        await until(lambda: _moved(client, game_id, house_seat), "the house player moved", timeout=60)
    finally:
        house.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await house
        await newcomer.aclose()
        await client.aclose()


async def _moved(client: BenthicClient, game_id: str, seat: int) -> bool:
    return any(e["seat"] == seat and e["kind"] == "e" for e in (await client.audit(game_id))["entries"])
