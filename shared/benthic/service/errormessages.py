"""Error messages in the reader's language: an answer to a request that asks for another language than English
(``Accept-Language``, ``?lang=``) carries, as its ``message``, the documented meaning of its code
(``benthic.errors``) in that language; a rule violation (an engine's open-ended code) says so in that
language and keeps the engine's own citation of the rule, which is English.  Codes and details never change."""

from __future__ import annotations

from benthic.errors import ERROR_CODES, RULE
from benthic.i18n import DEFAULT_LANGUAGE, gettext
from benthic.rules.presentation import N_

_MEANINGS = {(e.status, e.code): e.meaning for e in ERROR_CODES if e.code != RULE}
RULE_MESSAGE = N_("The rules do not allow this ({code}): {rule}")


def localized_message(status: int, code: str, message: str, language: str) -> str:
    """The ``message`` of an error answer in ``language`` (``message`` itself in English)."""
    if language == DEFAULT_LANGUAGE:
        return message
    meaning = _MEANINGS.get((status, code))
    if meaning is not None:
        return gettext(language, meaning)
    if status == 422:
        return gettext(language, RULE_MESSAGE).format(code=code, rule=message)
    return message


def error_keys() -> dict[str, str]:
    """The msgids of the error messages (scripts/i18n_update.py writes them with benthic.i18n.keys.all_keys)."""
    return {**{meaning: "errorcodes" for meaning in _MEANINGS.values()}, RULE_MESSAGE: "errormessages"}
