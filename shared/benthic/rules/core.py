"""The engine contract every game implements, and the pieces all engines share.

A game is a decider: ``decide(state, seat, command) -> events`` and ``evolve(state, event) -> state``,
pure and deterministic, over immutable-by-convention msgspec Structs.  The rest of the API
(``prompt``, ``legal_commands``, ``view``, ``redact``, ``final_scores``) is what services, bots and
tests drive.  See ``docs/ENGINE_CONTRACT.md`` for the rules every engine must keep.

No I/O, no asyncio, no Redis here or in any engine.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import random
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

import msgspec

from benthic.rules.presentation import Description, Message, Sentences, sentences_from

_SENTENCES: dict[str, Sentences | None] = {}  # game_type@version -> its sentence templates

__all__ = [
    "AnyEngine",
    "Bot",
    "CommandFormatError",
    "ContentPackUnavailable",
    "Engine",
    "EngineVersionUnsupported",
    "FinalScores",
    "GameConfig",
    "GameNotSupported",
    "PackRef",
    "Prompt",
    "RuleViolation",
    "SeatResult",
    "Secret",
    "rng_for",
    "reads_no_content",
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


class GameNotSupported(Exception):
    """A recorded game this process cannot fold: never fold it with other rules or other data.  Services
    answer 503 with ``code`` (another replica, or the next release, may support it) and count it."""

    code = "game_not_supported"

    def __init__(self, game_type: str, message: str) -> None:
        super().__init__(f"{self.code}: {message}")
        self.game_type = game_type
        self.message = message


class EngineVersionUnsupported(GameNotSupported):
    """Events recorded by an engine version this engine neither is nor can upcast from."""

    code = "engine_version_unsupported"

    def __init__(self, game_type: str, recorded: int, supported: range) -> None:
        super().__init__(
            game_type,
            f"the game's events were recorded by {game_type} engine version {recorded}; this engine reads "
            f"versions {supported.start}..{supported.stop - 1}",
        )
        self.recorded = recorded


class ContentPackUnavailable(GameNotSupported):
    """A game recorded with a content pack that is not installed here (or fails validation)."""

    code = "content_pack_unavailable"

    def __init__(self, game_type: str, key: str, message: str) -> None:
        super().__init__(game_type, message)
        self.key = key


class PackRef(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A content pack as a game records it: id and version (``benthic.rules.packs``)."""

    id: str
    version: str

    @property
    def key(self) -> str:
        return f"{self.id}@{self.version}"


class GameConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a game is started with.  ``options`` holds the game's modes and rule flags by their spec names,
    and ``content`` the content pack a game asks for (``"id"`` or ``"id@version"``, default: the built-in
    pack).  The base class resolves that option and hands the engine's ``start`` the chosen pack as
    ``config.content``, with ``content`` removed from ``options``."""

    seats: int
    seed: int = 0
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    content: PackRef | None = None


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
    """A player program.  ``choose`` is handed the true state but decides only from what ``seat`` may see:
    ``engine.determinize(state, seat, rng)`` and the seat's legal commands (``benthic.rules.bots``)."""

    name: str

    def choose(self, engine: AnyEngine, state: Any, seat: int, rng: random.Random) -> Any: ...


S = TypeVar("S")  # the engine's state Struct
C = TypeVar("C")  # its command Structs (a tagged Union)
E = TypeVar("E")  # its event Structs (a tagged Union)
R = TypeVar("R")

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]  # one event's JSON form, version v -> version v + 1


