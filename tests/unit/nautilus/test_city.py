"""The city derived after a build from the city before it (``City.extended``) equals the city computed from
scratch, over random games of every seat count."""

from __future__ import annotations

import random

import pytest

from benthic.rules import GameConfig
from benthic.rules.nautilus.city import City, city_of
from tests.unit.nautilus.fixtures import ENGINE


def _same(town: City, fresh: City) -> None:
    assert town.stations is fresh.stations
    assert town.index == fresh.index
    assert town.at_anchor == fresh.at_anchor
    assert town.covered == fresh.covered
    assert town.adjacency == fresh.adjacency
    assert town.blue_exits == fresh.blue_exits
    assert town.build_sites() == fresh.build_sites()
    assert [town.bfs(i) for i in range(len(town.stations))] == [fresh.bfs(i) for i in range(len(fresh.stations))]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_extended_city_equals_the_city_from_scratch(seats: int) -> None:
    rng = random.Random(seats)
    state = ENGINE.replay(ENGINE.start(GameConfig(seats=seats, seed=seats)))
    builds = 0
    while (prompt := ENGINE.prompt(state)) is not None:
        seat = rng.choice(prompt.seats)
        before = state.stations
        state = ENGINE.fold(state, ENGINE.decide(state, seat, rng.choice(ENGINE.legal_commands(state, seat))))
        if state.stations is before:
            continue
        fresh = City(state.stations)
        parent = City(before)
        _same(parent.extended(state.stations), fresh)  # build sites not computed before the build
        parent.build_sites()
        _same(parent.extended(state.stations), fresh)  # build sites carried over
        _same(city_of(state.stations), fresh)  # the memoised city the rules use
        builds += 1
    assert builds >= 5
