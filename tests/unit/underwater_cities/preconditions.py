"""What must hold of the state an event is applied to (issue 36): an event never acts on a piece, card, site or
resource that is no longer there.  The property tests check it for every event of their random playouts, so a
step that was decided before some other step ran (a deferred step) and acts on what that step changed shows
here, whatever the prompt it came from."""

from __future__ import annotations

from typing import Any

from benthic.rules.underwater_cities import events as ev
from benthic.rules.underwater_cities.board import covers
from benthic.rules.underwater_cities.effects import STRUCTURE_KINDS
from benthic.rules.underwater_cities.state import GameState
from benthic.rules.underwater_cities.usability import action_cards, side_slots


def check_event_applies(state: GameState, event: Any) -> None:
    """Raises AssertionError when ``event`` acts on something ``state`` no longer has."""
    seat = getattr(event, "seat", None)
    player = state.players[seat] if isinstance(seat, int) and 0 <= seat < len(state.players) else None
    if isinstance(event, ev.Built):
        assert player is not None and event.site not in player.pieces, f"built on occupied {event.site}"
    elif isinstance(event, ev.Upgraded):
        assert player is not None
        piece = player.pieces.get(event.site)
        assert piece is not None and piece.kind in STRUCTURE_KINDS, f"upgraded no structure at {event.site}"
        assert not piece.upgraded, f"upgraded {event.site} a second time"
        assert covers(player.res, event.paid), f"upgrade of {event.site} not affordable"
    elif isinstance(event, ev.UpgradeSkipped):
        assert player is not None and event.site in player.pieces
    elif isinstance(event, ev.CityConverted):
        assert player is not None and player.pieces.get(event.site) is not None
        assert player.pieces[event.site].kind == "city_nonsym", f"converted no nonsymbiotic city at {event.site}"
    elif isinstance(event, (ev.ResourcesPaid, ev.FinalPurchase)):
        assert player is not None and covers(player.res, event.paid), f"paid {event.paid} out of {player.res}"
    elif isinstance(event, (ev.CardsDiscarded, ev.CardsDiscardedEarly)):
        assert player is not None and set(event.card_ids) <= set(player.hand), "discarded cards not in the hand"
    elif isinstance(event, ev.CardPlayed):
        assert player is not None and (event.card_id in player.hand or (not event.card_id and not player.hand))
    elif isinstance(event, (ev.CardClaimed, ev.CardUnderBoard, ev.CardDiscarded, ev.ClaimDeclined,
                            ev.ActionLimitReached)):
        turn = state.turn
        assert turn is not None and turn.card_id == event.card_id and not turn.card_done, "the played card moved"
    elif isinstance(event, ev.ActionCardUsed):
        if event.via == "use_action":
            assert player is not None and event.card_id in action_cards(player)
            assert event.card_id not in player.used_actions, f"{event.card_id} used twice"
    elif isinstance(event, ev.ActionCardRestored):
        assert player is not None and event.card_id in player.used_actions
    elif isinstance(event, ev.ActionCardDiscarded):
        assert player is not None and event.card_id in action_cards(player)
    elif isinstance(event, ev.ContractClaimed):
        assert event.contract_id in state.open_contracts, f"{event.contract_id} claimed twice"
    elif isinstance(event, ev.SpecialTaken):
        if event.route == "row":
            assert state.special_row[event.row_index - 1] == event.card_id
        elif event.route == "deck_top":
            assert state.special_deck[:1] == (event.card_id,)
    elif isinstance(event, ev.MetropolisGained):
        assert event.tile_id in state.box_metros
    elif isinstance(event, ev.TilePlaced) and side_slots(state)[event.slot_id].colour is not None:
        tiles = state.slots.get(event.slot_id, ())
        assert event.seat not in tiles and (event.clone or not tiles), f"{event.slot_id} is occupied"
