"""The web client's language setting, in headless Chromium against the services as processes: choosing
Português (kept in localStorage, sent as Accept-Language) shows the moves and the history in Portuguese, as the
APIs answer them in that language, and the client's own words (headings, buttons, prompts) in Portuguese too,
from the catalogue's translations the projection service answers at /app/messages.json."""

from __future__ import annotations

import re
from typing import Any

import httpx

from benthic.local.localplatform import LocalPlatform
from tests.e2e.test_web_client import Page, _my_turn_against_the_api, browser  # noqa: F401 - a fixture
from tests.e2e.test_web_client import platform as platform  # the fixture

SHOWN = """() => ({
  moves: [...document.querySelectorAll("#moves button.move")].map((b) => b.textContent),
  history: [...document.querySelectorAll("[data-testid=history] li")].map((li) =>
    li.textContent.replace(/^#\\d+ /, "")),
})"""


def _answers(services: LocalPlatform, game_id: str, token: str, language: str) -> tuple[list[str], list[str]]:
    """The seat's move labels and history sentences as the APIs answer them in ``language``."""
    headers = {"Authorization": f"Bearer {token}", "Accept-Language": language}
    legal = httpx.get(f"{services.command_url}/games/{game_id}/legal", headers=headers).json()
    history = httpx.get(f"{services.read_url}/games/{game_id}/seats/0/history", headers=headers,
                        params={"limit": 1000}).json()
    return [label["label"] for label in legal["labels"]], [e["text"] for e in history["events"] if e["text"]]


def _catalogue_names(services: LocalPlatform, language: str) -> dict[str, str]:
    content = httpx.get(f"{services.command_url}/game-types/underwater_cities/content",
                        headers={"Accept-Language": language}).json()
    return {id_: component["name"] for id_, component in content["components"].items()}


# Words the client writes itself (not the APIs), none of which the page may show once in Portuguese.
CLIENT_WORDS = ("Your hand", "Played cards", "Special cards on offer", "Your move", "Your area", "Lobby", "New game",
                "Your games", "Sign out", "Signed in as", "Undo my last move", "Moves", "History", "Main board",
                "in hand", "cards in hand", "hand limit", "points", "left")
PAGE_TEXT = "() => document.body.innerText"


def test_the_client_words_are_served_per_language_and_revalidated(platform: LocalPlatform) -> None:  # noqa: F811
    portuguese = httpx.get(f"{platform.read_url}/app/messages.json", params={"lang": "pt-BR,pt;q=0.9"})
    assert portuguese.status_code == 200 and portuguese.json()["language"] == "pt"
    assert portuguese.json()["messages"]["Your hand"] == "Sua mão"
    assert portuguese.json()["messages"]["{n} move with {thing}:"] == ["{n} jogada com {thing}:",
                                                                        "{n} jogadas com {thing}:"]
    again = httpx.get(f"{platform.read_url}/app/messages.json", params={"lang": "pt"},
                      headers={"If-None-Match": portuguese.headers["ETag"]})
    assert again.status_code == 304
    english = httpx.get(f"{platform.read_url}/app/messages.json", params={"lang": "en"})
    assert english.json() == {"language": "en", "messages": {}}
    assert english.headers["ETag"] != portuguese.headers["ETag"]


CARDS = """() => [...document.querySelectorAll(".card[data-id] .name")].map((n) => [n.parentElement.dataset.id,
  n.textContent])"""


def _shown(player: Page, labels: list[str], sentences: list[str]) -> dict[str, Any]:
    """What the page shows once its moves are ``labels`` and its history holds ``sentences``."""
    player.page.wait_for_function(
        f"([labels, sentences]) => {{ const s = ({SHOWN})(); return JSON.stringify(s.moves) === JSON.stringify(labels)"
        " && sentences.every((t) => s.history.includes(t)); }", arg=[labels, sentences], timeout=30_000)
    shown: dict[str, Any] = player.page.evaluate(SHOWN)
    return shown


def test_switching_to_portuguese_shows_portuguese_moves_and_history(platform: LocalPlatform, browser: Any) -> None:  # noqa: F811 - fixtures
    player, game_id = _my_turn_against_the_api(platform, browser, "gina", "hugo")
    token = player.page.evaluate(f"JSON.parse(sessionStorage.getItem('benthic.seat.{game_id}')).token")
    en_labels, en_sentences = _answers(platform, game_id, token, "en")
    pt_labels, pt_sentences = _answers(platform, game_id, token, "pt")
    assert en_labels != pt_labels and en_sentences != pt_sentences
    player.page.reload()  # the history read before the other player joined names that seat "Seat 2"
    player.page.wait_for_selector(".game[data-version]")
    english = _shown(player, en_labels, en_sentences)
    assert set(en_sentences) <= set(english["history"])

    player.page.select_option("[data-testid=language]", "pt")  # the page draws itself again in Portuguese
    player.page.wait_for_selector(".game[data-version]")
    assert player.page.evaluate("localStorage.getItem('benthic.language')") == "pt"
    assert player.page.input_value("[data-testid=language]") == "pt"
    portuguese = _shown(player, pt_labels, pt_sentences)
    assert set(pt_sentences) <= set(portuguese["history"])
    assert any(" jogou " in line or "Começa" in line for line in portuguese["history"]), portuguese["history"]
    assert not set(en_sentences) & set(portuguese["history"]) - set(pt_sentences)
    # The cards drawn (hand, offer, played) carry the catalogue's Portuguese names, though the English catalogue
    # of the same address was fetched (and cached by the browser for a day) before the switch.
    pt_names, en_names = _catalogue_names(platform, "pt"), _catalogue_names(platform, "en")
    cards = player.page.evaluate(CARDS)
    assert cards and all(shown == pt_names[id_] for id_, shown in cards), cards
    assert any(pt_names[id_] != en_names[id_] for id_, _ in cards), cards
    # The client's own words are Portuguese too (not the moves: their labels may quote a name, "Turnê de Lobby").
    text = player.page.evaluate(PAGE_TEXT)
    assert "Sua mão" in text and "Cartas jogadas" in text and "Sua vez" in text, text
    chrome = player.page.evaluate("""() => [...document.querySelectorAll("header.top, .game-head, .moves-panel h2, "
      + "details.panel summary, .player-area h2, .card-row h3, figcaption, dl.stats dt, button:not(.move)")]
      .map((el) => el.innerText).join("\\n")""")
    assert "Sua mão" in chrome and "Histórico" in chrome, chrome
    shown = [word for word in CLIENT_WORDS if re.search(rf"\b{re.escape(word)}\b", chrome)]
    assert shown == [], (shown, chrome)
    player.shot("portuguese")

    player.page.select_option("[data-testid=language]", "en")
    player.page.wait_for_selector(".game[data-version]")
    assert _shown(player, en_labels, en_sentences)["moves"] == en_labels
    player.close()
