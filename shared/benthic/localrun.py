"""``make run``: Redis, the three services, and bots playing one complete game of every game type over
HTTP, with the URLs to watch, the final scores and the leaderboards.  Ctrl-C stops everything."""

from __future__ import annotations

import asyncio
import random
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from benthic.bots_http import HttpGame, house_greedy_chooser, play_seat, random_chooser, start_bot_game
from benthic.client import BenthicClient
from benthic.localplatform import SERVICES, LocalPlatform
from benthic.rules import game_types, get_engine

DEFAULT_PORTS = {"command": 8001, "projection": 8002, "scoring": 8003, "archiver": 8004}


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def say(text: str) -> None:
    print(text, flush=True)


async def demo(platform: LocalPlatform, seats: int | None, bots: str = "greedy") -> None:
    # The house creates the games as a matchmaker; each bot player gets its seat token with its own JWT.
    client = BenthicClient(platform.command_url, platform.read_url, operator_token=platform.operator_token,
                           mint=platform.mint)
    read = platform.read_url
    games: list[tuple[str, str, HttpGame]] = []
    for game_type in game_types():
        engine = get_engine(game_type)
        count = max(engine.min_seats, min(seats or engine.max_seats, engine.max_seats))
        game_id, tokens = await start_bot_game(client, game_type, count)
        chooser = house_greedy_chooser(client, engine) if bots == "greedy" else random_chooser()
        games.append((game_type, game_id, HttpGame(client, game_id, tokens, random.Random(game_id), chooser)))
        say(f"  {game_type:<18} {game_id}  {count} bots   watch in a browser: {read}/app/#/game/{game_id}")
        say(f"  {'':<18} {'':<19} live stream: {read}/games/{game_id}/live")
        say(f"  {'':<18} {'':<19} spectator view: {read}/games/{game_id}/view  history: {read}/games/{game_id}/history")
    say("")
    last_report = {g: 0.0 for _, g, _ in games}

    def progress(game: HttpGame, prompt: dict[str, Any]) -> None:
        now = time.monotonic()
        if now - last_report[game.game_id] > 2.0:
            last_report[game.game_id] = now
            say(f"  {game.game_id}: {game.commands} commands, version {game.version}, "
                f"next: {prompt['kind']} for seat(s) {prompt['seats']}")

    started = time.monotonic()
    results = await asyncio.gather(*(game.play(on_progress=progress) for _, _, game in games),
                                   return_exceptions=True)
    say(f"\nAll games over in {time.monotonic() - started:.1f}s. Final scores:")
    for (game_type, game_id, game), result in zip(games, results, strict=True):
        if isinstance(result, BaseException):
            say(f"  {game_type} {game_id}: FAILED: {result!r}")
            continue
        scores = await _wait_for(lambda gid=game_id: client.scores(gid))
        table = ", ".join(f"seat {r['seat']}: {r['score']} (rank {r['rank']})" for r in scores["results"])
        say(f"  {game_type:<18} {game_id} after {game.commands} commands: {table}")
        say(f"  {'':<18} scores: {read}/games/{game_id}/scores")
    say("\nLeaderboards (ratings apply once the scoring service has scored each game):")
    for game_type, game_id, _ in games:
        await _wait_for(lambda gid=game_id: _scored(client, gid))
        board = await client.leaderboard(game_type, 5)
        rows = ", ".join(f"{p['rank']}. {p['name']} ({p['rating']:.2f}, {p['games']} games)" for p in board["players"])
        say(f"  {game_type:<18} {rows}")
        say(f"  {'':<18} {read}/leaderboards/{game_type}")
    await client.aclose()
    if any(isinstance(r, BaseException) for r in results):
        raise SystemExit(1)


async def open_tables(platform: LocalPlatform, bots: str) -> list[asyncio.Task[int]]:
    """One game of every type with a house bot in seat 1 and the other seat open, for a person to join from
    the web client; the bot plays its seat once someone has."""
    client = BenthicClient(platform.command_url, platform.read_url, operator_token=platform.operator_token,
                           mint=platform.mint)
    tasks = []
    for game_type in game_types():
        engine = get_engine(game_type)
        count = min(max(2, engine.min_seats), engine.max_seats)
        house = f"house-{game_type}"
        waiting = [g for g in (await client.lobby(game_type, "open"))["games"]
                   if g["seats"][0] and g["seats"][0]["player_id"] == house]  # the table of an earlier run
        if waiting:
            game_id = waiting[0]["game_id"]
        else:
            seats = [{"player_id": house, "name": "House bot"}, *[None] * (count - 1)]
            game_id = (await client.create_game(game_type, seats))["game_id"]
        token = (await client.seat_token(game_id, house))["token"]
        chooser = house_greedy_chooser(client, engine) if bots == "greedy" else random_chooser()
        tasks.append(asyncio.create_task(play_seat(client, game_id, 0, token, chooser)))
        say(f"  {game_type:<18} {game_id}  join and play: {platform.read_url}/app/#/game/{game_id}")
    return tasks


SHOWCASE_PACE_S = 1.0  # a move a second: slow enough to follow in a browser


