"""``decide``: validate a command against the current prompt (§5.3, checks in the spec's order, error codes
of §5.4) and produce its events, then ``settle`` the game up to the next decision."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, cast

from benthic.rules.core import RuleViolation

from . import commands as cmd
from . import discards, flow, frames, resolve
from . import events as ev
from .board import (
    bag_name,
    bio_payment,
    build_cost,
    covers,
    geometry,
    scaled,
    site_allows,
    site_legal,
    sub,
    upgrade_bags,
)
from .content import Yield, content
from .ctx import Ctx
from .effects import (
    Ability,
    Build,
    BuildUpgrade,
    BuyScore,
    Choice,
    ConvertCity,
    Gain,
    OnSlotMismatch,
    Pay,
    Res,
    TakeSpecial,
    Upgrade,
    UpgradeCost,
    parts_of,
)
from .evolve import unwrap
from .prompts import ALLOWED, RUNNING, prompt_of
from .state import ActivePart, Frame, GameState
from .usability import (
    action_cards,
    eligible_slots,
    gain_distinct_types,
    hand_limit,
    side_slots,
    slot_parts,
    slot_usable,
    structure_production_sites,
    supply_has,
    usable,
    usable_card_first,
    with_res,
)


def fail(code: str, message: str) -> NoReturn:
    raise RuleViolation(code, message)


def decide(state: GameState, seat: int, command: Any) -> list[Any]:
    prompt = prompt_of(state)
    if prompt is None:
        fail("game_over", "§5.3 generic check: the game has ended")
    kind, seats = prompt
    if seat not in seats and isinstance(command, cmd.DiscardCards) and discards.early_discard_excess(state, seat):
        ctx = Ctx(state)
        early_discard(ctx, seat, command)
        return ctx.events
    if seat not in seats:
        if kind in ("keep_cards", "production_options", "final_purchases") and seat in state.answered:
            fail("already_answered", f"§5.3 generic check: seat {seat} already answered {kind}")
        fail("not_your_turn", f"§5.3 generic check: the prompt `{kind}` is for seats {list(seats)}")
    claim = isinstance(command, cmd.ClaimContract) and kind != RUNNING and contract_claims_open(state)
    if type(command) not in ALLOWED.get(kind, ()) and not claim:
        fail("wrong_prompt", f"§5.3 generic check: `{command.__struct_config__.tag}` does not answer `{kind}`")
    ctx = Ctx(state)
    HANDLERS[type(command)](ctx, seat, command)
    flow.settle(ctx)
    return ctx.events


# --- helpers ------------------------------------------------------------------------------------------------

def _top(state: GameState) -> Frame:
    return state.frames[-1]


def _active(state: GameState) -> ActivePart:
    active = state.frames[-1].active
    assert active is not None
    return active


def _check_card_selection(hand: tuple[str, ...], ids: tuple[str, ...], count: int, rule: str) -> None:
    if len(ids) != count:
        fail("wrong_count", f"{rule}: exactly {count} cards, got {len(ids)}")
    if len(set(ids)) != len(ids):
        fail("duplicate_card", f"{rule}: a card is named twice")
    missing = [c for c in ids if c not in hand]
    if missing:
        fail("card_not_in_hand", f"{rule}: {missing[0]} is not in your hand")


# --- P1, P2: keeping and discarding --------------------------------------------------------------------------

def keep_cards(ctx: Ctx, seat: int, c: cmd.KeepCards) -> None:
    player = ctx.state.players[seat]
    _check_card_selection(player.hand, c.card_ids, hand_limit(player), "§5.3 P1 keep_cards")
    ctx.emit(ev.CardsKeptDetail(seat, c.card_ids))
    ctx.emit(ev.CardsKept(seat, len(c.card_ids)))
    if not ctx.state.prompt_seats:
        flow.finish_keep(ctx)


def discard_cards(ctx: Ctx, seat: int, c: cmd.DiscardCards) -> None:
    player = ctx.state.players[seat]
    _check_card_selection(player.hand, c.card_ids, len(player.hand) - hand_limit(player),
                          "§5.3 P2 discard_to_limit (§6.9)")
    for destination, ids in discards.discard_groups(ctx.state, c.card_ids):
        ctx.emit(ev.CardsDiscarded(seat, ids, destination))


def early_discard(ctx: Ctx, seat: int, c: cmd.DiscardCards) -> None:
    """§9.1 ``early_discard``: during another seat's turn, 1 up to the excess cards (nothing of the turn that
    runs waits for it, so there is nothing to settle)."""
    player = ctx.state.players[seat]
    excess = discards.early_discard_excess(ctx.state, seat)
    rule = "§9.1 early_discard (§6.9)"
    if not 1 <= len(c.card_ids) <= excess:
        fail("wrong_count", f"{rule}: before your turn, discard 1 to {excess} cards (down to your hand limit)")
    _check_card_selection(player.hand, c.card_ids, len(c.card_ids), rule)
    for destination, ids in discards.discard_groups(ctx.state, c.card_ids):
        ctx.emit(ev.CardsDiscardedEarly(seat, ids, destination))


# --- P3, P4: playing a card ---------------------------------------------------------------------------------

def _play(ctx: Ctx, seat: int, card_id: str, slot_id: str, clone: bool) -> None:
    state = ctx.state
    rule = "§5.3 P3 play_card_clone" if clone else "§5.3 P3 play_card"
    player = state.players[seat]
    no_card = card_id == "" and not player.hand  # RULING (RULES.md): an exhausted era deck emptied the hand
    if card_id not in player.hand and not no_card:
        fail("card_not_in_hand", f"{rule} check 1: {card_id or 'a card'} is not in your hand")
    slots = side_slots(state)
    slot = slots.get(slot_id)
    if slot is None:
        fail("unknown_slot", f"{rule} check 2: {slot_id} is not a slot of {state.main_side}")
    tiles = state.slots.get(slot_id, ())
    check_state = state
    if clone:
        if not state.cloning_tile or state.clone_used:
            fail("clone_unavailable", f"{rule} check 3 (§6.10): the cloning tile is not available")
        if slot.colour is None or not tiles or seat in tiles:
            fail("clone_target_invalid", f"{rule} check 4 (§6.10): clone onto a coloured slot occupied by "
                                         "another player and not by you")
        cost = content().info.usual_costs.clone
        if not covers(player.res, cost):
            fail("insufficient_resources", f"{rule} check 5 (§6.10): the cloning tile costs 1 credit")
        check_state = with_res(state, seat, sub(player.res, cost))
    elif slot.colour is not None and tiles:
        fail("slot_occupied", f"{rule} check 3 (§6.1.1): {slot_id} already holds a tile")
    matched = not no_card and slot.colour is not None and content().cards[card_id].colour == slot.colour
    if not slot_usable(check_state, seat, slot):
        if not (matched and usable_card_first(check_state, seat, card_id, slot)):
            fail("slot_unusable", f"{rule} check {6 if clone else 4} (§6.1.3): no part of {slot_id} "
                                  f"({slot.code}) is usable now")
    if clone:
        ctx.emit(ev.CloneUsed(seat, slot_id))
        ctx.emit(ev.ResourcesPaid(seat, content().info.usual_costs.clone, "clone"))
    ctx.emit(ev.TilePlaced(seat, slot_id, clone))
    ctx.emit(ev.CardPlayed(seat, card_id, slot_id, matched))
    if not matched and not no_card:
        if slot.colour is not None:
            resolve.fire(ctx, seat, lambda on: isinstance(on, OnSlotMismatch))
        ctx.emit(ev.CardDiscarded(seat, card_id, discards.discard_destination(ctx.state, card_id)))


def play_card(ctx: Ctx, seat: int, c: cmd.PlayCard) -> None:
    _play(ctx, seat, c.card_id, c.slot_id, clone=False)


def play_card_clone(ctx: Ctx, seat: int, c: cmd.PlayCardClone) -> None:
    _play(ctx, seat, c.card_id, c.slot_id, clone=True)


def use_ability(ctx: Ctx, seat: int, c: cmd.UseAbility) -> None:
    state = ctx.state
    card = content().cards.get(c.card_id)
    perm = card.permanent if card is not None else None
    if c.card_id not in state.players[seat].tableau or not isinstance(perm, Ability):
        fail("no_such_ability", f"§5.3 P3 use_ability: {c.card_id} is not one of your claimed abilities")
    assert state.turn is not None
    if perm.once_per_turn and c.card_id in state.turn.once_used:
        fail("ability_used_this_turn", f"§5.3 P3 use_ability: {c.card_id} was already used this turn")
    effect = perm.effect
    if not usable(state, seat, effect):
        fail("part_unusable", f"§5.3 P3 use_ability (§6.1.3): the effect of {c.card_id} is not usable now")
    ctx.emit(ev.AbilityUsed(seat, c.card_id))
    frames.open_frame(ctx, seat, "ability", *parts_of(effect), card_id=c.card_id)


def choose_order(ctx: Ctx, seat: int, c: cmd.ChooseOrder) -> None:
    if c.first not in ("card", "slot"):
        fail("invalid_argument", "§5.3 P4 choose_order: `first` is `card` or `slot`")
    ctx.emit(ev.OrderChosen(seat, c.first))


# --- P5-P7: the card block -----------------------------------------------------------------------------------

def pay_special(ctx: Ctx, seat: int, c: cmd.PaySpecial) -> None:
    turn = ctx.state.turn
    assert turn is not None
    cost = content().cards[turn.card_id].cost or 0
    if ctx.state.players[seat].res.credit < cost:
        fail("insufficient_resources", f"§5.3 P5 pay_special (§6.2): {turn.card_id} costs {cost} credits")
    ctx.emit(ev.SpecialPaid(seat, turn.card_id, cost))


def decline_special(ctx: Ctx, seat: int, c: cmd.DeclineSpecial) -> None:
    turn = ctx.state.turn
    assert turn is not None
    ctx.emit(ev.SpecialDeclined(seat, turn.card_id, discards.discard_destination(ctx.state, turn.card_id)))


def discard_action_card(ctx: Ctx, seat: int, c: cmd.DiscardActionCard) -> None:
    player = ctx.state.players[seat]
    if c.card_id not in action_cards(player):
        fail("no_such_action_card", f"§5.3 P6 action_limit: {c.card_id} is not one of your action cards")
    unused = c.card_id not in player.used_actions
    ctx.emit(ev.ActionCardDiscarded(seat, c.card_id, unused, discards.discard_destination(ctx.state, c.card_id)))


def decline_claim(ctx: Ctx, seat: int, c: cmd.DeclineClaim) -> None:
    turn = ctx.state.turn
    assert turn is not None
    if turn.special_paid:
        fail("must_claim_paid_card", "§5.3 P5/P6 (RULING 9.2.7): a paid Special card must be claimed")
    ctx.emit(ev.ClaimDeclined(seat, turn.card_id, discards.discard_destination(ctx.state, turn.card_id)))


def use_discarded_action(ctx: Ctx, seat: int, c: cmd.UseDiscardedAction) -> None:
    turn = ctx.state.turn
    assert turn is not None
    card_id = turn.discarded_action
    ctx.emit(ev.DiscardedActionAnswered(seat, card_id, c.use))
    if c.use:
        ctx.emit(ev.ActionCardUsed(seat, card_id, "limit_discard"))
        effect = content().cards[card_id].effect
        assert effect is not None
        frames.open_frame(ctx, seat, "discarded_action", *parts_of(effect), card_id=card_id)


# --- P8: resolve_effect -------------------------------------------------------------------------------------

def start_part(ctx: Ctx, seat: int, c: cmd.StartPart) -> None:
    top = _top(ctx.state)
    if not 0 <= c.part < len(top.parts):
        fail("invalid_argument", f"§5.3 P8 start_part: part {c.part} out of range 0..{len(top.parts) - 1}")
    if top.resolved[c.part]:
        fail("part_already_resolved", f"§5.3 P8 start_part: part {c.part} is already resolved")
    if not usable(ctx.state, seat, top.parts[c.part]):
        fail("part_unusable", f"§5.3 P8 start_part (§6.1.3): part {c.part} is not usable now")
    frames.start_part(ctx, seat, top, c.part)


def end_effect(ctx: Ctx, seat: int, c: cmd.EndEffect) -> None:
    top = _top(ctx.state)
    ctx.emit(ev.EffectEnded(top.id, tuple(i for i, done in enumerate(top.resolved) if not done)))


def done(ctx: Ctx, seat: int, c: cmd.Done) -> None:
    top = _top(ctx.state)
    ctx.emit(ev.PartEnded(top.id, _active(ctx.state).part, skipped=True))


# --- P9 sub-prompts -----------------------------------------------------------------------------------------

def choose_option(ctx: Ctx, seat: int, c: cmd.ChooseOption) -> None:
    top = _top(ctx.state)
    node = _active(ctx.state).node
    assert isinstance(node, Choice)
    if not 0 <= c.option < len(node.options):
        fail("invalid_option", f"§5.3 P9.1 choose_option: option {c.option} out of range 0..{len(node.options) - 1}")
    if not usable(ctx.state, seat, node.options[c.option]):
        fail("part_unusable", f"§5.3 P9.1 choose_option (§6.1.3): option {c.option} is not usable now")
    ctx.emit(ev.OptionChosen(top.id, c.option))
    frames.begin_node(ctx, seat, top, _active(ctx.state).part, unwrap(node.options[c.option]), started=True)


def build(ctx: Ctx, seat: int, c: cmd.Build) -> None:
    state = ctx.state
    node = _active(state).node
    rule = "§5.3 P9.2 build"
    upgrade_too = isinstance(node, BuildUpgrade)
    kinds = node.kinds  # type: ignore[union-attr]
    if c.kind not in kinds:
        fail("kind_not_allowed", f"{rule}: this effect builds {'|'.join(kinds)}, not {c.kind}")
    player = state.players[seat]
    geom = geometry(player)
    if c.site not in geom.site_kind:
        fail("unknown_site", f"{rule}: {c.site} is not a site of board #{geom.id}")
    if c.site in player.pieces:
        fail("site_occupied", f"{rule}: {c.site} is already built")
    expansion_node = isinstance(node, Build) and node.site == "expansion"
    building_site = geom.buildings.get(c.site)
    if building_site is not None and building_site.expansion != expansion_node:
        fail("expansion_site_restricted",
             f"{rule} (§6.4.4): expansion sites only through effects naming them, and such effects use only them")
    if not site_allows(geom, c.kind, c.site) or not site_legal(geom, player, c.kind, c.site):
        fail("illegal_site", f"{rule} (§6.4.4): a {c.kind} may not be built on {c.site} now")
    if not supply_has(state, c.kind):
        fail("supply_exhausted", f"{rule} (§6.4.3): no {c.kind} left in the supply")
    if upgrade_too:
        cost = build_cost(player, geom, c.kind, c.site, "usual", None)
    else:
        build_node = cast(Build, node)
        cost = build_cost(player, geom, c.kind, c.site, build_node.cost, build_node.discount)
    paid = bio_payment(cost, player.res, c.bio_for_kelp, c.bio_for_steelplast)
    if paid == "invalid_payment":
        fail("invalid_payment", f"{rule} (§6.4.2): biomatter replaces at most the kelp/steelplast of the cost")
    if paid == "insufficient_resources":
        fail("insufficient_resources", f"{rule} (§6.4.2): you cannot pay {_res_text(cost)}")
    assert isinstance(paid, Res)
    if upgrade_too:
        after = resolve.simulate_build(state, seat, c.kind, c.site, paid)
        left = after.players[seat]
        if not any(covers(left.res, bag) for bag in upgrade_bags(left, c.kind, "usual")):
            fail("cannot_complete_build_and_upgrade",
                 f"{rule} (§6.5): after this build you could not pay the upgrade of the same structure")
    resolve.build(ctx, seat, c.kind, c.site, paid)


def _res_text(res: Res) -> str:
    parts = [f"{getattr(res, k)} {k}" for k in ("credit", "kelp", "steelplast", "science", "biomatter")
             if getattr(res, k)]
    return ", ".join(parts) or "nothing"


def upgrade(ctx: Ctx, seat: int, c: cmd.Upgrade) -> None:
    state = ctx.state
    node = _active(state).node
    assert isinstance(node, Upgrade)
    rule = "§5.3 P9.3 upgrade"
    player = state.players[seat]
    geom = geometry(player)
    if c.site not in geom.site_kind:
        fail("unknown_site", f"{rule}: {c.site} is not a site of board #{geom.id}")
    piece = player.pieces.get(c.site)
    if piece is None or piece.kind not in node.kinds:
        fail("not_upgradable", f"{rule} (§6.5): no structure of kind {'|'.join(node.kinds)} on {c.site}")
    if piece.upgraded:
        fail("already_upgraded", f"{rule} (§6.5): {c.site} is already upgraded")
    bags = upgrade_bags(player, piece.kind, node.cost)
    if isinstance(node.cost, UpgradeCost) and node.cost.one_of is not None:
        names = [bag_name(b) for b in node.cost.one_of]
        if c.pay not in names:
            fail("invalid_payment", f"{rule}: `pay` selects one of {names}")
        bag = bags[names.index(c.pay)]
    else:
        if c.pay is not None:
            fail("invalid_payment", f"{rule}: this upgrade has a single cost; `pay` must be null")
        bag = bags[0]
    if not covers(player.res, bag):
        fail("insufficient_resources", f"{rule} (§6.5): you cannot pay {_res_text(bag)}")
    resolve.upgrade(ctx, seat, c.site, bag)


def use_action_card(ctx: Ctx, seat: int, c: cmd.UseActionCard) -> None:
    player = ctx.state.players[seat]
    if c.card_id not in action_cards(player):
        fail("no_such_action_card", f"§5.3 P9.4 (§6.3): {c.card_id} is not one of your claimed action cards")
    if c.card_id in player.used_actions:
        fail("action_card_used", f"§5.3 P9.4 (§6.3): {c.card_id} was already used this era")
    ctx.emit(ev.ActionCardUsed(seat, c.card_id, "use_action"))
    effect = content().cards[c.card_id].effect
    assert effect is not None
    frames.open_frame(ctx, seat, "action_card", *parts_of(effect), card_id=c.card_id)


def restore_action_card(ctx: Ctx, seat: int, c: cmd.RestoreActionCard) -> None:
    player = ctx.state.players[seat]
    if c.card_id not in action_cards(player):
        fail("no_such_action_card", f"§5.3 P9.5 (§6.3): {c.card_id} is not one of your claimed action cards")
    if c.card_id not in player.used_actions:
        fail("action_card_not_used", f"§5.3 P9.5 (§6.3): {c.card_id} is not used")
    ctx.emit(ev.ActionCardRestored(seat, c.card_id))


def take_special(ctx: Ctx, seat: int, c: cmd.TakeSpecial) -> None:
    state = ctx.state
    top = _top(state)
    assert isinstance(_active(state).node, TakeSpecial)
    rule = "§5.3 P9.6 take_special (§6.2)"
    if c.source == "row":
        if c.row_index is None or not 1 <= c.row_index <= len(state.special_row):
            fail("invalid_argument", f"{rule}: row_index is 1..{len(state.special_row)}")
        card_id = state.special_row[c.row_index - 1]
        if not card_id:
            fail("special_unavailable", f"{rule}: row position {c.row_index} is empty")
        ctx.emit(ev.SpecialTaken(seat, "row", card_id, c.row_index))
    elif c.source == "deck_top":
        if c.row_index is not None:
            fail("invalid_argument", f"{rule}: row_index is only for the row")
        if not state.special_deck:
            fail("special_unavailable", f"{rule}: the special deck is empty")
        ctx.emit(ev.SpecialTaken(seat, "deck_top", state.special_deck[0]))
        if ctx.state.special_deck:
            ctx.emit(ev.SpecialRevealed(ctx.state.special_deck[0]))
    elif c.source == "draw3":
        if c.row_index is not None:
            fail("invalid_argument", f"{rule}: row_index is only for the row")
        if len(state.special_deck) < state.rules.draw3_min_deck:
            fail("special_deck_too_small",
                 f"{rule} (RULING): draw3 needs at least {state.rules.draw3_min_deck} cards in the special deck")
        ctx.emit(ev.SpecialTaken(seat, "draw3"))
        ctx.emit(ev.SpecialDrawSeen(seat, ctx.state.special_deck[:3]))
        return
    else:
        fail("invalid_argument", f"{rule}: source is row, deck_top or draw3")
    ctx.emit(ev.PartEnded(top.id, _active(ctx.state).part))


def keep_special(ctx: Ctx, seat: int, c: cmd.KeepSpecial) -> None:
    state = ctx.state
    active = _active(state)
    drawn = active.drawn
    if c.keep not in drawn or len(c.bottom) != len(drawn) - 1 or sorted((c.keep, *c.bottom)) != sorted(drawn):
        fail("invalid_argument", "§5.3 P9.7 special_draw3: keep 1 of the 3 drawn cards and name the other 2")
    ctx.emit(ev.SpecialDraw3Detail(seat, drawn, c.keep, c.bottom))
    ctx.emit(ev.SpecialDraw3(seat, 1, len(c.bottom)))
    if ctx.state.special_deck:
        ctx.emit(ev.SpecialRevealed(ctx.state.special_deck[0]))
    ctx.emit(ev.PartEnded(_top(ctx.state).id, active.part))


def gain_distinct(ctx: Ctx, seat: int, c: cmd.GainDistinct) -> None:
    state = ctx.state
    top = _top(state)
    node = _active(state).node
    allowed = gain_distinct_types(state, node)  # type: ignore[arg-type]
    n = node.n  # type: ignore[union-attr]
    if len(c.types) != n or len(set(c.types)) != n or any(t not in allowed for t in c.types):
        fail("invalid_argument", f"§5.3 P9.8 gain_distinct: {n} different types among {list(allowed)}")
    resolve.gain(ctx, seat, Gain(**{t: 1 for t in c.types}), f"{top.source}:gain_distinct", top.root)
    ctx.emit(ev.PartEnded(_top(ctx.state).id, _active(ctx.state).part))


def pay(ctx: Ctx, seat: int, c: cmd.Pay) -> None:
    state = ctx.state
    top = _top(state)
    active = _active(state)
    node = cast(Pay, active.node)
    if not 1 <= c.times <= node.max_times:
        fail("invalid_argument", f"§5.3 P9.9 pay: times is 1..{node.max_times}")
    cost = node.cost
    total = scaled(cost, c.times)
    if not covers(state.players[seat].res, total):
        fail("insufficient_resources", f"§5.3 P9.9 pay: you cannot pay {_res_text(total)}")
    ctx.emit(ev.ResourcesPaid(seat, total, f"{top.source}:pay"))
    then = node.then
    if resolve.is_automatic(then):
        for _ in range(c.times):
            resolve.resolve_now(ctx, seat, then, f"{top.source}:pay", top.root)
        ctx.emit(ev.PartEnded(top.id, active.part))
        return
    ctx.emit(ev.PartEnded(top.id, active.part))
    for _ in range(c.times):
        frames.open_frame(ctx, seat, top.source, *parts_of(then), top.card_id, top.slot_id, top.root)


def exchange(ctx: Ctx, seat: int, c: cmd.Exchange) -> None:
    top = _top(ctx.state)
    node = _active(ctx.state).node
    if c.direction == "a_to_b":
        give, get = node.a, node.b  # type: ignore[union-attr]
    elif c.direction == "b_to_a":
        give, get = node.b, node.a  # type: ignore[union-attr]
    else:
        fail("invalid_argument", "§5.3 P9.10 exchange: direction is a_to_b or b_to_a")
    if not covers(ctx.state.players[seat].res, give):
        fail("insufficient_resources", f"§5.3 P9.10 exchange: you cannot pay {_res_text(give)}")
    ctx.emit(ev.ResourcesPaid(seat, give, f"{top.source}:exchange"))
    ctx.emit(ev.ResourcesGained(seat, Yield(get.credit, get.kelp, get.steelplast, get.science, get.biomatter),
                                f"{top.source}:exchange"))
    ctx.emit(ev.PartEnded(top.id, _active(ctx.state).part))


def perform_slot(ctx: Ctx, seat: int, c: cmd.PerformSlot) -> None:
    state = ctx.state
    top = _top(state)
    node = _active(state).node
    slot = side_slots(state).get(c.slot_id)
    if slot is None:
        fail("unknown_slot", f"§5.3 P9.11 perform_slot: {c.slot_id} is not a slot of {state.main_side}")
    if slot not in list(eligible_slots(state, seat, node)):  # type: ignore[arg-type]
        fail("slot_not_eligible", f"§5.3 P9.11 perform_slot (§6.11): {c.slot_id} is outside this effect's scope")
    if not slot_usable(state, seat, slot):
        fail("slot_unusable", f"§5.3 P9.11 perform_slot (§6.11, RULING 9.2.8): {c.slot_id} is not usable now")
    ctx.emit(ev.SlotPerformed(seat, c.slot_id))
    ctx.emit(ev.PartEnded(top.id, _active(state).part))
    parts, is_all = slot_parts(ctx.state.players[seat], slot)
    frames.open_frame(ctx, seat, "performed_slot", parts, is_all, slot_id=slot.id)


def choose_structure(ctx: Ctx, seat: int, c: cmd.ChooseStructure) -> None:
    state = ctx.state
    top = _top(state)
    player = state.players[seat]
    if c.site not in geometry(player).site_kind:
        fail("unknown_site", f"§5.3 P9.12 choose_structure: {c.site} is not a site of your board")
    if c.site not in structure_production_sites(player):
        fail("not_eligible_structure",
             f"§5.3 P9.12 choose_structure: {c.site} is not an upgraded structure adjacent to a connected city")
    row = content().info.production.row(player.pieces[c.site].kind)
    resolve.gain_yield(ctx, seat, row.upgraded, "structure_production")
    ctx.emit(ev.PartEnded(top.id, _active(state).part))


def convert_city(ctx: Ctx, seat: int, c: cmd.ConvertCity) -> None:
    state = ctx.state
    top = _top(state)
    node = cast(ConvertCity, _active(state).node)
    player = state.players[seat]
    if c.site not in geometry(player).site_kind:
        fail("unknown_site", f"§5.3 P9.13 convert_city: {c.site} is not a site of your board")
    piece = player.pieces.get(c.site)
    if piece is None or piece.kind != "city_nonsym":
        fail("not_nonsymbiotic_city", f"§5.3 P9.13 convert_city: no nonsymbiotic city on {c.site}")
    if not supply_has(state, "city_sym"):
        fail("supply_exhausted", "§5.3 P9.13 convert_city (§6.4.3): no symbiotic dome left in the supply")
    cost = node.cost
    if not covers(player.res, cost):
        fail("insufficient_resources", f"§5.3 P9.13 convert_city: you cannot pay {_res_text(cost)}")
    ctx.emit(ev.CityConverted(seat, c.site, cost))
    resolve.check_contracts(ctx, seat)
    ctx.emit(ev.PartEnded(top.id, _active(ctx.state).part))


# --- contracts claimed by command (§9.1 contracts_auto_claim = false) ----------------------------------------

def contract_claims_open(state: GameState) -> bool:
    """Without the automatic claim, every prompt of the active seat's turn also takes ``claim_contract``."""
    return (state.contracts_variant and not state.rules.contracts_auto_claim and state.phase == "turn"
            and state.turn is not None)


