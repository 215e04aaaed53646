"""``make run``'s house player: a player (``house``, named "House") who always has a ticket waiting for a game of
every type, so that someone trying the Play page alone is matched at once.  When the matchmaker seats it, it plays
its seat with the greedy bot over the public API (``benthic.clients.bots_http.play_seat``: a client like any
other), and queues again.  Dev only: it plays with the operator's view of the state, as the house bots of the
demo do."""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

import httpx

from benthic.clients.bots_http import house_greedy_chooser, play_seat
from benthic.clients.client import ApiFailure, BenthicClient
from benthic.rules import game_types, get_engine

HOUSE = "house"


class HousePlayer:
    def __init__(self, client: BenthicClient, matchmaker_url: str, jwt: str, poll_s: float = 2.0) -> None:
        self.client = client
        self.http = httpx.AsyncClient(base_url=matchmaker_url, timeout=10,
                                      headers={"Authorization": f"Bearer {jwt}"})
        self.jwt = jwt
        self.poll_s = poll_s
        self.playing: dict[str, asyncio.Task[None]] = {}

    async def run(self) -> None:
        """Keep one ticket waiting per game type (2 to 4 seats, daily pace, rated); play every game it is seated
        at.  Runs until cancelled."""
        try:
            while True:
                with contextlib.suppress(httpx.HTTPError, ApiFailure):
                    await self._step()
                await asyncio.sleep(self.poll_s)
        finally:
            for task in self.playing.values():
                task.cancel()
            await self.http.aclose()

    async def _step(self) -> None:
        tickets = (await self.http.get("/players/me/tickets")).json()["tickets"]
        waiting = {t["game_type"] for t in tickets if t["status"] == "waiting"}
        for ticket in tickets:
            if ticket["seated"] and ticket["game_id"] not in self.playing:
                self.playing[ticket["game_id"]] = asyncio.create_task(
                    self._play(ticket["game_type"], ticket["game_id"], ticket["seat"]))
        for game_type in game_types():
            if game_type not in waiting:
                engine = get_engine(game_type)
                await self.http.post("/matchmaking/tickets", json={
                    "game_type": game_type, "seats": [max(2, engine.min_seats), engine.max_seats], "pace": "daily",
                    "name": "House"})

    async def _play(self, game_type: str, game_id: str, seat: int) -> None:
        chooser = house_greedy_chooser(self.client, get_engine(game_type))
        while True:
            token = (await self.client.seat_token(game_id, jwt=self.jwt))["token"]
            try:
                await play_seat(self.client, game_id, seat, token, chooser, random.Random(game_id))
                return
            except ApiFailure as failure:
                if failure.code not in ("token_expired", "token_revoked"):
                    return


def house_player(client: BenthicClient, matchmaker_url: str, mint: Any) -> HousePlayer:
    return HousePlayer(client, matchmaker_url, mint(HOUSE))
