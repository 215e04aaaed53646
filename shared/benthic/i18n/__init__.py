"""Languages: the texts people read (catalogue names and terms, move labels, history sentences, error
messages) in English or Portuguese, from gettext catalogues read with Babel.

The engines build :class:`benthic.rules.Message` values (an English template as the gettext msgid, plus
params); this package picks the language a request asks for (``negotiate``) and translates them
(``render``, ``localized_labels``, ``localized_catalogue``).  English is the source language: its texts are
the msgids themselves, so only ``locales/pt`` holds a catalogue.
"""

from benthic.i18n.catalogs import DEFAULT_LANGUAGE, LANGUAGES, gettext
from benthic.i18n.negotiation import negotiate
from benthic.i18n.render import localized_catalogue, localized_labels, render

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "gettext", "localized_catalogue", "localized_labels", "negotiate",
           "render"]
