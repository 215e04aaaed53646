"""Labels of Underwater Cities commands (``ENGINE.describe``) in known positions, and the catalogue's texts."""

from __future__ import annotations

from benthic.rules import GameConfig
from benthic.rules.underwater_cities import commands as cmd
from benthic.rules.underwater_cities.describe import card_name
from tests.unit.underwater_cities.fixtures import ENGINE, A, B, card, fixture, kind, play, res


def labels(state, seat=A):  # type: ignore[no-untyped-def]
    return [d.label for d in ENGINE.describe_all(state, ENGINE.legal_commands(state, seat), seat)]


def test_playing_a_card_names_the_card_the_slot_and_its_action() -> None:
    state = fixture(hands={A: [card(17)]}, resources={A: res(kelp=1, credit=1)})
    described = ENGINE.describe(state, cmd.PlayCard(card(17), "G3"))
    assert described.label == "Play Small Grant on G3 (build up to 2 farms at usual cost)"
    assert described.highlights == [card(17), "G3"]
    assert ENGINE.describe(state, cmd.PlayCard(card(17), "G3"), A) == described  # the seat may be given


def test_a_build_names_the_site_and_what_is_paid_with_biomatter_substitution() -> None:
    state = fixture(hands={A: [card(17)]}, resources={A: res(kelp=1, biomatter=1, credit=1)})
    state, _ = play(state, A, cmd.PlayCard(card(17), "G3"))
    assert kind(state) == "build"
    plain = ENGINE.describe(state, cmd.Build("farm", "B:C34:1"))
    bio = ENGINE.describe(state, cmd.Build("farm", "B:C34:1", 1, 0))
    assert plain.label == "Build a farm at C34 (site 1) for 1 kelp"
    assert bio.label == "Build a farm at C34 (site 1) for 1 biomatter"
    assert plain.highlights == bio.highlights == ["B:C34:1"]
    assert "Build a farm at C24 (site 1) for 1 kelp; bonus: gain 1 science" in labels(state)  # board #1's bonus
    assert labels(state)[-1] == "Build nothing"
    assert len(set(labels(state))) == len(labels(state))


def test_without_kelp_the_canonical_build_is_paid_with_biomatter() -> None:
    state = fixture(hands={A: [card(17)]}, resources={A: res(biomatter=2, credit=1)})
    state, _ = play(state, A, cmd.PlayCard(card(17), "G3"))
    assert ENGINE.describe(state, cmd.Build("farm", "B:C34:2")).label == "Build a farm at C34 (site 2) for 1 biomatter"


def test_cards_sharing_a_name_are_told_apart_by_number() -> None:
    assert content_name(card(70)) == content_name(card(92)) == "Trial Run"
    assert card_name(card(70)) == "Trial Run (#70)" and card_name(card(92)) == "Trial Run (#92)"
    state = fixture(hands={A: [card(70), card(92)]}, resources={A: res(credit=1)})
    assert len(set(labels(state))) == len(labels(state))


def test_keeping_cards_lists_their_names_and_only_the_seat_sees_them() -> None:
    state = ENGINE.replay(ENGINE.start(GameConfig(seats=2, seed=4)))
    assert ENGINE.prompt(state).kind == "keep_cards"
    for seat in (A, B):
        hand = state.players[seat].hand
        legal = ENGINE.legal_commands(state, seat)
        for command, described in zip(legal, ENGINE.describe_all(state, legal, seat), strict=True):
            assert described.highlights == list(command.card_ids)
            assert described.label == "Keep " + ", ".join(card_name(c) for c in command.card_ids[:-1]) + \
                f" and {card_name(command.card_ids[-1])}"
            assert set(described.highlights) <= set(hand)


def test_catalogue_texts_follow_the_effect_data() -> None:
    components = ENGINE.catalogue()["components"]
    assert components[card(17)]["text"] == "Gain 2 credits."
    assert components["c023"]["text"] == "End of game: you may pay 1 kelp + 1 steelplast for 1 point, up to 5 times."
    assert components["c035"]["text"] == ("On your turn, whenever your Federation marker moves onto space 3: "
                                          "gain 1 credit.")
    main = ENGINE.catalogue()["boards"]["main_side_34"]["spaces"]
    assert main["G3"]["text"] == "Build up to 2 farms at usual cost." and main["G3"]["action"] == "A9"
    assert "cloning_tile" in main and "cloning_tile" not in ENGINE.catalogue()["boards"]["main_side_2"]["spaces"]
    board = ENGINE.catalogue()["boards"]["player_board_5"]["spaces"]
    assert board["C23"]["special"] == "city_prod6" and "3 credits + 3 steelplast" in board["C23"]["text"]
    assert board["T:C22-C23"]["pair_group"] == "pair1"


def content_name(card_id: str) -> str:
    return str(ENGINE.catalogue()["components"][card_id]["name"])


def test_the_catalogue_lists_every_rule_flag_with_its_values_and_a_text_in_both_languages() -> None:
    from benthic.i18n import localized_catalogue

    catalogue = ENGINE.catalogue()
    rules = next(o for o in catalogue["options"] if o["name"] == "rules")
    flags = {f["name"]: f for f in rules["flags"]}
    assert (flags["early_discard"]["default"], flags["early_discard"]["values"]) == (False, [True, False])
    assert (flags["contracts_auto_claim"]["default"], flags["contracts_auto_claim"]["values"]) == (True, [True, False])
    assert all(f["text"] for f in flags.values())
    portuguese = next(o for o in localized_catalogue(catalogue, "pt")["options"] if o["name"] == "rules")
    texts = {f["name"]: f["text"] for f in portuguese["flags"]}
    assert texts["early_discard"].startswith("Se um jogador acima do limite de mão")
    assert all(texts[name] != flags[name]["text"] for name in flags)
    for flag in ("early_discard", "contracts_auto_claim"):  # both values start a game
        for value in (True, False):
            ENGINE.start(GameConfig(seats=3, seed=1, options={"government_contracts": True, "rules": {flag: value}}))
