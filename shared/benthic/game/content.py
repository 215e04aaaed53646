"""The platform's side of content packs (``benthic.rules.packs``): install the directories of the settings,
list what is installed, validate a pack folder, and publish the JSON Schemas (``benthic content ...``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benthic.rules import game_types, get_engine
from benthic.rules.packs import MANIFEST, PackError, PackSet, read_manifest, schema_file_name, set_directories
from benthic.runtime.config import Settings


def pack_sets() -> dict[str, PackSet[Any]]:
    """The PackSet of every registered game that has content packs."""
    out: dict[str, PackSet[Any]] = {}
    for game in game_types():
        packs = get_engine(game).content_packs
        if isinstance(packs, PackSet):
            out[game] = packs
    return out


def install(settings: Settings) -> dict[str, Any]:
    """Make the packs of ``BENTHIC_CONTENT_DIRS`` available to every engine; returns what is installed (and
    what was rejected) for the start-up log.  Packs are validated when a game first needs them."""
    set_directories(settings.content_dirs)
    return {
        "content_dirs": list(settings.content_dirs),
        "packs": {game: sorted(packs.installed()) for game, packs in pack_sets().items()},
        "rejected": [f"{folder}: {reason}" for packs in pack_sets().values() for folder, reason in packs.rejected()],
    }


def listing(check: bool = True) -> list[dict[str, Any]]:
    """Every installed pack (and every rejected folder), validated when ``check``."""
    rows: list[dict[str, Any]] = []
    seen_rejected: set[str] = set()
    for game, packs in pack_sets().items():
        for key, info in sorted(packs.installed().items()):
            row: dict[str, Any] = {
                "game": game, "id": info.manifest.id, "version": info.manifest.version, "key": key,
                "title": info.manifest.title, "licence": info.manifest.licence, "path": str(info.path),
                "builtin": info.builtin, "default": key == packs.default_ref.key,
            }
            if check:
                try:
                    packs.get(key)
                    row["valid"] = True
                except Exception as error:  # noqa: BLE001 - reported, not raised
                    row["valid"], row["error"] = False, getattr(error, "message", str(error))
            rows.append(row)
        for folder, reason in packs.rejected():
            if str(folder) not in seen_rejected:
                seen_rejected.add(str(folder))
                rows.append({"path": str(folder), "valid": False, "error": reason})
    return rows


def validate(folder: Path) -> tuple[bool, str]:
    """Validate the pack in ``folder`` against its game's schema and load-time checks: (ok, report)."""
    try:
        manifest = read_manifest(folder)
    except PackError as error:
        return False, str(error)
    packs = pack_sets().get(manifest.game)
    if packs is None:
        return False, f"{folder / MANIFEST}: unknown game {manifest.game!r}; known: {', '.join(pack_sets())}"
    try:
        packs.check(folder, manifest)
    except PackError as error:
        return False, f"{manifest.ref.key} ({manifest.game}) is invalid: {error}"
    return True, f"{manifest.ref.key} ({manifest.game}) is valid: {manifest.title}"


def schemas(game: str) -> dict[str, dict[str, Any]]:
    """The published JSON Schemas of ``game``'s packs, by file name (``<file>.schema.json``)."""
    packs = pack_sets().get(game)
    if packs is None:
        raise KeyError(f"no game {game!r} with content packs; known: {', '.join(pack_sets())}")
    return {schema_file_name(name): json.loads(json.dumps(schema)) for name, schema in packs.schemas().items()}


def write_schemas(out: Path, games: list[str] | None = None) -> list[Path]:
    written: list[Path] = []
    for game in games or list(pack_sets()):
        target = out / game
        target.mkdir(parents=True, exist_ok=True)
        for name, schema in schemas(game).items():
            path = target / name
            path.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            written.append(path)
    return written
