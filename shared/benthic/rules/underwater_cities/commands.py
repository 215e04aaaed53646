"""Commands (spec §5.3), tagged by name in field ``type``.  Argument values are typed loosely (str, int)
so that a bad value is a RuleViolation (``invalid_argument`` and friends) from ``decide``, as the spec
lists them, rather than a decoding error."""

from __future__ import annotations

from typing import Union

import msgspec


class _Command(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", omit_defaults=True):
    pass


class KeepCards(_Command, tag="keep_cards"):
    card_ids: tuple[str, ...]


class DiscardCards(_Command, tag="discard_cards"):
    card_ids: tuple[str, ...]


class PlayCard(_Command, tag="play_card"):
    card_id: str
    slot_id: str


class PlayCardClone(_Command, tag="play_card_clone"):
    card_id: str
    slot_id: str


class UseAbility(_Command, tag="use_ability"):
    card_id: str


class ChooseOrder(_Command, tag="choose_order"):
    first: str


class PaySpecial(_Command, tag="pay_special"):
    pass


class DeclineSpecial(_Command, tag="decline_special"):
    pass


class DiscardActionCard(_Command, tag="discard_action_card"):
    card_id: str


class DeclineClaim(_Command, tag="decline_claim"):
    pass


class UseDiscardedAction(_Command, tag="use_discarded_action"):
    use: bool


class StartPart(_Command, tag="start_part"):
    part: int


class EndEffect(_Command, tag="end_effect"):
    pass


class Done(_Command, tag="done"):
    pass


class ChooseOption(_Command, tag="choose_option"):
    option: int


class Build(_Command, tag="build"):
    kind: str
    site: str
    bio_for_kelp: int | None = None
    bio_for_steelplast: int | None = None


class Upgrade(_Command, tag="upgrade"):
    site: str
    pay: str | None = None


class UseActionCard(_Command, tag="use_action_card"):
    card_id: str


class RestoreActionCard(_Command, tag="restore_action_card"):
    card_id: str


class TakeSpecial(_Command, tag="take_special"):
    source: str
    row_index: int | None = None


class KeepSpecial(_Command, tag="keep_special"):
    keep: str
    bottom: tuple[str, ...]


class GainDistinct(_Command, tag="gain_distinct"):
    types: tuple[str, ...]


class Pay(_Command, tag="pay"):
    times: int


class Exchange(_Command, tag="exchange"):
    direction: str


class PerformSlot(_Command, tag="perform_slot"):
    slot_id: str


class ChooseStructure(_Command, tag="choose_structure"):
    site: str


class ConvertCity(_Command, tag="convert_city"):
    site: str


class EndTurn(_Command, tag="end_turn"):
    pass


class SetProductionOptions(_Command, tag="set_production_options"):
    use_card_ids: tuple[str, ...]


class BuyPoints(_Command, tag="buy_points"):
    card_id: str
    times: int


class DoneBuying(_Command, tag="done_buying"):
    pass


Command = Union[
    KeepCards, DiscardCards, PlayCard, PlayCardClone, UseAbility, ChooseOrder, PaySpecial, DeclineSpecial,
    DiscardActionCard, DeclineClaim, UseDiscardedAction, StartPart, EndEffect, Done, ChooseOption, Build,
    Upgrade, UseActionCard, RestoreActionCard, TakeSpecial, KeepSpecial, GainDistinct, Pay, Exchange,
    PerformSlot, ChooseStructure, ConvertCity, EndTurn, SetProductionOptions, BuyPoints, DoneBuying,
]
