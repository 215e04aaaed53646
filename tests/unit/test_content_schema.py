"""The published JSON Schemas of content packs (docs/content-packs/schema/) and ``benthic content``.

The schemas are generated from the msgspec Structs the engines decode the files into; the committed copies must
match them (regenerate with ``benthic content schema GAME --out docs/content-packs/schema``).  The built-in and
the test variant packs validate against them with an independent validator (jsonschema), and a file that breaks
the schema is refused by both that validator and the engine's loader.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from benthic.game import content
from benthic.rules.packs import MANIFEST, PackError, schema_file_name
from tests.variant_packs import build_variant

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "docs" / "content-packs" / "schema"
GAMES = list(content.pack_sets())


def _validator(game: str, data_file: str) -> Any:
    schema = json.loads((PUBLISHED / game / schema_file_name(data_file)).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize("game", GAMES)
def test_published_schemas_are_the_generated_ones(game: str) -> None:
    generated = content.schemas(game)
    published = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in (PUBLISHED / game).glob("*.json")}
    assert published == generated, f"regenerate: benthic content schema {game} --out docs/content-packs/schema"


@pytest.mark.parametrize("game", GAMES)
def test_built_in_and_variant_packs_validate_against_the_published_schemas(game: str, tmp_path: Path) -> None:
    packs = content.pack_sets()[game]
    for folder in (packs.builtin.path, build_variant(game, tmp_path)):
        for name in (MANIFEST, *packs.files):
            data = json.loads((folder / name).read_text(encoding="utf-8"))
            errors = [e.message for e in _validator(game, name).iter_errors(data)]
            assert errors == [], (folder, name, errors[:3])


@pytest.mark.parametrize("game", GAMES)
def test_a_file_breaking_the_schema_fails_the_schema_and_the_loader(game: str, tmp_path: Path) -> None:
    packs = content.pack_sets()[game]
    folder = build_variant(game, tmp_path)
    for name in packs.files:
        data = json.loads((folder / name).read_text(encoding="utf-8"))
        data["data_version" if "data_version" in data else next(iter(data))] = {"a number": "where a value goes"}
        data["an_unknown_field"] = 1
        broken = tmp_path / f"broken-{name}"
        broken.mkdir()
        for other in (MANIFEST, *packs.files):
            (broken / other).write_bytes((folder / other).read_bytes())
        (broken / name).write_text(json.dumps(data), encoding="utf-8")
        assert not _validator(game, name).is_valid(data), name
        with pytest.raises(PackError, match=name.removesuffix(".json")):
            packs.check(broken)


def _cli(*args: str, dirs: list[Path] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BENTHIC_CONTENT_DIRS": os.pathsep.join(str(d) for d in dirs or [])}
    return subprocess.run([sys.executable, "-m", "benthic.cli", "content", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


def test_cli_lists_validates_and_publishes(tmp_path: Path) -> None:
    packs_dir = tmp_path / "packs"
    packs_dir.mkdir()
    variants = [build_variant(game, packs_dir) for game in GAMES]
    listed = _cli("list", "--json", dirs=[packs_dir])
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    keys = {(r["game"], r["key"], r["default"], r["valid"]) for r in rows}
    for game in GAMES:
        assert (game, "benthic-proposed@1.0.0", True, True) in keys
        assert (game, "test-variant@2.1.0", False, True) in keys

    good = _cli("validate", *map(str, variants))
    assert good.returncode == 0 and good.stdout.count("is valid") == len(GAMES), good.stdout + good.stderr

    bad = variants[0]
    data_file = next(iter(content.pack_sets()[GAMES[0]].files))
    (bad / data_file).write_text("{}", encoding="utf-8")
    refused = _cli("validate", str(bad), str(tmp_path / "nowhere"))
    assert refused.returncode == 1 and "is invalid" in refused.stderr and "pack.json" in refused.stderr
    listed_bad = _cli("list", dirs=[packs_dir])
    assert listed_bad.returncode == 1 and "INVALID" in listed_bad.stdout

    out = tmp_path / "schema"
    written = _cli("schema", GAMES[0], "--out", str(out))
    assert written.returncode == 0
    assert {p.name for p in (out / GAMES[0]).iterdir()} == set(content.schemas(GAMES[0]))
    unknown = _cli("schema", "chess")
    assert unknown.returncode == 2 and "chess" in unknown.stderr
