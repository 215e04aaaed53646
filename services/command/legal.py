"""A seat's legal commands as the command service answers them: ``GET /games/{id}/legal``, ``?include=legal``
after a command, and the play socket's turn pushes.  No I/O."""

from __future__ import annotations

from typing import Any

import msgspec

from benthic.game import lifecycle as lc
from benthic.game.gamestate import Folded
from benthic.i18n import DEFAULT_LANGUAGE, localized_labels
from benthic.rules import AnyEngine, Label
from services.command.schemas import LegalCommands


def legal_commands(
    engine: AnyEngine, game_id: str, seat: int, folded: Folded, running: bool = True,
    language: str = DEFAULT_LANGUAGE,
) -> LegalCommands:
    """The legal commands of ``seat`` in the state ``folded`` (none before every seat is taken, after the end,
    or while the house bot plays the seat), labelled in ``language``."""
    over = lc.is_finished(engine, folded.state, folded.life)
    prompt = None if over else engine.prompt(folded.state)
    playing = running and not over and not folded.life.house_plays(seat)
    commands = engine.legal_commands(folded.state, seat) if playing else []
    return LegalCommands(
        game_id,
        seat,
        folded.version,
        msgspec.to_builtins(prompt) if prompt else None,
        list(commands),  # Structs: encoded in the answer as their JSON forms, with no detour through dicts
        localized_labels(engine.describe_all(folded.state, commands, seat), language) if commands else [],
    )


def after_command(
    engine: AnyEngine, state: Any, seat: int, language: str = DEFAULT_LANGUAGE
) -> tuple[dict[str, Any] | None, list[Any], list[Label]]:
    """``?include=legal``: the prompt of the state a command produced, the seat's legal commands in it and their
    labels."""
    prompt = engine.prompt(state)
    legal = engine.legal_commands(state, seat)
    return (msgspec.to_builtins(prompt) if prompt else None, list(legal),
            localized_labels(engine.describe_all(state, legal, seat), language) if legal else [])
