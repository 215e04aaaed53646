"""Every engine declares the type of its views (``view_type``, documented in the read API's OpenAPI): every
view of random games, for every viewer, is read by that type without a missing, extra or mistyped field, and
validates against the JSON Schema generated from it."""

from __future__ import annotations

from typing import Any

import jsonschema
import msgspec
import pytest

from benthic.rules import game_types, get_engine
from benthic.rules.viewtypes import matches
from tests.engine_harness import random_game

OPTIONS: dict[str, list[dict[str, Any]]] = {
    "underwater_cities": [{}, {"board_side": "advanced", "government_contracts": True}],
    "aquatica": [{}, {"mode": "advanced"}],
    "nautilus": [{}],
}


@pytest.mark.parametrize("game_type", game_types())
def test_every_view_has_the_declared_type(game_type: str) -> None:
    engine = get_engine(game_type)
    assert engine.view_type is not None, f"{game_type} declares no view_type"
    validator = jsonschema.Draft202012Validator(msgspec.json.schema(engine.view_type))
    checked = 0
    for options in OPTIONS.get(game_type, [{}]):
        for seats in range(engine.min_seats, engine.max_seats + 1):
            if options.get("government_contracts") and seats == 1:
                continue  # the variant is never played solo
            for step, (_, _, _, _, after) in enumerate(random_game(engine, seats, seed=seats, options=options)):
                if step % 11 and engine.prompt(after) is not None:
                    continue  # every 11th state, and the last one
                for viewer in [None, *range(seats)]:
                    view = engine.view(after, viewer)
                    matches(view, engine.view_type)
                    if checked % 25 == 0:
                        validator.validate(msgspec.json.decode(msgspec.json.encode(view)))
                    checked += 1
    assert checked > 100
