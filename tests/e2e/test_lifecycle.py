"""End to end, the services as real processes: bot seats played by the bots service (also across kill -9 and
with two replicas), finished games scored and rated once across kill -9 of scoring, turn clocks and their expiry
(also across a restart of the timekeeper), takeover and reclaim, resign and abort with the ratings they leave."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from benthic.clients.client import ApiFailure, BenthicClient
from benthic.game.keys import RatingKeys
from benthic.local.localplatform import LocalPlatform
from benthic.rules import get_engine
from tests.e2e.waiting import scored, until
from tests.games import BUILT_IN
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory

TIMEOUT_S = 240.0


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({
        "BENTHIC_BOT_MOVE_DELAY_MS": "0",
        "BENTHIC_BOT_LEASE_S": "1",
        "BENTHIC_CLAIM_IDLE_MS": "1500",
        "BENTHIC_CLAIM_INTERVAL_S": "0.5",
        "BENTHIC_METRICS_INTERVAL_S": "1",
        "BENTHIC_DRAIN_TIMEOUT_S": "2",
        **GENEROUS_LIMITS,
    })


async def events_of(client: BenthicClient, game_id: str, type_: str) -> list[dict[str, Any]]:
    history = await client.history(game_id, limit=100_000)
    return [e for e in history["events"] if e["event"].get("type") == type_]


async def first_event(client: BenthicClient, game_id: str, type_: str) -> dict[str, Any]:
    async def probe() -> dict[str, Any] | None:
        try:
            found = await events_of(client, game_id, type_)
        except ApiFailure as failure:
            if failure.status != 404:
                raise
            return None
        return found[0] if found else None

    return await until(probe, f"{type_} in {game_id}", TIMEOUT_S)


def assert_one_move_per_prompt(audit: dict[str, Any], game_id: str, bot_seats: set[int]) -> None:
    """Every engine commit of a bot seat carries the command id of the prompt it answers (the version before
    it), so no prompt got two moves; and the game reached its end, so none got none."""
    entries = audit["entries"]
    commits = [e for i, e in enumerate(entries) if i == 0 or e["command_id"] != entries[i - 1]["command_id"]]
    bot_commits = [e for e in commits if e["kind"] == "e" and e["seat"] in bot_seats]
    assert bot_commits
    for commit in bot_commits:
        assert commit["command_id"] == f"bot:{game_id}:{commit['version'] - 1}:{commit['seat']}"
        assert commit["actor_kind"] == "bot"
    ids = [c["command_id"] for c in commits]
    assert len(ids) == len(set(ids))


async def test_bot_seats_are_validated(client: BenthicClient) -> None:
    with pytest.raises(ApiFailure) as unknown:
        await client.create_game("nautilus", [{"bot": "deep-blue"}, {"bot": "greedy"}])
    assert (unknown.value.status, unknown.value.code) == (400, "unknown_bot")
    with pytest.raises(ApiFailure) as named:
        await client.create_game("nautilus", [{"bot": "greedy", "player_id": "alice"}, {"bot": "greedy"}])
    assert (named.value.status, named.value.code) == (400, "invalid_request")
    with pytest.raises(ApiFailure) as level:
        await client.create_game("nautilus", [{"bot": "greedy", "level": 99}, {"bot": "greedy"}])
    assert (level.value.status, level.value.code) == (400, "invalid_bot_level")
    with pytest.raises(ApiFailure) as search_level:  # the search bot has levels 1..3 only
        await client.create_game("nautilus", [{"bot": "mcts", "level": 5}, {"bot": "greedy"}])
    assert (search_level.value.status, search_level.value.code) == (400, "invalid_bot_level")
    for options in ({"clock": {"mode": "sundial"}}, {"clock": {"mode": "fischer", "initial_s": 0}},
                    {"clock": {"mode": "per_move", "per_move_s": 60}, "on_expiry": "shrug"},
                    {"on_expiry": "abort"}):
        with pytest.raises(ApiFailure) as bad:
            await client.create_game("nautilus", [{"bot": "greedy"}, {"bot": "random"}], options=options)
        assert (bad.value.status, bad.value.code) == (422, "invalid_option"), options


@pytest.mark.parametrize("game_type", BUILT_IN)
async def test_a_bot_only_game_is_played_to_its_end_one_move_per_prompt(client: BenthicClient, game_type: str) -> None:
    engine = get_engine(game_type)
    seats = [{"bot": "greedy"}, {"bot": "random"}][: max(2, engine.min_seats)]
    created = await client.create_game(game_type, seats, rated=True)
    game_id = created["game_id"]
    assert created["rated"] is True  # bots count as authenticated holders
    summary = await scored(client, game_id)
    assert summary["status"] == "finished"
    assert [s["kind"] for s in summary["seats"]] == ["bot", "bot"]
    assert_one_move_per_prompt(await client.audit(game_id), game_id, {0, 1})


async def test_kill_9_of_the_bots_service_mid_game_loses_and_repeats_no_move(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    created = await client.create_game("nautilus", [{"bot": "greedy"}, {"bot": "greedy"}], rated=False)
    game_id = created["game_id"]
    for _ in range(2):
        version = (await client.audit(game_id))["entries"][-1]["version"]
        await until(lambda v=version: _past(client, game_id, v + 20), "bot moves", TIMEOUT_S)
        platform.kill("bots")
        platform.start_service("bots")
        platform.wait_ready(60, ("bots",))
    await scored(client, game_id)
    assert_one_move_per_prompt(await client.audit(game_id), game_id, {0, 1})


async def test_kill_9_of_scoring_mid_stream_scores_and_rates_every_finished_game_once(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    """Scoring killed -9 while bot games end: once as soon as it has scored the first (the others ending while it
    is down), once more as soon as the restarted process has scored one of that backlog (its entries in hand left
    pending in a dead consumer's name).  After the second restart every game is scored once and rated once (the
    bots are one player each, "bot:greedy" and "bot:random": each counts one rated game more per game)."""
    keys = RatingKeys("nautilus")
    redis = Redis.from_url(platform.redis_url or "")
    try:
        before = {bot: await _rated_games(redis, keys, bot) for bot in ("bot:greedy", "bot:random")}
        games = [(await client.create_game("nautilus", [{"bot": "greedy"}, {"bot": "random"}], rated=True))["game_id"]
                 for _ in range(5)]
        await scored(client, games[0])
        platform.kill("scoring")
        for game_id in games:
            await until(lambda g=game_id: _finished(client, g), f"{game_id} finished", TIMEOUT_S)
        platform.start_service("scoring")
        await until(lambda: _scored_count(client, games, at_least=2), "a game of the backlog scored", TIMEOUT_S)
        platform.kill("scoring")
        platform.start_service("scoring")
        platform.wait_ready(60, ("scoring",))
        for game_id in games:
            summary = await scored(client, game_id)
            assert summary["rated"] is True
            assert len(await events_of(client, game_id, "game_scored")) == 1, f"{game_id} scored more than once"
            assert await redis.exists(keys.rated(game_id))
        after = {bot: await _rated_games(redis, keys, bot) for bot in before}
        assert after == {bot: count + len(games) for bot, count in before.items()}
    finally:
        await redis.aclose()


def test_scoring_serves_the_asyncapi_document_of_its_subscription(platform: LocalPlatform) -> None:
    document = httpx.get(f"{platform.url('scoring')}/asyncapi.json", timeout=10).json()
    feeds = {channel["bindings"]["redis"]["channel"] for channel in document["channels"].values()}
    assert feeds == {f"{{p{p}}}:lifecycle" for p in range(16)}
    assert "Notification" in document["components"]["schemas"]


async def _rated_games(redis: Redis, keys: RatingKeys, player_id: str) -> int:
    return int(await redis.hget(keys.player(player_id), "games") or 0)


async def _finished(client: BenthicClient, game_id: str) -> bool:
    try:
        return (await client.summary(game_id))["status"] == "finished"
    except ApiFailure as failure:
        if failure.status != 404:
            raise
        return False


async def _scored_count(client: BenthicClient, games: list[str], at_least: int) -> bool:
    return sum([bool((await client.summary(g)).get("scored")) for g in games]) >= at_least


async def test_two_bots_replicas_answer_every_prompt_once(platform: LocalPlatform, client: BenthicClient) -> None:
    platform.start_replica("bots", "bots-2")
    try:
        games = [(await client.create_game(game_type, [{"bot": "random"}, {"bot": "greedy"}], rated=False))["game_id"]
                 for game_type in BUILT_IN]
        for game_id in games:
            await scored(client, game_id)
            assert_one_move_per_prompt(await client.audit(game_id), game_id, {0, 1})
    finally:
        platform.kill("bots-2")


async def _past(client: BenthicClient, game_id: str, version: int) -> bool:
    return (await client.audit(game_id))["entries"][-1]["version"] >= version


async def _players_game(client: BenthicClient, game_type: str, players: list[str], options: dict[str, Any],
                        bots: int = 0, rated: bool = True) -> tuple[str, dict[str, str]]:
    seats: list[dict[str, Any] | None] = [{"player_id": p} for p in players]
    seats += [{"bot": "greedy"}] * bots
    created = await client.create_game(game_type, seats, options=options, rated=rated)
    tokens = {p: (await client.seat_token(created["game_id"], player_id=p))["token"] for p in players}
    return created["game_id"], tokens


async def test_a_clock_expires_within_a_second_of_its_deadline_across_a_timekeeper_restart(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    game_id, _ = await _players_game(client, "nautilus", ["kim", "lee"],
                                     {"clock": {"mode": "per_move", "per_move_s": 8}, "on_expiry": "abort"})
    started = await first_event(client, game_id, "clocks_started")
    view = await client.view(game_id)
    clock = view["lifecycle"]["clock"]
    assert clock["mode"] == "per_move" and clock["deadline_ms"] == started["ts_ms"] + 8000
    platform.kill("bots")  # the timekeeper dies holding the deadline; a new one must keep it
    platform.start_service("bots")
    platform.wait_ready(60, ("bots",))
    expired = await first_event(client, game_id, "clock_expired")
    assert expired["event"]["deadline_ms"] == clock["deadline_ms"]
    assert 0 <= expired["ts_ms"] - expired["event"]["deadline_ms"] <= 1000
    summary = await scored(client, game_id)
    assert summary["status"] == "finished" and summary["rated"] is False
    assert summary["lifecycle"]["aborted"] == f"clock_expired:seat{expired['event']['seat']}"
    assert len(await events_of(client, game_id, "clock_expired")) == 1


async def test_takeover_by_the_house_bot_then_reclaim(client: BenthicClient) -> None:
    game_id, tokens = await _players_game(client, "nautilus", ["ann", "bob"],
                                          {"clock": {"mode": "per_move", "per_move_s": 3}, "on_expiry": "takeover"})
    taken = await first_event(client, game_id, "seat_taken_over")
    seat = taken["event"]["seat"]
    player = ["ann", "bob"][seat]
    assert taken["event"]["reason"] == "clock"
    view = await client.view(game_id, seat, tokens[player])
    assert view["lifecycle"]["seats"][seat]["status"] == "taken_over"
    legal = await client.legal(game_id, tokens[player])
    assert legal["commands"] == []
    with pytest.raises(ApiFailure) as refused:
        await client.play(game_id, tokens[player], {"type": "end_turn"})
    assert refused.value.code == "seat_taken_over"
    reclaimed = await client.reclaim(game_id, tokens[player])
    assert reclaimed["duplicate"] is False
    with pytest.raises(ApiFailure) as again:
        await client.reclaim(game_id, tokens[player])
    assert again.value.code in ("seat_not_taken_over", "game_finished")
    async def reclaimed_in_history() -> list[str] | None:  # once the reclaim is projected
        history = await client.history(game_id, limit=100_000)
        types = [e["event"]["type"] for e in history["events"]]
        return types if "seat_reclaimed" in types else None

    types = await until(reclaimed_in_history, "the reclaim in the history", TIMEOUT_S)
    assert types.index("seat_taken_over") < types.index("seat_reclaimed")
    await client.abort(game_id, "test over")


async def test_resign_ranks_the_player_last_and_counts_as_a_loss(client: BenthicClient) -> None:
    game_id, tokens = await _players_game(client, "aquatica", ["resigner-1", "stayer-1"], {})
    done = await client.resign(game_id, tokens["resigner-1"])
    assert done["duplicate"] is False
    summary = await scored(client, game_id)
    assert summary["status"] == "finished" and summary["rated"] is True
    scores = await client.scores(game_id)
    ranks = {r["seat"]: r["rank"] for r in scores["results"]}
    assert ranks == {0: 2, 1: 1}
    async def both_rated() -> dict[str, Any] | None:  # the ratings apply just after game_scored is appended
        board = {p["player_id"]: p for p in (await client.leaderboard("aquatica", 100))["players"]}
        return board if {"stayer-1", "resigner-1"} <= board.keys() else None

    board = await until(both_rated, "the ratings applied", TIMEOUT_S)
    assert board["stayer-1"]["wins"] == 1 and board["resigner-1"]["wins"] == 0
    assert board["stayer-1"]["rating"] > board["resigner-1"]["rating"]
    with pytest.raises(ApiFailure) as finished:
        await client.resign(game_id, tokens["stayer-1"])
    assert finished.value.code == "game_finished"


async def test_resign_in_a_game_with_bots_lets_the_house_bot_finish_the_seat(client: BenthicClient) -> None:
    game_id, tokens = await _players_game(client, "nautilus", ["resigner-2"], {}, bots=2, rated=True)
    await client.resign(game_id, tokens["resigner-2"])
    summary = await scored(client, game_id)
    assert summary["lifecycle"]["seats"][0]["status"] == "resigned"
    scores = await client.scores(game_id)
    ranks = {r["seat"]: r["rank"] for r in scores["results"]}
    assert ranks[0] > max(ranks[1], ranks[2])  # last (the bots may share rank 1: ranks are dense)
    audit = await client.audit(game_id)
    house = [e for e in audit["entries"] if e["kind"] == "e" and e["seat"] == 0 and e["actor_kind"] == "bot"]
    assert house, "the house bot played the resigned seat"
    assert_one_move_per_prompt(audit, game_id, {0, 1, 2})


async def test_a_resignation_hands_a_game_of_players_only_to_the_bots(client: BenthicClient) -> None:
    """No bot and no clock at creation: the game's moves do not reach the bots' managed feed until the
    resignation's platform commit flags it; then the house bot answers the resigned seat's prompt."""
    players = ["quits-3", "stays-3", "stays-4"]
    game_id, tokens = await _players_game(client, "nautilus", players, {})
    prompted = (await client.legal(game_id, tokens[players[0]]))["prompt"]["seats"][0]
    await client.resign(game_id, tokens[players[prompted]])

    async def house_move() -> list[dict[str, Any]]:
        entries = (await client.audit(game_id))["entries"]
        return [e for e in entries if e["kind"] == "e" and e["seat"] == prompted and e["actor_kind"] == "bot"]

    moved = await until(house_move, "the house bot's move for the resigned seat", TIMEOUT_S)
    assert moved[0]["command_id"] == f"bot:{game_id}:{moved[0]['version'] - 1}:{prompted}"


async def test_abort_is_unrated_and_records_its_reason(client: BenthicClient) -> None:
    game_id, tokens = await _players_game(client, "underwater_cities", ["aborted-1", "aborted-2"], {})
    before = {p["player_id"] for p in (await client.leaderboard("underwater_cities", 1000))["players"]}
    done = await client.abort(game_id, "cheating report #12")
    assert done["duplicate"] is False
    summary = await scored(client, game_id)
    assert summary["status"] == "finished" and summary["rated"] is False
    assert summary["lifecycle"]["aborted"] == "cheating report #12"
    scored_event = (await events_of(client, game_id, "game_scored"))[0]["event"]
    assert scored_event["rated"] is False and scored_event["results"] == []
    after = {p["player_id"] for p in (await client.leaderboard("underwater_cities", 1000))["players"]}
    assert "aborted-1" not in after and after == before
    with pytest.raises(ApiFailure) as refused:
        await client.play(game_id, tokens["aborted-1"], {"type": "end_turn"})
    assert refused.value.code == "game_finished"
    with pytest.raises(ApiFailure) as again:
        await client.abort(game_id, "twice")
    assert again.value.code == "game_finished"


async def test_forfeits_rank_last_and_end_the_game_when_one_seat_remains(client: BenthicClient) -> None:
    game_id, _ = await _players_game(client, "aquatica", ["gone-1", "gone-2"],
                                     {"clock": {"mode": "fischer", "initial_s": 2, "increment_s": 0},
                                      "on_expiry": "forfeit"}, bots=1)
    summary = await scored(client, game_id)
    forfeits = [e["event"]["seat"] for e in await events_of(client, game_id, "seat_forfeited")]
    assert sorted(forfeits) == [0, 1]
    assert (await first_event(client, game_id, "game_ended"))["event"]["reason"] == "too_few_seats_in_play"
    assert [s["status"] for s in summary["lifecycle"]["seats"]] == ["forfeited", "forfeited", "playing"]
    ranks = {r["seat"]: r["rank"] for r in (await client.scores(game_id))["results"]}
    assert ranks == {2: 1, forfeits[1]: 2, forfeits[0]: 3}  # the earlier a seat left, the lower its rank
    assert summary["rated"] is True


async def test_a_fischer_clock_charges_the_time_used_and_adds_the_increment(client: BenthicClient) -> None:
    game_id, tokens = await _players_game(client, "aquatica", ["fay", "gus"],
                                          {"clock": {"mode": "fischer", "initial_s": 600, "increment_s": 7}})
    started = await first_event(client, game_id, "clocks_started")
    legal = await client.legal(game_id, tokens["fay"])
    mover = legal["prompt"]["seats"][0]
    token = tokens["fay" if mover == 0 else "gus"]
    legal = await client.legal(game_id, token)
    await asyncio.sleep(0.3)  # some time used
    played = await client.play(game_id, token, legal["commands"][0], expected_version=legal["version"])
    view = await client.view(game_id, after_version=played["last_version"] - 1, wait=30)
    while view["version"] < played["last_version"]:
        view = await client.view(game_id, after_version=view["version"], wait=30)
    history = (await client.history(game_id, limit=100_000))["events"]  # read once the move is projected
    moved_at = next(e["ts_ms"] for e in history if e["version"] == played["last_version"])
    clock = view["lifecycle"]["clock"]
    assert clock["mode"] == "fischer" and clock["as_of_ms"] == moved_at
    used = moved_at - started["ts_ms"]
    assert used >= 300
    assert clock["seats"][mover]["remaining_ms"] == 600_000 - used + 7_000
    others = [s for i, s in enumerate(clock["seats"]) if i != mover]
    assert all(s["remaining_ms"] == 600_000 for s in others)  # nobody else has moved yet
    await client.abort(game_id, "test over")
