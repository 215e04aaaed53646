"""Checks every engine must pass, usable from the generic contract tests and from each game's own tests."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import msgspec

from benthic.rules import Engine, GameConfig, RuleViolation
from benthic.rules.bots import RandomBot


def strings_in(value: Any) -> set[str]:
    """Every string value and key inside a JSON-ready value."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            for key, sub in item.items():
                if isinstance(key, str):
                    found.add(key)
                stack.append(sub)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def viewers(state_seats: int) -> list[int | None]:
    return [*range(state_seats), None]


def hidden_from(engine: Engine, state: Any, viewer: int | None) -> set[str]:
    return {s.token for s in engine.secrets(state) if viewer is None or viewer not in s.visible_to}


def check_no_leak(
    engine: Engine,
    seats: int,
    before: Any,
    event: Any,
    after: Any,
    seen_before: dict[int | None, set[str]] | None = None,
) -> dict[int | None, set[str]]:
    """The leak rule of docs/ENGINE_CONTRACT.md for one step.  ``seen_before`` (what each viewer's view of
    ``before`` shows, as returned by the previous call) saves recomputing it; returns it for ``after``."""
    prompt = engine.prompt(after)
    prompt_strings = strings_in(msgspec.to_builtins(prompt.details)) if prompt else set()
    seen_after: dict[int | None, set[str]] = {}
    for viewer in viewers(seats):
        hidden_now = hidden_from(engine, after, viewer)
        view = engine.view(after, viewer)
        msgspec.json.encode(view)
        seen_after[viewer] = strings_in(view)
        leaked = hidden_now & seen_after[viewer]
        assert not leaked, f"view for {viewer} leaks {sorted(leaked)[:5]} at version {after.version}"
        leaked = hidden_now & prompt_strings
        assert not leaked, f"prompt details leak {sorted(leaked)[:5]} at version {after.version}"
        redacted = engine.redact(event, viewer)
        if redacted is not None:
            msgspec.json.encode(redacted)
            if seen_before is not None and viewer in seen_before:
                known = seen_before[viewer]
            else:
                known = strings_in(engine.view(before, viewer)) if before.version else set()
            leaked = (hidden_now & strings_in(redacted)) - known
            assert not leaked, (
                f"{engine.event_name(event)} redacted for {viewer} leaks {sorted(leaked)[:5]} "
                f"at version {after.version}"
            )
    return seen_after


def assert_rejects_cleanly(engine: Engine, state: Any, seat: int, command: Any) -> bool:
    """decide either accepts the command or raises RuleViolation with a code; returns True if accepted."""
    before = engine.encode_state(state)
    try:
        events = engine.decide(state, seat, command)
    except RuleViolation as violation:
        assert violation.code and violation.code == violation.code.strip(), violation
        assert violation.message, violation
        accepted = False
    else:
        assert events, f"decide accepted {command!r} but produced no events"
        accepted = True
    assert engine.encode_state(state) == before, "decide mutated the state"
    return accepted


def command_classes(engine: Engine) -> list[type]:
    info = msgspec.inspect.type_info(engine.command_type)
    types = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
    return [t.cls for t in types]


def random_commands(engine: Engine, rng: random.Random, n: int, like: list[Any]) -> Iterator[Any]:
    """Commands of every type with random or mutated arguments (mostly illegal)."""
    classes = command_classes(engine)
    pool: list[Any] = []
    for command in like:
        pool.extend(msgspec.to_builtins(command).values())
    pool.extend([0, 1, -1, 2, 3, 99, "", "x", None, [0, 0], [99, 99], True])
    for i in range(n):
        if like and i % 2 == 0:
            base = msgspec.to_builtins(rng.choice(like))
            key = rng.choice([k for k in base if k != "type"] or ["type"])
            if key == "type":
                base["type"] = rng.choice(classes).__struct_config__.tag
            else:
                base[key] = rng.choice(pool)
            try:
                yield msgspec.convert(base, engine.command_type)
            except msgspec.ValidationError:
                continue
        else:
            cls = rng.choice(classes)
            info = msgspec.inspect.type_info(cls)
            raw = {f.encode_name: _random_value(f.type, rng, pool) for f in info.fields}
            raw["type"] = info.tag
            try:
                yield msgspec.convert(raw, engine.command_type)
            except msgspec.ValidationError:
                continue