def claim_contract(ctx: Ctx, seat: int, c: cmd.ClaimContract) -> None:
    rule = "§6.15 claim_contract (§9.1 contracts_auto_claim = false)"
    if c.contract_id not in ctx.state.open_contracts:
        fail("contract_unavailable", f"{rule}: {c.contract_id or 'that'} is not a revealed, unclaimed contract")
    if not resolve.meets(ctx.state, seat, c.contract_id):
        fail("contract_condition_not_met", f"{rule}: you do not meet the requirements of {c.contract_id}")
    resolve.claim_contract(ctx, seat, c.contract_id)


# --- P10-P12 ------------------------------------------------------------------------------------------------

def end_turn(ctx: Ctx, seat: int, c: cmd.EndTurn) -> None:
    flow.end_turn(ctx)


def set_production_options(ctx: Ctx, seat: int, c: cmd.SetProductionOptions) -> None:
    allowed = flow.optional_production_cards(ctx.state, seat)
    for card_id in c.use_card_ids:
        if card_id not in allowed:
            fail("no_such_card", f"§5.3 P11 production_options: {card_id} is not one of your optional production cards")
    if len(set(c.use_card_ids)) != len(c.use_card_ids):
        fail("invalid_argument", "§5.3 P11 production_options: a card is named twice")
    ctx.emit(ev.ProductionOptionChosen(seat, c.use_card_ids))
    if not ctx.state.prompt_seats:
        flow.resolve_production(ctx)