class ContentPacks(Protocol):
    """What the base class needs of a game's content packs (``benthic.rules.packs.PackSet``)."""

    key: str  # the pack in use

    def resolve(self, option: object) -> PackRef: ...

    def key_of(self, state: Any, event: Any = None) -> str: ...

    def run(self, key: str, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> R: ...


def reads_no_content(method: Callable[..., R]) -> Callable[..., R]:
    """Mark an engine method taking a state that reads nothing of the content pack (``is_over``): the base
    class leaves it as it is instead of running it in the state's pack."""
    setattr(method, "_reads_no_content", True)  # noqa: B010 (mypy: a Callable declares no such attribute)
    return method


class Engine(ABC, Generic[S, C, E]):
    """Base class of every game engine: ``class MyEngine(Engine[MyState, MyCommand, MyEvent])``.

    Subclasses set the class attributes and implement the twelve abstract methods (the decider, the prompt,
    legal commands, what leaves the engine, scores, the bots' heuristic and determinization); the codecs,
    ``replay``, ``fold`` and ``is_over`` are shared.  Every state Struct has an int field ``version``: the number
    of events folded into it.
    """

    game_type: ClassVar[str]
    version: ClassVar[str]  # the snapshot key, e.g. "nautilus/2": snapshots made under another are ignored
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    command_type: ClassVar[Any]  # typing.Union of the command Structs (tag field "type")
    event_type: ClassVar[Any]  # typing.Union of the event Structs (tag field "type")
    state_type: ClassVar[type[Any]]
    # A Struct describing the JSON ``view`` returns (the read API documents it; tests check views against it).
    view_type: ClassVar[Any] = None
    playout_bound: ClassVar[int] = 20_000  # commands a complete random-bot game never exceeds
    # The version of the rules and of the events' meaning: recorded with every event the engine produces.
    # Bump it when replaying recorded events would change a state, a view or a score, and add the upcaster
    # turning events of the previous version into events of this one (docs/UPGRADES.md).
    engine_version: ClassVar[int] = 1
    upcasters: ClassVar[Mapping[int, Upcaster]] = {}  # from version v to v + 1
    content_packs: ClassVar[ContentPacks | None] = None  # None: the engine has no content packs
    # The events that reveal nothing: no card drawn, dealt or shown, nothing shuffled, rolled or flipped, nothing
    # hidden seen, no turn ended and no decision passed to another seat.  A seat may take back (undo) a commit made
    # of these events only (docs/ENGINE_CONTRACT.md, Undo).  Every event not named here reveals: a new event is
    # not undoable until its engine says so.
    events_revealing_nothing: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """With content packs: every public method taking a state runs with that state's pack in use, and
        ``start`` with the pack ``options.content`` asks for (see ``benthic.rules.packs``)."""
        super().__init_subclass__(**kwargs)
        if inspect.isfunction(vars(cls).get("prompt")):
            cls.prompt = _last_state_memo(vars(cls)["prompt"])  # type: ignore[method-assign]
        packs = cls.content_packs
        if packs is None:
            return
        for name, member in list(vars(cls).items()):
            if name.startswith("_") or not inspect.isfunction(member) or hasattr(member, "_reads_no_content"):
                continue
            params = list(inspect.signature(member).parameters)[1:]
            if name == "start":
                setattr(cls, name, _start_in_pack(member, packs))
            elif params and params[0] == "state":
                setattr(cls, name, _in_pack(member, packs, event_param=name == "evolve"))

    def __init__(self) -> None:
        self._command_decoder: msgspec.json.Decoder[C] = msgspec.json.Decoder(self.command_type)
        self._event_decoder: msgspec.json.Decoder[E] = msgspec.json.Decoder(self.event_type)
        self._state_decoder: msgspec.msgpack.Decoder[S] = msgspec.msgpack.Decoder(self.state_type)
        self._json = msgspec.json.Encoder()
        self._msgpack = msgspec.msgpack.Encoder()
        self._command_tags = frozenset(_tags(self.command_type))

    # --- the decider -------------------------------------------------------------------------
    @abstractmethod
    def start(self, config: GameConfig) -> list[E]:
        """The setup events of a new game; every random outcome is recorded in them.
        Raises RuleViolation (``invalid_player_count``, ``invalid_option``, ...) for a bad config."""

    @abstractmethod
    def initial_state(self) -> S:
        """The state before any event (version 0)."""

    @abstractmethod
    def evolve(self, state: S, event: E) -> S:
        """Pure: the state after ``event``.  Never uses an RNG; never mutates ``state``."""

    @abstractmethod
    def decide(self, state: S, seat: int, command: C) -> list[E]:
        """The events ``command`` by ``seat`` produces, or RuleViolation.  Never mutates ``state``."""

    @abstractmethod
    def prompt(self, state: S) -> Prompt | None:
        """Who must decide what now; None when the game is over."""

    @abstractmethod
    def legal_commands(self, state: S, seat: int) -> list[C]:
        """Every legal command of ``seat`` now (empty when it is not prompted); each accepted by decide."""

    # --- what leaves the engine --------------------------------------------------------------
    @abstractmethod
    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        """The state as ``seat`` may see it (None: a spectator), JSON-ready."""

    @abstractmethod
    def redact(self, event: E, seat: int | None) -> dict[str, Any] | None:
        """The event as ``seat`` may see it, JSON-ready, or None when that viewer sees nothing of it."""

    @abstractmethod
    def secrets(self, state: S) -> list[Secret]:
        """Every piece of hidden information in ``state`` (for the leak tests)."""

    @abstractmethod
    def determinize(self, state: S, seat: int, rng: random.Random) -> S:
        """A full, legal state that ``seat`` cannot tell from ``state``: every component hidden from it
        (other hands, deck orders, face-down chips, the seed, other seats' pending secret choices ...)
        resampled with ``rng`` within the public constraints (counts, card backs).  A function of what ``seat``
        may see and of ``rng`` only: two states that differ only in what is hidden from ``seat`` give the same
        state (and leave ``rng`` in the same state).  ``view(result, seat) == view(state, seat)``.  Bots decide
        from it, never from the true state."""

    @abstractmethod
    def final_scores(self, state: S) -> FinalScores:
        """Per-seat scores, ranks and breakdowns of a finished game."""

    def is_over(self, state: S) -> bool:
        return self.prompt(state) is None

    # --- bots --------------------------------------------------------------------------------
    @abstractmethod
    def heuristic(self, state: S, seat: int) -> float:
        """How good ``state`` looks for ``seat`` (higher is better); used by the greedy bot."""

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

    def describe(self, state: S, command: C, seat: int | None = None) -> Description:
        """``command`` of ``seat`` (default: the one prompted seat) as a person reads it: a short label and
        the catalogue ids it concerns.  Uses only what ``seat`` may see; meant for that seat's legal commands.
        This default writes the command's name and arguments."""
        from benthic.rules.presentation import generic_description

        return generic_description(self.command_name(command), self.command_to_builtins(command))

    def describe_all(self, state: S, commands: Sequence[C], seat: int | None = None) -> list[Description]:
        """``describe`` of each command (engines may share work between them)."""
        return [self.describe(state, command, seat) for command in commands]

    def sentence(self, shown: dict[str, Any]) -> Message | None:
        """The history line of an event as a person reads it ("{seat} built ..."), made only from
        ``shown`` (the event as ``redact`` gave it to one viewer, so it tells no more than the viewer may
        see), or None for an event without one.  Seats are :class:`SeatRef` params.  This default uses
        :meth:`sentences`."""
        sentences = self.sentences()
        return sentences.sentence(shown) if sentences is not None else None

    def sentences(self) -> Sentences | None:
        """The game's sentence templates: ``sentences.json`` beside the engine's module (read once), or None."""
        key = f"{self.game_type}@{self.version}"
        if key not in _SENTENCES:
            module = sys.modules[type(self).__module__].__file__ or ""
            path = os.path.join(os.path.dirname(module), "sentences.json")
            _SENTENCES[key] = (sentences_from(msgspec.json.decode(open(path, "rb").read()), self.catalogue(),
                                              self.place_names())
                               if os.path.exists(path) else None)
        return _SENTENCES[key]

    def place_names(self) -> Mapping[str, Message | str]:
        """id -> name of the places (board sites ...) whose ids events carry, for the sentences' ``places``
        placeholders: named as the labels name them.  This default names none (ids are written as they are)."""
        return {}

    def reveals(self, event: E) -> bool:
        """Whether ``event`` reveals anything to anyone (or is random, or passes the decision on): then the commit
        holding it can no longer be taken back."""
        return self.event_name(event) not in self.events_revealing_nothing

    # --- shared machinery --------------------------------------------------------------------
    def replay(self, events: Iterable[E]) -> S:
        state = self.initial_state()
        for event in events:
            state = self.evolve(state, event)
        return state

    def fold(self, state: S, events: Iterable[E]) -> S:
        for event in events:
            state = self.evolve(state, event)
        return state

    @property
    def command_names(self) -> frozenset[str]:
        return self._command_tags

    def decode_command(self, raw: bytes | str | Mapping[str, Any]) -> C:
        """A command from its JSON form; CommandFormatError when it is not one."""
        try:
            if isinstance(raw, Mapping):
                # Through JSON, not msgspec.convert: 20-30x faster on the command union, same checks and errors.
                return self._command_decoder.decode(self._json.encode(raw))
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
        except TypeError as exc:  # a mapping holding what JSON cannot (only from Python callers)
            raise CommandFormatError("malformed_command", f"not a JSON value: {exc}") from None

    def encode_command(self, command: C) -> bytes:
        return self._json.encode(command)

    def command_to_builtins(self, command: C) -> dict[str, Any]:
        """The command's JSON form as Python values (arrays as lists), as a client posts it."""
        return cast(dict[str, Any], msgspec.json.decode(self._json.encode(command)))

    def encode_event(self, event: E) -> bytes:
        return self._json.encode(event)

    def decode_event(self, raw: bytes | str, engine_version: int | None = None) -> E:
        """An event from its JSON, recorded by ``engine_version`` (None: this one), upcast to this version.
        EngineVersionUnsupported when this engine cannot read that version."""
        if engine_version is None or engine_version == self.engine_version:
            return self._event_decoder.decode(raw)
        if engine_version not in self.readable_versions:
            raise EngineVersionUnsupported(self.game_type, engine_version, self.readable_versions)
        data = msgspec.json.decode(raw)
        for version in range(engine_version, self.engine_version):
            data = self.upcasters[version](data)
        return cast(E, msgspec.convert(data, self.event_type))

    @property
    def readable_versions(self) -> range:
        """The engine versions whose events this engine folds: its own and those its upcasters reach."""
        oldest = self.engine_version
        while oldest - 1 in self.upcasters:
            oldest -= 1
        return range(oldest, self.engine_version + 1)

    def encode_state(self, state: S) -> bytes:
        return self._msgpack.encode(state)

    def decode_state(self, raw: bytes) -> S:
        return self._state_decoder.decode(raw)

    def event_name(self, event: E) -> str:
        return _tag(event)

    def command_name(self, command: C) -> str:
        return _tag(command)


AnyEngine = Engine[Any, Any, Any]  # an engine of any game, as the services, bots and tests hold one


def _last_state_memo(method: Callable[..., R]) -> Callable[..., R]:
    """``prompt`` of the state it was last asked about, kept: a service asks it of one new state several times
    (the answer, each seat's turn, the lobby card).  States are immutable by convention, and the memo holds the
    state, so its identity cannot be reused by another."""

    @functools.wraps(method)
    def memoized(self: AnyEngine, state: Any) -> R:
        last = self.__dict__.get("_last_prompt")
        if last is not None and last[0] is state:
            return last[1]  # type: ignore[no-any-return]
        result = method(self, state)
        self.__dict__["_last_prompt"] = (state, result)
        return result

    return memoized


def _in_pack(method: Callable[..., R], packs: ContentPacks, event_param: bool) -> Callable[..., R]:
    """``method`` run with its state's pack in use (``evolve``, ``event_param``: on the first event, the pack the
    event names): the content-pack dispatch of every engine.  A state of the pack in use costs one identity
    test (the states and the pack set intern their keys)."""
    if event_param:  # evolve: the first event of a game names its pack

        @functools.wraps(method)
        def evolve_in_pack(self: AnyEngine, state: Any, event: Any) -> R:
            if state.content is packs.key:
                return method(self, state, event)
            return packs.run(packs.key_of(state, event), method, self, state, event)

        return evolve_in_pack

    @functools.wraps(method)
    def in_pack(self: AnyEngine, state: Any, *args: Any, **kwargs: Any) -> R:
        if state.content is packs.key:
            return method(self, state, *args, **kwargs)
        return packs.run(packs.key_of(state), method, self, state, *args, **kwargs)

    return in_pack


def _start_in_pack(method: Callable[..., R], packs: ContentPacks) -> Callable[..., R]:
    @functools.wraps(method)
    def start_in_pack(self: AnyEngine, config: GameConfig) -> R:
        options = dict(config.options)
        ref = packs.resolve(options.pop("content", None))
        return packs.run(ref.key, method, self, msgspec.structs.replace(config, options=options, content=ref))

    return start_in_pack


def _tag(struct: Any) -> str:
    return str(type(struct).__struct_config__.tag)


def _tags(union: Any) -> Sequence[str]:
    info = msgspec.inspect.type_info(union)
    types = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
    return [t.tag for t in types if isinstance(t, msgspec.inspect.StructType) and isinstance(t.tag, str)]


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
