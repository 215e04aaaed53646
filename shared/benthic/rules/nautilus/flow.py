"""Turn order, rounds, end triggers and the end of the game (spec §5.1, §5.6, §5.7, §8.1).

Every function here emits through an ``Emitter`` (``benthic.rules.emitter``), which folds each event at
once, so every later rule check in the same call sees the up-to-date state (new Technology range, Nemo
after a payment ...).
"""

from __future__ import annotations

from benthic.rules import emitter
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.derived import research_points
from benthic.rules.nautilus.scoring import atlantis_awards
from benthic.rules.nautilus.state import State

Emitter = emitter.Emitter[State, ev.Event]

PHASE_PROMPTS = {1: "phase1_turn", 2: "phase2_turn", 3: "phase3_turn"}


def prompt_of(state: State) -> tuple[str, tuple[int, ...]] | None:
    """(prompt kind, prompted seats), or None when the game is over.  Between two events of one decide
    call no seat may be prompted ("pending")."""
    if state.ended:
        return None
    if state.final_scoring:
        return "cash_assignment", tuple(i for i, s in enumerate(state.seats) if s.upgrades is None)
    turn = state.turn
    if turn is None:
        return "pending", ()
    if state.sub_prompt is not None:
        return state.sub_prompt.kind, (turn.seat,)
    return PHASE_PROMPTS[turn.phase], (turn.seat,)


def seat_order(state: State) -> list[int]:
    n = state.player_count
    return [(state.start_seat + i) % n for i in range(n)]


def end_turn(em: Emitter, seat: int, auto: bool) -> None:
    """§5.1: the next seat of the phase, else the next phase, else the end of the round."""
    state = em.state
    assert state.turn is not None
    phase = state.turn.phase
    em.emit(ev.TurnEnded(seat=seat, phase=phase, auto=auto))
    order = seat_order(state)
    position = order.index(seat)
    if position + 1 < len(order):
        em.emit(ev.TurnStarted(round=state.round, phase=phase, seat=order[position + 1]))
    elif phase < 3:
        em.emit(ev.TurnStarted(round=state.round, phase=phase + 1, seat=order[0]))
    else:
        end_round(em)


def end_round(em: Emitter) -> None:
    """§5.6 and §8.1."""
    state = em.state
    r = state.round
    em.emit(
        ev.RoundEnded(
            round=r, bought=state.round_bought, built=state.round_built, recovered=state.round_recovered
        )
    )
    inactive = not (state.round_bought or state.round_built or state.round_recovered)
    if inactive and (state.final_round is None or state.final_round > r):
        em.emit(ev.EndTriggered(trigger="no_activity", final_round=r))
    if em.state.final_round is not None and em.state.final_round <= r:
        start_final_scoring(em)
        return
    start = (state.start_seat + 1) % state.player_count
    em.emit(ev.RoundStarted(round=r + 1, start_seat=start, final_round=em.state.final_round == r + 1))
    em.emit(ev.TurnStarted(round=r + 1, phase=1, seat=start))


def atlantis_went_out(em: Emitter, number: int) -> None:
    """§8.1 triggers, checked the moment an Atlantis chip reaches the tracker (marked or not, R-19)."""
    state = em.state
    out = state.atlantis_out
    if all(out):
        em.emit(ev.EndTriggered(trigger="atlantis_all", final_round=state.round))
    elif number in C.extra_round_numbers and all(out[n - 1] for n in C.extra_round_numbers):
        em.emit(ev.EndTriggered(trigger="atlantis_13_14_15", final_round=state.round + 1))


def start_final_scoring(em: Emitter) -> None:
    em.emit(ev.FinalScoringStarted())
    if em.state.options.assignment_cashing == "auto_optimal":
        for seat in range(em.state.player_count):
            cash(em, seat, optimal_upgrades(em.state, seat), auto=True)


def optimal_upgrades(state: State, seat: int) -> dict[str, int]:
    """§5.7 auto_optimal: upgrade (first kind of the card first) while research points ≥ 2 and Nemo
    remains; each upgrade changes the score by research points − 1."""
    s = state.seats[seat]
    if s.card is None or research_points(state, seat) < 2:
        return {}
    price = C.tables.assignment_upgrade_price
    budget = s.nemo // price
    upgrades = {}
    for kind in C.cards[s.card]:
        n = min(chips_of_kind(s.tableau, kind), budget)
        if n:
            upgrades[kind] = n
            budget -= n
    return upgrades


def chips_of_kind(tableau: tuple[str, ...], kind: str) -> int:
    return sum(1 for chip in tableau if C.chips[chip].kind == kind)


def cash(em: Emitter, seat: int, upgrades: dict[str, int], auto: bool) -> None:
    """Record one seat's special-assignment upgrades; the game ends when every seat has submitted."""
    s = em.state.seats[seat]
    cost = sum(upgrades.values()) * C.tables.assignment_upgrade_price
    em.emit(ev.AssignmentCashed(seat=seat, card=s.card or "", upgrades=upgrades, cost=cost, auto=auto))
    if cost:
        em.emit(ev.NemoTransferred(from_=seat, to="bank", amount=cost, reason="assignment"))
    if all(x.upgrades is not None for x in em.state.seats):
        finish_game(em)


def finish_game(em: Emitter) -> None:
    state = em.state
    em.emit(ev.AtlantisPointsAwarded(awards=atlantis_awards(state)))
    revealed = tuple(
        ev.Placement(cell=C.xy(C.find_space_cell[space]), chip=chip, depth=C.find_space_depth[space])
        for space, chip in enumerate(state.finds)
        if chip
    )
    em.emit(ev.GameEnded(reason=state.end_reason or "no_activity", board_revealed=revealed))
