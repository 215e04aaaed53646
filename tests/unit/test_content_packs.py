"""Content packs (docs/CONTENT_PACKS.md), for every engine: the built-in pack is the default and is recorded in
the first setup event; a second pack (a modified copy, tests/variant_packs.py) installed from a directory is
chosen with ``options.content`` and used for the whole game, also when its calls interleave with a game of the
built-in pack; bad choices and bad packs are refused with clear codes; a game whose pack is gone is not folded."""

from __future__ import annotations

import inspect
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from benthic.rules import GameConfig, RuleViolation, game_types, get_engine
from benthic.rules.bots import RandomBot
from benthic.rules.core import ContentPackUnavailable, PackRef
from benthic.rules.packs import PackSet, set_directories
from tests.games import BUILT_IN
from tests.variant_packs import CHANGES, FIRST_VIEW_CHECKS, VARIANT_ID, VARIANT_VERSION, build_variant

GAMES = [g for g in game_types() if get_engine(g).content_packs is not None]
VARIANT = PackRef(VARIANT_ID, VARIANT_VERSION)


def packs_of(game: str) -> PackSet[Any]:
    packs = get_engine(game).content_packs
    assert isinstance(packs, PackSet)
    return packs


@pytest.fixture
def variants(tmp_path: Path) -> Iterator[Path]:
    for game in GAMES:
        build_variant(game, tmp_path)
    set_directories([tmp_path])
    yield tmp_path
    set_directories([])


def _content_of(first_event: Any) -> PackRef:
    ref = first_event.content
    assert isinstance(ref, PackRef)
    return ref


def test_the_built_in_engines_have_content_packs_and_variants() -> None:
    assert BUILT_IN and set(GAMES) >= set(BUILT_IN)
    assert set(GAMES) <= set(CHANGES) & set(FIRST_VIEW_CHECKS), "tests/variant_packs.py: a game without its variant"


@pytest.mark.parametrize("game", GAMES)
def test_the_built_in_pack_is_the_default_and_is_recorded(game: str) -> None:
    engine = get_engine(game)
    events = engine.start(GameConfig(seats=2, seed=5))
    assert _content_of(events[0]) == packs_of(game).default_ref
    assert packs_of(game).builtin.manifest.id == "benthic-proposed"
    state = engine.replay(events)
    assert state.content == packs_of(game).default_ref.key
    assert not FIRST_VIEW_CHECKS[game](engine.view(state, None))
    explicit = engine.start(GameConfig(seats=2, seed=5, options={"content": "benthic-proposed"}))
    assert [engine.encode_event(e) for e in explicit] == [engine.encode_event(e) for e in events]


def _play(engine: Any, state: Any, seed: int) -> tuple[Any, list[Any]]:
    """One random command of the prompted seat; returns the state after it and its events."""
    rng = random.Random(seed * 7919 + state.version)
    prompt = engine.prompt(state)
    seat = rng.choice(prompt.seats)
    events = engine.decide(state, seat, RandomBot().choose(engine, state, seat, rng))
    return engine.fold(state, events), events


def _whole_game(engine: Any, options: dict[str, Any], seed: int) -> list[Any]:
    events = engine.start(GameConfig(seats=2, seed=seed, options=options))
    state = engine.replay(events)
    while engine.prompt(state) is not None:
        state, new = _play(engine, state, seed)
        events.extend(new)
    return events


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_second_pack_plays_a_whole_game_interleaved_with_the_built_in_one(game: str, variants: Path) -> None:
    engine = get_engine(game)
    seed = 11
    alone_variant = _whole_game(engine, {"content": VARIANT_ID}, seed)
    alone_default = _whole_game(engine, {}, seed)
    assert _content_of(alone_variant[0]) == VARIANT

    # Both games at once, one command each in turn: every call switches packs.
    games = {"variant": engine.start(GameConfig(seats=2, seed=seed, options={"content": VARIANT_ID})),
             "default": engine.start(GameConfig(seats=2, seed=seed))}
    states = {name: engine.replay(events) for name, events in games.items()}
    assert FIRST_VIEW_CHECKS[game](engine.view(states["variant"], None))
    assert not FIRST_VIEW_CHECKS[game](engine.view(states["default"], None))
    while any(engine.prompt(s) is not None for s in states.values()):
        for name in games:
            if engine.prompt(states[name]) is not None:
                states[name], new = _play(engine, states[name], seed)
                games[name].extend(new)
    encode = engine.encode_event
    assert [encode(e) for e in games["variant"]] == [encode(e) for e in alone_variant]
    assert [encode(e) for e in games["default"]] == [encode(e) for e in alone_default]
    assert [encode(e) for e in games["variant"]] != [encode(e) for e in games["default"]]
    # A replay from the events alone gives the same state, and the final scores of each game's own pack.
    replayed = engine.replay(games["variant"])
    assert engine.encode_state(replayed) == engine.encode_state(states["variant"])
    assert engine.final_scores(replayed) == engine.final_scores(states["variant"])
    assert msgspec.json.encode(engine.view(replayed, 0)) == msgspec.json.encode(engine.view(states["variant"], 0))


