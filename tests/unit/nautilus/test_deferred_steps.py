"""The steps of a dive re-check what they need when they come (issue 36): a sub-prompt a recovery pushes (Tempo
move, Trial peeks, Atlantis bonus) is never queued behind another one, and each of its commands is checked
against the state the steps before it left (spec §5.5.1: "every later check in the turn uses the new values")."""

from __future__ import annotations

import pytest

from benthic.rules.nautilus import commands as cmd
from benthic.rules.nautilus import events as ev
from tests.unit.nautilus.fixtures import VIOLET, one, ref18
from tests.unit.nautilus.preconditions import check_event_applies

Bonus = cmd.BonusMoveResearcher


def test_the_atlantis_bonus_move_pays_its_fee_from_what_the_recovery_left() -> None:
    game = ref18(chips={(11, 20): "S04"}, phase=3, seat=VIOLET)
    game.sub(VIOLET, 1, (10, 20))
    game.set_nemo(VIOLET, 1)
    events = game.do(VIOLET, cmd.MoveSub(sub=1, to=(11, 20)))
    assert one(events, ev.FindRecovered).cost == 1 and game.nemo(VIOLET) == 0
    assert game.prompt.kind == "atlantis_bonus"
    assert game.reject(VIOLET, Bonus(from_="green_01", to="analysis_1")) == "insufficient_funds"  # Orange's station
    assert Bonus(from_="green_01", to="analysis_1") not in game.legal(VIOLET)
    assert any(isinstance(c, Bonus) for c in game.legal(VIOLET))  # a free move is still offered


def test_the_precondition_check_sees_a_researcher_moved_from_where_it_is_not() -> None:
    game = ref18(phase=3, seat=VIOLET)
    check_event_applies(game.state, ev.ResearcherMoved(seat=VIOLET, from_="green_01", to="analysis_1", steps=2,
                                                       path=(), source="atlantis_bonus"))
    with pytest.raises(AssertionError):
        check_event_applies(game.state, ev.ResearcherMoved(seat=VIOLET, from_="base", to="analysis_1", steps=2,
                                                           path=(), source="atlantis_bonus"))
