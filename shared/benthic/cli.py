"""``benthic``: run the services, and a command-line client of the APIs.

    benthic serve command|projection|scoring|archiver|bots|notifier|matchmaker|all
    benthic run                      the whole platform locally + the bot demo (what `make run` does)
    benthic dev-token alice [--scope benthic:matchmaker]    a JWT of the development issuer (dev only)
    benthic create nautilus --player alice --player bob [--open 1] [--option key=json] [--unrated]
    benthic join GAME --player carol            benthic token GAME --player carol    benthic seats --player carol
    benthic show GAME [--seat N --token T]      benthic history GAME [--seat N --token T]
    benthic legal GAME --token T                benthic play GAME --token T '{"type": "end_turn"}'
    benthic watch GAME [--seat N --token T]     benthic lobby | benthic leaderboard GAME_TYPE
    benthic archive show GAME        an archived game: type, players, dates, event count, digest, sizes
    benthic archive export GAME      its event log as JSON lines on stdout
    benthic archive find [--player P] [--game-type T] [--since ISO] [--until ISO] [--limit N]
    benthic archive migrate          apply the archive's schema migrations (the archiver does it at start)
    benthic archive backfill         schedule every finished game in Redis for archiving (REDIS_URL)
    benthic revoke --game GAME | --player P     (operator token)

Credentials: `--jwt` (or BENTHIC_JWT) is your identity provider's JWT.  Without one, the CLI mints tokens
with the development issuer (keys in BENTHIC_DEV_ISSUER_DIR, `.run/dev-issuer` for `make run`): one
`--player` creates as that player; several create as a matchmaker and fetch each player's seat token.
    benthic content list [--json]               the content packs installed (BENTHIC_CONTENT_DIRS too)
    benthic content validate DIR [DIR ...]      check pack folders against their game's schema and rules
    benthic content schema GAME [--out DIR]     the JSON Schemas of a game's pack files
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from benthic.archive.store import ArchiveError
from benthic.clients.client import ApiFailure, BenthicClient


def _dev_mint(args: argparse.Namespace) -> Any:
    if os.environ.get("BENTHIC_ENVIRONMENT", "dev") != "dev":
        return None
    directory = args.dev_issuer_dir

    def mint(subject: str, scopes: tuple[str, ...] = (), ttl_s: int = 3600) -> str:
        from benthic.trust.devissuer import DevIssuer

        return DevIssuer.load_or_create(directory).mint(subject, scopes, ttl_s)

    return mint


def _client(args: argparse.Namespace) -> BenthicClient:
    return BenthicClient(args.command_url, args.read_url, operator_token=args.operator_token, jwt=args.jwt,
                         mint=None if args.jwt else _dev_mint(args))


def _print(value: Any) -> None:
    print(json.dumps(value, indent=2, sort_keys=False))


async def _create(args: argparse.Namespace) -> None:
    seats: list[dict[str, str] | None] = [{"player_id": p, "name": p} for p in args.player]
    seats += [None] * args.open
    options = {}
    for item in args.option:
        key, _, value = item.partition("=")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    rated = False if args.unrated else None
    async with _client(args) as client:
        if client.jwt is None and client.mint is not None and len(args.player) == 1 and args.seed is None:
            jwt = client.mint(args.player[0])  # a player creating a game for themselves
            created = await client.create_game(args.game_type, seats, options, jwt=jwt, rated=rated)
        else:
            created = await client.create_game(args.game_type, seats, options, args.seed, rated=rated)
        if client.jwt is None and client.mint is not None:
            for seat in created["seats"]:  # dev: fetch every named player's token with their own JWT
                if seat["player_id"] and not seat.get("token"):
                    token = await client.seat_token(created["game_id"], seat["player_id"])
                    seat.update(token=token["token"], expires_at_ms=token["expires_at_ms"])
        _print(created)


async def _join(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.join(args.game_id, args.player, args.name, args.seat))


async def _token(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.seat_token(args.game_id, args.player))


async def _seats(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.my_seats(args.player))


async def _revoke(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.revoke_game(args.game) if args.game else await client.revoke_player(args.player))


def _dev_token(args: argparse.Namespace) -> None:
    mint = _dev_mint(args)
    if mint is None:
        raise SystemExit("the development issuer exists only in dev (BENTHIC_ENVIRONMENT=dev)")
    print(mint(args.player, tuple(args.scope), args.ttl_s))


async def _show(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.view(args.game_id, args.seat, args.token))


async def _history(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.history(args.game_id, args.seat, args.token, after=args.after))


async def _legal(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.legal(args.game_id, args.token))


async def _play(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.play(args.game_id, args.token, json.loads(args.command), args.command_id,
                                 args.expected_version))


async def _watch(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        version = -1
        while True:
            view = await client.view(args.game_id, args.seat, args.token, after_version=version, wait=25)
            if view and view["version"] > version:
                version = view["version"]
                prompt = view["view"].get("prompt")
                print(f"v{version} {view['status']}: {json.dumps(prompt)}", flush=True)
                if view["status"] == "finished":
                    return


async def _lobby(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.lobby(args.game_type, args.status))


async def _leaderboard(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.leaderboard(args.game_type))


def _archive_url(args: argparse.Namespace) -> str:
    if not args.archive_url:
        print("error: set BENTHIC_ARCHIVE_URL (or --archive-url) to the archive's PostgreSQL DSN", file=sys.stderr)
        raise SystemExit(2)
    return str(args.archive_url)


def _archive_info_json(info: Any) -> dict[str, Any]:
    from datetime import UTC, datetime

    def iso(ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")

    return {
        "game_id": info.game_id,
        "game_type": info.game_type,
        "engine_version": info.engine_version,
        "players": [None if s is None else {"seat": i, "player_id": s.player_id, "name": s.name}
                    for i, s in enumerate(info.seats)],
        "options": info.options,
        "created": iso(info.created_ms),
        "finished": iso(info.finished_ms),
        "archived": iso(info.archived_ms),
        "last_version": info.last_version,
        "event_count": info.event_count,
        "digest": info.digest,
        "codec": info.codec,
        "sizes": {
            "events_bytes": info.events_bytes,
            "events_raw_bytes": info.events_raw_bytes,
            "read_models_bytes": info.read_models_bytes,
            "read_models_raw_bytes": info.read_models_raw_bytes,
        },
    }


def _utc(text: str | None) -> Any:
    """An ISO date or date-time; UTC unless it names its zone."""
    from datetime import UTC, datetime

    if not text:
        return None
    at = datetime.fromisoformat(text)
    return at if at.tzinfo else at.replace(tzinfo=UTC)


async def _backfill() -> int:
    """Schedule every finished game found in Redis (a SCAN of the meta hashes) for archiving now: the games
    whose feed notifications are gone (finished before the archiver ran, or trimmed from the feed)."""
    import time

    from benthic.archive.due import DueGames
    from benthic.runtime.config import settings
    from benthic.runtime.redisconn import connect

    config = settings()
    redis = connect(config, 8)
    due = DueGames(redis, config.partitions)
    scheduled = 0
    try:
        every_node: dict[str, Any] = {"target_nodes": "primaries"} if config.redis_cluster else {}
        async for key in redis.scan_iter(match="{p*}:m:*", count=1000, **every_node):
            if await redis.hget(key, "status") == b"finished":
                await due.schedule(key.decode().split(":m:", 1)[1], int(time.time() * 1000))
                scheduled += 1
    finally:
        await redis.aclose()
    return scheduled


async def _archive(args: argparse.Namespace) -> None:
    import msgspec

    from benthic.archive import Archive

    if args.archive_cmd == "backfill":
        print(f"scheduled {await _backfill()} finished game(s) for archiving")
        return
    if args.archive_cmd == "migrate":
        async with Archive(_archive_url(args), 1) as archive:
            applied = await archive.migrate()
        print(f"applied {len(applied)} migration(s): {', '.join(applied) or 'none needed'}")
        return
    async with Archive(_archive_url(args), 1) as archive:
        if args.archive_cmd == "find":
            found = await archive.find(
                player=args.player, game_type=args.game_type,
                since=_utc(args.since), until=_utc(args.until), limit=args.limit,
            )
            _print([_archive_info_json(info) for info in found])
            return
        if args.archive_cmd == "show":
            info = await archive.info(args.game_id)
            if info is None:
                print(f"error: {args.game_id} is not in the archive", file=sys.stderr)
                raise SystemExit(1)
            _print(_archive_info_json(info))
            return
        envelopes = await archive.envelopes(args.game_id)
    if envelopes is None:
        print(f"error: {args.game_id} is not in the archive", file=sys.stderr)
        raise SystemExit(1)
    out = sys.stdout.buffer
    for e in envelopes:
        out.write(msgspec.json.encode({"version": e.version, "type": e.type, "kind": e.kind,
                                       "data": msgspec.Raw(e.data), "command_id": e.command_id, "seat": e.seat,
                                       "ts_ms": e.ts_ms}) + b"\n")
    out.flush()
def _content(args: argparse.Namespace) -> int:
    from pathlib import Path

    from benthic.game import content
    from benthic.runtime.config import settings

    content.install(settings())
    if args.content_cmd == "list":
        rows = content.listing()
        if args.json:
            _print(rows)
        else:
            for row in rows:
                if "game" not in row:
                    print(f"REJECTED  {row['path']}: {row['error']}")
                    continue
                flags = ",".join(f for f in ("default" if row["default"] else "",
                                              "builtin" if row["builtin"] else "") if f)
                state = "valid" if row["valid"] else f"INVALID: {row['error']}"
                print(f"{row['game']:<18} {row['key']:<32} {flags:<16} {state}  {row['path']}")
        return 0 if all(row["valid"] for row in rows) else 1
    if args.content_cmd == "validate":
        ok = True
        for folder in args.folders:
            valid, report = content.validate(Path(folder))
            print(report, file=sys.stdout if valid else sys.stderr)
            ok = ok and valid
        return 0 if ok else 1
    try:
        if args.out:
            for path in content.write_schemas(Path(args.out), [args.game]):
                print(path)
        else:
            _print(content.schemas(args.game))
    except KeyError as error:
        print(error.args[0], file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="benthic", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--command-url", default=os.environ.get("BENTHIC_COMMAND_URL", "http://127.0.0.1:8001"))
    parser.add_argument("--read-url", default=os.environ.get("BENTHIC_READ_URL", "http://127.0.0.1:8002"))
    parser.add_argument("--operator-token", default=os.environ.get("BENTHIC_OPERATOR_TOKEN"))
    parser.add_argument("--jwt", default=os.environ.get("BENTHIC_JWT"), help="your identity provider's JWT")
    parser.add_argument("--dev-issuer-dir", default=os.environ.get("BENTHIC_DEV_ISSUER_DIR", ".run/dev-issuer"))
    sub = parser.add_subparsers(dest="cmd", required=True)

    serve = sub.add_parser("serve", help="run a service (all: every service in one process)")
    serve.add_argument("service", choices=["command", "projection", "scoring", "archiver", "bots", "notifier",
                                           "matchmaker", "all"])
    serve.add_argument("--port", type=int, default=None)

    run = sub.add_parser("run", help="the whole platform locally, and bots playing every game")
    run.add_argument("--exit", action="store_true", help="stop after the demo instead of serving on")
    run.add_argument("--seats", type=int, default=None, help="players per demo game (default: each game's max)")
    run.add_argument("--bots", choices=["greedy", "random"], default="greedy", help="how the demo bots choose")

    dev_token = sub.add_parser("dev-token", help="mint a JWT with the development issuer (dev only, insecure)")
    dev_token.add_argument("player", help="the subject: a player id, or a backend's client id")
    dev_token.add_argument("--scope", action="append", default=[],
                           help="e.g. benthic:matchmaker or benthic:operator (repeat)")
    dev_token.add_argument("--ttl-s", type=int, default=3600)

    create = sub.add_parser("create", help="create a game")
    create.add_argument("game_type")
    create.add_argument("--player", action="append", default=[], help="a seated player id (repeat)")
    create.add_argument("--open", type=int, default=0, help="open seats after the named ones")
    create.add_argument("--option", action="append", default=[], help="key=json-value")
    create.add_argument("--seed", type=int, default=None, help="operator only")
    create.add_argument("--unrated", action="store_true", help="a casual game: ratings never change")

    join = sub.add_parser("join", help="take an open seat")
    join.add_argument("game_id")
    join.add_argument("--player", default=None, help="who joins (dev: a token is minted for them)")
    join.add_argument("--name", default="")
    join.add_argument("--seat", type=int, default=None)

    token = sub.add_parser("token", help="a fresh seat token for your seat in a game")
    token.add_argument("game_id")
    token.add_argument("--player", default=None)

    seats = sub.add_parser("seats", help="your seats in unfinished games, with fresh tokens")
    seats.add_argument("--player", default=None)

    revoke = sub.add_parser("revoke", help="operator: revoke the seat tokens of a game or a player")
    target = revoke.add_mutually_exclusive_group(required=True)
    target.add_argument("--game", default=None)
    target.add_argument("--player", default=None)

    for name, helptext in (("show", "a view of the game"), ("history", "the event history"),
                           ("watch", "follow the game live")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("game_id")
        p.add_argument("--seat", type=int, default=None)
        p.add_argument("--token", default=None)
        if name == "history":
            p.add_argument("--after", type=int, default=0)

    legal = sub.add_parser("legal", help="your legal commands")
    legal.add_argument("game_id")
    legal.add_argument("--token", required=True)

    play = sub.add_parser("play", help="post a command (JSON)")
    play.add_argument("game_id")
    play.add_argument("command")
    play.add_argument("--token", required=True)
    play.add_argument("--command-id", default=None)
    play.add_argument("--expected-version", type=int, default=None)

    lobby = sub.add_parser("lobby", help="games by type and status")
    lobby.add_argument("--game-type", default=None)
    lobby.add_argument("--status", default=None)

    board = sub.add_parser("leaderboard", help="ratings of a game type")
    board.add_argument("game_type")

    archive = sub.add_parser("archive", help="finished games in the PostgreSQL archive (BENTHIC_ARCHIVE_URL)")
    archive.add_argument("--archive-url", default=os.environ.get("BENTHIC_ARCHIVE_URL"))
    archive_sub = archive.add_subparsers(dest="archive_cmd", required=True)
    for name, helptext in (("show", "type, players, dates, event count, digest, sizes"),
                           ("export", "the event log as JSON lines on stdout")):
        archive_sub.add_parser(name, help=helptext).add_argument("game_id")
    find = archive_sub.add_parser("find", help="archived games, newest first")
    find.add_argument("--player", default=None)
    find.add_argument("--game-type", default=None)
    find.add_argument("--since", default=None,
                      help="finished at or after (ISO date or date-time; UTC unless a zone is given)")
    find.add_argument("--until", default=None, help="finished before (ISO)")
    find.add_argument("--limit", type=int, default=50)
    archive_sub.add_parser("migrate", help="apply the schema migrations")
    archive_sub.add_parser("backfill", help="schedule every finished game in Redis (REDIS_URL) for archiving")
    content = sub.add_parser("content", help="content packs: list, validate, schema")
    content_sub = content.add_subparsers(dest="content_cmd", required=True)
    listed = content_sub.add_parser("list", help="the installed packs of every game, validated")
    listed.add_argument("--json", action="store_true", help="print JSON instead of a table")
    check = content_sub.add_parser("validate", help="validate pack folders (exit status 1 if one is invalid)")
    check.add_argument("folders", nargs="+")
    schema = content_sub.add_parser("schema", help="the JSON Schemas of a game's pack files")
    schema.add_argument("game")
    schema.add_argument("--out", default=None, help="write <out>/<game>/<file>.schema.json instead of printing")

    args = parser.parse_args(argv)
    if args.cmd == "content":
        raise SystemExit(_content(args))
    if args.cmd == "serve":
        from benthic.runtime.config import settings
        from benthic.service.serve import run as run_service

        run_service(args.service, settings(), args.port)
        return
    if args.cmd == "run":
        from benthic.local.localrun import main as run_local

        run_local(exit_after_demo=args.exit, seats=args.seats, bots=args.bots)
        return
    if args.cmd == "dev-token":
        _dev_token(args)
        return
    handlers = {"create": _create, "join": _join, "token": _token, "seats": _seats, "revoke": _revoke,
                "show": _show, "history": _history, "legal": _legal, "play": _play, "watch": _watch,
                "lobby": _lobby, "leaderboard": _leaderboard, "archive": _archive}
    try:
        asyncio.run(handlers[args.cmd](args))
    except ApiFailure as failure:
        print(f"error {failure.status} {failure.code}: {failure.message}", file=sys.stderr)
        raise SystemExit(1) from None
    except ArchiveError as error:
        print(f"error: archive: {error}", file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
