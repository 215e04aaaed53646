"""Content packs: a game's printed components (cards, tiles, boards, tables) as data.

A pack is a folder holding a manifest, ``pack.json`` (game, pack id, version, title, licence note), and the
game's data files.  Each data file is decoded into the msgspec Structs the engine runs on (the published
JSON Schema of a file is generated from those same Structs, so decoding is validation against it) and then
checked by the engine's load-time rules (exact counts, cross-references ...).  The engine reads its
components from the pack and nothing else: there is no second copy of the data in code.

Each engine ships its components as the built-in pack, the default.  A platform adds packs from directories
(``set_directories``; the services read ``BENTHIC_CONTENT_DIRS``) and a game chooses one with the option
``content`` (``"id"``: the newest installed version of that pack, or ``"id@version"``).  The pack's id and
version are recorded in the game's first setup event, so every game replays with its own pack even after
the default changes.

How the engine code reaches the data: engine modules hold one *live* object per game (``CONTENT``,
``content()``, ``catalog()``), whose attributes are those of the pack in use.  The ``Engine`` base class
switches it to the pack a state records on entry to every method that takes a state, and back on exit
(``PackSet.use``); switching costs a few hundred nanoseconds and happens only when a call concerns a game
of another pack than the one in use.  Engine calls for games of different packs must therefore not run at
the same time in several threads of one process (the services call the engines from one event loop).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Generic, TypeVar

import msgspec

from benthic.rules.core import ContentPackUnavailable, PackRef, RuleViolation

MANIFEST = "pack.json"
ARCHIVE = "archive"  # <built-in pack>/archive/<version>/: earlier versions of the built-in pack, still installed
# Every game recorded before content packs existed (engine version 1) used this pack.
LEGACY = PackRef("benthic-proposed", "1.0.0")
FORMAT = 1  # the data format of this release's engines (a pack names the format its files follow)
PACK_ID = r"^[a-z0-9][a-z0-9._-]{0,63}$"
PACK_VERSION = r"^[0-9]+\.[0-9]+\.[0-9]+$"

T = TypeVar("T")
R = TypeVar("R")


class PackError(ValueError):
    """A pack whose manifest or data breaks the schema or a load-time check of its engine."""


class Manifest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``pack.json``: what a pack is, for which game, and under which licence."""

    game: Annotated[str, msgspec.Meta(description="The game type the pack is for, e.g. `nautilus`.")]
    id: Annotated[str, msgspec.Meta(pattern=PACK_ID, description="The pack's id, chosen with options.content.")]
    version: Annotated[str, msgspec.Meta(pattern=PACK_VERSION, description="major.minor.patch of the data.")]
    title: Annotated[str, msgspec.Meta(min_length=1, description="A human name for the pack.")]
    licence: Annotated[str, msgspec.Meta(min_length=1, description="Who owns the data, under which terms.")]
    format: Annotated[int, msgspec.Meta(ge=1, description="The engine data format the files follow.")] = FORMAT
    description: str = ""

    @property
    def ref(self) -> PackRef:
        return PackRef(self.id, self.version)


@dataclass(frozen=True)
class PackInfo:
    """An installed pack: its manifest, where it is, and whether it is the built-in one."""

    manifest: Manifest
    path: Path
    builtin: bool

    @property
    def key(self) -> str:
        return self.manifest.ref.key


# --- the directories a platform adds packs from ---------------------------------------------------------------

_directories: tuple[Path, ...] = ()
_generation = 0  # bumped whenever the directories change: every PackSet rescans


def set_directories(paths: Iterable[str | Path]) -> None:
    """The directories extra packs are found in: each is a pack folder or holds pack folders (one level)."""
    global _directories, _generation
    _directories = tuple(Path(p).expanduser().resolve() for p in paths if str(p).strip())
    _generation += 1


def directories() -> tuple[Path, ...]:
    return _directories


