"""The web client's Play page in headless Chromium against the services as processes: a player asks for a game,
a second player in another browser context asks for a compatible one, and both land in the same new game (the
page's link leads to it); an invitation sent from the page is accepted from the page by the invitee; the page reads
in English and in Portuguese.  Screenshots go to tests/artifacts/web/."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from benthic.local.localplatform import LocalPlatform
from tests.e2e.test_web_client import Page, browser  # noqa: F401 - a fixture
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({**GENEROUS_LIMITS, "BENTHIC_MATCH_WAVE_S": "0.5"})


def _player(platform: LocalPlatform, browser: Any, name: str) -> tuple[Page, str]:  # noqa: F811
    player_id = f"{name}-{uuid.uuid4().hex[:5]}"
    page = Page(browser, platform.read_url)
    page.sign_in(player_id)
    page.goto("#/play")
    page.page.wait_for_selector("[data-testid=tickets]")
    return page, player_id


def _ask(page: Page, game_type: str, seats: str) -> None:
    page.page.select_option("[data-testid=play-type]", game_type)
    page.page.select_option("[data-testid=play-seats]", seats)
    page.page.select_option("[data-testid=play-pace]", "daily")
    page.page.click("[data-testid=play-ask]")
    page.page.wait_for_selector("[data-testid=ticket][data-status=waiting], [data-testid=ticket-game]")


def test_two_players_ask_from_the_play_page_and_sit_at_one_game(platform: LocalPlatform, browser: Any) -> None:  # noqa: F811
    ana, _ = _player(platform, browser, "ana")
    bo, _ = _player(platform, browser, "bo")
    try:
        _ask(ana, "aquatica", "[2,2]")
        ana.shot("play-waiting")
        _ask(bo, "aquatica", "[2,4]")
        links = [p.page.wait_for_selector("[data-testid=ticket-game]", timeout=60_000) for p in (ana, bo)]
        hrefs = [link.get_attribute("href") for link in links]
        assert hrefs[0] == hrefs[1] and hrefs[0].startswith("#/game/"), hrefs
        ana.shot("play-matched")
        links[0].click()
        ana.page.wait_for_selector(".game")
        assert ana.page.url.endswith(hrefs[0])
    finally:
        ana.close()
        bo.close()


def test_an_invitation_sent_and_accepted_from_the_page(platform: LocalPlatform, browser: Any) -> None:  # noqa: F811
    cy, _ = _player(platform, browser, "cy")
    dee, dee_id = _player(platform, browser, "dee")
    try:
        cy.page.select_option("[data-testid=invite-type]", "nautilus")
        cy.page.fill("[data-testid=invite-players]", dee_id)
        cy.page.click("[data-testid=invite]")
        cy.page.wait_for_selector("[data-testid=sent-invitation][data-status=open]")
        dee.page.wait_for_selector("[data-testid=received-invitation] [data-testid=accept]", timeout=30_000)
        dee.shot("play-invitation")
        dee.page.click("[data-testid=received-invitation] [data-testid=accept]")
        games = [p.page.wait_for_selector("[data-testid=invitation-game]", timeout=60_000) for p in (cy, dee)]
        assert games[0].get_attribute("href") == games[1].get_attribute("href")
    finally:
        cy.close()
        dee.close()


def test_the_play_page_reads_in_portuguese(platform: LocalPlatform, browser: Any) -> None:  # noqa: F811
    eve, _ = _player(platform, browser, "eve")
    try:
        eve.page.select_option("[data-testid=language]", "pt")
        eve.page.wait_for_selector("[data-testid=play-ask]:text-is('Pedir uma partida')")
        text = eve.page.inner_text("main")
        for english in ("Ask for a game", "Your tickets", "Players you block", "Vacation", "Invitations"):
            assert english not in text, english
        for portuguese in ("Seus pedidos", "Jogadores que você bloqueia", "Férias", "Convites"):
            assert portuguese in text, portuguese
        eve.shot("play-pt")
        eve.page.select_option("[data-testid=language]", "en")
        eve.page.wait_for_selector("[data-testid=play-ask]:text-is('Ask for a game')")
    finally:
        eve.close()
