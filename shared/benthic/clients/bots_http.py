"""Bots that play through the HTTP API like any client: read the legal commands, post one."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from benthic.clients.client import ApiFailure, BenthicClient
from benthic.rules import AnyEngine
from benthic.rules.bots import GreedyBot

Chooser = Callable[[str, int, list[Any], random.Random], Awaitable[Any]]


def random_chooser() -> Chooser:
    """A uniformly random legal command: what any client could do."""

    async def choose(game_id: str, seat: int, legal: list[Any], rng: random.Random) -> Any:
        return rng.choice(legal)

    return choose


def house_greedy_chooser(client: BenthicClient, engine: AnyEngine) -> Chooser:
    """The engine's greedy bot, hosted by the house: it reads the true state through the operator endpoint
    (so it needs the operator token) and posts its choice with the seat's token like any client."""
    bot = GreedyBot()

    async def choose(game_id: str, seat: int, legal: list[Any], rng: random.Random) -> Any:
        _version, raw = await client.operator_state(game_id)
        command = engine.command_to_builtins(bot.choose(engine, engine.decode_state(raw), seat, rng))
        return command if command in legal else rng.choice(legal)  # the state moved on meanwhile

    return choose


class HttpGame:
    """One game played by bots over HTTP (random-legal unless another chooser is given)."""

    def __init__(
        self,
        client: BenthicClient,
        game_id: str,
        tokens: dict[int, str],
        rng: random.Random,
        chooser: Chooser | None = None,
    ) -> None:
        self.client = client
        self.game_id = game_id
        self.tokens = tokens
        self.rng = rng
        self.chooser = chooser or random_chooser()
        self.commands = 0
        self.version = 0
        self.latencies: list[tuple[float, float]] = []  # (monotonic time answered, seconds)

    async def play(
        self,
        max_commands: int = 100_000,
        on_progress: Callable[[HttpGame, dict[str, Any]], None] | None = None,
        pause_after: int | None = None,
        pacer: Callable[[], Awaitable[None]] | None = None,
    ) -> int:
        """Play to the end (or until ``pause_after`` commands in all); returns the game's version."""
        seat = next(iter(self.tokens))
        legal: dict[str, Any] | None = None
        while self.commands < max_commands:
            if pause_after is not None and self.commands >= pause_after:
                return self.version
            if legal is None:
                legal = await self.client.legal(self.game_id, self.tokens[seat])
            prompt = legal["prompt"]
            if prompt is None:
                return int(legal["version"])
            if seat not in prompt["seats"] or not legal["commands"]:
                seat = self.rng.choice(prompt["seats"])
                legal = None
                continue
            command = await self.chooser(self.game_id, seat, legal["commands"], self.rng)
            if pacer is not None:
                await pacer()  # a player's thinking time
            started = time.perf_counter()
            try:
                answer = await self.client.play(
                    self.game_id, self.tokens[seat], command, expected_version=legal["version"], include_legal=True
                )
            except ApiFailure as failure:
                if failure.code == "version_conflict":
                    legal = None  # another seat moved first (simultaneous prompt): read again
                    continue
                raise
            self.latencies.append((time.monotonic(), time.perf_counter() - started))
            self.version = answer["last_version"]
            self.commands += 1
            if on_progress is not None:
                on_progress(self, prompt)
            # The answer carries the next prompt and this seat's legal commands in it: no extra read.
            if answer.get("legal") is None:  # a replayed (duplicate) answer carries no next step
                legal = None
                continue
            if answer["prompt"] is None:
                return self.version
            legal = {"version": self.version, "prompt": answer["prompt"], "commands": answer["legal"]}
        raise RuntimeError(f"{self.game_id}: no end after {max_commands} commands")


async def play_seat(
    client: BenthicClient, game_id: str, seat: int, token: str, chooser: Chooser | None = None,
    rng: random.Random | None = None, wait_s: float = 20.0,
) -> int:
    """Play one seat of a game whose other seats someone else plays (people in browsers, other bots): wait for
    the open seats to fill and for each of this seat's turns (long-polls on its view), then move.  Returns the
    game's final version."""
    choose = chooser or random_chooser()
    rng = rng or random.Random(game_id)
    while True:
        try:
            legal = await client.legal(game_id, token)
        except ApiFailure as failure:
            if failure.code == "seats_open":  # joining is no event of the game: look again shortly
                await asyncio.sleep(1.0)
                continue
            raise
        if legal["prompt"] is None:
            return int(legal["version"])
        if seat in legal["prompt"]["seats"] and legal["commands"]:
            command = await choose(game_id, seat, legal["commands"], rng)
            try:
                await client.play(game_id, token, command, expected_version=legal["version"])
            except ApiFailure as failure:
                if failure.code != "version_conflict":  # another seat moved first: read again
                    raise
            continue
        await client.view(game_id, seat, token, after_version=legal["version"], wait=wait_s)


async def start_bot_game(
    client: BenthicClient, game_type: str, seats: int, name: str = "bot", options: dict[str, Any] | None = None
) -> tuple[str, dict[int, str]]:
    """A game of ``seats`` bot players, created as a matchmaker would (the client's backend credential); each
    bot player then gets its seat token with its own JWT, as any player does."""
    players = [{"player_id": f"{name}-{game_type}-{i}", "name": f"{name.title()} {i + 1}"} for i in range(seats)]
    created = await client.create_game(game_type, players, options)
    game_id = created["game_id"]
    tokens = {}
    for seat in created["seats"]:
        token = seat.get("token") or (await client.seat_token(game_id, seat["player_id"]))["token"]
        tokens[seat["seat"]] = token
    return game_id, tokens
