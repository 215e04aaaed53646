"""The content catalogue of Underwater Cities (``ENGINE.catalogue()``): every card, metropolis tile,
contract, board, space and track with the ids the views and commands use, texts written from the effect
data (``texts.py``), and the geometry of ``content/layout.json`` (our own drawing, validated at load).

Built once per process from the loaded ``content()`` (so it follows whatever content is loaded).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import msgspec

from benthic.rules.presentation import (
    N_,
    CatalogueError,
    Message,
    as_sentence,
    counted,
    envelope,
    join_messages,
    joined,
    msg,
    terms_from,
)

from . import content as content_module
from .content import Card, Content, Contract, MetropolisTile, PlayerBoardRecord, content
from .effects import Effect, Gain, Res
from .prompts import ALLOWED, RUNNING, STAGE_PROMPTS
from .setup import MAX_SEATS, MIN_SEATS
from .state import Rules
from .texts import (
    BONUS_TEXTS,
    condition_text,
    effect_sentence,
    effect_text,
    end_scoring_text,
    gain_text,
    kind_word,
    needs_text,
    permanent_text,
    production_text,
    res_text,
)

Point = tuple[float, float]


# --- layout.json --------------------------------------------------------------------------------------------

class Box(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    at: Point
    size: Point


class EraTrackLayout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    size: Point
    positions: tuple[Point, ...]  # one per space of info.era_track, in order


class FederationLayout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    size: Point
    positions: dict[str, Point]  # "0" (below space 4) and each space


class MainBoardLayout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    view_box: tuple[float, float, float, float]
    slot_size: Point
    slots: dict[str, Point]
    special_row: tuple[Point, ...]
    special_deck: Point
    contract_size: Point
    contracts: tuple[Point, ...]
    era_deck: Point
    era_discard: Point
    cloning_tile: Box
    era_track: EraTrackLayout
    federation_track: FederationLayout


class PlayerBoardLayout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    view_box: tuple[float, float, float, float]
    city_size: Point
    metropolis_size: Point
    sites: dict[str, Point]
    tunnel_size: Point
    building_size: Point
    building_offsets: dict[str, Point]


class Layout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    data_version: str
    card_size: Point
    main_board: MainBoardLayout
    player_board: PlayerBoardLayout
    note: str = ""


def load_layout(data: Content) -> Layout:
    """``content/layout.json``, checked against the content: every slot, site and track space placed."""
    path = content_module.CONTENT_DIR / "layout.json"
    try:
        layout = msgspec.convert(json.loads(path.read_text(encoding="utf-8")), Layout)
    except (OSError, ValueError, msgspec.ValidationError) as exc:
        raise CatalogueError(f"layout.json: {exc}") from None
    main = layout.main_board
    for side, slots in data.sides.items():
        missing = set(slots) - set(main.slots)
        if missing:
            raise CatalogueError(f"layout.json: slots {sorted(missing)} of {side} have no position")
        if len(main.special_row) < data.main_board.sides[side].special_row_size:  # type: ignore[index]
            raise CatalogueError(f"layout.json: fewer special-row positions than {side} needs")
        if len(main.contracts) < data.main_board.sides[side].contract_spaces:  # type: ignore[index]
            raise CatalogueError(f"layout.json: fewer contract spaces than {side} needs")
    if len(main.era_track.positions) != len(data.info.era_track):
        raise CatalogueError("layout.json: one era-track position per space of info.era_track")
    fed_spaces = {"0", *(str(s) for s in data.info.federation.spaces)}
    if set(main.federation_track.positions) != fed_spaces:
        raise CatalogueError(f"layout.json: Federation positions for {sorted(fed_spaces)} expected")
    board = layout.player_board
    for record in data.board_records.values():
        for site_id in (*(c.id for c in record.city_sites), *(m.id for m in record.metropolis_spaces)):
            if site_id not in board.sites:
                raise CatalogueError(f"layout.json: site {site_id} of board {record.id} has no position")
        for building in record.building_sites:
            if building.id.rsplit(":", 1)[1] not in board.building_offsets:
                raise CatalogueError(f"layout.json: no offset for building site {building.id}")
    return layout


# --- components ---------------------------------------------------------------------------------------------

def _builtins(value: Any) -> Any:
    return msgspec.to_builtins(value)


def _card_text(card: Card, slot_texts: dict[str, Message]) -> Message:
    if card.type in ("instant", "action") and card.effect is not None:
        effect = effect_text(card.effect)
        text = as_sentence(msg("action: {effect}", effect=effect) if card.type == "action" else effect)
    elif card.permanent is not None:
        text = permanent_text(card.permanent, slot_texts)
    elif card.production is not None:
        text = production_text(card.production)
    else:
        assert card.end_scoring is not None
        text = end_scoring_text(card.end_scoring)
    if card.is_special and card.cost:
        text = msg("{a} {b}", a=text, b=counted(card.cost, "Special card: pay {n} credit to use it when you play it "
                                                           "on a slot of its colour.",
                                                "Special card: pay {n} credits to use it when you play it on a slot "
                                                "of its colour."))
    return text


def _card_entry(card: Card, slot_texts: dict[str, Message]) -> dict[str, Any]:
    data = {"instant": card.effect, "action": card.effect, "permanent": card.permanent,
            "production": card.production, "end_scoring": card.end_scoring}[card.type]
    return {
        "id": card.id, "category": "card", "name": card.name, "number": card.number, "deck": card.deck,
        "tier": card.tier, "cost": card.cost, "colour": card.colour, "type": card.type,
        "text": _card_text(card, slot_texts), "effect": _builtins(data), "provenance": card.provenance,
    }


def _metropolis_entry(tile: MetropolisTile) -> dict[str, Any]:
    parts: list[Message | str] = []
    if tile.instant is not None:
        parts.append(as_sentence(msg("when it becomes connected (or is gained): {effect}",
                                     effect=effect_text(tile.instant))))
    if tile.production is not None:
        parts.append(as_sentence(msg("in each Production, while connected: {effect}",
                                     effect=effect_text(tile.production))))
    if tile.end_scoring is not None:
        parts.append(end_scoring_text(tile.end_scoring, msg("if connected at the end of the game")))
    if tile.solo_excluded:
        parts.append(msg("Not used in the solo game."))
    return {
        "id": tile.id, "category": "metropolis", "name": f"{tile.colour.capitalize()} metropolis {tile.id}",
        "colour": tile.colour, "text": joined(parts, N_("{a} {b}")),
        "effect": {"instant": _builtins(tile.instant), "production": _builtins(tile.production),
                   "end_scoring": _builtins(tile.end_scoring)},
        "provenance": tile.provenance,
    }


def _contract_entry(contract: Contract) -> dict[str, Any]:
    needs = join_messages([condition_text(c) if c.federation_space is not None else msg("at least {needs}",
                                                                                          needs=needs_text(c))
                           for c in contract.requires])
    return {
        "id": contract.id, "category": "contract", "name": contract.name,
        "text": as_sentence(msg("claimed at once, on your turn, when you have {needs}: {reward}", needs=needs,
                                reward=gain_text(contract.reward))),
        "effect": {"requires": _builtins(contract.requires), "reward": _builtins(contract.reward)},
        "provenance": contract.provenance,
    }


# --- boards -------------------------------------------------------------------------------------------------

def _space(sid: str, kind: str, name: str | Message, at: Point, size: Point, **extra: Any) -> dict[str, Any]:
    return {"id": sid, "kind": kind, "name": name, "x": at[0], "y": at[1], "w": size[0], "h": size[1], **extra}


def _main_board(side: str, data: Content, layout: MainBoardLayout, card: Point) -> dict[str, Any]:
    side_data = data.main_board.sides[side]  # type: ignore[index]
    spaces: dict[str, dict[str, Any]] = {}
    for slot in data.sides[side].values():
        name = (msg("Always-available slot AA") if slot.colour is None
                else msg("{colour} slot {id}", colour=Message(slot.colour.capitalize()), id=slot.id))
        spaces[slot.id] = _space(
            slot.id, "slot", name, layout.slots[slot.id], layout.slot_size, colour=slot.colour,
            ordinal=slot.ordinal, clockwise=slot.clockwise, action=slot.code,
            text=effect_sentence(slot.effect), effect=_builtins(slot.effect))
    for i in range(side_data.special_row_size):
        sid = f"special_row:{i + 1}"
        spaces[sid] = _space(sid, "special_row", msg("Special card row, position {n}", n=i + 1), layout.special_row[i],
                             card, index=i + 1)
    spaces["special_deck"] = _space("special_deck", "deck", msg("One-/two-credit Special deck (top card face up)"),
                                    layout.special_deck, card)
    spaces["era_deck"] = _space("era_deck", "deck", msg("Era deck"), layout.era_deck, card)
    spaces["era_discard"] = _space("era_discard", "discard", msg("Era discard pile"), layout.era_discard, card)
    for i in range(side_data.contract_spaces):
        sid = f"contract:{i + 1}"
        spaces[sid] = _space(sid, "contract_space", msg("Government contract space {n}", n=i + 1),
                             layout.contracts[i],
                             layout.contract_size, index=i + 1)
    if side_data.cloning_tile:
        spaces["cloning_tile"] = _space(
            "cloning_tile", "cloning_tile", msg("Action-cloning tile"), layout.cloning_tile.at,
            layout.cloning_tile.size,
            text=msg("4 players only: once per round, pay {cost} to place your action tile on a slot another "
                     "player occupies (the tile then leaves the board for the round).",
                     cost=res_text(data.info.usual_costs.clone)))
    players = "1-2 players" if side == "side_2" else "3-4 players"
    return {"id": f"main_{side}", "kind": "main_board", "name": f"Main board ({players} side)",
            "view_box": list(layout.view_box), "side": side, "spaces": spaces, "connections": []}


def _surcharge_text(data: Content, special: str) -> Message:
    surcharge = res_text(getattr(data.info.surcharges, special))
    info = data.info
    texts = {
        "city_prod6": msg("a connected symbiotic city here produces {n} points instead of {usual}",
                          n=info.production.city_prod6_points, usual=info.production.symbiotic_city_points),
        "city_points6": msg("building a city here gives {n} points at once", n=info.city_points6_points),
        "tunnel_triple": msg("the tunnel here, if next to a city, produces {n} times",
                             n=info.production.tunnel_triple_factor),
        "metro_plus2": msg("the metropolis it connects produces {n} more points in each Production",
                           n=info.production.metro_plus2_points),
    }
    return as_sentence(msg("surcharge {cost} to build here; {rule}", cost=surcharge, rule=texts[special]))


def _bonus(bonus: str) -> Message:
    return as_sentence(msg("build bonus: {bonus}", bonus=Message(BONUS_TEXTS[bonus])))


def _texts(texts: list[Message | str]) -> Message | str:
    """A site's texts, one after the other ("" for none)."""
    return joined(texts, N_("{a} {b}"))


