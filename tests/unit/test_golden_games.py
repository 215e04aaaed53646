"""Golden games (docs/UPGRADES.md): the recorded corpus of every game type replays exactly.

Games of the current engine version: every recorded decision decides exactly its recorded events, and every
state, every view at the checkpoints and the final scores are identical (``benthic.game.golden``).  Games of older
engine versions fold through the upcasters and end with the same final scores.  Never record the corpus again
to make this test pass (scripts/golden_games.py says when one may).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from benthic.game import golden
from benthic.rules import EngineVersionUnsupported, GameConfig, get_engine
from benthic.rules.packs import set_directories
from tests.games import BUILT_IN
from tests.variant_packs import build_variant

CORPUS = Path(__file__).resolve().parents[1] / "golden"
FILES = golden.corpus_files(CORPUS)
GAMES = list(BUILT_IN)  # every built-in game has a corpus (a new one fails below until it is recorded)


@pytest.fixture(scope="module", autouse=True)
def variant_packs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The corpus has games of the second content pack (tests/variant_packs.py)."""
    directory = tmp_path_factory.mktemp("packs")
    for game in GAMES:
        build_variant(game, directory)
    set_directories([directory])
    yield
    set_directories([])


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}-{p.name.split('.')[0]}" for p in FILES])
def test_the_golden_games_replay_exactly(path: Path) -> None:
    version = int(path.name[1:].split(".")[0])
    problems = []
    count = 0
    for line in golden.read(path):
        count += 1
        assert line["engine_version"] == version and line["game_type"] == path.parent.name
        problems.extend(f"{line['id']}: {p}" for p in golden.check(line))
    assert count > 0
    assert problems == [], "\n".join(problems[:20])


@pytest.mark.parametrize("game", GAMES)
def test_each_game_has_a_corpus_of_its_engine_version_covering_its_seats_and_packs(game: str) -> None:
    engine = get_engine(game)
    lines = list(golden.read(CORPUS / game / f"v{engine.engine_version}.jsonl.gz"))
    assert len(lines) >= 50
    assert {line["seats"] for line in lines} == set(range(engine.min_seats, engine.max_seats + 1))
    assert any(line["options"].get("content") == "test-variant" for line in lines)
    assert all("expected" in line and line["decisions"] for line in lines)
    assert (CORPUS / game / "v1.jsonl.gz").is_file(), "games recorded by engine version 1 (before the upgrade)"


def test_the_corpus_stays_small() -> None:
    assert sum(path.stat().st_size for path in FILES) < 4 * 1024 * 1024


def test_engine_versions_outside_what_the_upcasters_reach_are_refused() -> None:
    for game in GAMES:
        engine = get_engine(game)
        assert engine.readable_versions == range(1, engine.engine_version + 1)
        event = engine.encode_event(engine.start(GameConfig(seats=2, seed=1))[0])
        for version in (0, engine.engine_version + 1):
            with pytest.raises(EngineVersionUnsupported) as refused:
                engine.decode_event(event, version)
            assert refused.value.code == "engine_version_unsupported" and str(version) in refused.value.message


@pytest.mark.parametrize("game", GAMES)
def test_version_1_games_need_their_upcaster(game: str) -> None:
    engine = get_engine(game)
    line = next(golden.read(CORPUS / game / "v1.jsonl.gz"))
    first = msgspec.json.encode(line["events"][0])
    with pytest.raises(msgspec.ValidationError):
        engine.decode_event(first)  # read as this version's event, the first one lacks its content pack
    assert engine.decode_event(first, 1).content.key == "benthic-proposed@1.0.0"


def test_the_golden_check_finds_changes() -> None:
    line = next(golden.read(CORPUS / "nautilus" / "v2.jsonl.gz"))
    assert golden.check(line) == []
    changed_score = copy.deepcopy(line)
    changed_score["final_scores"]["results"][0]["score"] += 1
    assert any("final scores" in p for p in golden.check(changed_score))
    changed_state = copy.deepcopy(line)
    started = changed_state["events"][0]
    started["starting_nemo"] += 1  # every later state differs
    assert any("states differ" in p for p in golden.check(changed_state))
    changed_decision = copy.deepcopy(line)
    changed_decision["decisions"][0][1] = (changed_decision["decisions"][0][1] + 1) % line["seats"]
    assert any("is refused now" in p for p in golden.check(changed_decision))
    changed_event = copy.deepcopy(line)
    index = line["decisions"][-1][0]
    changed_event["events"][index] = changed_event["events"][index - 1]
    assert any("decides other events" in p for p in golden.check(changed_event))
    changed_views = copy.deepcopy(line)
    changed_views["expected"]["views"] = "0" * 32
    assert golden.check(changed_views) == ["the views differ"]
    future = copy.deepcopy(line)
    future["engine_version"] = get_engine("nautilus").engine_version + 1
    assert "newer than this engine" in golden.check(future)[0]
    assert json.loads(json.dumps(line)) == line