def _random_value(t: Any, rng: random.Random, pool: list[Any], depth: int = 0) -> Any:
    mi = msgspec.inspect
    if isinstance(t, mi.UnionType):
        return _random_value(rng.choice(t.types), rng, pool, depth)
    if isinstance(t, mi.LiteralType):
        return rng.choice(t.values)
    if isinstance(t, mi.BoolType):
        return rng.random() < 0.5
    if isinstance(t, mi.IntType):
        return rng.choice([-1, 0, 1, 2, 3, 4, 7, 90, 180, 270, 1000])
    if isinstance(t, mi.StrType):
        strings = [v for v in pool if isinstance(v, str)] or ["x"]
        return rng.choice(strings)
    if isinstance(t, mi.NoneType):
        return None
    if isinstance(t, (mi.ListType, mi.TupleType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)) and depth < 3:
        item = getattr(t, "item_type", None)
        if item is None:
            return [_random_value(x, rng, pool, depth + 1) for x in t.item_types]
        return [_random_value(item, rng, pool, depth + 1) for _ in range(rng.randint(0, 3))]
    if isinstance(t, mi.DictType) and depth < 3:
        return {
            _random_value(t.key_type, rng, pool, depth + 1): _random_value(t.value_type, rng, pool, depth + 1)
            for _ in range(rng.randint(0, 2))
        }
    return rng.choice(pool)


def check_random_playout(engine: Engine, seats: int, seed: int, options: dict[str, Any] | None = None) -> Any:
    """A random game to its end: legal commands are accepted, illegal ones give RuleViolation, decide never
    mutates, nothing leaks, replay equals the step-by-step fold, codecs round-trip, scores are consistent."""
    rng = random.Random(seed)
    all_events = engine.start(GameConfig(seats=seats, seed=seed, options=options or {}))
    seen = None
    previous = engine.initial_state()
    for event in all_events:
        nxt = engine.evolve(previous, event)
        assert nxt.version == previous.version + 1
        assert engine.decode_event(engine.encode_event(event)) == event
        seen = check_no_leak(engine, seats, previous, event, nxt, seen)
        previous = nxt
    state = None
    commands = 0
    for state, seat, command, events, after in random_game(engine, seats, seed, options):
        commands += 1
        legal = engine.legal_commands(state, seat)
        assert command in legal
        for other in rng.sample(legal, min(4, len(legal))):
            assert assert_rejects_cleanly(engine, state, seat, other), f"legal {other!r} was rejected"
        if commands % 7 == 1:
            for odd in random_commands(engine, rng, 6, legal):
                assert_rejects_cleanly(engine, state, seat, odd)
            prompt = engine.prompt(state)
            for other_seat in range(seats):
                if prompt is not None and other_seat not in prompt.seats:
                    outside = engine.legal_commands(state, other_seat)  # commands outside any prompt, if any
                    for other in outside:
                        assert assert_rejects_cleanly(engine, state, other_seat, other), f"legal {other!r} rejected"
                    if command in outside:
                        continue
                    try:
                        engine.decide(state, other_seat, command)
                    except RuleViolation:
                        pass
                    else:
                        raise AssertionError(f"seat {other_seat} played out of turn")
        assert engine.encode_command(command) == engine.encode_command(
            engine.decode_command(engine.encode_command(command))
        )
        step = previous
        for event in events:
            assert engine.decode_event(engine.encode_event(event)) == event
            nxt = engine.evolve(step, event)
            assert nxt.version == step.version + 1
            seen = check_no_leak(engine, seats, step, event, nxt, seen)
            step = nxt
        assert engine.encode_state(step) == engine.encode_state(after)
        all_events.extend(events)
        previous = after
        state = after
    assert state is not None and engine.is_over(state)
    assert engine.legal_commands(state, 0) == []
    replayed = engine.replay(all_events)
    assert engine.encode_state(replayed) == engine.encode_state(state)
    assert engine.decode_state(engine.encode_state(state)) == state
    assert replayed.version == len(all_events)
    scores = engine.final_scores(state)
    assert sorted(r.seat for r in scores.results) == list(range(seats))
    ranks = [r.rank for r in scores.results]
    assert ranks == sorted(ranks) and ranks[0] == 1
    for better, worse in zip(scores.results, scores.results[1:], strict=False):
        if better.rank == worse.rank:
            assert better.score == worse.score
    msgspec.json.encode(scores)
    return state


def random_game(
    engine: Engine, seats: int, seed: int, options: dict[str, Any] | None = None
) -> Iterator[tuple[Any, int, Any, list[Any], Any]]:
    """Plays a random game, yielding (state, seat, command, events, next state) per command."""
    rng = random.Random(seed)
    events = engine.start(GameConfig(seats=seats, seed=seed, options=options or {}))
    state = engine.replay(events)
    bot = RandomBot()
    for _ in range(engine.playout_bound):
        prompt = engine.prompt(state)
        if prompt is None:
            return
        seat = rng.choice(prompt.seats)
        command = bot.choose(engine, state, seat, rng)
        new_events = engine.decide(state, seat, command)
        after = engine.fold(state, new_events)
        yield state, seat, command, new_events, after
        state = after
    raise AssertionError(f"{engine.game_type}: no end within {engine.playout_bound} commands")
