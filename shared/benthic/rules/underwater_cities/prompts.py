"""The prompt (§5.3): derived from the state — who must decide what now, and which commands answer it."""

from __future__ import annotations

from typing import Any

import msgspec

from . import commands as cmd
from .effects import (
    Build,
    BuildUpgrade,
    Choice,
    ConvertCity,
    Effect,
    Exchange,
    GainDistinct,
    Pay,
    PerformSlot,
    RestoreAction,
    StructureProduction,
    TakeSpecial,
    Upgrade,
    UseAction,
)
from .state import ActivePart, GameState

SUB_PROMPTS: dict[type, str] = {
    Choice: "choose_option",
    Build: "build",
    BuildUpgrade: "build",
    Upgrade: "upgrade",
    UseAction: "choose_action_card",
    RestoreAction: "restore_action_card",
    TakeSpecial: "take_special",
    GainDistinct: "gain_distinct",
    Pay: "pay",
    Exchange: "exchange",
    PerformSlot: "choose_slot",
    StructureProduction: "choose_structure",
    ConvertCity: "choose_city",
}

STAGE_PROMPTS = {
    "discard": "discard_to_limit",
    "choose_play": "choose_play",
    "choose_order": "choose_order",
    "pay_special": "pay_special",
    "action_limit": "action_limit",
    "use_discarded_action": "use_discarded_action",
    "end_of_turn": "end_of_turn",
}

SIMULTANEOUS = {"keep": "keep_cards", "production_options": "production_options",
                "final_purchases": "final_purchases"}

ALLOWED: dict[str, tuple[type, ...]] = {
    "keep_cards": (cmd.KeepCards,),
    "discard_to_limit": (cmd.DiscardCards,),
    "choose_play": (cmd.PlayCard, cmd.PlayCardClone, cmd.UseAbility),
    "choose_order": (cmd.ChooseOrder, cmd.UseAbility),
    "pay_special": (cmd.PaySpecial, cmd.DeclineSpecial),
    "action_limit": (cmd.DiscardActionCard, cmd.DeclineClaim),
    "use_discarded_action": (cmd.UseDiscardedAction,),
    "resolve_effect": (cmd.StartPart, cmd.EndEffect, cmd.UseAbility),
    "choose_option": (cmd.ChooseOption, cmd.Done),
    "build": (cmd.Build, cmd.Done),
    "upgrade": (cmd.Upgrade, cmd.Done),
    "choose_action_card": (cmd.UseActionCard, cmd.Done),
    "restore_action_card": (cmd.RestoreActionCard, cmd.Done),
    "take_special": (cmd.TakeSpecial, cmd.Done),
    "special_draw3": (cmd.KeepSpecial,),
    "gain_distinct": (cmd.GainDistinct, cmd.Done),
    "pay": (cmd.Pay, cmd.Done),
    "exchange": (cmd.Exchange, cmd.Done),
    "choose_slot": (cmd.PerformSlot, cmd.Done),
    "choose_structure": (cmd.ChooseStructure, cmd.Done),
    "choose_city": (cmd.ConvertCity, cmd.Done),
    "end_of_turn": (cmd.UseAbility, cmd.EndTurn),
    "production_options": (cmd.SetProductionOptions,),
    "final_purchases": (cmd.BuyPoints, cmd.DoneBuying),
}


RUNNING = "running"  # only seen on the intermediate states inside one decide (between its events)


def sub_prompt(active: ActivePart) -> str:
    if active.drawn:
        return "special_draw3"
    return SUB_PROMPTS.get(type(active.node), RUNNING)


def prompt_of(state: GameState) -> tuple[str, tuple[int, ...]] | None:
    """(kind, seats) of the current prompt, None when the game is over."""
    phase = state.phase
    if phase == "over":
        return None
    if phase == "turn" and state.turn is not None:
        seats = (state.turn.seat,)
        if state.frames:
            active = state.frames[-1].active
            return (sub_prompt(active) if active is not None else "resolve_effect"), seats
        return STAGE_PROMPTS.get(state.turn.stage, RUNNING), seats
    if phase in SIMULTANEOUS and state.prompt_seats:
        return SIMULTANEOUS[phase], state.prompt_seats
    return RUNNING, ()


def node_json(node: Effect) -> Any:
    return msgspec.to_builtins(node)


def describe(node: Effect) -> str:
    """A short human summary of an effect node, for prompt payloads."""
    from .effects import All, Fed, Gain, GainMetropolis, If, Per

    t = type(node)
    if t is Gain:
        items = [f"{v} {k}" for k, v in msgspec.to_builtins(node).items() if k != "op" and v]
        return "gain " + ", ".join(items)
    if t is Fed:
        return f"advance {node.steps} on the Federation track"  # type: ignore[union-attr]
    if t is All:
        return " ; ".join(describe(p) for p in node.parts)  # type: ignore[union-attr]
    if t is Choice:
        return "either " + " / ".join(describe(o) for o in node.options)  # type: ignore[union-attr]
    if t is Build:
        return f"build {'|'.join(node.kinds)} x{node.n}"  # type: ignore[union-attr]
    if t is BuildUpgrade:
        return f"build and upgrade {'|'.join(node.kinds)}"  # type: ignore[union-attr]
    if t is Upgrade:
        return f"upgrade {'|'.join(node.kinds)} x{node.n}"  # type: ignore[union-attr]
    if t is UseAction:
        return f"use {node.n} action card(s)"  # type: ignore[union-attr]
    if t is RestoreAction:
        return f"restore {node.n} action card(s)"  # type: ignore[union-attr]
    if t is TakeSpecial:
        return "take a Special card"
    if t is PerformSlot:
        return f"perform a slot ({node.scope})"  # type: ignore[union-attr]
    if t is Pay:
        return f"pay up to {node.max_times} times, then {describe(node.then)}"  # type: ignore[union-attr]
    if t is If:
        return f"if condition: {describe(node.then)}"  # type: ignore[union-attr]
    if t is Per:
        return f"per quantity: {describe(node.then)}"  # type: ignore[union-attr]
    if t is GainMetropolis:
        return "gain a metropolis"
    return str(node.__struct_config__.tag)
