"""What must hold of the state an event is applied to (issue 36): an event never acts on a Location, slot, card
or Manta that is no longer where it acts.  The property tests check it for every event of their playouts, so a
step decided before the effects of a Main action ran (a payment's target, a queued effect) and acting on what
they changed shows here."""

from __future__ import annotations

from typing import Any

from benthic.rules.aquatica import events as ev
from benthic.rules.aquatica.queries import CAT, remaining_depths
from benthic.rules.aquatica.state import State


def check_event_applies(state: State, event: Any) -> None:
    """Raises AssertionError when ``event`` acts on something ``state`` no longer has."""
    seat = getattr(event, "seat", None)
    player = state.players[seat] if isinstance(seat, int) and 0 <= seat < len(state.players) else None
    if isinstance(event, (ev.AcquisitionStarted, ev.LocationAcquired)):
        assert player is not None and player.board[event.slot] is None, f"slot {event.slot} is occupied"
        row = state.top_row if event.from_row == "top" else state.bottom_row
        assert event.location_id in row, f"{event.location_id} left the {event.from_row} row"
    elif isinstance(event, (ev.RecruitStarted, ev.CharacterRecruited)):
        assert state.character_row[event.row_slot] == event.card_id, f"{event.card_id} left row slot {event.row_slot}"
    elif isinstance(event, ev.DepthExploited):
        assert player is not None
        bl = player.board[event.slot]
        assert bl is not None and bl.location_id == event.location_id and bl.covered == event.depth_index
        assert remaining_depths(bl) > 0
    elif isinstance(event, (ev.LocationRaised, ev.LocationScored, ev.LocationFullyRisen)):
        assert player is not None
        bl = player.board[event.slot]
        assert bl is not None and bl.location_id == event.location_id, f"{event.location_id} left slot {event.slot}"
        if isinstance(event, ev.LocationRaised):
            assert bl.covered < event.covered_after <= len(CAT.locations[bl.location_id].depths)
        elif isinstance(event, ev.LocationScored):
            assert remaining_depths(bl) == 0, f"{event.location_id} scored before it is fully risen"
    elif isinstance(event, ev.MantaFlipped):
        assert player is not None and any(m.id == event.manta_id and m.ready for m in player.mantas), \
            f"{event.manta_id} is not a ready Manta of the reserve"
    elif isinstance(event, ev.GoalClaimed):
        assert player is not None and any(m.id == event.manta_id for m in player.mantas)
        assert all(spot.seat != event.seat for spot in state.tracks[event.goal_index]), "a goal claimed twice"
    elif isinstance(event, ev.WildMantaGained):
        assert state.wild_reserve[CAT.wild_index[event.kind]] > 0, f"no {event.kind} left in the reserve"
    elif isinstance(event, (ev.CharacterPlayed, ev.CardDiscarded)):
        assert player is not None and event.card_id in player.hand, f"{event.card_id} is not in the hand"
    elif isinstance(event, (ev.CardsTakenBack, ev.CardReplayed)):
        ids = event.card_ids if isinstance(event, ev.CardsTakenBack) else (event.card_id,)
        assert player is not None and all(player.discard.count(c) >= ids.count(c) for c in ids), \
            "a card taken back is not in the discard pile"
    elif isinstance(event, (ev.CardToDiscard, ev.CardReturnedToHand, ev.CardRemovedFromGame)):
        assert state.in_play == event.card_id, f"{event.card_id} is not the card in play"
    elif isinstance(event, ev.LocationDiscarded):
        assert event.location_id in state.top_row + state.bottom_row
