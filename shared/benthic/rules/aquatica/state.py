"""The game state: small frozen Structs and tuples, built anew by ``evolve`` (sharing unchanged parts).

Where a decision is pending is not stored as such: the prompt is derived from the state (``prompts.py``):
the head of ``queue`` (the effect being resolved), an open ``payment``, a running ``scout``, a pending
Ichthyander placement, the King draft offer, or else the active seat's ``turn``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from benthic.rules.aquatica.content import catalog
from benthic.rules.aquatica.effects import Effect
from benthic.rules.aquatica.options import Rules

Phase = Literal["setup", "king_selection", "play", "ended"]
Stage = Literal["before_main", "main", "after_main"]
BOARD_SLOTS = catalog().board.player_board_slots
ROW_SLOTS = len(catalog().board.character_row_costs)
ICHTHYANDERS = -1  # the seat recorded on a goal-track spot held by an Ichthyander Manta


class _S(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pass


class BoardLocation(_S, frozen=True):
    location_id: str
    covered: int = 0


class Manta(_S, frozen=True):
    id: str
    kind: str
    ready: bool = True


class TrackSpot(_S, frozen=True):
    seat: int  # ICHTHYANDERS for the solo rival
    manta_id: str


class Player(_S, frozen=True):
    seat: int
    symbol: str
    hand: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()  # bottom -> top; the last card is the public top card
    board: tuple[BoardLocation | None, ...] = (None,) * BOARD_SLOTS
    scored: tuple[str, ...] = ()  # the Scoring Pile
    mantas: tuple[Manta, ...] = ()  # the reserve: owned Mantas not on a goal track
    king_id: str | None = None
    king_number: int = 0
    king_revealed: bool = False  # its identity is public (Basic assignment, played, exchanged)
    max_paid_recruit_cost: int | None = None  # the highest cost paid for a recruit (§5.4 recruit)


class Source(_S, frozen=True):
    """Where an effect comes from (§5.5): a card in play, a Depth of a Location, or a Manta."""

    kind: Literal["card", "depth", "manta"]
    id: str
    slot: int | None = None  # the board slot, for a Depth
    replay: bool = False  # a card replayed from the discard pile (§11 Q2), not the card in play


class QueueItem(_S, frozen=True):
    effect: Effect
    source: Source
    owner: int


class Payment(_S, frozen=True):
    """An open payment (§5.6): an acquisition (Buy / Conquer) or a paid recruit."""

    purpose: Literal["acquire", "recruit"]
    resource: Literal["coins", "power"]
    cost: int
    committed: int = 0
    target_type: str | None = None  # the Location type of a Conquer
    location_id: str | None = None
    slot: int | None = None
    mode: str | None = None
    from_row: str | None = None
    row_slot: int | None = None
    card_id: str | None = None
    depths_used: tuple[str, ...] = ()  # Locations that gave a resource Depth to this payment


class ScoutProgress(_S, frozen=True):
    discarded_top: tuple[str, ...] = ()
    discarded_bottom: tuple[str, ...] = ()


class TypedPower(_S, frozen=True):
    location_type: str
    amount: int


class State(_S, frozen=True):
    version: int = 0
    seed: int = 0
    content: str = ""  # the key id@version of the game's content pack ("" before the first event)
    rules: Rules = Rules()
    seats: int = 0
    first_seat: int = 0
    phase: Phase = "setup"
    players: tuple[Player, ...] = ()
    # Locations (§3.3, §6.10)
    location_deck: tuple[str, ...] = ()  # top first; hidden
    top_row: tuple[str, ...] = ()
    bottom_row: tuple[str, ...] = ()
    location_discard: tuple[str, ...] = ()
    # Ocean Characters (§6.5)
    ocean_deck: tuple[str, ...] = ()  # top first; hidden
    character_row: tuple[str | None, ...] = (None,) * ROW_SLOTS
    removed_characters: tuple[str, ...] = ()  # out of the game, public
    # Kings (§4 step 7)
    king_offer: tuple[str, ...] = ()
    king_offer_seat: int = -1
    kings_boxed: tuple[str, ...] = ()  # never revealed
    # Goals (§6.17) and the Ichthyanders (§6.19)
    goals: tuple[str, ...] = ()
    goal_tokens: tuple[str, ...] = ()
    tokens_boxed: tuple[str, ...] = ()
    tracks: tuple[tuple[TrackSpot, ...], ...] = ()
    ichthyanders: tuple[str, ...] = ()  # not yet placed
    ichthyander_pending: bool = False
    wild_reserve: tuple[int, ...] = ()  # per Wild kind, in content order
    # the turn (§5.2)
    active_seat: int = 0
    turn_number: int = 0
    stage: Stage = "before_main"
    pool_coins: int = 0
    pool_power: int = 0
    pool_typed: tuple[TypedPower, ...] = ()
    in_play: str | None = None
    replaying: tuple[str, ...] = ()  # cards replayed from the discard pile, innermost last (§11 Q2)
    queue: tuple[QueueItem, ...] = ()
    head_progress: int = 0  # Locations scored / cards taken back by the head effect so far
    answered: tuple[int, ...] = ()  # opponents who answered the head's simultaneous prompt
    payment: Payment | None = None
    scout: ScoutProgress | None = None
    resource_depth_used: tuple[str, ...] = ()
    resource_mantas_used: tuple[str, ...] = ()
    effect_mantas_used: tuple[str, ...] = ()
    # the end (§8.1)
    end_reason: str | None = None
    end_trigger_turn: int = 0
    final_turns_remaining: int = 0
