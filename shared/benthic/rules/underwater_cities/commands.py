"""Commands (spec §5.3), tagged by name in field ``type``.  Argument values are typed loosely (str, int)
so that a bad value is a RuleViolation (``invalid_argument`` and friends) from ``decide``, as the spec
lists them, rather than a decoding error."""

from __future__ import annotations

import msgspec


class _Command(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", omit_defaults=True):
    pass


class KeepCards(_Command, frozen=True, tag="keep_cards"):
    card_ids: tuple[str, ...]


class DiscardCards(_Command, frozen=True, tag="discard_cards"):
    card_ids: tuple[str, ...]


class PlayCard(_Command, frozen=True, tag="play_card"):
    card_id: str
    slot_id: str


class PlayCardClone(_Command, frozen=True, tag="play_card_clone"):
    card_id: str
    slot_id: str


class UseAbility(_Command, frozen=True, tag="use_ability"):
    card_id: str


class ChooseOrder(_Command, frozen=True, tag="choose_order"):
    first: str


class PaySpecial(_Command, frozen=True, tag="pay_special"):
    pass


class DeclineSpecial(_Command, frozen=True, tag="decline_special"):
    pass


class DiscardActionCard(_Command, frozen=True, tag="discard_action_card"):
    card_id: str


class DeclineClaim(_Command, frozen=True, tag="decline_claim"):
    pass


class UseDiscardedAction(_Command, frozen=True, tag="use_discarded_action"):
    use: bool


class StartPart(_Command, frozen=True, tag="start_part"):
    part: int


class EndEffect(_Command, frozen=True, tag="end_effect"):
    pass


class Done(_Command, frozen=True, tag="done"):
    pass


class ChooseOption(_Command, frozen=True, tag="choose_option"):
    option: int


class Build(_Command, frozen=True, tag="build"):
    kind: str
    site: str
    bio_for_kelp: int | None = None
    bio_for_steelplast: int | None = None


class Upgrade(_Command, frozen=True, tag="upgrade"):
    site: str
    pay: str | None = None


class UseActionCard(_Command, frozen=True, tag="use_action_card"):
    card_id: str


class RestoreActionCard(_Command, frozen=True, tag="restore_action_card"):
    card_id: str


class TakeSpecial(_Command, frozen=True, tag="take_special"):
    source: str
    row_index: int | None = None


class KeepSpecial(_Command, frozen=True, tag="keep_special"):
    keep: str
    bottom: tuple[str, ...]


class GainDistinct(_Command, frozen=True, tag="gain_distinct"):
    types: tuple[str, ...]


class Pay(_Command, frozen=True, tag="pay"):
    times: int


class Exchange(_Command, frozen=True, tag="exchange"):
    direction: str


class PerformSlot(_Command, frozen=True, tag="perform_slot"):
    slot_id: str


class ChooseStructure(_Command, frozen=True, tag="choose_structure"):
    site: str


class ConvertCity(_Command, frozen=True, tag="convert_city"):
    site: str


class EndTurn(_Command, frozen=True, tag="end_turn"):
    pass


class ClaimContract(_Command, frozen=True, tag="claim_contract"):
    """§9.1 ``contracts_auto_claim = false``: claim a revealed contract whose requirements the seat meets."""

    contract_id: str


class SetProductionOptions(_Command, frozen=True, tag="set_production_options"):
    use_card_ids: tuple[str, ...]


class BuyPoints(_Command, frozen=True, tag="buy_points"):
    card_id: str
    times: int


class DoneBuying(_Command, frozen=True, tag="done_buying"):
    pass


Command = (
    KeepCards | DiscardCards | PlayCard | PlayCardClone | UseAbility | ChooseOrder | PaySpecial | DeclineSpecial
    | DiscardActionCard | DeclineClaim | UseDiscardedAction | StartPart | EndEffect | Done | ChooseOption | Build
    | Upgrade | UseActionCard | RestoreActionCard | TakeSpecial | KeepSpecial | GainDistinct | Pay | Exchange
    | PerformSlot | ChooseStructure | ConvertCity | EndTurn | ClaimContract | SetProductionOptions | BuyPoints
    | DoneBuying
)
