"""The engine contract every game implements, and the pieces all engines share.

A game is a decider: ``decide(state, seat, command) -> events`` and ``evolve(state, event) -> state``,
pure and deterministic, over immutable-by-convention msgspec Structs.  The rest of the API
(``prompt``, ``legal_commands``, ``view``, ``redact``, ``final_scores``) is what services, bots and
tests drive.  See ``docs/ENGINE_CONTRACT.md`` for the rules every engine must keep.

No I/O, no asyncio, no Redis here or in any engine.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

import msgspec

from benthic.rules.presentation import Description

__all__ = [
    "Bot",
    "CommandFormatError",
    "Engine",
    "FinalScores",
    "GameConfig",
    "Prompt",
    "RuleViolation",
    "SeatResult",
    "Secret",
    "rng_for",
]


class RuleViolation(Exception):
    """A command or configuration the rules do not allow.

    ``code`` is stable and snake_case (the spec's error code); ``message`` is for humans and names the rule.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.message))


class CommandFormatError(ValueError):
    """A command body that is not a well-formed command of this game (HTTP 400, not a rule violation)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class GameConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a game is started with.  ``options`` holds the game's modes and rule flags by their spec names."""

    seats: int
    seed: int = 0
    options: dict[str, Any] = msgspec.field(default_factory=dict)


class Prompt(msgspec.Struct, frozen=True):
    """Who must decide what now.  Public: ``details`` never depends on hidden information."""

    kind: str
    seats: tuple[int, ...]
    details: dict[str, Any] = msgspec.field(default_factory=dict)


class SeatResult(msgspec.Struct, frozen=True):
    seat: int
    score: int
    rank: int  # 1 is best; seats that remain tied after every tie-break share a rank
    breakdown: dict[str, Any] = msgspec.field(default_factory=dict)


class FinalScores(msgspec.Struct, frozen=True):
    results: tuple[SeatResult, ...]  # ordered best first (by rank, then seat)
    details: dict[str, Any] = msgspec.field(default_factory=dict)  # tie-breaks used, solo outcome, ...


class Secret(msgspec.Struct, frozen=True):
    """One piece of hidden information in a state, for the leak checks of the test suite.

    ``token`` is a string that would appear verbatim (as a JSON string value or key) in a view or a redacted
    event that leaked the secret, e.g. the id of a card in a hand or of a face-down chip.  Component ids
    that can be hidden are therefore strings, unique per physical component.  ``visible_to`` lists the
    seats allowed to see it (empty: nobody, e.g. a deck's order).
    """

    token: str
    visible_to: frozenset[int] = frozenset()


def rng_for(seed: int, version: int, salt: str = "") -> random.Random:
    """The RNG ``decide`` (and ``start``, with version 0) must use: a function of the game seed and the
    state version only, so the same command on the same state always gives the same events."""
    digest = hashlib.blake2b(f"{seed}:{version}:{salt}".encode(), digest_size=16).digest()
    return random.Random(int.from_bytes(digest, "big"))


class Bot(Protocol):
    """A player program.  Server-side bots see the true state: they are for demos, load and balance runs."""

    name: str

    def choose(self, engine: Engine, state: Any, seat: int, rng: random.Random) -> Any: ...


class Engine:
    """Base class of every game engine.  Subclasses set the class attributes and implement the methods
    that raise ``NotImplementedError``; the codecs, ``replay`` and ``is_over`` are shared.

    Every state Struct has an int field ``version``: the number of events folded into it.
    """

    game_type: ClassVar[str]
    version: ClassVar[str]  # engine + content version; snapshots made under another version are ignored
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    command_type: ClassVar[Any]  # typing.Union of the command Structs (tag field "type")
    event_type: ClassVar[Any]  # typing.Union of the event Structs (tag field "type")
    state_type: ClassVar[type]
    playout_bound: ClassVar[int] = 20_000  # commands a complete random-bot game never exceeds

    def __init__(self) -> None:
        self._command_decoder = msgspec.json.Decoder(self.command_type)
        self._event_decoder = msgspec.json.Decoder(self.event_type)
        self._state_decoder = msgspec.msgpack.Decoder(self.state_type)
        self._json = msgspec.json.Encoder()
        self._msgpack = msgspec.msgpack.Encoder()
        self._command_tags = frozenset(_tags(self.command_type))

    # --- the decider -------------------------------------------------------------------------
    def start(self, config: GameConfig) -> list[Any]:
        """The setup events of a new game; every random outcome is recorded in them.
        Raises RuleViolation (``invalid_player_count``, ``invalid_option``, ...) for a bad config."""
        raise NotImplementedError

    def initial_state(self) -> Any:
        """The state before any event (version 0)."""
        raise NotImplementedError

    def evolve(self, state: Any, event: Any) -> Any:
        """Pure: the state after ``event``.  Never uses an RNG; never mutates ``state``."""
        raise NotImplementedError

    def decide(self, state: Any, seat: int, command: Any) -> list[Any]:
        """The events ``command`` by ``seat`` produces, or RuleViolation.  Never mutates ``state``."""
        raise NotImplementedError

    def prompt(self, state: Any) -> Prompt | None:
        """Who must decide what now; None when the game is over."""
        raise NotImplementedError

    def legal_commands(self, state: Any, seat: int) -> list[Any]:
        """Every legal command of ``seat`` now (empty when it is not prompted); each accepted by decide."""
        raise NotImplementedError

    # --- what leaves the engine --------------------------------------------------------------
    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """The state as ``seat`` may see it (None: a spectator), JSON-ready."""
        raise NotImplementedError

    def redact(self, event: Any, seat: int | None) -> dict[str, Any] | None:
        """The event as ``seat`` may see it, JSON-ready, or None when that viewer sees nothing of it."""
        raise NotImplementedError

    def secrets(self, state: Any) -> list[Secret]:
        """Every piece of hidden information in ``state`` (for the leak tests)."""
        raise NotImplementedError

    def final_scores(self, state: Any) -> FinalScores:
        """Per-seat scores, ranks and breakdowns of a finished game."""
        raise NotImplementedError

    def is_over(self, state: Any) -> bool:
        return self.prompt(state) is None

    # --- bots --------------------------------------------------------------------------------
    def heuristic(self, state: Any, seat: int) -> float:
        """How good ``state`` looks for ``seat`` (higher is better); used by the greedy bot."""
        raise NotImplementedError

    # --- what people read (benthic.rules.presentation) ----------------------------------------
    def catalogue(self) -> dict[str, Any]:
        """Every component, board, space, track, term and option of the game, JSON-ready, built once from
        the loaded content (shared: never mutate it).  ``catalogue()["content_version"]`` versions it.
        This default (for engines that describe nothing yet) is an empty catalogue."""
        from benthic.rules.presentation import empty_catalogue

        return empty_catalogue(self)

    @property
    def content_version(self) -> str:
        """The engine version plus a digest of the catalogue: changes whenever anything a client draws does."""
        return str(self.catalogue()["content_version"])

    def describe(self, state: Any, command: Any, seat: int | None = None) -> Description:
        """``command`` of ``seat`` (default: the one prompted seat) as a person reads it: a short label and
        the catalogue ids it concerns.  Uses only what ``seat`` may see; meant for that seat's legal commands.
        This default writes the command's name and arguments."""
        from benthic.rules.presentation import generic_description

        return generic_description(self.command_name(command), self.command_to_builtins(command))

    def describe_all(self, state: Any, commands: Sequence[Any], seat: int | None = None) -> list[Description]:
        """``describe`` of each command (engines may share work between them)."""
        return [self.describe(state, command, seat) for command in commands]

    @property
    def bots(self) -> Mapping[str, Bot]:
        from benthic.rules.bots import GreedyBot, RandomBot

        return {"random": RandomBot(), "greedy": GreedyBot()}

    # --- shared machinery --------------------------------------------------------------------
    def replay(self, events: Iterable[Any]) -> Any:
        state = self.initial_state()
        for event in events:
            state = self.evolve(state, event)
        return state

    def fold(self, state: Any, events: Iterable[Any]) -> Any:
        for event in events:
            state = self.evolve(state, event)
        return state

    @property
    def command_names(self) -> frozenset[str]:
        return self._command_tags

    def decode_command(self, raw: bytes | str | Mapping[str, Any]) -> Any:
        """A command from its JSON form; CommandFormatError when it is not one."""
        try:
            if isinstance(raw, Mapping):
                return msgspec.convert(raw, self.command_type)
            return self._command_decoder.decode(raw)
        except msgspec.ValidationError as exc:  # a subclass of DecodeError: catch it first
            tag = _tag_of(raw)
            if tag is None:
                raise CommandFormatError("malformed_command", "a command needs a string field `type`") from None
            if tag not in self._command_tags:
                raise CommandFormatError(
                    "unknown_command_type", f"`{tag}` is not a command of {self.game_type}"
                ) from None
            raise CommandFormatError("malformed_command", f"`{tag}`: {exc}") from None
        except msgspec.DecodeError as exc:
            raise CommandFormatError("invalid_json", f"the body is not valid JSON: {exc}") from None

    def encode_command(self, command: Any) -> bytes:
        return self._json.encode(command)

    def command_to_builtins(self, command: Any) -> dict[str, Any]:
        """The command's JSON form as Python values (arrays as lists), as a client posts it."""
        return msgspec.json.decode(self._json.encode(command))  # type: ignore[no-any-return]

    def encode_event(self, event: Any) -> bytes:
        return self._json.encode(event)

    def decode_event(self, raw: bytes | str) -> Any:
        return self._event_decoder.decode(raw)

    def encode_state(self, state: Any) -> bytes:
        return self._msgpack.encode(state)

    def decode_state(self, raw: bytes) -> Any:
        return self._state_decoder.decode(raw)

    def event_name(self, event: Any) -> str:
        return type(event).__struct_config__.tag  # type: ignore[no-any-return]

    def command_name(self, command: Any) -> str:
        return type(command).__struct_config__.tag  # type: ignore[no-any-return]


def _tags(union: Any) -> Sequence[str]:
    info = msgspec.inspect.type_info(union)
    types = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
    return [t.tag for t in types if isinstance(t, msgspec.inspect.StructType) and t.tag is not None]


def _tag_of(raw: bytes | str | Mapping[str, Any]) -> str | None:
    if not isinstance(raw, Mapping):
        try:
            raw = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            return None
    if isinstance(raw, Mapping):
        tag = raw.get("type")
        return tag if isinstance(tag, str) else None
    return None
