"""Game options (§4.1) and setup (§4.2): the events of a new game, every random outcome recorded."""

from __future__ import annotations

from typing import Any

import msgspec

from benthic.rules.core import GameConfig, RuleViolation, rng_for

from . import events as ev
from . import flow
from .content import PACKS, Yield, content
from .ctx import Ctx
from .state import GameState, Rules

MIN_SEATS, MAX_SEATS = 1, 4
OPTIONS = ("board_side", "government_contracts", "rules", "seats")


class Options(msgspec.Struct, frozen=True):
    board_side: str
    government_contracts: bool
    rules: Rules


def parse_options(seats: int, options: dict[str, Any]) -> Options:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise RuleViolation("invalid_player_count", f"§4.1: Underwater Cities is for 1-4 players, not {seats}")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise RuleViolation("invalid_option", f"§4.1: unknown option(s) {unknown}; known: {list(OPTIONS)}")
    if "seats" in options and options["seats"] != seats:
        raise RuleViolation("invalid_player_count", f"§4.1: option seats={options['seats']!r} but {seats} seats")
    solo = seats == 1
    board_side = options.get("board_side", "advanced" if solo else "basic")
    if board_side not in ("basic", "advanced"):
        raise RuleViolation("invalid_argument", f"§4.1: board_side is basic or advanced, not {board_side!r}")
    if solo and board_side == "basic":
        raise RuleViolation("option_not_allowed", "§4.1/§6.16: the solo game uses the advanced board side")
    contracts = options.get("government_contracts", False)
    if not isinstance(contracts, bool):
        raise RuleViolation("invalid_argument", "§4.1: government_contracts is a boolean")
    if solo and contracts:
        raise RuleViolation("option_not_allowed", "§4.1/§6.16: no government contracts in the solo game")
    raw_rules = options.get("rules", {})
    if not isinstance(raw_rules, dict):
        raise RuleViolation("invalid_argument", "§9.1: options.rules is an object of rule flags")
    unknown_flags = sorted(set(raw_rules) - set(Rules.__struct_fields__))
    if unknown_flags:
        raise RuleViolation("invalid_argument", f"§9.1: unknown rule flag(s) {unknown_flags}")
    try:
        rules = msgspec.convert(raw_rules, Rules)
    except msgspec.ValidationError as exc:
        raise RuleViolation("invalid_argument", f"§9.1: unsupported rule flag value: {exc}") from None
    return Options(board_side, contracts, rules)


def start(config: GameConfig) -> list[Any]:
    opts = parse_options(config.seats, dict(config.options))
    seats = config.seats
    data = content()
    info = data.info
    rng = rng_for(config.seed, 0)
    ctx = Ctx(GameState(), rng)
    ctx.emit(ev.GameStarted(seats, config.seed, opts.rules, opts.government_contracts,
                            config.content or PACKS.default_ref))

    # 1-3: main-board side, supplies, cloning tile.
    main_side = "side_2" if seats <= 2 else "side_34"
    purple = info.supply.purple_domes[str(seats)]
    if seats == 1:
        purple = opts.rules.solo_symbiotic_limit
    cloning = seats == 4 and data.main_board.sides[main_side].cloning_tile  # type: ignore[index]
    ctx.emit(ev.BoardSideChosen(main_side, opts.board_side, cloning, info.supply.tunnels,
                                info.supply.white_domes - seats, purple))

    # 4-6: play order, Federation markers by play position, starting resources.
    order = list(range(seats))
    if seats > 1:
        rng.shuffle(order)
        ctx.emit(ev.PlayOrderSet(tuple(order), "setup"))
    starts = info.federation.start_positions
    if seats in (2, 3) and opts.rules.federation_start_small == "compensate_last":
        starts = info.federation.compensate_last[str(seats)]
    spaces = [0] * seats
    extras = [Yield()] * seats
    if seats > 1:
        for position, seat in enumerate(order):
            spaces[seat] = starts[position].space
            e = starts[position].extra
            extras[seat] = Yield(e.credit, e.kelp, e.steelplast, e.science, e.biomatter)
    ctx.emit(ev.FederationInitialized(tuple(spaces)))
    base = info.starting_resources
    for seat in range(seats):
        x = extras[seat]
        ctx.emit(ev.ResourcesGained(seat, Yield(base.credit + x.credit, base.kelp + x.kelp,
                                                base.steelplast + x.steelplast, base.science + x.science,
                                                base.biomatter + x.biomatter), "setup"))

    # 7: player boards (random physical boards, the chosen side); the start city; the Personal Assistant.
    physical = rng.sample(range(1, 5), seats)
    boards = tuple(p if opts.board_side == "basic" else p + 4 for p in physical)
    ctx.emit(ev.BoardsAssigned(boards, data.boards[boards[0]].start))

    # 8: metropolises.
    browns = [t.id for t in data.metropolises.values() if t.colour == "brown" and not (seats == 1 and t.solo_excluded)]
    blues = [t.id for t in data.metropolises.values() if t.colour == "blue"]
    rng.shuffle(browns)
    rng.shuffle(blues)
    dealt = tuple({"MB": browns[s], "M1": blues[2 * s], "M2": blues[2 * s + 1]} for s in range(seats))
    ctx.emit(ev.MetropolisesDealt(dealt))
    box_metros = tuple(browns[seats:]) + tuple(blues[2 * seats:])

    # 9: Era I deck.
    era1 = list(data.era_decks[1])
    rng.shuffle(era1)
    ctx.emit(ev.DeckShuffled("era1", tuple(era1)))

    # 10: Special cards.
    one_two = list(data.specials_one_two)
    rng.shuffle(one_two)
    ctx.emit(ev.DeckShuffled("special", tuple(one_two)))
    three = list(data.specials_three)
    rng.shuffle(three)
    row_size = data.main_board.sides[main_side].special_row_size  # type: ignore[index]
    row, box_specials = tuple(three[:row_size]), tuple(three[row_size:])

    # 11: government contracts.
    revealed: tuple[str, ...] = ()
    box_contracts: tuple[str, ...] = ()
    if opts.government_contracts:
        contracts = list(data.contract_order)
        rng.shuffle(contracts)
        spaces_n = data.main_board.sides[main_side].contract_spaces  # type: ignore[index]
        revealed, box_contracts = tuple(contracts[:spaces_n]), tuple(contracts[spaces_n:])
    ctx.emit(ev.BoxContents(box_specials, box_contracts, box_metros))
    ctx.emit(ev.SpecialsSetup(row, one_two[0], len(one_two)))
    if revealed:
        ctx.emit(ev.ContractsRevealed(revealed))

    # 13-14: era marker on R1; opening hands (6 each), then keep 3.
    ctx.emit(ev.EraStarted(1, 0))
    for seat in range(seats):
        ids = ctx.state.era_deck[: info.supply.opening_hand]
        ctx.emit(ev.CardsDealtDetail(seat, ids))
        ctx.emit(ev.CardsDealt(seat, len(ids)))
    flow.start_keep(ctx)
    return ctx.events
