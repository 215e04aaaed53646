"""The catalogue and describe parts of the engine contract (docs/ENGINE_CONTRACT.md), for every registered game
and seat count: along playouts, every legal command of every prompted seat is described by a short label
naming things by their names, highlighting catalogue ids, revealing nothing hidden from that seat; every
identifier a view shows is described by the catalogue."""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from benthic.rules import KNOWN_GAME_TYPES, Description, Engine, GameConfig, RuleViolation, game_types, get_engine
from benthic.rules.presentation import MAX_LABEL, catalogue_ids, check_catalogue, named_ids_in
from tests.engine_harness import command_classes, hidden_from

# Engines that describe themselves: the three of the product (checked below), and any other that does. An
# embedder's engine may rely on the defaults (an empty catalogue, labels from the command's fields).
GAMES = tuple(g for g in game_types() if type(get_engine(g)).catalogue is not Engine.catalogue)
GAME_SEATS = [(g, n) for g in GAMES for n in range(get_engine(g).min_seats, get_engine(g).max_seats + 1)]
FIELD = re.compile(r"[a-z][a-z0-9_]*")


# --- the catalogue ------------------------------------------------------------------------------------------

def test_the_product_engines_describe_themselves() -> None:
    for game in set(KNOWN_GAME_TYPES) & set(game_types()):
        engine = get_engine(game)
        assert type(engine).catalogue is not Engine.catalogue and type(engine).describe is not Engine.describe
        assert game in GAMES


@pytest.mark.parametrize("game", GAMES)
def test_the_catalogue_is_json_with_unique_ids_and_a_text_for_every_effect(game: str) -> None:
    engine = get_engine(game)
    catalogue = engine.catalogue()
    check_catalogue(catalogue)
    encoded = msgspec.json.encode(catalogue)
    assert msgspec.json.decode(encoded) == catalogue, "JSON types only"
    assert catalogue["game_type"] == game
    assert catalogue["seats"] == {"min": engine.min_seats, "max": engine.max_seats}
    assert catalogue["content_version"].startswith(engine.version)
    assert engine.content_version == catalogue["content_version"]
    assert engine.catalogue() is catalogue, "built once"
    for cid, entry in catalogue["components"].items():
        assert entry["text"].strip(), f"{cid} has no text"
        assert entry["text"][0].isupper() and entry["text"].rstrip()[-1] in ".)", f"{cid}: {entry['text']!r}"
    ids = catalogue_ids(catalogue)
    assert not ids["components"] & ids["spaces"]
    for sid in ids["spaces"]:
        assert sid not in catalogue["terms"], f"space {sid} is also a term"


@pytest.mark.parametrize("game", GAMES)
def test_every_option_of_the_catalogue_starts_a_game_with_its_default_and_each_value(game: str) -> None:
    engine = get_engine(game)
    seats = engine.max_seats
    for option in engine.catalogue()["options"]:
        engine.start(GameConfig(seats=seats, seed=1, options={option["name"]: option["default"]}))
        for value in option["values"] or ():
            try:
                engine.start(GameConfig(seats=seats, seed=1, options={option["name"]: value}))
            except RuleViolation as violation:  # a value may be refused only for a reason other than itself
                assert violation.code not in ("invalid_option", "invalid_flag", "invalid_argument"), violation
        for flag in option.get("flags", ()):
            engine.start(GameConfig(seats=seats, seed=1, options={option["name"]: {flag["name"]: flag["default"]}}))
            for value in flag["values"] or ():
                try:
                    engine.start(GameConfig(seats=seats, seed=1, options={option["name"]: {flag["name"]: value}}))
                except RuleViolation as violation:
                    assert violation.code not in ("invalid_option", "invalid_flag", "invalid_argument"), violation


# --- playouts -----------------------------------------------------------------------------------------------

