"""Packing the keys and arguments of the read-model write scripts (``write_read_model.lua``, ``write_views.lua``)."""

from __future__ import annotations

from typing import Any, NamedTuple

from benthic.feed.integration import WEBHOOK_PLAYERS_SEPARATOR, webhook_registry, webhook_stream
from benthic.game.keys import GameKeys
from benthic.store.scripts import load_lua
from benthic.views.readmodel import STATUSES, ReadModel

SOURCE = load_lua(__package__, "write_read_model")
VIEWS_SOURCE = load_lua(__package__, "write_views")


class Publication(NamedTuple):
    """The integration events a write reports (their stream entries), and where they go: ``stream`` None when the
    script cannot add them (a Redis Cluster: the stream lives in another slot) and the caller adds them.
    ``players``: for each entry, the players it goes to by webhook (benthic.feed.integration: it is copied to the
    notifier's stream when one of them is in the registry)."""

    stream: str | None
    maxlen: int
    entries: list[bytes]
    players: list[list[str]] = []


NOTHING = Publication(None, 0, [])

NOTIFY_SOURCE = load_lua(__package__, "notify")  # the copy of one entry to the notifier's stream (Cluster)


def write_call(
    keys: GameKeys, game_id: str, game_type: str, model: ReadModel, publication: Publication = NOTHING
) -> tuple[list[str], list[Any]]:
    stream = publication.stream
    entries = publication.entries if stream is not None else []
    players = [WEBHOOK_PLAYERS_SEPARATOR.join(p) for p in publication.players] if entries else []
    players += [""] * (len(entries) - len(players))
    args: list[Any] = [model.version, model.status, game_id, model.updated_ms, keys.updates, publication.maxlen,
                       len(entries), *entries, *players]
    for field, value in model.fields:
        args.extend((field, value))
    script_keys = [keys.read_model, keys.meta, *(keys.lobby(game_type, s) for s in STATUSES)]
    if stream is not None:
        script_keys.extend((stream, webhook_registry(stream), webhook_stream(stream)))
    return script_keys, args


def views_call(keys: GameKeys, version: int, views: list[tuple[str, bytes]]) -> tuple[list[str], list[Any]]:
    args: list[Any] = [version]
    for field, value in views:
        args.extend((field, value))
    return [keys.read_model], args
