"""Views exist only where a viewer could have seen them: every version of every seeded game, for every viewer.

The games are the golden corpus (tests/golden: seeded games of every game type, seat count and content pack,
recorded by every engine version), each as the platform records it: its setup one commit, each decision's events
one commit.  Each game is read at **every** version V as the read API answers ``?at=V`` (the version
``benthic.game.commits.commit_span`` says it shows, the state folded to it by ``fold_envelopes`` and rendered by
``readmodel.view_at``, as both the Redis and the archive reads do), for every viewer (each seat and the
spectator), and checked with the engine's own ``secrets``: the answer shows no token hidden from that viewer at
both the boundaries around V, the ends of the commit before V's and of V's own (at V itself when V ends its
commit; at the first commit's end for a version of the setup), unless the commit's events, as the viewer reads
them in the history, show it.  A viewer knows what its live views at those two versions and that history showed,
and nothing else; a state between two events of one commit may be half-applied (the engine
contract's "What view may assume"), so rendering one is how a hidden card shows, and this finds every such
state of every engine that a read would render.  (Before the read API answered a version inside a commit with
the view at the commit's end, it found 548 such reads in the corpus, every one between the two events of an
Underwater Cities draw of three special cards: issue 33.)

The boundary views are also checked on their own (no token hidden from the viewer at that version, in the view
or the prompt's details), and every event of the history as each viewer reads it (``redact``) by the leak rule
of docs/ENGINE_CONTRACT.md: no token hidden from the viewer both before and after it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from benthic.game import golden
from benthic.game.commits import commit_span
from benthic.game.events import Envelope
from benthic.game.gamestate import Folded, fold_envelopes
from benthic.rules import get_engine
from benthic.rules.packs import set_directories
from benthic.views.readmodel import view_at
from tests.engine_harness import strings_in
from tests.variant_packs import build_variant

CORPUS = Path(__file__).resolve().parents[1] / "golden"
FILES = golden.corpus_files(CORPUS)
_json = msgspec.json.Encoder()
_STRING = re.compile(rb'"([^"\\]*)"')


@pytest.fixture(scope="module", autouse=True)
def variant_packs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The corpus has games of the second content pack (tests/variant_packs.py)."""
    directory = tmp_path_factory.mktemp("packs")
    for game in sorted({path.parent.name for path in FILES}):
        build_variant(game, directory)
    set_directories([directory])
    yield
    set_directories([])


def recorded_stream(engine: Any, line: dict[str, Any]) -> list[Envelope]:
    """The game's stream as the command service appends it: the setup events one commit, then one commit per
    decision (its command id and time shared by its events)."""
    starts = [int(d[0]) for d in line["decisions"]]
    seats = {int(d[0]): int(d[1]) for d in line["decisions"]}
    envelopes = []
    commit, seat = 0, None
    for index, event in enumerate(line["events"]):
        if index in seats:
            commit, seat = starts.index(index) + 1, seats[index]
        data = _json.encode(event)
        envelopes.append(Envelope(version=index + 1, type=str(event["type"]), data=data, command_id=f"cmd-{commit}",
                                  seat=seat, ts_ms=1000 + commit, engine_version=int(line["engine_version"])))
    return envelopes


