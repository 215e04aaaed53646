"""End to end: the matchmaker service (a real process, with the other services) pairs tickets into games created
through the play path: two players queue compatibly and sit at one new game, which their "your games"
(``GET /players/me/seats``) lists; tickets answer their game and seat; cancellations, expiries, the caps and the
refusals answer their documented codes; ``match.found`` and ``ticket.expired`` reach the integration stream."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis

from benthic.feed.encoding import DATA_FIELD, decode_message
from benthic.local.localplatform import LocalPlatform
from tests.e2e.waiting import until
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory

STREAM = f"benthic:integration:mm-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({**GENEROUS_LIMITS, "BENTHIC_MATCH_WAVE_S": "0.5", "BENTHIC_INTEGRATION_STREAM": STREAM,
                          "BENTHIC_MAX_OPEN_GAMES_PER_PLAYER": "3", "BENTHIC_MATCH_TICKETS_PER_PLAYER": "2"})


class Player:
    def __init__(self, platform: LocalPlatform, player_id: str) -> None:
        self.id = player_id
        self.headers = {"Authorization": f"Bearer {platform.mint(player_id)}"}
        self.mm = httpx.AsyncClient(base_url=platform.url("matchmaker"), headers=self.headers, timeout=10)
        self.command = httpx.AsyncClient(base_url=platform.command_url, headers=self.headers, timeout=10)

    async def queue(self, **body: Any) -> httpx.Response:
        return await self.mm.post("/matchmaking/tickets", json=body)

    async def ticket(self, ticket_id: str) -> dict[str, Any]:
        answer = await self.mm.get(f"/matchmaking/tickets/{ticket_id}")
        assert answer.status_code == 200, answer.text
        return answer.json()  # type: ignore[no-any-return]

    async def close(self) -> None:
        await self.mm.aclose()
        await self.command.aclose()


def player(platform: LocalPlatform, name: str) -> Player:
    return Player(platform, f"{name}-{uuid.uuid4().hex[:6]}")


async def seated(p: Player, ticket_id: str) -> dict[str, Any] | None:
    ticket = await p.ticket(ticket_id)
    return ticket if ticket["status"] == "matched" and ticket["seated"] else None


async def integration_events(platform: LocalPlatform) -> list[dict[str, Any]]:
    import msgspec

    redis = Redis.from_url(platform.redis_url)
    try:
        entries = await redis.xrange(STREAM)
    finally:
        await redis.aclose()
    return [msgspec.json.decode(decode_message(fields[DATA_FIELD.encode()])) for _id, fields in entries]


async def test_two_players_queue_and_sit_at_one_new_game(platform: LocalPlatform) -> None:
    ana, bo = player(platform, "ana"), player(platform, "bo")
    try:
        first = await ana.queue(game_type="nautilus", seats=2, pace="daily")
        assert first.status_code == 201, first.text
        assert first.json()["status"] == "waiting" and first.json()["position"] == 1
        second = await bo.queue(game_type="nautilus", seats=[2, 2], pace="daily")
        assert second.status_code == 201, second.text
        a = await until(lambda: seated(ana, first.json()["ticket_id"]), "ana's ticket seated")
        b = await until(lambda: seated(bo, second.json()["ticket_id"]), "bo's ticket seated")
        assert a["game_id"] == b["game_id"] and {a["seat"], b["seat"]} == {0, 1}
        for p, t in ((ana, a), (bo, b)):  # the new game is in the player's "your games", in the ticket's seat
            seats = (await p.command.get("/players/me/seats")).json()["seats"]
            assert [(s["game_id"], s["seat"]) for s in seats] == [(t["game_id"], t["seat"])]
        game = (await ana.command.get(f"/games/{a['game_id']}/ops/audit",
                                      headers={"Authorization": f"Bearer {platform.operator_token}"})).json()
        assert game["entries"][0]["actor_kind"] == "matchmaker"
        mine = (await ana.mm.get("/players/me/tickets")).json()["tickets"]
        assert [t["ticket_id"] for t in mine] == [first.json()["ticket_id"]]
        events = await until(lambda: _of(platform, "match.found", a["game_id"]), "match.found published")
        assert sorted(s["player_id"] for s in events[0]["seats"]) == sorted([ana.id, bo.id])
    finally:
        await ana.close()
        await bo.close()


async def _of(platform: LocalPlatform, type_: str, game_id: str) -> list[dict[str, Any]]:
    return [e for e in await integration_events(platform) if e["type"] == type_ and e.get("game_id") == game_id]


async def test_refusals_answer_their_codes(platform: LocalPlatform) -> None:
    cy = player(platform, "cy")
    try:
        cases = [
            ({"game_type": "chess"}, 422, "unknown_game_type"),
            ({"game_type": "nautilus", "seats": 9}, 422, "invalid_seats"),
            ({"game_type": "nautilus", "pace": "glacial"}, 422, "unknown_pace"),
            ({"game_type": "nautilus", "options": {"clock": {"mode": "per_move", "per_move_s": 5}}}, 422,
             "invalid_option"),
            ({"game_type": "nautilus", "player_id": "someone-else"}, 403, "player_mismatch"),
        ]
        for body, status, code in cases:
            answer = await cy.queue(**body)
            assert (answer.status_code, answer.json()["code"]) == (status, code), (body, answer.text)
        for _ in range(2):
            assert (await cy.queue(game_type="aquatica", seats=4)).status_code == 201
        refused = await cy.queue(game_type="aquatica", seats=4)
        assert (refused.status_code, refused.json()["code"]) == (409, "too_many_tickets")
        assert refused.json()["details"] == {"limit": 2}
        waiting = (await cy.mm.get("/players/me/tickets")).json()["tickets"]
        cancelled = await cy.mm.delete(f"/matchmaking/tickets/{waiting[0]['ticket_id']}")
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        again = await cy.mm.delete(f"/matchmaking/tickets/{waiting[0]['ticket_id']}")
        assert (again.status_code, again.json()["code"]) == (409, "ticket_closed")
        missing = await cy.mm.get("/matchmaking/tickets/t_00000000000000000000")
        assert (missing.status_code, missing.json()["code"]) == (404, "ticket_not_found")
    finally:
        await cy.close()


async def test_a_player_at_the_open_games_cap_is_refused(platform: LocalPlatform) -> None:
    dee = player(platform, "dee")
    try:
        for _ in range(3):
            created = await dee.command.post("/games", json={"game_type": "nautilus", "seats": [{}, None]})
            assert created.status_code == 201, created.text
        refused = await dee.queue(game_type="nautilus")
        assert (refused.status_code, refused.json()["code"]) == (409, "too_many_open_games")
        assert refused.json()["details"] == {"limit": 3}
    finally:
        await dee.close()


async def test_a_ticket_expires_and_says_so(platform: LocalPlatform) -> None:
    eve = player(platform, "eve")
    try:
        opened = await eve.queue(game_type="underwater_cities", seats=[3, 4], expires_in=1, request_id="r1")
        assert opened.status_code == 201
        repeat = await eve.queue(game_type="underwater_cities", seats=[3, 4], expires_in=1, request_id="r1")
        assert repeat.json()["ticket_id"] == opened.json()["ticket_id"]
        ticket_id = opened.json()["ticket_id"]

        async def expired() -> bool:
            return (await eve.ticket(ticket_id))["status"] == "expired"

        await until(expired, "the ticket expired")
        events = await until(lambda: _expired_events(platform, ticket_id), "ticket.expired published")
        assert events[0]["player_id"] == eve.id and events[0]["waited_ms"] >= 1000
    finally:
        await eve.close()


async def _expired_events(platform: LocalPlatform, ticket_id: str) -> list[dict[str, Any]]:
    return [e for e in await integration_events(platform) if e["type"] == "ticket.expired"
            and e["ticket_id"] == ticket_id]