def buy_points(ctx: Ctx, seat: int, c: cmd.BuyPoints) -> None:
    state = ctx.state
    card = content().cards.get(c.card_id)
    if c.card_id not in flow.buy_cards(state, seat) or card is None:
        fail("no_such_card", f"§5.3 P12 final_purchases: {c.card_id} is not one of your claimed purchase cards")
    scoring = card.end_scoring
    assert isinstance(scoring, BuyScore)
    if c.times < 1:
        fail("invalid_argument", "§5.3 P12 buy_points: times is at least 1")
    if flow.bought_times(state, seat, c.card_id) + c.times > scoring.max_times:
        fail("buy_limit_exceeded", f"§5.3 P12 buy_points: {c.card_id} allows at most {scoring.max_times} purchases")
    cost = scoring.cost
    total = scaled(cost, c.times)
    if not covers(flow.purchase_budget(state, seat), total):
        fail("insufficient_resources", f"§5.3 P12 buy_points (§8.1 step 2): you cannot pay {_res_text(total)}")
    ctx.emit(ev.FinalPurchaseChosen(seat, c.card_id, c.times))


def done_buying(ctx: Ctx, seat: int, c: cmd.DoneBuying) -> None:
    ctx.emit(ev.FinalPurchasesDone(seat))
    if not ctx.state.prompt_seats:
        flow.final_scoring(ctx)


