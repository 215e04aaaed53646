"""``make run``: Redis, PostgreSQL, the services, and server-side bots (the bots service) playing one complete
game of every game type, with the URLs to watch them in the web client, the final scores and the leaderboards;
plus a table per game type with an open seat that a person can join from the web client and play against a
bot.  Ctrl-C stops everything."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import time
from pathlib import Path
from typing import Any

from benthic.clients.client import ApiFailure, BenthicClient
from benthic.local.house import house_player
from benthic.local.localplatform import SERVICES, LocalPlatform
from benthic.local.signals import stop_servers_on_signals
from benthic.rules import game_types, get_engine

DEFAULT_PORTS = {"command": 8001, "projection": 8002, "scoring": 8003, "archiver": 8004, "bots": 8005,
                 "notifier": 8006, "matchmaker": 8007}


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def say(text: str) -> None:
    print(text, flush=True)


def bot_seats(count: int, bots: str) -> list[dict[str, Any] | None]:
    """``count`` bot seats: all ``bots``, or (greedy) greedy bots against one random bot.  Each seat has its own
    level, so its own player id (``bot:greedy@1``, ``bot:greedy@2``, ...): a bot seated twice under one id would
    make the game unrated, and the leaderboards would stay empty (greedy and random bots ignore the level)."""
    seats: list[dict[str, Any] | None] = [{"bot": bots, "level": i + 1, "name": f"{bots} {i + 1}"}
                                          for i in range(count)]
    if bots == "greedy" and count > 1:
        seats[-1] = {"bot": "random", "name": "random"}
    return seats


BAR_WIDTH = 24


def progress_line(versions: dict[str, int], finished: set[str], names: dict[str, str], seconds: float) -> str:
    """One line for every bot game at once: a bar of the games over, then each game's version (its events so far,
    with a check mark once it is over)."""
    done = len(finished)
    total = max(1, len(versions))
    filled = round(BAR_WIDTH * done / total)
    games = "  ".join(f"{names[g]} v{v}{' done' if g in finished else ''}" for g, v in versions.items())
    return f"  [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{len(versions)} games over  {games}  {seconds:.0f}s"


class Progress:
    """The progress line, redrawn in place on a terminal; elsewhere (a log, a pipe) printed every ``every_s``
    seconds and whenever a game ends, never once per move."""

    def __init__(self, out: Any = None, every_s: float = 10.0) -> None:
        self.out = out or sys.stdout
        self.tty = bool(getattr(self.out, "isatty", lambda: False)())
        self.every_s = every_s
        self._last = (-1, float("-inf"))  # (games over, time) of the last line printed off a terminal
        self._width = 0

    def show(self, line: str, done: int) -> None:
        if self.tty:
            self.out.write("\r" + line.ljust(self._width))
            self._width = len(line)
        elif done != self._last[0] or time.monotonic() - self._last[1] >= self.every_s:
            self.out.write(line + "\n")
            self._last = (done, time.monotonic())
        self.out.flush()

    def close(self) -> None:
        if self.tty:
            self.out.write("\n")
            self.out.flush()


async def demo(platform: LocalPlatform, seats: int | None, bots: str = "greedy", ratings_timeout_s: float = 60.0,
               progress: Progress | None = None) -> None:
    # The house creates the games as a matchmaker; the bots service plays every bot seat on the server.
    client = BenthicClient(platform.command_url, platform.read_url, operator_token=platform.operator_token,
                           mint=platform.mint)
    read = platform.read_url
    games: list[tuple[str, str]] = []
    before = {g: await _games_rated(client, g) for g in game_types()}  # a Redis kept from an earlier run has some
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
    say(f"Or ask for a game on the Play page, {read}/app/#/play: the house player waits there for a game of every")
    say("type (2-4 seats, a move a day) and is seated with you at the next wave (BENTHIC_MATCH_WAVE_S).")
    say("")
    say("The bot games (the version counts the events so far):")
    started = time.monotonic()
    progress = progress or Progress()
    names = {game_id: game_type for game_type, game_id in games}
    versions = {game_id: 0 for _, game_id in games}
    finished: set[str] = set()
    while len(finished) < len(games):
        for game_id in versions:
            if game_id in finished:
                continue
            try:
                summary = await client.summary(game_id)
            except ApiFailure:
                continue  # not projected yet
            versions[game_id] = summary["version"]
            if summary["status"] == "finished":
                finished.add(game_id)
        progress.show(progress_line(versions, finished, names, time.monotonic() - started), len(finished))
        if len(finished) < len(games):
            await asyncio.sleep(0.5)
    progress.close()
    say(f"\nAll bot games over in {time.monotonic() - started:.1f}s. Final scores:")
    for game_type, game_id in games:
        scores = await _wait_for(lambda gid=game_id: client.scores(gid))
        standings = ", ".join(f"seat {r['seat'] + 1}: {r['score']} (rank {r['rank']})" for r in scores["results"])
        say(f"  {game_type:<18} {game_id}: {standings}")
        say(f"  {'':<18} scores: {read}/games/{game_id}/scores")
    say(f"\nLeaderboards (waiting at most {ratings_timeout_s:.0f}s for the scoring service to rate each game):")
    for game_type, game_id in games:
        rated = await _wait_for(lambda gid=game_id, gt=game_type: _rated(client, gid, gt, before[gt]),
                                ratings_timeout_s)
        board = await client.leaderboard(game_type, 5)
        rows = ", ".join(f"{p['rank']}. {p['name']} ({p['rating']:.2f}, "
                         f"{p['games']} game{'' if p['games'] == 1 else 's'})" for p in board["players"])
        say(f"  {game_type:<18} {rows or '(empty)'}{'' if rated else '  (this game is unrated)'}")
        say(f"  {'':<18} {read}/leaderboards/{game_type}")
    await client.aclose()


async def _games_rated(client: BenthicClient, game_type: str) -> dict[str, int]:
    """Rated games per player on ``game_type``'s leaderboard (its first 500)."""
    return {p["player_id"]: p["games"] for p in (await client.leaderboard(game_type, 500))["players"]}