def _player_board(record: PlayerBoardRecord, data: Content, layout: PlayerBoardLayout) -> dict[str, Any]:
    spaces: dict[str, dict[str, Any]] = {}
    for city in record.city_sites:
        texts: list[Message | str] = []
        if city.start:
            texts.append(msg("Starting city site (a nonsymbiotic city is placed here at setup)."))
        if city.bonus:
            texts.append(_bonus(city.bonus))
        if city.special:
            texts.append(_surcharge_text(data, city.special))
        spaces[city.id] = _space(city.id, "city_site", city.id, layout.sites[city.id], layout.city_size,
                                 start=city.start, bonus=city.bonus, special=city.special, text=_texts(texts))
    for metro in record.metropolis_spaces:
        rule = (msg("Connected when both of its tunnel sites are built.") if metro.kind == "brown"
                else msg("Connected when its tunnel site is built."))
        spaces[metro.id] = _space(
            metro.id, "metropolis_space",
            msg("{colour} metropolis space {id}", colour=Message(metro.kind.capitalize()), id=metro.id),
            layout.sites[metro.id], layout.metropolis_size, colour=metro.kind, text=rule)
    connections = []
    pairs: dict[str, list[str]] = {}
    for t in record.tunnel_sites:
        pairs.setdefault(t.pair_group or "", []).append(t.id)
    for t in record.tunnel_sites:
        (ax, ay), (bx, by) = layout.sites[t.a], layout.sites[t.b]
        w, h = layout.tunnel_size
        size = (w, h) if abs(bx - ax) >= abs(by - ay) else (h, w)
        texts = []
        if t.bonus:
            texts.append(_bonus(t.bonus))
        if t.special:
            texts.append(_surcharge_text(data, t.special))
        if t.pair_group:
            other = [p for p in pairs[t.pair_group] if p != t.id]
            texts.append(msg("Paired with {others}: in each Production, if both are built (and next to a city), "
                             "gain {n} credits.", others=joined(other, N_("{a} and {b}")),
                             n=data.info.production.tunnel_pair_credits))
        name = msg("Tunnel site {a}–{b}", a=t.a, b=t.b)
        spaces[t.id] = _space(t.id, "tunnel_site", name, ((ax + bx) / 2, (ay + by) / 2), size, a=t.a, b=t.b,
                              bonus=t.bonus, special=t.special, pair_group=t.pair_group, text=_texts(texts))
        connections.append({"a": t.a, "b": t.b, "via": t.id})
    for b in record.building_sites:
        number = b.id.rsplit(":", 1)[1]
        cx, cy = layout.sites[b.city]
        dx, dy = layout.building_offsets[number]
        texts = []
        if b.expansion:
            texts.append(msg("Expansion site: only cards that build on an expansion site use it."))
        if b.bonus:
            texts.append(_bonus(b.bonus))
        if b.multiplier != 1:
            texts.append(msg("×{n}: the building here produces {n} times in each Production.", n=b.multiplier))
        name = (msg("Expansion site of {city}", city=b.city) if b.expansion
                else msg("Building site {n} of {city}", n=number, city=b.city))
        spaces[b.id] = _space(b.id, "building_site", name, (cx + dx, cy + dy), layout.building_size, city=b.city,
                              expansion=b.expansion, bonus=b.bonus, multiplier=b.multiplier,
                              text=_texts(texts))
    side = "basic" if record.side == "basic" else "advanced"
    return {"id": f"player_board_{record.id}", "kind": "player_board",
            "name": f"Player board #{record.physical}, {side} side (board {record.id})", "board": record.id,
            "side": record.side, "physical": record.physical, "view_box": list(layout.view_box),
            "spaces": spaces, "connections": connections}