class CoverageBot:
    """Plays, among the legal commands, one of the command types it has played least so far (random among
    those), so a few games reach the rare commands (conversions, withdrawals, scouting...)."""

    def __init__(self) -> None:
        self.played: Counter[str] = Counter()

    def choose(self, engine: Engine, state: Any, seat: int, rng: random.Random) -> Any:
        legal = engine.legal_commands(state, seat)
        least = min(self.played[engine.command_name(c)] for c in legal)
        choice = rng.choice([c for c in legal if self.played[engine.command_name(c)] == least])
        self.played[engine.command_name(choice)] += 1
        return choice


def random_options(engine: Engine, seats: int, rng: random.Random) -> dict[str, Any]:
    """Options drawn from the values the catalogue lists (a combination the game refuses is drawn again)."""
    choices = [o for o in engine.catalogue()["options"] if o["values"]]
    for _ in range(20):
        options = {o["name"]: rng.choice(o["values"]) for o in choices if rng.random() < 0.5}
        try:
            engine.start(GameConfig(seats=seats, seed=1, options=options))
        except RuleViolation:
            continue
        return options
    return {}


def playout(engine: Engine, seats: int, seed: int, bot: Any,
            options: dict[str, Any] | None = None) -> Iterator[tuple[Any, int, list[Any]]]:
    """(state, prompted seat, its legal commands) along one game, every prompted seat of every state."""
    rng = random.Random(seed)
    state = engine.replay(engine.start(GameConfig(seats=seats, seed=seed, options=options or {})))
    for _ in range(engine.playout_bound):
        prompt = engine.prompt(state)
        if prompt is None:
            return
        for seat in prompt.seats:
            yield state, seat, engine.legal_commands(state, seat)
        seat = rng.choice(prompt.seats)
        state = engine.fold(state, engine.decide(state, seat, bot.choose(engine, state, seat, rng)))
    raise AssertionError("the playout did not end")