HANDLERS: dict[type, Callable[[Ctx, int, Any], None]] = {
    cmd.KeepCards: keep_cards,
    cmd.DiscardCards: discard_cards,
    cmd.PlayCard: play_card,
    cmd.PlayCardClone: play_card_clone,
    cmd.UseAbility: use_ability,
    cmd.ChooseOrder: choose_order,
    cmd.PaySpecial: pay_special,
    cmd.DeclineSpecial: decline_special,
    cmd.DiscardActionCard: discard_action_card,
    cmd.DeclineClaim: decline_claim,
    cmd.UseDiscardedAction: use_discarded_action,
    cmd.StartPart: start_part,
    cmd.EndEffect: end_effect,
    cmd.Done: done,
    cmd.ChooseOption: choose_option,
    cmd.Build: build,
    cmd.Upgrade: upgrade,
    cmd.UseActionCard: use_action_card,
    cmd.RestoreActionCard: restore_action_card,
    cmd.TakeSpecial: take_special,
    cmd.KeepSpecial: keep_special,
    cmd.GainDistinct: gain_distinct,
    cmd.Pay: pay,
    cmd.Exchange: exchange,
    cmd.PerformSlot: perform_slot,
    cmd.ChooseStructure: choose_structure,
    cmd.ConvertCity: convert_city,
    cmd.EndTurn: end_turn,
    cmd.ClaimContract: claim_contract,
    cmd.SetProductionOptions: set_production_options,
    cmd.BuyPoints: buy_points,
    cmd.DoneBuying: done_buying,
}