# --- tracks, terms, options ---------------------------------------------------------------------------------

def _tracks(data: Content, layout: MainBoardLayout) -> dict[str, Any]:
    era_names = {"R": N_("Round"), "P": N_("Production")}
    era_spaces = []
    w, h = layout.era_track.size
    for label, (x, y) in zip(data.info.era_track, layout.era_track.positions, strict=True):
        name = msg("{what} {n}", what=Message(era_names[label[0]]), n=label[1:])
        era_spaces.append({"id": label, "name": name, "x": x, "y": y, "w": w, "h": h})
    fed = data.info.federation
    fw, fh = layout.federation_track.size
    fed_spaces = [{"id": "0", "name": "Below space 4 (start area)", "x": layout.federation_track.positions["0"][0],
                   "y": layout.federation_track.positions["0"][1], "w": fw, "h": fh, "text": ""}]
    for space in fed.spaces:
        x, y = layout.federation_track.positions[str(space)]
        gain = _yield_gain(fed.enter_bonus[str(space)])
        text = (as_sentence(msg("entering it: {gain}", gain=gain_text(gain))) if gain != Gain()
                else msg("Entering it gives nothing."))
        if space == 1:
            text = msg("{a} {b}", a=text, b=msg("Each further step from here gives {n} point.",
                                                n=fed.overflow_points))
        fed_spaces.append({"id": str(space), "name": msg("Federation space {n}", n=space), "x": x, "y": y, "w": fw,
                           "h": fh, "text": text})
    return {
        "era": {"id": "era", "name": "Era track", "board_kind": "main_board",
                "text": msg("R = round, P = Production; the view's era_track_space names the marker's space."),
                "spaces": era_spaces},
        "federation": {"id": "federation", "name": "Federation track", "board_kind": "main_board",
                       "text": msg("Space 1 is best; a player's federation_space is 0 while below space 4. The order "
                                   "of markers on a space (federation_stacks) breaks ties."),
                       "spaces": fed_spaces},
    }