class Sweep:
    """One game read at every version by every viewer; ``leaks`` collects what should not have been seen."""

    def __init__(self, line: dict[str, Any]) -> None:
        self.line = line
        self.engine = get_engine(line["game_type"])
        self.viewers: list[int | None] = [None, *range(int(line["seats"]))]
        self.envelopes = recorded_stream(self.engine, line)
        self.leaks: list[str] = []
        self.versions = 0
        self.inside = 0  # versions between two events of one commit
        self.views = 0

    def answer(self, folded: Folded, viewer: int | None) -> set[str]:
        """The strings of the view the read API answers at ``folded.version``."""
        self.views += 1
        return json_strings(view_at(self.engine, self.line["id"], folded, "finished", self.line["options"],
                                    len(self.viewers) - 1, viewer))

    def hidden(self, state: Any) -> dict[int | None, set[str]]:
        """Per viewer, the tokens of the engine's secrets hidden from it in ``state``."""
        secrets = self.engine.secrets(state)
        return {viewer: {s.token for s in secrets if viewer is None or viewer not in s.visible_to}
                for viewer in self.viewers}

    def run(self) -> None:
        engine, envelopes = self.engine, self.envelopes
        folded = Folded(0, engine.initial_state())
        hidden_before: dict[int | None, set[str]] | None = None  # at the end of the commit before (None: none)
        first = 1
        while first <= len(envelopes):
            _, last = commit_span(envelopes, first)
            commit = envelopes[first - 1:last]
            states = self._states_within(folded, commit)  # version -> state, every event of the commit
            end = fold_envelopes(engine, folded, commit)
            assert engine.encode_state(end.state) == engine.encode_state(states[last])
            hidden = {version: self.hidden(state) for version, state in states.items()}
            hidden_end = hidden[last]
            told = self._check_history(states, hidden, commit)
            answers: dict[tuple[int, int | None], set[str]] = {}
            for version in range(first, last + 1):
                self.versions += 1
                self.inside += version != last
                span_first, shown = commit_span(envelopes, version)
                assert span_first == first and shown <= last, (version, span_first, shown)
                at = end if shown == last else Folded(shown, states[shown], folded.life)
                for viewer in self.viewers:
                    if (shown, viewer) not in answers:
                        answers[(shown, viewer)] = self.answer(at, viewer)
                    then = hidden_end[viewer]
                    if version != last and hidden_before is not None:
                        then = (then & hidden_before[viewer]) - told[viewer]
                    if leaked := sorted(answers[(shown, viewer)] & then):
                        self.leaks.append(f"{self.line['id']}: ?at={version} (commit {first}-{last}, the view of "
                                          f"version {shown}) shows {viewer} {leaked[:4]}")
            prompt = engine.prompt(end.state)
            details = json_strings(msgspec.json.encode(prompt.details)) if prompt else set()
            for viewer in self.viewers:
                if leaked := sorted(details & hidden_end[viewer]):
                    self.leaks.append(f"{self.line['id']}: the prompt at {last} shows {viewer} {leaked[:4]}")
            folded, hidden_before, first = end, hidden_end, last + 1

    def _states_within(self, folded: Folded, commit: list[Envelope]) -> dict[int, Any]:
        states = {folded.version: folded.state}
        state = folded.state
        for envelope in commit:
            state = self.engine.evolve(state, self.engine.decode_event(envelope.data, envelope.engine_version))
            states[envelope.version] = state
        return states

    def _check_history(self, states: dict[int, Any], hidden: dict[int, dict[int | None, set[str]]],
                       commit: list[Envelope]) -> dict[int | None, set[str]]:
        """Check the commit's events as each viewer reads them in the history; returns what they tell each."""
        engine = self.engine
        told: dict[int | None, set[str]] = {viewer: set() for viewer in self.viewers}
        for envelope in commit:
            event = engine.decode_event(envelope.data, envelope.engine_version)
            for viewer in self.viewers:
                shown = engine.redact(event, viewer)
                if shown is None:
                    continue
                then = hidden[envelope.version][viewer]
                if envelope.version > 1:  # the first event: nothing was hidden before it
                    then = then & hidden[envelope.version - 1][viewer]
                strings = strings_in(shown)
                told[viewer] |= strings
                if leaked := strings & then:
                    self.leaks.append(f"{self.line['id']}: {envelope.type} at {envelope.version} redacted for "
                                      f"{viewer} shows {sorted(leaked)[:4]}")
        return told


def json_strings(body: bytes) -> set[str]:
    """The strings (values and keys) of a JSON body that need no escape, as every token does (an id)."""
    return set(map(bytes.decode, _STRING.findall(body)))


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}-{p.name.split('.')[0]}" for p in FILES])
def test_no_version_of_a_seeded_game_shows_a_viewer_what_is_hidden_from_it(path: Path) -> None:
    started = time.perf_counter()
    games = versions = inside = reads = views = 0
    leaks: list[str] = []
    for line in golden.read(path):
        sweep = Sweep(line)
        sweep.run()
        games += 1
        versions += sweep.versions
        inside += sweep.inside
        reads += sweep.versions * len(sweep.viewers)
        views += sweep.views
        leaks.extend(sweep.leaks)
    assert games > 0 and inside > 0
    print(f"{path.parent.name} {path.name}: {games} games, {versions} versions ({inside} inside a commit), "
          f"{reads} (version, viewer) reads answered by {views} views, {time.perf_counter() - started:.1f} s")
    assert leaks == [], f"{len(leaks)} leaks:\n" + "\n".join(leaks[:20])