@pytest.mark.parametrize("game", GAMES)
def test_redaction_reads_no_pack(game: str, variants: Path) -> None:
    engine = get_engine(game)
    packs = packs_of(game)
    events = engine.start(GameConfig(seats=2, seed=3, options={"content": VARIANT_ID}))
    state = engine.replay(events)
    for _ in range(30):
        if engine.prompt(state) is None:
            break
        state, new = _play(engine, state, 3)
        events.extend(new)
    for viewer in (None, 0, 1):
        in_default = [engine.redact(e, viewer) for e in events]
        in_variant = packs.run(VARIANT.key, lambda seen_by: [engine.redact(e, seen_by) for e in events], viewer)
        assert in_default == in_variant


@pytest.mark.parametrize("game", GAMES)
def test_the_newest_version_of_a_pack_id_is_chosen_and_an_exact_one_on_request(game: str, tmp_path: Path) -> None:
    build_variant(game, tmp_path, "2.9.0")
    build_variant(game, tmp_path, "2.10.0")
    set_directories([tmp_path])
    try:
        packs = packs_of(game)
        assert packs.resolve(VARIANT_ID) == PackRef(VARIANT_ID, "2.10.0")  # numeric, not string, order
        assert packs.resolve(f"{VARIANT_ID}@2.9.0") == PackRef(VARIANT_ID, "2.9.0")
        events = get_engine(game).start(GameConfig(seats=2, seed=1, options={"content": f"{VARIANT_ID}@2.9.0"}))
        assert _content_of(events[0]) == PackRef(VARIANT_ID, "2.9.0")
    finally:
        set_directories([])


@pytest.mark.parametrize("game", GAMES)
def test_unknown_and_invalid_packs_are_refused_with_their_codes(game: str, tmp_path: Path) -> None:
    engine = get_engine(game)
    broken = build_variant(game, tmp_path)
    data_file = next(iter(packs_of(game).files))
    (broken / data_file).write_text(json.dumps({"not": "the schema"}), encoding="utf-8")
    bad_manifest = tmp_path / "no-manifest-fields"
    bad_manifest.mkdir()
    (bad_manifest / "pack.json").write_text(json.dumps({"game": game}), encoding="utf-8")
    set_directories([tmp_path])
    try:
        for option, code in (("no-such-pack", "unknown_content_pack"), (f"{VARIANT_ID}@9.9.9", "unknown_content_pack"),
                             (7, "unknown_content_pack"), ("", "unknown_content_pack"),
                             (VARIANT_ID, "invalid_content_pack")):
            with pytest.raises(RuleViolation) as refused:
                engine.start(GameConfig(seats=2, seed=1, options={"content": option}))
            assert refused.value.code == code, option
            assert "content packs" in refused.value.message
        rejected = dict(packs_of(game).rejected())
        assert bad_manifest in rejected and "pack.json" in rejected[bad_manifest]
    finally:
        set_directories([])


@pytest.mark.parametrize("game", GAMES)
def test_a_game_whose_pack_is_not_installed_is_never_folded(game: str, tmp_path: Path) -> None:
    engine = get_engine(game)
    build_variant(game, tmp_path)
    set_directories([tmp_path])
    try:
        events = engine.start(GameConfig(seats=2, seed=2, options={"content": VARIANT_ID}))
        state = engine.replay(events)
    finally:
        set_directories([])
    with pytest.raises(ContentPackUnavailable) as missing:
        engine.replay(events)
    assert missing.value.code == "content_pack_unavailable" and VARIANT.key in missing.value.message
    with pytest.raises(ContentPackUnavailable):
        engine.legal_commands(state, 0)
    assert packs_of(game).key == packs_of(game).default_ref.key  # nothing left switched


@pytest.mark.parametrize("game", GAMES)
def test_every_public_method_taking_a_state_runs_in_the_games_pack(game: str) -> None:
    cls = type(get_engine(game))
    for name, member in inspect.getmembers(cls, inspect.isfunction):
        params = list(inspect.signature(member).parameters)[1:]
        if name.startswith("_") or not params or params[0] != "state":
            continue
        defined_here = any(name in vars(k) for k in cls.__mro__[:-1] if k.__name__ != "Engine")
        if defined_here:
            assert hasattr(member, "_reads_no_content") or hasattr(member, "__wrapped__"), name


@pytest.mark.parametrize("game", GAMES)
def test_the_initial_state_has_no_pack_yet_and_reads_the_default(game: str) -> None:
    engine = get_engine(game)
    state = engine.initial_state()
    assert state.content == ""
    assert engine.legal_commands(state, 0) == [] and not engine.is_over(state)
    assert engine.prompt(state) is not None and isinstance(engine.view(state, None), dict)
