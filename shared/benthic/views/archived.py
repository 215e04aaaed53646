"""Reads of archived games: what the read API serves for a game no longer in Redis, from the archive, with
the same bodies (the read models were archived as served) and histories derived from the archived log by
the projection's own function (benthic.game.history)."""

from __future__ import annotations

from collections import OrderedDict

import msgspec

from benthic.archive import Archive, ArchivedGame
from benthic.game.commits import commit_span
from benthic.game.gamestate import Folded, UndoBeforeStart, fold_envelopes
from benthic.game.history import history_page, seat_names
from benthic.i18n import DEFAULT_LANGUAGE
from benthic.rules import get_engine
from benthic.views.readmodel import (
    PastView,
    VersionNotFound,
    stored_version,
    unpack_view,
    view_at,
    view_field,
)


class ArchivedReads:
    """Archived games by id, the most recently read ``cache_games`` kept decoded in memory (an archived game
    never changes, so the cache is never stale; a purged one stays readable until it leaves the cache)."""

    def __init__(self, archive: Archive, cache_games: int = 64, cache_summaries: int = 5000) -> None:
        self.archive = archive
        self.cache_games = cache_games
        self.cache_summaries = cache_summaries
        self._games: OrderedDict[str, ArchivedGame] = OrderedDict()
        self._summaries: OrderedDict[str, bytes] = OrderedDict()  # lobby cards: small, read by every lobby
        self._folded: OrderedDict[str, Folded] = OrderedDict()  # the last state folded per game (?at= steps on)

    async def game(self, game_id: str) -> ArchivedGame | None:
        game = self._games.get(game_id)
        if game is None:
            game = await self.archive.get(game_id)
            if game is None:
                return None
            self._games[game_id] = game
            while len(self._games) > self.cache_games:
                self._games.popitem(last=False)
        self._games.move_to_end(game_id)
        return game

    async def field(self, game_id: str, field: str) -> tuple[int, bytes | None] | None:
        game = await self.game(game_id)
        return None if game is None else (game.last_version, game.read_models.get(field))

    async def view_at(self, game_id: str, viewer: int | None, at: int) -> PastView | None:
        """The view ``viewer`` had at version ``at``: at the end of the commit that holds ``at``
        (benthic.game.commits), the archived events folded to it and rendered as the live views were (the
        archived view itself at the last version).  None: no such game; VersionNotFound beyond its last version."""
        game = await self.game(game_id)
        if game is None:
            return None
        if at > game.last_version:
            raise VersionNotFound(game.last_version)
        first, shown = commit_span(game.envelopes, at)
        stored = game.read_models.get(view_field(viewer))
        if shown == game.last_version and stored is not None and stored_version(stored) == shown:
            return PastView(shown, first - 1, unpack_view(stored))
        engine = get_engine(game.game_type)
        folded = self._folded.get(game_id)
        if folded is None or folded.version > shown:
            folded = Folded(0, engine.initial_state())
        tail = [e for e in game.envelopes if folded.version < e.version <= shown]
        try:
            folded = fold_envelopes(engine, folded, tail, game_id) if tail else folded
        except UndoBeforeStart:  # an undo voids versions the cached state holds: from the start
            tail = [e for e in game.envelopes if e.version <= shown]
            folded = fold_envelopes(engine, Folded(0, engine.initial_state()), tail, game_id)
        self._folded[game_id] = folded
        self._folded.move_to_end(game_id)
        while len(self._folded) > self.cache_games:
            self._folded.popitem(last=False)
        return PastView(shown, first - 1,
                        view_at(engine, game_id, folded, "finished", game.options, len(game.seats), viewer))

    async def history(
        self, game_id: str, viewer: int | None, after: int, limit: int, language: str = DEFAULT_LANGUAGE
    ) -> tuple[int, list[bytes]] | None:
        game = await self.game(game_id)
        if game is None:
            return None
        names = seat_names([msgspec.to_builtins(s) if s is not None else None for s in game.seats])
        return game.last_version, history_page(get_engine(game.game_type), game.envelopes, viewer, after, limit,
                                               language, names)

    async def finished(self, game_type: str, limit: int) -> list[tuple[str, bytes]]:
        """(game id, lobby card) of the newest archived games of ``game_type``, newest finished first."""
        cards = []
        for info in await self.archive.find(game_type=game_type, limit=limit):
            card = self._summaries.get(info.game_id)
            if card is None:
                found = await self.archive.read_model(info.game_id, "summary")
                if found is None or found[1] is None:
                    continue  # purged meanwhile
                card = self._summaries[info.game_id] = found[1]
                while len(self._summaries) > self.cache_summaries:
                    self._summaries.popitem(last=False)
            cards.append((info.game_id, card))
        return cards