def _kind_texts(data: Content) -> dict[str, dict[str, str]]:
    info = data.info
    out: dict[str, dict[str, str]] = {}
    for kind in ("tunnel", "farm", "desal", "lab"):
        row = info.production.row(kind)
        produce = res_text(_yield_res(row.plain)).english() + _yield_points(row.plain)
        upgraded = res_text(_yield_res(row.upgraded)).english() + _yield_points(row.upgraded)
        text = (f"Usual cost {res_text(info.usual_costs.of(kind)).english()}. Produces {produce} "
                f"(upgraded: {upgraded})")
        if kind == "tunnel":
            text += " if next to a city"
        if row.pair_bonus is not None:
            text += (f"; a connected city with 2 upgraded {kind_word(kind, plural=True)} adds "
                     f"{res_text(_yield_res(row.pair_bonus)).english()}{_yield_points(row.pair_bonus)}")
        out[kind] = {"name": kind_word(kind).capitalize(), "text": text + "."}
    out["city_nonsym"] = {"name": "Nonsymbiotic city",
                          "text": f"Usual cost {res_text(info.usual_costs.city_nonsym).english()}. White dome; "
                                  "produces nothing itself."}
    out["city_sym"] = {"name": "Symbiotic city",
                       "text": f"Usual cost {res_text(info.usual_costs.city_sym).english()}. Purple dome; produces "
                               f"{info.production.symbiotic_city_points} points while connected."}
    return out


