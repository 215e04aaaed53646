"""Who a game's integration event goes to by webhook: the players of a turn's seats, every seated player at the
game's end; bots get nothing.  One choice for both ends: the projection's write copies an event to the notifier's
stream when one of these players is registered, and the notifier delivers it to these players."""

from __future__ import annotations

from collections.abc import Iterable

from benthic.feed.integration import GameFinished, IntegrationEvent, TurnStarted
from benthic.store import GameMeta
from benthic.trust.identity import is_bot_player_id


def webhook_players(meta: GameMeta, event: IntegrationEvent) -> list[str]:
    """The players ``event`` goes to, each once, in seat order (none for another type of event)."""
    if isinstance(event, TurnStarted):
        seats: Iterable[int] = event.seats
    elif isinstance(event, GameFinished):
        seats = range(len(meta.seats))
    else:
        return []
    holders = (meta.seats[s] if 0 <= s < len(meta.seats) else None for s in seats)
    return list(dict.fromkeys(h.player_id for h in holders if h is not None and not is_bot_player_id(h.player_id)))
