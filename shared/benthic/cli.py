"""``benthic``: run the services, and a command-line client of the APIs.

    benthic serve command|projection|scoring|all
    benthic run                      the whole platform locally + the bot demo (what `make run` does)
    benthic create nautilus --player alice --player bob [--open 1] [--option key=json]
    benthic join GAME --player carol
    benthic show GAME [--seat N --token T]      benthic history GAME [--seat N --token T]
    benthic legal GAME --token T                benthic play GAME --token T '{"type": "end_turn"}'
    benthic watch GAME [--seat N --token T]     benthic lobby | benthic leaderboard GAME_TYPE
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

from benthic.client import ApiFailure, BenthicClient


def _client(args: argparse.Namespace) -> BenthicClient:
    return BenthicClient(args.command_url, args.read_url, operator_token=args.operator_token)


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
    async with _client(args) as client:
        _print(await client.create_game(args.game_type, seats, options, args.seed))


async def _join(args: argparse.Namespace) -> None:
    async with _client(args) as client:
        _print(await client.join(args.game_id, args.player, args.name or args.player, args.seat))


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


def _content(args: argparse.Namespace) -> int:
    from pathlib import Path

    from benthic import content
    from benthic.config import settings

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
    parser = argparse.ArgumentParser(prog="benthic", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--command-url", default=os.environ.get("BENTHIC_COMMAND_URL", "http://127.0.0.1:8001"))
    parser.add_argument("--read-url", default=os.environ.get("BENTHIC_READ_URL", "http://127.0.0.1:8002"))
    parser.add_argument("--operator-token", default=os.environ.get("BENTHIC_OPERATOR_TOKEN"))
    sub = parser.add_subparsers(dest="cmd", required=True)

    serve = sub.add_parser("serve", help="run a service (all: the three in one process)")
    serve.add_argument("service", choices=["command", "projection", "scoring", "all"])
    serve.add_argument("--port", type=int, default=None)

    run = sub.add_parser("run", help="the whole platform locally, and bots playing every game")
    run.add_argument("--exit", action="store_true", help="stop after the demo instead of serving on")
    run.add_argument("--seats", type=int, default=None, help="players per demo game (default: each game's max)")
    run.add_argument("--bots", choices=["greedy", "random"], default="greedy", help="how the demo bots choose")

    create = sub.add_parser("create", help="create a game")
    create.add_argument("game_type")
    create.add_argument("--player", action="append", default=[], help="a seated player id (repeat)")
    create.add_argument("--open", type=int, default=0, help="open seats after the named ones")
    create.add_argument("--option", action="append", default=[], help="key=json-value")
    create.add_argument("--seed", type=int, default=None, help="operator only")

    join = sub.add_parser("join", help="take an open seat")
    join.add_argument("game_id")
    join.add_argument("--player", required=True)
    join.add_argument("--name", default="")
    join.add_argument("--seat", type=int, default=None)

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
        from benthic.config import settings
        from benthic.serve import run as run_service

        run_service(args.service, settings(), args.port)
        return
    if args.cmd == "run":
        from benthic.localrun import main as run_local

        run_local(exit_after_demo=args.exit, seats=args.seats, bots=args.bots)
        return
    handlers = {"create": _create, "join": _join, "show": _show, "history": _history, "legal": _legal,
                "play": _play, "watch": _watch, "lobby": _lobby, "leaderboard": _leaderboard}
    try:
        asyncio.run(handlers[args.cmd](args))
    except ApiFailure as failure:
        print(f"error {failure.status} {failure.code}: {failure.message}", file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
