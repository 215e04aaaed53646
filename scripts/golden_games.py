"""Record or check the golden games (tests/golden/<game>/v<N>.jsonl.gz; docs/UPGRADES.md says when to record).

    python scripts/golden_games.py check [--game nautilus ...]
    python scripts/golden_games.py generate [--game nautilus ...]     the corpus of the current engine version
    PYTHONPATH=<old checkout>/shared python scripts/golden_games.py generate --legacy
                                                                      a small corpus with an older engine

Recording is deterministic: an unchanged engine records byte-identical files.  Never record again to make a
failing check pass: a check that fails means the engine now plays recorded games differently (docs/UPGRADES.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "golden"


def _golden() -> Any:
    """benthic/game/golden.py of this checkout, by path: with --legacy, ``benthic`` is an older checkout's."""
    spec = importlib.util.spec_from_file_location("benthic_golden", ROOT / "shared" / "benthic" / "golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


BOTS = (("random",), ("greedy",), ("greedy", "random"))  # per seat, cycled


def _bots(index: int, seats: int) -> tuple[str, ...]:
    pattern = BOTS[index % len(BOTS)]
    return tuple(pattern[s % len(pattern)] for s in range(seats))


NAUTILUS_OPTIONS: list[dict[str, Any]] = [
    {}, {"auto_pass": False}, {"allow_withdraw_in_place": False}, {"tiebreak": "most_nemo"},
    {"assignment_cashing": "auto_optimal"}, {"base_placement": "random"}, {"start_seat": 1},
    {"base_placement": [9, 12], "auto_pass": False, "tiebreak": "most_nemo"},
]
UC_OPTIONS: list[dict[str, Any]] = [
    {}, {"board_side": "advanced"}, {"government_contracts": True},
    {"rules": {"usability_check": "card_aware"}},
    {"rules": {"pair_bonus_per_pair": True, "a14_allow_biomatter": True}},
    {"rules": {"federation_start_small": "compensate_last", "tunnel_pair_both_adjacent": False}},
    {"rules": {"solo_symbiotic_limit": 7}},
    {"rules": {"discard_pile_public": False, "known_special_hand_cards_public": False, "draw3_min_deck": 3}},
]
AQUATICA_OPTIONS: list[dict[str, Any]] = [
    {}, {"printing": "updated"}, {"mode": "advanced"}, {"mode": "advanced", "printing": "updated"},
    {"use_kings": False}, {"manta_once_per_turn": "all", "grabber_typed_chain": True},
    {"scout_rule": "updated", "matrona_never_discarded": True, "two_player_matrona_row_discard": True},
    {"solo_trigger": "matrona_or_scout", "solo_ranks": "updated", "printed_goals": "updated"},
    {"variable_goals": True, "first_seat": 0}, {"max_rounds": 3},
]
# Options of engine version 2 (a version-1 engine refuses them): not in the legacy corpus.
AQUATICA_V2_OPTIONS: list[dict[str, Any]] = [
    {"healer_replays": True},
    {"printing": "updated", "components": "first", "healer_replays": True},
    {"mode": "advanced", "goal_tokens": [{"token": "TOK6", "side": "back"}, {"token": "TOK2", "side": "front"},
                                         {"token": "TOK4", "side": "front"}, {"token": "TOK1", "side": "back"}]},
]
SEATS = {"nautilus": (2, 3, 4), "underwater_cities": (1, 2, 3, 4), "aquatica": (1, 2, 3, 4)}
REPEATS = {"nautilus": 3, "underwater_cities": 2, "aquatica": 2}  # games per (options, seats)


def cases(game: str, legacy: bool) -> list[Any]:
    golden = _golden()
    options = {"nautilus": NAUTILUS_OPTIONS, "underwater_cities": UC_OPTIONS,
               "aquatica": AQUATICA_OPTIONS + ([] if legacy else AQUATICA_V2_OPTIONS)}[game]
    out = []
    for o, opts in enumerate(options):
        for seats in SEATS[game]:
            if legacy and (o + seats) % 3:  # the legacy corpus: a third of the combinations, once each
                continue
            for _ in range(1 if legacy else REPEATS[game]):
                n = len(out)
                out.append(golden.Case(f"{game}/{seats}p/o{o}/{n}", game, seats, 1000 + n, opts, _bots(n, seats)))
    if not legacy:  # the second content pack (tests/variant_packs.py), every seat count once
        for seats in SEATS[game]:
            n = len(out)
            out.append(golden.Case(f"{game}/{seats}p/variant/{n}", game, seats, 1000 + n,
                                   {"content": "test-variant"}, _bots(n, seats)))
    return out


def install_variants(directory: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from benthic.rules.packs import set_directories
    from tests.variant_packs import build_variant

    for game in SEATS:
        build_variant(game, directory)
    set_directories([directory])


def generate(games: list[str], legacy: bool) -> None:
    from benthic.rules import GameConfig, RuleViolation, get_engine

    golden = _golden()
    with tempfile.TemporaryDirectory() as packs:
        if not legacy:
            install_variants(Path(packs))
        for game in games:
            engine = get_engine(game)
            version = golden.engine_version_of(engine)
            lines = []
            started = time.perf_counter()
            for case in cases(game, legacy):
                try:
                    engine.start(GameConfig(seats=case.seats, seed=case.seed, options=dict(case.options)))
                except RuleViolation:
                    continue  # a combination the game does not allow (e.g. contracts in solo)
                lines.append(golden.record(case, digests=not legacy))
            path = CORPUS / game / f"v{version}.jsonl.gz"
            golden.write(path, lines)
            print(f"{path.relative_to(ROOT)}: {len(lines)} games, {path.stat().st_size / 1024:.0f} KiB, "
                  f"{time.perf_counter() - started:.0f} s")


def check(games: list[str]) -> int:
    golden = _golden()
    failures = 0
    with tempfile.TemporaryDirectory() as packs:
        install_variants(Path(packs))
        for game in games:
            for path in golden.corpus_files(CORPUS, game):
                started = time.perf_counter()
                lines = list(golden.read(path))
                for line in lines:
                    for problem in golden.check(line):
                        failures += 1
                        print(f"{path.relative_to(ROOT)} {line['id']}: {problem}")
                print(f"{path.relative_to(ROOT)}: {len(lines)} games checked in {time.perf_counter() - started:.1f} s")
    return 1 if failures else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["generate", "check"])
    parser.add_argument("--game", action="append", default=[], choices=sorted(SEATS))
    parser.add_argument("--legacy", action="store_true", help="record with an older engine: events and scores")
    args = parser.parse_args()
    games = args.game or list(SEATS)
    if args.action == "generate":
        generate(games, args.legacy)
    else:
        raise SystemExit(check(games))


if __name__ == "__main__":
    main()