def _yield_gain(y: content_module.Yield) -> Gain:
    return Gain(credit=y.credit, kelp=y.kelp, steelplast=y.steelplast, science=y.science, biomatter=y.biomatter,
                points=y.points)


def _yield_res(y: content_module.Yield) -> Res:
    return Res(y.credit, y.kelp, y.steelplast, y.science, y.biomatter)


def _yield_points(y: content_module.Yield) -> str:
    return f" + {y.points} point{'s' if y.points > 1 else ''}" if y.points else ""


def _terms(data: Content) -> dict[str, dict[str, str]]:
    path = content_module.CONTENT_DIR / "terms.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogueError(f"terms.json: {exc}") from None
    named: dict[str, Any] = dict(raw["terms"])
    for kind, entry in _kind_texts(data).items():
        named.setdefault(kind, entry)
    effect_ops = [t.tag for t in msgspec.inspect.type_info(Effect).types]  # type: ignore[attr-defined]
    extra = [*ALLOWED, RUNNING, *STAGE_PROMPTS, *effect_ops]
    return terms_from(named, extra)


FLAG_TEXTS = {  # what each rule flag of §9.1 decides (RULES.md)
    "usability_check": "Whether a slot also counts as usable after the matched card's automatic gains "
                       "(card_aware) or only with what you hold when you place the tile (at_choice).",
    "pair_bonus_per_pair": "The bonus for upgraded buildings of one type at a city: once (false) or once per "
                           "pair (true).",
    "a14_allow_biomatter": "Whether the action that gains different resources may give biomatter.",
    "federation_start_small": "The Federation track's starting positions with 2 or 3 players: the first "
                              "positions (first_n) or compensation for the last players (compensate_last).",
    "tunnel_pair_both_adjacent": "Whether both tunnels of a tunnel pair must be next to a city for its bonus.",
    "solo_symbiotic_limit": "Solo: no limit of symbiotic cities (null) or at most 7.",
    "contracts_auto_claim": "Government contracts: claimed by themselves as soon as their requirements hold "
                            "(true) or by a claim of your own during your turn (false).",
    "early_discard": "Whether a player over the hand limit may discard during the other players' turns (true) "
                     "or only at the start of their own turn (false).",
    "discard_pile_public": "Whether the discard pile of the era deck is face up.",
    "known_special_hand_cards_public": "Whether Special cards taken face up stay known to everyone in your hand.",
    "draw3_min_deck": "How many cards the Special deck needs for the draw-3 route of taking a Special card.",
}


