"""The effect-frame stack of §5.2: opening frames for slots, cards and triggers, starting their parts, and
advancing the top frame by itself while no decision is needed."""

from __future__ import annotations

from . import events as ev
from .ctx import Ctx
from .effects import (
    All,
    Build,
    BuildUpgrade,
    Effect,
    Fed,
    Gain,
    GainMetropolis,
    RestoreAction,
    Upgrade,
    UseAction,
)
from .evolve import unwrap
from .resolve import is_automatic, pending_upgrade, resolve_now
from .state import Frame
from .usability import usable


def open_frame(ctx: Ctx, seat: int, source: str, parts: tuple[Effect, ...], is_all: bool, card_id: str = "",
               slot_id: str = "", root: int | None = None) -> int:
    frame_id = ctx.state.next_frame_id
    if root is None:
        root = frame_id if source in ("slot", "performed_slot") else 0
    ctx.emit(ev.FrameOpened(frame_id, seat, source, parts, is_all, card_id, slot_id, root))
    return frame_id


def flush_pending(ctx: Ctx, seat: int) -> None:
    """Push queued trigger frames so that the first one fired ends on top."""
    if not ctx.pending:
        return
    pending, ctx.pending = ctx.pending, []
    for source, parts, is_all, card_id in reversed(pending):
        open_frame(ctx, seat, source, parts, is_all, card_id=card_id, root=0)


def start_part(ctx: Ctx, seat: int, frame: Frame, index: int) -> None:
    """Begin a part: automatic nodes resolve, composite ones get a child frame, the rest a sub-prompt."""
    node = unwrap(frame.parts[index])
    begin_node(ctx, seat, frame, index, node, started=False)


def begin_node(ctx: Ctx, seat: int, frame: Frame, index: int, node: Effect, started: bool) -> None:
    if is_automatic(node):
        resolve_now(ctx, seat, node, _reason(frame), frame.root)
        ctx.emit(ev.PartEnded(frame.id, index))
    elif isinstance(node, All):
        ctx.emit(ev.PartEnded(frame.id, index))
        open_frame(ctx, seat, frame.source, node.parts, True, frame.card_id, frame.slot_id, frame.root)
    elif not started:
        ctx.emit(ev.PartStarted(frame.id, index))


def _reason(frame: Frame) -> str:
    if frame.card_id:
        return f"{frame.source}:{frame.card_id}"
    if frame.slot_id:
        return f"{frame.source}:{frame.slot_id}"
    return frame.source


def step_frame(ctx: Ctx, seat: int) -> bool:
    """Advance the top frame by itself if it can; False when it waits for the seat."""
    state = ctx.state
    top = state.frames[-1]
    active = top.active
    if active is not None:
        node = active.node
        if isinstance(node, BuildUpgrade):
            if active.upgrade_site:
                pending_upgrade(ctx, seat, active.upgrade_site)
                ctx.emit(ev.PartEnded(top.id, active.part))
                return True
            if active.remaining <= 0:
                ctx.emit(ev.PartEnded(top.id, active.part))
                return True
            return False
        # build repeats while pieces remain and a legal build exists; upgrade / use / restore repeat up to n
        # (§5.3 P9.2-P9.5), the seat may always stop with `done`.
        if isinstance(node, (Build, Upgrade, UseAction, RestoreAction)):
            if active.remaining <= 0 or (isinstance(node, Build) and not usable(state, seat, node)):
                ctx.emit(ev.PartEnded(top.id, active.part))
                return True
        return False
    unresolved = [i for i, done in enumerate(top.resolved) if not done]
    for i in unresolved:
        node = top.parts[i]
        if type(node) in (Gain, Fed, GainMetropolis):
            resolve_now(ctx, seat, node, _reason(top), top.root)
            ctx.emit(ev.PartEnded(top.id, i))
            return True
    usable_parts = [i for i in unresolved if usable(state, seat, top.parts[i])]
    if not usable_parts:
        ctx.emit(ev.EffectEnded(top.id, tuple(unresolved)))
        return True
    if all(is_automatic(top.parts[i]) for i in usable_parts):
        start_part(ctx, seat, top, usable_parts[0])
        return True
    if not top.is_all:
        start_part(ctx, seat, top, 0)
        return True
    return False
