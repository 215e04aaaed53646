"""The game state: small frozen msgspec Structs, never mutated (``evolve`` builds new ones and shares the
unchanged parts).  The state says what it is; ``prompt`` is derived from it (see ``prompts.py``)."""

from __future__ import annotations

from typing import Literal

import msgspec

from .effects import Effect, Res

NEUTRAL = -1  # owner id of a solo blocker tile on a slot


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The rule flags of spec §9.1 (``options.rules``), with their defaults."""

    usability_check: Literal["at_choice", "card_aware"] = "at_choice"
    pair_bonus_per_pair: bool = False
    a14_allow_biomatter: bool = False
    federation_start_small: Literal["first_n", "compensate_last"] = "first_n"
    tunnel_pair_both_adjacent: bool = True
    solo_symbiotic_limit: Literal[7] | None = None
    contracts_auto_claim: bool = True
    early_discard: bool = False
    discard_pile_public: bool = True
    known_special_hand_cards_public: bool = True
    draw3_min_deck: Literal[3, 4] = 4


class Piece(msgspec.Struct, frozen=True, array_like=True):
    """A dome, tunnel or building on a site of a player board."""

    kind: str  # tunnel | farm | desal | lab | city_nonsym | city_sym
    upgraded: bool = False


class Player(msgspec.Struct, frozen=True):
    seat: int
    board: int  # player board id 1..8 (content/player_boards.json)
    res: Res = Res()
    points: int = 0
    hand: tuple[str, ...] = ()
    public_hand: tuple[str, ...] = ()  # hand cards every seat knows (Specials taken face up, §7)
    pieces: dict[str, Piece] = {}  # site id -> piece; never mutated, replaced on change
    network: tuple[str, ...] = ()  # R of §6.4.4: city sites reachable from the start city, sorted
    metros: dict[str, str] = {}  # metropolis space (MB, M1, M2) -> tile id
    gained_metros: tuple[str, ...] = ()  # tiles from gain_metropolis (always connected)
    tableau: tuple[str, ...] = ()  # claimed cards in claim order (PA first)
    used_actions: tuple[str, ...] = ()  # claimed action cards used this era
    under_board: tuple[str, ...] = ()  # paid Special instants kept under the board
    fed_space: int = 0  # Federation track: 0 = below space 4, else 4..1
    contracts: tuple[str, ...] = ()


class ActivePart(msgspec.Struct, frozen=True):
    """The part of a frame being resolved through its sub-prompt."""

    part: int
    node: Effect
    remaining: int = 1  # pieces / upgrades / action cards still allowed
    upgrade_site: str = ""  # build_upgrade: the piece built, waiting for its upgrade
    drawn: tuple[str, ...] = ()  # take_special draw3: the 3 cards only the owner sees


class Frame(msgspec.Struct, frozen=True):
    """One effect being resolved (§5.2).  Frames form a stack; only the top one is active."""

    id: int
    source: str  # slot | card | action_card | discarded_action | performed_slot | trigger | metropolis | ability
    parts: tuple[Effect, ...]
    is_all: bool  # an `all` node (or a slot with extra parts): parts are started from resolve_effect
    resolved: tuple[bool, ...]
    card_id: str = ""
    slot_id: str = ""
    root: int = 0  # id of the slot resolution this frame belongs to (for slot_gave), 0 if none
    active: ActivePart | None = None


class Turn(msgspec.Struct, frozen=True):
    seat: int
    order_index: int
    pass_no: int
    stage: str  # discard | choose_play | choose_order | pay_special | action_limit | use_discarded_action
    #             | end_of_turn | running
    card_id: str = ""
    slot_id: str = ""
    matched: bool = False
    clone: bool = False
    blocks: tuple[str, ...] = ()  # blocks still to start: "card", "slot"
    block: str = ""  # the block being resolved
    card_frame: bool = False
    slot_frame: bool = False
    special_paid: bool = False
    card_done: bool = False  # the played card has reached its destination (claimed, discarded, under board)
    discarded_action: str = ""  # action card discarded under the limit of four, awaiting use_discarded_action
    tunnels_built: int = 0
    once_used: tuple[str, ...] = ()  # once-per-turn abilities and triggers already used (card ids)
    slot_gave: tuple[int, ...] = ()  # slot resolutions (root frame ids) whose slot_gave already fired
    end_offered: bool = False


class Purchase(msgspec.Struct, frozen=True, array_like=True):
    card_id: str
    times: int


class SeatScore(msgspec.Struct, frozen=True):
    seat: int
    track: int
    brown: int
    end_cards: int
    network: int
    resources: int
    total: int
    rank: int
    tie_break_position: int
    connected_cities: int


class GameState(msgspec.Struct, frozen=True):
    version: int = 0
    seed: int = 0
    content: str = ""  # the key id@version of the game's content pack ("" before the first event)
    seats: int = 0
    rules: Rules = Rules()
    contracts_variant: bool = False
    main_side: str = ""  # side_34 | side_2
    board_side: str = ""  # basic | advanced
    cloning_tile: bool = False  # the game has the action-cloning tile (4 seats)
    players: tuple[Player, ...] = ()
    tunnels_left: int = 0
    white_left: int = 0
    purple_left: int | None = 0  # None = unlimited (solo)
    play_order: tuple[int, ...] = ()
    fed_stacks: tuple[tuple[int, ...], ...] = ((), (), (), ())  # spaces 1..4, bottom first
    era: int = 1
    round: int = 1
    era_pos: int = 0  # index into the era track R1 R2 R3 R4 P1 R5 ...
    era_deck: tuple[str, ...] = ()  # current era deck, top first (hidden)
    era_discard: tuple[str, ...] = ()  # current era discard pile (face up)
    buried: tuple[str, ...] = ()  # cards of past era decks removed unseen (hidden forever)
    removed: tuple[str, ...] = ()  # cards out of the game face up (past-era discards, the box, the PA)
    special_row: tuple[str, ...] = ()  # the three-credit row; "" = empty position
    special_deck: tuple[str, ...] = ()  # one-/two-credit deck, top first; the top is face up
    special_public: tuple[str, ...] = ()  # deck cards whose identity everyone knows (put under face up)
    special_private: tuple[tuple[str, int], ...] = ()  # (card, seat): deck cards one seat saw in draw3
    box_specials: tuple[str, ...] = ()
    box_contracts: tuple[str, ...] = ()
    box_metros: tuple[str, ...] = ()
    open_contracts: tuple[str, ...] = ()  # revealed and not yet claimed
    slots: dict[str, tuple[int, ...]] = {}  # slot id -> tiles on it, bottom first (NEUTRAL = solo blocker)
    clone_used: bool = False  # the cloning tile has left the board this round
    phase: str = "setup"  # setup | keep | turn | production_options | final_purchases | over
    prompt_seats: tuple[int, ...] = ()  # seats of a simultaneous prompt still to answer
    answered: tuple[int, ...] = ()  # seats that already answered the current simultaneous prompt
    keep_choices: tuple[tuple[str, ...], ...] = ()  # per seat: cards kept (answered, hidden until all answer)
    production_choices: tuple[tuple[str, ...], ...] = ()  # per seat: optional production cards used
    purchases: tuple[tuple[Purchase, ...], ...] = ()  # per seat: final purchases (hidden until all done)
    turn: Turn | None = None
    frames: tuple[Frame, ...] = ()
    next_frame_id: int = 1
    round_fed_advanced: bool = False  # solo: a Federation step happened this round
    solo_advanced_last_round: bool = True
    scores: tuple[SeatScore, ...] = ()
    tie_break_order: tuple[int, ...] = ()
    solo_result: str = ""

