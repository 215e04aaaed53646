"""``make run``: Redis, PostgreSQL, the services, and server-side bots (the bots service) playing one complete
game of every game type, with the URLs to watch them in the web client, the final scores and the leaderboards;
plus a table per game type with an open seat that a person can join from the web client and play against a
bot.  Ctrl-C stops everything."""

from __future__ import annotations

import asyncio
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from benthic.clients.client import ApiFailure, BenthicClient
from benthic.local.localplatform import SERVICES, LocalPlatform
from benthic.rules import game_types, get_engine

DEFAULT_PORTS = {"command": 8001, "projection": 8002, "scoring": 8003, "archiver": 8004, "bots": 8005}


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def say(text: str) -> None:
    print(text, flush=True)


def bot_seats(count: int, bots: str) -> list[dict[str, Any] | None]:
    """``count`` bot seats: all ``bots``, or (greedy) greedy bots against one random bot."""
    seats: list[dict[str, Any] | None] = [{"bot": bots, "name": f"{bots} {i + 1}"} for i in range(count)]
    if bots == "greedy" and count > 1:
        seats[-1] = {"bot": "random", "name": "random"}
    return seats


async def demo(platform: LocalPlatform, seats: int | None, bots: str = "greedy") -> None:
    # The house creates the games as a matchmaker; the bots service plays every bot seat on the server.
    client = BenthicClient(platform.command_url, platform.read_url, operator_token=platform.operator_token,
                           mint=platform.mint)
    read = platform.read_url
    games: list[tuple[str, str]] = []
    for game_type in game_types():
        engine = get_engine(game_type)
        count = max(engine.min_seats, min(seats or engine.max_seats, engine.max_seats))
        game_id = (await client.create_game(game_type, bot_seats(count, bots)))["game_id"]
        games.append((game_type, game_id))
        say(f"  {game_type:<18} {game_id}  {count} bots   watch in a browser: {read}/app/#/game/{game_id}/watch")
        say(f"  {'':<18} {'':<19} live stream: {read}/games/{game_id}/live  history: {read}/games/{game_id}/history")
    say("")
    say(f"Play one yourself: sign in at {read}/app/ and join a table below (an open seat against a greedy bot; 10")
    say("minutes per move, then the house bot plays your seat until you reclaim it):")
    for game_type in game_types():
        engine = get_engine(game_type)
        table = [None, *([{"bot": "greedy"}] * (max(2, engine.min_seats) - 1))]
        open_game = await client.create_game(game_type, table,
                                             options={"clock": {"mode": "per_move", "per_move_s": 600}})
        say(f"  {game_type:<18} {open_game['game_id']}  join and play: {read}/app/#/game/{open_game['game_id']}")
    say("  or from a terminal: .venv/bin/benthic join GAME --player you, then `benthic legal` and `benthic play`")
    say("")
    started = time.monotonic()
    last_report = 0.0
    pending = {game_id: game_type for game_type, game_id in games}
    while pending:
        for game_id in list(pending):
            try:
                summary = await client.summary(game_id)
            except ApiFailure:
                continue  # not projected yet
            if summary["status"] == "finished":
                del pending[game_id]
            elif time.monotonic() - last_report > 5.0:
                prompt = summary.get("prompt") or {}
                say(f"  {game_id}: version {summary['version']}, next: {prompt.get('kind')} for seat(s) "
                    f"{prompt.get('seats')}")
        if pending and time.monotonic() - last_report > 5.0:
            last_report = time.monotonic()
        await asyncio.sleep(0.5)
    say(f"\nAll bot games over in {time.monotonic() - started:.1f}s. Final scores:")
    for game_type, game_id in games:
        scores = await _wait_for(lambda gid=game_id: client.scores(gid))
        standings = ", ".join(f"seat {r['seat']}: {r['score']} (rank {r['rank']})" for r in scores["results"])
        say(f"  {game_type:<18} {game_id}: {standings}")
        say(f"  {'':<18} scores: {read}/games/{game_id}/scores")
    say("\nLeaderboards (ratings apply once the scoring service has scored each game):")
    for game_type, game_id in games:
        await _wait_for(lambda gid=game_id: _scored(client, gid))
        board = await client.leaderboard(game_type, 5)
        rows = ", ".join(f"{p['rank']}. {p['name']} ({p['rating']:.2f}, {p['games']} games)" for p in board["players"])
        say(f"  {game_type:<18} {rows}")
        say(f"  {'':<18} {read}/leaderboards/{game_type}")
    await client.aclose()


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

    wanted = {s: p if _port_free(p) else None for s, p in DEFAULT_PORTS.items()}
    from benthic.local.devredis import free_port

    ports = {s: p or free_port() for s, p in wanted.items()}
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
    say(f"  command API     {platform.command_url}   (OpenAPI: {platform.command_url}/schema)")
    say(f"  read API        {platform.read_url}   "
        f"(OpenAPI: {platform.read_url}/schema, lobby: {platform.read_url}/lobby)")
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
    say("The bots service plays one game of every game type with server-side bot seats "
        + ("(greedy bots against a random one; " if bots == "greedy" else "(random legal moves; ")
        + "BENTHIC_BOT_MOVE_DELAY_MS between moves):")
    try:
        asyncio.run(demo(platform, seats, bots))
        if not exit_after_demo:
            say("\nThe platform keeps running; Ctrl-C stops everything.")
            signal.signal(signal.SIGTERM, _interrupt)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        say("Stopping...")
        platform.stop()
    sys.exit(0)