def _options() -> list[dict[str, Any]]:
    rule_flags = []
    for field in msgspec.inspect.type_info(Rules).fields:  # type: ignore[attr-defined]
        rule_flags.append({"name": field.name, "default": field.default, "values": _allowed(field.type),
                           "text": FLAG_TEXTS[field.name]})
    return [
        {"name": "board_side", "default": "basic", "values": ["basic", "advanced"],
         "text": "Player-board side; the solo game always uses advanced (the default there)."},
        {"name": "government_contracts", "default": False, "values": [True, False],
         "text": "Play with the government contracts variant (never in solo)."},
        {"name": "rules", "default": {f["name"]: f["default"] for f in rule_flags}, "values": None,
         "flags": rule_flags,
         "text": "Rule flags of spec §9.1: an object of any of the flags (name, default and values in flags)."},
    ]


def _allowed(t: Any) -> list[Any] | None:
    info = t
    if isinstance(info, msgspec.inspect.BoolType):
        return [True, False]
    if isinstance(info, msgspec.inspect.LiteralType):
        return list(info.values)
    if isinstance(info, msgspec.inspect.UnionType):
        out: list[Any] = []
        for member in info.types:
            sub = _allowed(member)
            if sub is None:
                return None
            out.extend(sub)
        return out
    if isinstance(info, msgspec.inspect.NoneType):
        return [None]
    return None


# --- the catalogue ------------------------------------------------------------------------------------------

@cache
def catalogue(engine_version: str, pack: str = "") -> dict[str, Any]:
    """The catalogue of the pack in use (``pack``, its key, keys the cache: one catalogue per pack)."""
    data = content()
    layout = load_layout(data)
    slot_texts = {code: effect_text(node) for code, node in data.slot_effects.items()}
    components: dict[str, Any] = {}
    for card in data.cards.values():
        components[card.id] = _card_entry(card, slot_texts)
    for tile in data.metropolises.values():
        components[tile.id] = _metropolis_entry(tile)
    for contract in data.contracts.values():
        components[contract.id] = _contract_entry(contract)
    boards: dict[str, Any] = {}
    for side in data.sides:
        board = _main_board(side, data, layout.main_board, layout.card_size)
        boards[board["id"]] = board
    for record in data.board_records.values():
        board = _player_board(record, data, layout.player_board)
        boards[board["id"]] = board
    body = {
        "components": components,
        "boards": boards,
        "tracks": _tracks(data, layout.main_board),
        "terms": _terms(data),
        "options": _options(),
        "card_size": list(layout.card_size),
        "tables": {k: v for k, v in msgspec.to_builtins(data.info).items() if k not in ("note", "provenance")},
        "data_versions": {"content": data.version, "layout": layout.data_version},
    }
    return envelope(engine_version, "underwater_cities", "Underwater Cities", (MIN_SEATS, MAX_SEATS), body)
