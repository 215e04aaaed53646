"""The engine's own choices where the spec is silent (RULES.md "Choices"), each pinned by a test."""

from __future__ import annotations

from msgspec.structs import replace

from benthic.rules.underwater_cities import ENGINE, flow, frames

from .fixtures import A, B, card, cmd, fixture, kind, of_type, play, rejects, res


def test_empty_hand_places_a_tile_without_a_card() -> None:
    state = fixture(hands={B: [card(17)]})
    state = replace(state, era_deck=(), era_discard=())
    legal = ENGINE.legal_commands(state, A)
    assert cmd.PlayCard("", "AA") in legal and all(isinstance(c, cmd.PlayCard) and c.card_id == "" for c in legal)
    state, events = play(state, A, cmd.PlayCard("", "AA"))
    played = of_type(events, "card_played")[0]
    assert played.card_id == "" and not played.matched
    assert state.players[A].res.credit == 2 and state.turn.seat == B
    rejects(state, B, cmd.PlayCard("", "AA"), "card_not_in_hand")


def test_single_node_frames_start_at_once_and_all_frames_ask() -> None:
    single = fixture(hands={A: [card(2)]}, resources={A: res(steelplast=2, credit=2)})
    single, _ = play(single, A, cmd.PlayCard(card(2), "Y5"))  # A6: one build node
    assert kind(single) == "build"
    composite = fixture(hands={A: [card(2)]}, resources={A: res(steelplast=3, kelp=1, credit=3)})
    composite, _ = play(composite, A, cmd.PlayCard(card(2), "Y1"))  # A10: all[tunnel ; city]
    assert kind(composite) == "resolve_effect"


def test_counted_part_waits_for_the_parts_that_change_its_count() -> None:
    # An `all` of a build and a `per` on what it builds: the per part waits while the build is usable.
    from benthic.rules.underwater_cities.effects import All, Build, Gain, Per, Quantity

    node = All(parts=(Build(kinds=("farm",)), Per(q=Quantity(q="connected_buildings", kind="farm"), div=1,
                                                    then=Gain(points=1))))
    state = fixture(resources={A: res(kelp=1)}, pieces={A: {"B:C34:1": "farm"}})
    state = replace(state, era_deck=tuple(c for c in state.era_deck if c != card(2)))
    turn = replace(state.turn, stage="running", block="card", card_frame=True, card_id=card(2), matched=True)
    ctx = flow.Ctx(replace(state, turn=turn))
    frames.open_frame(ctx, A, "card", node.parts, True, card_id=card(2))
    flow.settle(ctx)
    assert kind(ctx.state) == "resolve_effect" and ctx.state.players[A].points == 0
    state, _ = play(ctx.state, A, cmd.StartPart(0), cmd.Build("farm", "B:C34:2"))
    assert state.players[A].points == 2  # the build used the last kelp; the per part then resolved by itself


def test_hidden_production_choice_until_every_seat_answered() -> None:
    state = fixture(2, round_no=4, tableau={A: [card(46)], B: [card(9)]},
                    pieces={A: {"B:C34:1": ("lab", True)}})
    ctx = flow.Ctx(replace(state, turn=None))
    flow.round_end(ctx)
    state, events = play(ctx.state, A, cmd.SetProductionOptions((card(46),)))
    assert of_type(events, "production_option_chosen") and ENGINE.redact(events[0], B) is None