async def showcase(platform: LocalPlatform, seats: int | None, bots: str) -> list[asyncio.Task[int]]:
    """One bot game of every type played at a person's pace, to watch live in the web client (the showcase
    games of an earlier run, still running, go on)."""
    client = BenthicClient(platform.command_url, platform.read_url, operator_token=platform.operator_token,
                           mint=platform.mint)
    tasks = []
    for game_type in game_types():
        engine = get_engine(game_type)
        prefix = f"showcase-{game_type}-"
        earlier = [g for g in (await client.lobby(game_type, "running"))["games"]
                   if all(s and s["player_id"].startswith(prefix) for s in g["seats"])]
        if earlier:
            game_id = earlier[0]["game_id"]
            tokens = {s["seat"]: (await client.seat_token(game_id, s["player_id"]))["token"]
                      for s in earlier[0]["seats"]}
        else:
            count = max(engine.min_seats, min(seats or 2, engine.max_seats))
            game_id, tokens = await start_bot_game(client, game_type, count, name="showcase")
        chooser = house_greedy_chooser(client, engine) if bots == "greedy" else random_chooser()
        game = HttpGame(client, game_id, tokens, random.Random(game_id), chooser)
        tasks.append(asyncio.create_task(game.play(pacer=lambda: asyncio.sleep(SHOWCASE_PACE_S))))
        say(f"  {game_type:<18} {game_id}  watch live: {platform.read_url}/app/#/game/{game_id}/watch")
    return tasks


async def session(platform: LocalPlatform, seats: int | None, bots: str, keep_running: bool) -> None:
    say(f"Open tables: a house bot waits in seat 1 of each; sign in at {platform.read_url}/app/ and join:")
    tables = await open_tables(platform, bots)
    if keep_running:
        say(f"Bots playing a move a second, to watch in a browser (all games: {platform.read_url}/app/):")
        tables += await showcase(platform, seats, bots)
    say("")
    await demo(platform, seats, bots)
    if keep_running:
        say("\nThe platform keeps running; Ctrl-C stops everything.")
        await asyncio.gather(*tables, return_exceptions=True)
        await asyncio.Event().wait()


async def _scored(client: BenthicClient, game_id: str) -> bool:
    summary = await client.summary(game_id)
    if not summary.get("scored"):
        raise LookupError("not scored yet")
    return True


async def _wait_for(probe: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await probe()
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def main(exit_after_demo: bool = False, seats: int | None = None, bots: str = "greedy") -> None:
    import os

    ports = {s: p if _port_free(p) else None for s, p in DEFAULT_PORTS.items()}
    from benthic.devredis import free_port

    ports = {s: p or free_port() for s, p in ports.items()}
    run_dir = Path(".run")
    platform = LocalPlatform(
        redis_url=os.environ.get("REDIS_URL"),
        log_dir=str(run_dir / "logs"),
        ports=ports,
        env={"BENTHIC_LOG_FORMAT": "console", "BENTHIC_DEV_ISSUER_DIR": str(run_dir / "dev-issuer")},
        archive_url=os.environ.get("BENTHIC_ARCHIVE_URL"),
        durable_archive=True,
    )
    say("Starting Benthic: " + ("Redis at " + os.environ["REDIS_URL"] if os.environ.get("REDIS_URL")
                                else "a private redis-server (AOF on, noeviction)")
        + (", the archive at BENTHIC_ARCHIVE_URL" if os.environ.get("BENTHIC_ARCHIVE_URL")
           else ", a private PostgreSQL for the archive")
        + " and the services...")
    platform.start()
    say(f"  web client      {platform.read_url}/app/   (watch the bots, sign in, create or join a game)")
    say(f"  command API     {platform.command_url}   (OpenAPI: {platform.command_url}/schema)")
    say(f"  read API        {platform.read_url}   (OpenAPI: {platform.read_url}/schema, lobby: {platform.read_url}/lobby)")
    say(f"  scoring         {platform.url('scoring')}/readyz")
    say(f"  archiver        {platform.url('archiver')}/readyz   (finished games move to PostgreSQL "
        f"{os.environ.get('BENTHIC_ARCHIVE_AFTER_S', '300')}s after scoring)")
    say(f"  archive         BENTHIC_ARCHIVE_URL='{platform.archive_url}'   (for `benthic archive show|export GAME`)")
    say("  metrics         " + "  ".join(f"{platform.url(s)}/metrics" for s in SERVICES))
    say(f"  logs            {platform.log_dir}/")
    say(f"  operator token  {platform.operator_token}")
    if not (os.environ.get("BENTHIC_JWKS_URL") or os.environ.get("BENTHIC_JWKS_FILE")):
        say(f"  identity        INSECURE development issuer (keys in {run_dir / 'dev-issuer'}; dev only): "
            f"`.venv/bin/benthic dev-token alice` mints a player's JWT, JWKS at "
            f"{platform.command_url}/.well-known/jwks.json")
    say("")
    say(f"Open {platform.read_url}/app/ in a browser to watch the bots and to create or join a game.")
    say("Bots are playing one game of every game type over HTTP "
        + ("(greedy house bots: they read the true state with the operator token):" if bots == "greedy"
           else "(random legal moves):"))
    try:
        signal.signal(signal.SIGTERM, _interrupt)
        asyncio.run(session(platform, seats, bots, keep_running=not exit_after_demo))
    except KeyboardInterrupt:
        pass
    finally:
        say("Stopping...")
        platform.stop()
    sys.exit(0)