def read_manifest(folder: Path) -> Manifest:
    try:
        return msgspec.json.decode((folder / MANIFEST).read_bytes(), type=Manifest)
    except OSError as exc:
        raise PackError(f"{folder / MANIFEST}: {exc.strerror or exc}") from None
    except msgspec.DecodeError as exc:  # also a ValidationError
        raise PackError(f"{folder / MANIFEST}: {exc}") from None


def pack_folders(directory: Path) -> list[Path]:
    """``directory`` itself when it is a pack, else its immediate sub-folders that are packs."""
    if (directory / MANIFEST).is_file():
        return [directory]
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if (p / MANIFEST).is_file())


def version_order(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


# --- one game's packs -----------------------------------------------------------------------------------------


class PackSet(Generic[T]):
    """The content packs of one game: discovery, loading (validated, cached), choice and the live object.

    ``load(folder)`` builds the engine's content object from a pack folder (raising PackError, or the engine's
    own ContentError, on bad data); ``files`` maps each data file of a pack to the msgspec type its JSON
    decodes into (the source of its published JSON Schema); ``schema_hook`` may adjust a generated schema to
    what the raw files accept (e.g. aliases the loader expands).
    """

    def __init__(
        self,
        game: str,
        builtin: Path,
        load: Callable[[Path], T],
        files: Mapping[str, Any],
        schema_hook: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.game = game
        self.files = dict(files)
        self._load = load
        self._schema_hook = schema_hook
        manifest = read_manifest(builtin)
        if manifest.game != game:
            raise PackError(f"{builtin}: the built-in pack of {game} says it is for {manifest.game}")
        self.builtin = PackInfo(manifest, builtin, builtin=True)
        self.default_ref = manifest.ref
        default = load(builtin)
        self._loaded: dict[str, T] = {self.builtin.key: default}
        self._failed: dict[str, str] = {}
        self._installed: dict[str, PackInfo] = {}
        self._rejected: list[tuple[Path, str]] = []
        self._scanned = -1
        # The object the engine's modules hold: it shares the attribute dict of the pack in use.
        self.live: T = object.__new__(type(default))
        self.key = sys.intern(self.builtin.key)
        self.live.__dict__ = default.__dict__

    # --- which packs exist ----------------------------------------------------------------------------------
    def installed(self) -> dict[str, PackInfo]:
        """Every pack of this game by key ``id@version``: the built-in one, then those of the directories."""
        if self._scanned != _generation:
            self._scan()
        return self._installed

    def rejected(self) -> list[tuple[Path, str]]:
        """Pack folders of the directories that could not be installed for this game, with the reason."""
        self.installed()
        return list(self._rejected)

    def _scan(self) -> None:
        installed = {self.builtin.key: self.builtin}
        rejected: list[tuple[Path, str]] = []
        archive = self.builtin.path / ARCHIVE
        for directory in (archive, *_directories):
            for folder in pack_folders(directory):
                try:
                    manifest = read_manifest(folder)
                except PackError as error:
                    rejected.append((folder, str(error)))
                    continue
                if manifest.game != self.game:
                    continue
                key = manifest.ref.key
                if key in installed:
                    rejected.append((folder, f"{key} is already installed from {installed[key].path}"))
                    continue
                installed[key] = PackInfo(manifest, folder.resolve(), builtin=directory == archive)
        self._installed, self._rejected, self._scanned = installed, rejected, _generation
        for key in [k for k in self._loaded if k not in installed]:
            del self._loaded[key]
        self._failed.clear()

    def resolve(self, option: object) -> PackRef:
        """The pack a new game asks for with ``options.content`` (None: the default)."""
        if option is None:
            return self.default_ref
        installed = self.installed()
        if not isinstance(option, str) or not option:
            raise RuleViolation("unknown_content_pack", f"content packs: `content` is a pack id or id@version, "
                                                        f"not {option!r}")
        pack_id, _, version = option.partition("@")
        candidates = [info for info in installed.values() if info.manifest.id == pack_id]
        if version:
            candidates = [info for info in candidates if info.manifest.version == version]
        if not candidates:
            known = ", ".join(sorted(installed)) or "none"
            raise RuleViolation("unknown_content_pack", f"content packs: no pack {option!r} is installed for "
                                                        f"{self.game}; installed: {known}")
        chosen = max(candidates, key=lambda info: version_order(info.manifest.version))
        try:
            self.get(chosen.key)
        except ContentPackUnavailable as error:
            raise RuleViolation("invalid_content_pack", f"content packs: {error.message}") from None
        return chosen.manifest.ref

    # --- loading --------------------------------------------------------------------------------------------
    def get(self, key: str) -> T:
        """The loaded content of an installed pack; ContentPackUnavailable when it is missing or invalid."""
        installed = self.installed()  # first: a changed directory list may have removed the pack
        content = self._loaded.get(key)
        if content is not None:
            return content
        info = installed.get(key)
        if info is None:
            raise ContentPackUnavailable(self.game, key, f"the {self.game} content pack {key} is not installed")
        if key in self._failed:
            raise ContentPackUnavailable(self.game, key, self._failed[key])
        try:
            content = self.check(info.path, info.manifest)
        except PackError as error:
            self._failed[key] = f"the {self.game} content pack {key} is invalid: {error}"
            raise ContentPackUnavailable(self.game, key, self._failed[key]) from None
        self._loaded[key] = content
        return content

    def check(self, folder: Path, manifest: Manifest | None = None) -> T:
        """Load and validate the pack in ``folder`` (its manifest, every data file, the engine's checks)."""
        manifest = manifest or read_manifest(folder)
        if manifest.game != self.game:
            raise PackError(f"{folder / MANIFEST}: a pack for {manifest.game}, not {self.game}")
        if manifest.format != FORMAT:
            raise PackError(f"{folder / MANIFEST}: data format {manifest.format}; this engine reads format {FORMAT}")
        missing = sorted(name for name in self.files if not (folder / name).is_file())
        if missing:
            raise PackError(f"{folder}: missing data files {missing}")
        try:
            return self._load(folder)
        except PackError:
            raise
        except (ValueError, OSError) as error:  # the engine's ContentError is a ValueError
            raise PackError(str(error)) from None

    # --- the pack in use ------------------------------------------------------------------------------------
    def key_of(self, state: Any, event: Any = None) -> str:
        """The pack of ``state`` (its ``content`` field); before the first event, the pack the event names."""
        key: str = state.content
        if not key and event is not None:
            ref = getattr(event, "content", None)
            if isinstance(ref, PackRef):
                key = ref.key
        return key or self.key_of_default

    @property
    def key_of_default(self) -> str:
        return self.builtin.key

    def run(self, key: str, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> R:
        """``fn(*args, **kwargs)`` with pack ``key`` in use, then the previous pack again."""
        if key == self.key:
            return fn(*args, **kwargs)
        previous = self.key
        self.use(key)
        try:
            return fn(*args, **kwargs)
        finally:
            self.use(previous)

    def use(self, key: str) -> None:
        """Make the live object the content of pack ``key`` ("" is the default pack)."""
        if not key:
            key = self.builtin.key
        if key == self.key:
            return
        content = self.get(key)
        self.live.__dict__ = content.__dict__
        self.key = sys.intern(key)

    # --- the published JSON Schema --------------------------------------------------------------------------
    def schemas(self) -> dict[str, dict[str, Any]]:
        """The JSON Schema of ``pack.json`` and of every data file, generated from the Structs they decode into."""
        out = {MANIFEST: manifest_schema()}
        for name, typ in self.files.items():
            schema = msgspec.json.schema(typ)
            if self._schema_hook is not None:
                schema = self._schema_hook(schema)
            schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                      "title": f"{self.game} content pack: {name}", **schema}
            out[name] = schema
        return out


def manifest_schema() -> dict[str, Any]:
    schema = msgspec.json.schema(Manifest)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "content pack manifest", **schema}


def schema_file_name(data_file: str) -> str:
    return re.sub(r"\.json$", "", data_file) + ".schema.json"
