"""End to end: invitations (accepted, declined, expired per invitee; a block refusing one silently), blocks honoured
by the waves, and vacations: clocks stopped in every game of each type the player sits in (a platform event in each
game's stream), a clock expiry that did not happen because of it, resumed by ``DELETE`` or by the player's first
move, charged as the policy says."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import httpx
import pytest

from benthic.clients.client import ApiFailure, BenthicClient
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types
from tests.e2e.waiting import until
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory, platform_client

CLOCK_S = 2


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({**GENEROUS_LIMITS, "BENTHIC_MATCH_WAVE_S": "0.5", "BENTHIC_BOT_MOVE_DELAY_MS": "0",
                          "BENTHIC_CONSUMER_BLOCK_MS": "200", "BENTHIC_VACATION_INITIAL_DAYS": "5",
                          "BENTHIC_VACATION_MIN_CHARGE_DAYS": "2"})


def pid(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:6]}"


def mm(platform: LocalPlatform, player_id: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=platform.url("matchmaker"), timeout=10,
                             headers={"Authorization": f"Bearer {platform.mint(player_id)}"})


async def test_invitations_accepted_declined_and_expired(platform: LocalPlatform) -> None:
    ana, bo, cy, dee = pid("ana"), pid("bo"), pid("cy"), pid("dee")
    a, b, c, d = (mm(platform, p) for p in (ana, bo, cy, dee))
    try:
        sent = await a.post("/invitations", json={"game_type": "aquatica", "invitees": [bo, cy, dee],
                                                  "seats": [3, 4], "pace": "relaxed"})
        assert sent.status_code == 201, sent.text
        inv = sent.json()["invitation_id"]
        assert [i["answer"] for i in sent.json()["invitees"]] == ["pending"] * 3
        assert [i["invitation_id"] for i in (await b.get("/players/me/invitations")).json()["received"]] == [inv]
        assert (await b.post(f"/invitations/{inv}/accept", json={"name": "Bo"})).json()["status"] == "open"
        declined = await c.post(f"/invitations/{inv}/decline", json={})
        assert [i["answer"] for i in declined.json()["invitees"]] == ["accepted", "declined", "pending"]
        await d.post(f"/invitations/{inv}/accept", json={})

        async def started() -> dict[str, Any] | None:
            view = (await a.get(f"/invitations/{inv}")).json()
            return view if view["game_id"] else None

        view = await until(started, "the invitation's game created")
        assert view["status"] == "started"
        async with platform_client(platform) as api:
            card = await until(lambda: api.summary(view["game_id"]), "the game projected", retry_on=(ApiFailure,))
            assert sorted(s["player_id"] for s in card["seats"]) == sorted([ana, bo, dee])
        late = await c.post(f"/invitations/{inv}/accept", json={})
        assert (late.status_code, late.json()["code"]) == (409, "invitation_closed")

        short = await a.post("/invitations", json={"game_type": "nautilus", "invitees": [cy], "expires_in": 1})

        async def expired() -> bool:
            return (await a.get(f"/invitations/{short.json()['invitation_id']}")).json()["status"] == "expired"

        await until(expired, "the unanswered invitation expired")
        mine = (await b.post("/invitations", json={"game_type": "nautilus", "invitees": [bo]}))
        assert (mine.status_code, mine.json()["code"]) == (422, "invalid_invitees")
    finally:
        for client in (a, b, c, d):
            await client.aclose()


async def test_a_block_refuses_an_invitation_silently_and_keeps_players_apart(platform: LocalPlatform) -> None:
    eve, fay, gus = pid("eve"), pid("fay"), pid("gus")
    e, f, g = (mm(platform, p) for p in (eve, fay, gus))
    try:
        blocked = await f.put(f"/players/me/blocks/{eve}")
        assert blocked.status_code == 200 and blocked.json()["blocks"] == [eve]
        assert (await f.put(f"/players/me/blocks/{fay}")).json()["code"] == "cannot_block_self"
        sent = await e.post("/invitations", json={"game_type": "nautilus", "invitees": [fay], "expires_in": 2})
        assert sent.status_code == 201  # eve is not told
        inv = sent.json()["invitation_id"]
        assert (await f.get("/players/me/invitations")).json()["received"] == []  # fay never sees it
        hidden = await f.post(f"/invitations/{inv}/accept", json={})
        assert (hidden.status_code, hidden.json()["code"]) == (404, "invitation_not_found")
        assert [i["answer"] for i in (await e.get(f"/invitations/{inv}")).json()["invitees"]] == ["pending"]
        own = await f.post("/invitations", json={"game_type": "nautilus", "invitees": [eve]})
        assert (own.status_code, own.json()["code"]) == (422, "invitee_blocked")
        # the waves never seat eve with fay: eve and fay queue first, gus later; eve and gus are paired
        te = (await e.post("/matchmaking/tickets", json={"game_type": "nautilus", "pace": "live"})).json()
        tf = (await f.post("/matchmaking/tickets", json={"game_type": "nautilus", "pace": "live"})).json()
        await asyncio.sleep(1.5)  # three waves: eve and fay still wait
        assert (await e.get(f"/matchmaking/tickets/{te['ticket_id']}")).json()["status"] == "waiting"
        assert (await f.get(f"/matchmaking/tickets/{tf['ticket_id']}")).json()["status"] == "waiting"
        tg = (await g.post("/matchmaking/tickets", json={"game_type": "nautilus", "pace": "live"})).json()

        async def gus_seated() -> dict[str, Any] | None:
            ticket = (await g.get(f"/matchmaking/tickets/{tg['ticket_id']}")).json()
            return ticket if ticket["seated"] else None

        ticket = await until(gus_seated, "gus seated")
        partner = (await e.get(f"/matchmaking/tickets/{te['ticket_id']}")).json()
        fay_ticket = (await f.get(f"/matchmaking/tickets/{tf['ticket_id']}")).json()
        assert (partner["game_id"] == ticket["game_id"]) != (fay_ticket["game_id"] == ticket["game_id"])
        assert partner["game_id"] != fay_ticket["game_id"] or partner["game_id"] is None
        assert (await f.delete(f"/players/me/blocks/{eve}")).json()["blocks"] == []
    finally:
        for client in (e, f, g):
            await client.aclose()


async def _seat_status(api: BenthicClient, game_id: str, seat: int) -> dict[str, Any]:
    return (await api.view(game_id))["lifecycle"]["seats"][seat]  # type: ignore[no-any-return]


async def _types(api: BenthicClient, game_id: str) -> list[str]:
    return [e["type"] for e in (await api.audit(game_id))["entries"] if e["kind"] == "p"]


async def test_a_vacation_stops_the_clocks_in_every_game_until_it_ends(platform: LocalPlatform) -> None:
    ana = pid("ana")
    a = mm(platform, ana)
    async with platform_client(platform) as api:
        try:
            games = {}
            for game_type in game_types():
                created = await api.create_game(game_type, [{"player_id": ana}, {"player_id": pid("bo")}],
                                                options={"clock": {"mode": "per_move", "per_move_s": CLOCK_S}})
                games[game_type] = created["game_id"]
            started = await a.post("/players/me/vacation", json={"days": 3})
            assert started.status_code == 200, started.text
            body = started.json()
            assert body["on_vacation"] and sorted(body["current"]["games"]) == sorted(games.values())
            assert body["available_days"] == 0 and body["policy"]["initial_days"] == 5
            for game_id in games.values():
                assert "vacation_started" in await _types(api, game_id)
                await until(lambda g=game_id: api.summary(g), "the game projected", retry_on=(ApiFailure,))
            # the same table without a vacation: the first seat's clock runs out (the clocks do run here)
            control = await api.create_game("nautilus", [{"player_id": pid("carl")}, {"player_id": pid("bo")}],
                                            options={"clock": {"mode": "per_move", "per_move_s": CLOCK_S}})
            await until(lambda: _taken_over(api, control["game_id"], 0), "the control game's clock ran out", 30)
            await asyncio.sleep(2 * CLOCK_S)
            for game_id in games.values():
                seat = await _seat_status(api, game_id, 0)
                assert seat["status"] == "playing" and seat["vacation_until"] > time.time() * 1000, (game_id, seat)
            ended = await a.delete("/players/me/vacation")
            assert ended.status_code == 200 and not ended.json()["on_vacation"]
            record = ended.json()["history"][0]
            assert (record["reason"], record["charged_days"]) == ("returned", 2)  # the policy's minimum charge
            assert ended.json()["available_days"] == 3
            for game_id in games.values():  # back: ana's clock runs again, and runs out
                await until(lambda g=game_id: _taken_over(api, g, 0), "ana's clock ran out after her return", 30)
                assert "vacation_ended" in await _types(api, game_id)
            again = await a.post("/players/me/vacation", json={"days": 4})
            assert (again.status_code, again.json()["code"]) == (409, "vacation_budget_exceeded")
            assert again.json()["details"] == {"available_days": 3}
            assert (await a.delete("/players/me/vacation")).json()["code"] == "not_on_vacation"
        finally:
            await a.aclose()


async def _taken_over(api: BenthicClient, game_id: str, seat: int) -> bool:
    try:
        return (await _seat_status(api, game_id, seat))["status"] == "taken_over"
    except ApiFailure:  # not projected yet
        return False


async def test_the_first_move_ends_the_vacation_everywhere(platform: LocalPlatform) -> None:
    ana = pid("ana")
    a = mm(platform, ana)
    async with platform_client(platform) as api:
        try:
            bo = pid("bo")
            ids = [(await api.create_game("nautilus", [{"player_id": ana}, {"player_id": bo}],
                                          options={"clock": {"mode": "per_move", "per_move_s": 3600}}))["game_id"]
                   for _ in range(2)]
            assert (await a.post("/players/me/vacation", json={"days": 2})).status_code == 200
            token = (await api.seat_token(ids[0], ana))["token"]
            legal = await api.legal(ids[0], token)
            other = (await api.seat_token(ids[0], bo))["token"]
            for _ in range(30):  # bo moves until ana is to move (the first player is drawn)
                if legal["commands"]:
                    break
                await api.play(ids[0], other, (await api.legal(ids[0], other))["commands"][0])
                legal = await api.legal(ids[0], token)
            # a move that does something: ending a turn in which nobody did anything may end the game (nautilus ends
            # after a round without activity), and a finished game records no vacation_ended
            await api.play(ids[0], token, next((c for c in legal["commands"] if c["type"] != "end_turn"),
                                               legal["commands"][0]))

            async def back() -> dict[str, Any] | None:
                view = (await a.get("/players/me/vacation")).json()
                return view if not view["on_vacation"] and view["history"] else None

            view = await until(back, "the vacation ended by the move")
            assert view["history"][0]["reason"] == "moved"
            for game_id in ids:
                await until(lambda g=game_id: _has(api, g, "vacation_ended"), "vacation_ended in every game")
        finally:
            await a.aclose()


async def _has(api: BenthicClient, game_id: str, type_: str) -> bool:
    return type_ in await _types(api, game_id)
