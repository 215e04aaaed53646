"""``start``: the setup events of spec §4.  Every random outcome (first seat, shuffles, goal-token sides)
comes from ``rng_for(seed, 0)`` and is recorded in an event."""

from __future__ import annotations

from typing import Any

from benthic.rules.aquatica import events as ev
from benthic.rules.aquatica.content import PACKS
from benthic.rules.aquatica.decide import Tx, finish_setup
from benthic.rules.aquatica.evolve import evolve
from benthic.rules.aquatica.options import resolve_options
from benthic.rules.aquatica.queries import CAT
from benthic.rules.aquatica.state import ROW_SLOTS, State
from benthic.rules.core import GameConfig, RuleViolation, rng_for
from benthic.rules.emitter import Emitter

MIN_SEATS, MAX_SEATS = 1, 4


def start(config: GameConfig) -> list[Any]:
    seats = config.seats
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise RuleViolation("invalid_player_count", f"§1 / §4: Aquatica is for 1-4 players, not {seats}")
    rules = resolve_options(dict(config.options), seats)
    rng = rng_for(config.seed, 0)
    tx: Tx = Emitter(State(), evolve)
    tx.emit(ev.GameCreated(seats, dict(config.options), rules, config.seed, config.content or PACKS.default_ref))

    if rules.first_seat is None:  # R28
        first, source = rng.randrange(seats), "random"
    else:
        first, source = rules.first_seat, "config"
    order = tuple((first + k) % seats for k in range(seats))
    tx.emit(ev.SeatsAssigned(order, source))  # type: ignore[arg-type]

    components = CAT.setup.components[rules.components]  # Q4: the printing's Ocean sets and goal tokens
    marks = components.ocean_sets_removed[str(seats)]
    removed, kept = CAT.ocean_cards(rules.components, seats)
    tx.emit(ev.OceanSetsRemoved(marks, removed))
    ocean = list(kept)
    rng.shuffle(ocean)
    tx.emit(ev.DeckShuffled("ocean", tuple(ocean)))
    for slot in range(ROW_SLOTS):
        tx.emit(ev.CharacterRowFilled(slot, ocean[slot]))

    locations = list(CAT.location_ids)
    rng.shuffle(locations)
    tx.emit(ev.DeckShuffled("locations", tuple(locations)))
    tx.emit(ev.LocationsDealt("bottom", tuple(locations[: CAT.board.bottom_row_size])))

    if rules.variable_goals and rules.goal_tokens:  # Q8: the players chose tokens and sides, in track order
        chosen = [choice.token for choice in rules.goal_tokens]
        goals = tuple(getattr(CAT.tokens[c.token], c.side) for c in rules.goal_tokens)
        tx.emit(ev.GoalsSet(goals, tuple(chosen)))
    elif rules.variable_goals:  # R17: random tokens, random sides, in draw order
        tokens = list(components.goal_tokens)
        rng.shuffle(tokens)
        sides = tuple(rng.choice(("front", "back")) for _ in tokens)
        tx.emit(ev.DeckShuffled("goal_tokens", tuple(tokens), sides))  # type: ignore[arg-type]
        chosen = tokens[: CAT.board.goal_tracks]
        goals = tuple(getattr(CAT.tokens[t], side) for t, side in zip(chosen, sides, strict=False))
        tx.emit(ev.GoalsSet(goals, tuple(chosen)))
    else:
        tx.emit(ev.GoalsSet(getattr(CAT.goal_data.printed, rules.printed_goals), ()))

    for seat in range(seats):
        tx.emit(ev.PlayerSetUp(seat, f"symbol_{seat}"))

    if rules.use_kings:
        if seats == 1 or rules.king_draft:
            kings = list(CAT.king_ids)
            rng.shuffle(kings)
            tx.emit(ev.DeckShuffled("kings", tuple(kings)))
            offer = CAT.setup.solo_king_offer if seats == 1 else seats + 1
            tx.emit(ev.KingDraftOffered(order[-1], tuple(kings[:offer])))
            return tx.events  # the draft continues with choose_king commands
        for position, seat in enumerate(order):
            tx.emit(ev.KingAssigned(seat, CAT.king_ids[position]))
    finish_setup(tx)
    return tx.events