def identifiers(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """(string, where) for every identifier-like string of a view: string values without whitespace and
    dict keys that are not field names (snake_case) or numbers."""
    if isinstance(value, str):
        if value and not any(ch.isspace() for ch in value):
            yield value, key
    elif isinstance(value, dict):
        for k, sub in value.items():
            if not FIELD.fullmatch(k) and not k.isdigit():
                yield k, f"{key}.<key>"
            yield from identifiers(sub, f"{key}.{k}")
    elif isinstance(value, (list, tuple)):
        for sub in value:
            yield from identifiers(sub, f"{key}[]")


class Checker:
    """The checks of one game: labels, highlights, secrecy, views against the catalogue."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        catalogue = engine.catalogue()
        self.ids = catalogue_ids(catalogue)
        self.components = catalogue["components"]
        self.highlightable = self.ids["components"] | self.ids["spaces"]
        self.known = self.highlightable | self.ids["terms"] | self.ids["track_spaces"]
        self.named = {cid: e["name"] for cid, e in self.components.items() if e["name"] != cid}
        self.described: Counter[str] = Counter()

    def interchangeable(self, description: Description) -> tuple[Any, ...]:
        """What a person can tell apart of a command's highlights: component names and texts, space ids."""
        return tuple(sorted((self.components[h]["name"], self.components[h]["text"]) if h in self.components
                            else (h, "") for h in description.highlights))

    def labels(self, state: Any, seat: int, legal: list[Any]) -> None:
        engine = self.engine
        descriptions = engine.describe_all(state, legal, seat)
        assert len(descriptions) == len(legal)
        hidden = hidden_from(engine, state, seat)
        visible = {s for s, _ in identifiers(engine.view(state, seat))}
        visible_names = sorted({self.components[v]["name"] for v in visible if v in self.components}, key=len)
        hidden_names = {self.components[t]["name"] for t in hidden if t in self.components} - set(visible_names)
        by_label: dict[str, list[tuple[Any, Description]]] = defaultdict(list)
        for command, description in zip(legal, descriptions, strict=True):
            self.described[engine.command_name(command)] += 1
            label = description.label
            where = f"{engine.command_name(command)} {msgspec.json.encode(command).decode()}: {label!r}"
            assert isinstance(description, Description) and label.strip() == label and label, where
            assert len(label) <= MAX_LABEL, where
            assert label[0].isupper(), where
            raw = [i for i in named_ids_in(label, self.named) if self.named[i] not in label]
            assert not raw, f"{where} writes ids {raw} instead of their names"
            assert all(isinstance(h, str) for h in description.highlights), where
            assert set(description.highlights) <= self.highlightable, \
                f"{where}: highlights {set(description.highlights) - self.highlightable} are not catalogue ids"
            assert not (set(description.highlights) & hidden), f"{where} highlights something hidden from it"
            assert not any(token in label for token in hidden if len(token) > 2), f"{where} names a hidden id"
            unseen = label
            for name in reversed(visible_names):  # longest first: "Quartermaster's Ledger" before "Quartermaster"
                unseen = unseen.replace(name, "~")
            assert not any(name in unseen for name in hidden_names), f"{where} names a hidden component"
            by_label[label].append((command, description))
        for label, same in by_label.items():
            if len(same) > 1:  # allowed only for the same move with interchangeable components
                assert len({engine.command_name(c) for c, _ in same}) == 1, f"{label!r} for different commands"
                assert len({self.interchangeable(d) for _, d in same}) == 1, \
                    f"{label!r} describes different moves: {[c for c, _ in same]}"
        if legal:
            one = random.Random(state.version).randrange(len(legal))
            assert engine.describe(state, legal[one], seat) == descriptions[one]

    def views(self, state: Any, seats: int) -> None:
        for viewer in [*range(seats), None]:
            for string, where in identifiers(self.engine.view(state, viewer)):
                assert string in self.known, f"{where} = {string!r} is not described by the catalogue"


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_legal_commands_are_described_and_views_use_catalogue_ids(game: str, seats: int) -> None:
    engine = get_engine(game)
    checker = Checker(engine)
    rng = random.Random(seats)
    for seed, options in ((seats, {}), (seats + 100, random_options(engine, seats, rng))):
        previous = -1
        for step, (state, seat, legal) in enumerate(playout(engine, seats, seed, CoverageBot(), options)):
            checker.labels(state, seat, legal)
            if state.version != previous and step % 4 == 0:
                checker.views(state, seats)
            previous = state.version
        checker.views(state, seats)  # the final state


# Command types bots seldom reach (a Nautilus submarine must recover a Tempo chip, a Shell with a Trial station
# in operation, or a chip of its assignment; only King 5 fully raises an Aquatica Location; an Underwater Cities
# claim_contract needs the rule flag contracts_auto_claim off and a contract's requirements met): each game's own
# tests cover them from scenes (test_describe.py, underwater_cities/test_contract_claims.py).
RARE = {"nautilus": {"tempo_move", "skip_tempo", "peek", "end_peeks", "cash_assignment"}, "aquatica": {"fully_rise"},
        "underwater_cities": {"claim_contract"}}


@pytest.mark.parametrize("game", GAMES)
def test_every_command_type_is_described_in_some_game(game: str) -> None:
    engine = get_engine(game)
    checker = Checker(engine)
    names = {cls.__struct_config__.tag for cls in command_classes(engine)} - RARE.get(game, set())
    rng = random.Random(7)
    bot = CoverageBot()
    for game_no in range(40):
        seats = rng.randint(engine.min_seats, engine.max_seats)
        options = random_options(engine, seats, rng)
        for state, seat, legal in playout(engine, seats, 1000 + game_no, bot, options):
            if {engine.command_name(c) for c in legal} - set(checker.described):  # the other test checks the rest
                checker.labels(state, seat, legal)
        if names <= set(checker.described):
            break
    assert names <= set(checker.described), f"never described: {sorted(names - set(checker.described))}"


@pytest.mark.parametrize("game", GAMES)
def test_describe_needs_the_seat_when_several_are_prompted(game: str) -> None:
    engine = get_engine(game)
    for seats in range(max(engine.min_seats, 2), engine.max_seats + 1):
        for state, _seat, legal in playout(engine, seats, 5, CoverageBot()):
            prompt = engine.prompt(state)
            if prompt is not None and len(prompt.seats) > 1 and legal:
                with pytest.raises(ValueError):
                    engine.describe(state, legal[0])
                return
    pytest.skip(f"{game} never prompts several seats at once")