async def _rated(client: BenthicClient, game_id: str, game_type: str, before: dict[str, int]) -> bool:
    """Once the game is scored: whether it is rated; for a rated game, only once the scoring service has applied
    its ratings (every player of the game has one more rated game than ``before``), a moment after
    ``game_scored``."""
    summary = await client.summary(game_id)
    if not summary.get("scored"):
        raise LookupError("not scored yet")
    if not summary.get("rated"):
        return False
    now = await _games_rated(client, game_type)
    if any(now.get(s["player_id"], 0) <= before.get(s["player_id"], 0) for s in summary["seats"] if s):
        raise LookupError("not rated yet")
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


async def _run(platform: LocalPlatform, seats: int | None, bots: str, exit_after_demo: bool) -> None:
    """The demo, with the house player queueing from the start; then (unless ``exit_after_demo``) forever."""
    client = BenthicClient(platform.command_url, platform.read_url, operator_token=platform.operator_token,
                           mint=platform.mint)
    house = asyncio.create_task(house_player(client, platform.url("matchmaker"), platform.mint).run())
    try:
        await demo(platform, seats, bots)
        if not exit_after_demo:
            say("\nThe platform keeps running; Ctrl-C stops everything.")
            await asyncio.Event().wait()
    finally:
        house.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await house
        await client.aclose()


def main(exit_after_demo: bool = False, seats: int | None = None, bots: str = "greedy") -> None:
    import os

    wanted = {s: p if _port_free(p) else None for s, p in DEFAULT_PORTS.items()}
    from benthic.local.devredis import free_port

    ports = {s: p or free_port() for s, p in wanted.items()}
    stop_servers_on_signals()  # SIGTERM too stops everything, from the start on
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
    say(f"  webhooks        {platform.url('notifier')}   (OpenAPI: {platform.url('notifier')}/schema; "
        "PUT /players/{id}/webhook with a backend JWT: `benthic dev-token hub --scope benthic:matchmaker`)")
    say(f"  matchmaker      {platform.url('matchmaker')}   (OpenAPI: {platform.url('matchmaker')}/schema; "
        "the Play page of the web client)")
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
        asyncio.run(_run(platform, seats, bots, exit_after_demo))
    except KeyboardInterrupt:
        pass
    finally:
        say("Stopping...")
        platform.stop()
    sys.exit(0)
