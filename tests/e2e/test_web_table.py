"""The web client as a table people come back to, in headless Chromium against the services as processes: tables
named for their game and players (never a game id), game types by their names, a stable lobby order, no internal
id in any text the page shows (Nautilus' cells named as the sea's edges letter and number them), a spectator's
prompt that reads as a spectator's, and the client's own words in Portuguese (pt-BR)."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

from benthic.clients.client import BenthicClient
from benthic.local.localplatform import LocalPlatform
from tests.e2e.test_web_client import Page, _beside_the_browser, browser  # noqa: F401 - a fixture
from tests.e2e.test_web_client import platform as platform  # the fixture
from tests.platform_helpers import platform_client

SHOTS = Path("/tmp/shots-37")
RAW_ID = re.compile(r"\b\w+:\w+:|\b\d+,\d+\b")
GAME_ID = re.compile(r"\b[a-z]{2}_[0-9a-f]{12,}\b")
PLAYED: dict[str, int] = {}  # game id -> the moves _a_game played in it
TEXTS = """() => [document.body.innerText, document.title,
  ...[...document.querySelectorAll("[aria-label]")].map((el) => el.getAttribute("aria-label"))].join("\\n")"""


async def _a_game(platform: LocalPlatform, game_type: str, names: list[str], moves: int) -> str:
    """A game of ``names`` (player ids are the names in lower case) after ``moves`` random legal moves."""
    async with BenthicClient(platform.command_url, platform.read_url, mint=platform.mint) as client:
        created = await client.create_game(game_type, [{"player_id": n.lower().replace(" ", "-"), "name": n}
                                                       for n in names])
        game_id = str(created["game_id"])
        tokens = [(await client.seat_token(game_id, n.lower().replace(" ", "-")))["token"] for n in names]
        rng = random.Random(game_id)
        for _ in range(moves):
            legal = await client.legal(game_id, tokens[0])
            if legal["prompt"] is None:  # the game is over
                break
            seat = rng.choice(legal["prompt"]["seats"])
            legal = await client.legal(game_id, tokens[seat]) if seat else legal
            if not legal["commands"]:
                break
            await client.play(game_id, tokens[seat], rng.choice(legal["commands"]), expected_version=legal["version"])
            PLAYED[game_id] = PLAYED.get(game_id, 0) + 1
        return game_id


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _no_internal_ids(page: Page) -> str:
    text = str(page.page.evaluate(TEXTS))
    assert not RAW_ID.findall(text), (RAW_ID.findall(text), text[:3000])
    assert not GAME_ID.findall(text), GAME_ID.findall(text)
    assert not re.search(r"\bundefined\b|\bNaN\b|\[object Object\]", text), text[:3000]
    return text


def test_tables_are_named_for_people_and_no_page_shows_an_internal_id(platform: LocalPlatform, browser: Any) -> None:  # noqa: F811
    nautilus = _beside_the_browser(_a_game(platform, "nautilus", ["Ana", "Bruno"], 30))
    aquatica = _beside_the_browser(_a_game(platform, "aquatica", ["Carla", "Davi"], 6))
    ana = Page(browser, platform.read_url)
    ana.sign_in("ana")
    ana.goto(f"#/game/{nautilus}")
    ana.page.wait_for_selector(".game[data-version] #moves button.move, .game[data-version] #moves li.muted")
    assert ana.page.inner_text("[data-testid=table-name]") == "Nautilus · Ana, Bruno"
    assert ana.page.title().endswith("Nautilus · Ana, Bruno — Benthic")  # after "(1) " when it is her turn
    axes = ana.page.locator("[data-testid=main-board] [data-testid=grid-axes] text")
    assert axes.first.text_content() == "A" and axes.count() > 26  # the columns' letters, then the rows' numbers
    ana.page.wait_for_selector("[data-testid=history] li")
    text = _no_internal_ids(ana)
    assert re.search(r"\b[A-Y]-\d{1,2}\b", text), "cells are named as the map's edges write them"
    _shot(ana, "nautilus-en")

    # The lobby names the tables, their types by name, in an order that does not follow the last move.
    ana.goto("#/")
    row = ana.page.locator(f"tr[data-game='{nautilus}']")
    row.wait_for()
    assert row.locator("[data-testid=table-name]").inner_text() == "Nautilus · Ana, Bruno"
    assert "Aquatica" in ana.page.locator(f"tr[data-game='{aquatica}']").inner_text()
    before = ana.page.eval_on_selector_all("tr[data-game]", "rows => rows.map((r) => r.dataset.game)")
    _beside_the_browser(_a_game(platform, "nautilus", ["Erin", "Fred"], 0))  # a newer table, then a move elsewhere
    ana.page.wait_for_function("n => document.querySelectorAll('tr[data-game]').length > n", arg=len(before))
    after = ana.page.eval_on_selector_all("tr[data-game]", "rows => rows.map((r) => r.dataset.game)")
    assert [g for g in after if g in before] == before
    _no_internal_ids(ana)
    _shot(ana, "lobby-en")

    # A spectator of Aquatica reads whom the game waits for, not "Your turn".
    watcher = Page(browser, platform.read_url)
    watcher.goto(f"#/game/{aquatica}/watch")
    watcher.page.wait_for_selector(".game[data-version]")
    prompt = watcher.page.inner_text("[data-testid=prompt]")
    assert prompt.startswith("Waiting for ") and "Your" not in prompt, prompt
    scores = watcher.page.eval_on_selector_all("[data-testid=seat-bar] .seat-score",
                                               "els => els.map((e) => e.innerText)")
    assert scores == ["no public score", "no public score"], scores  # Aquatica's scoring piles lie face down
    _no_internal_ids(watcher)

    # Portuguese (pt-BR): the replay's buttons, the lobby's statuses and game types, "(unrated)" included.
    watcher.page.select_option("[data-testid=language]", "pt")
    watcher.page.wait_for_selector(".game[data-version] [data-testid=replay]")
    bar = watcher.page.inner_text("[data-testid=replay]")
    for word in ("Início", "Voltar", "Avançar", "Ao vivo"):
        assert word in bar, bar
    assert "Aguardando" in watcher.page.inner_text("[data-testid=prompt]")
    _shot(watcher, "aquatica-spectator-pt")
    watcher.goto("#/")
    watcher.page.locator(f"tr[data-game='{nautilus}']").wait_for()
    lobby = watcher.page.inner_text("table.list")
    assert "em andamento" in lobby, lobby
    for english in ("running", "finished", "(unrated)", "Watch"):
        assert english not in lobby, (english, lobby)
    _shot(watcher, "lobby-pt")
    ana.goto(f"#/game/{nautilus}")
    ana.page.select_option("[data-testid=language]", "pt")
    ana.page.wait_for_selector(".game[data-version] [data-testid=history] li")
    assert ana.page.inner_text("[data-testid=role]").startswith("Você joga"), ana.page.inner_text("[data-testid=role]")
    _no_internal_ids(ana)
    _shot(ana, "nautilus-pt")
    ana.close()
    watcher.close()


async def _clocked_game(platform: LocalPlatform, names: list[str]) -> str:
    async with BenthicClient(platform.command_url, platform.read_url, mint=platform.mint) as client:
        created = await client.create_game("nautilus", [{"player_id": n.lower(), "name": n} for n in names],
                                           {"clock": {"mode": "per_move", "per_move_s": 3}, "on_expiry": "takeover"})
        return str(created["game_id"])


async def _reclaimed_by(platform: LocalPlatform, game_id: str, seat: int) -> bool:
    async with BenthicClient(platform.command_url, platform.read_url, mint=platform.mint) as client:
        for _ in range(240):
            history = await client.history(game_id, limit=100_000)
            if any(e["event"].get("type") == "seat_reclaimed" and e["event"].get("seat") == seat
                   for e in history["events"]):
                return True
            await asyncio.sleep(0.25)
        return False


async def _abort(platform: LocalPlatform, game_id: str) -> None:
    async with platform_client(platform) as client:
        await client.abort(game_id, "test over")


def test_every_seat_in_sight_with_its_score_and_clock_and_a_taken_seat_reclaimed(
        platform: LocalPlatform, browser: Any) -> None:  # noqa: F811 - fixtures
    game_id = _beside_the_browser(_clocked_game(platform, ["Gil", "Hana"]))
    gil = Page(browser, platform.read_url)
    gil.sign_in("gil")
    gil.goto(f"#/game/{game_id}")
    gil.page.wait_for_selector(".game[data-version] [data-testid=seat-bar] li.seat-card")
    cards = gil.page.locator("[data-testid=seat-bar] li.seat-card")
    assert cards.count() == 2
    assert cards.nth(0).locator(".seat-name").inner_text() == "Gil (you)"
    assert cards.nth(1).locator(".seat-name").inner_text() == "Hana"
    assert cards.nth(0).locator("[data-testid=seat-score]").inner_text() == "research points: 0"
    # The seat to move shows its time for the move, counting down in the page.
    gil.page.wait_for_function("""() => [...document.querySelectorAll('[data-testid=seat-clock]')]
      .some((el) => el.dataset.running === 'true' && /^0:0[0-3]$/.test(el.textContent))""")
    # Idle past the clock: the house bot takes the seat over; the page says so and offers the seat back.
    gil.page.wait_for_selector("[data-testid=takeover] [data-testid=reclaim]", timeout=120_000)
    assert "house bot" in gil.page.inner_text("[data-testid=takeover]")
    assert gil.page.locator("li.seat-card.mine").get_attribute("data-status") == "taken_over"
    _shot(gil, "takeover-en")
    gil.page.select_option("[data-testid=language]", "pt")
    gil.page.wait_for_selector("[data-testid=takeover] [data-testid=reclaim]:has-text('Retomar meu lugar')")
    _shot(gil, "takeover-pt")
    gil.page.click("[data-testid=reclaim]")
    assert _beside_the_browser(_reclaimed_by(platform, game_id, 0)), "no seat_reclaimed of seat 1 in the history"
    _beside_the_browser(_abort(platform, game_id))
    gil.close()


async def _finished_game(platform: LocalPlatform, names: list[str]) -> tuple[str, dict[str, Any]]:
    """A Nautilus game played to its end with random legal moves; its /scores."""
    game_id = await _a_game(platform, "nautilus", names, 10_000)
    async with BenthicClient(platform.command_url, platform.read_url, mint=platform.mint) as client:
        for _ in range(240):
            try:
                return game_id, await client.scores(game_id)
            except Exception:  # noqa: BLE001 - not projected yet
                await asyncio.sleep(0.25)
    raise AssertionError(f"{game_id} has no scores")


def test_the_end_of_a_game_explains_its_score_by_the_rules_categories(
        platform: LocalPlatform, browser: Any) -> None:  # noqa: F811 - fixtures
    game_id, scores = _beside_the_browser(_finished_game(platform, ["Ines", "Joao"]))
    watcher = Page(browser, platform.read_url)
    watcher.goto(f"#/game/{game_id}/watch")
    watcher.page.wait_for_selector("[data-testid=final] [data-testid=breakdown]")
    table = watcher.page.locator("[data-testid=breakdown]")
    for result in scores["results"]:
        b = result["breakdown"]
        expected = {"research_points": b["research_points"], "sea_points": b["sea_points"],
                    "atlantis.points": b["atlantis"]["points"], "product": b["product"], "nemo": b["nemo"],
                    "total": result["score"]}
        for key, value in expected.items():
            cell = table.locator(f"tr[data-key='{key}'] td[data-seat='{result['seat']}']")
            assert cell.inner_text() == str(value), (key, result)
        assert b["product"] + b["nemo"] == result["score"]
    assert "Research points × sea points" in table.inner_text()
    _shot(watcher, "breakdown-en")

    # The replay of the whole game steps by move: from the first position to the last in at most one step per
    # move played (and the few platform steps: the clocks starting, the scoring), far fewer than its versions.
    watcher.page.click("[data-testid=replay] button[aria-label='First move']")
    watcher.page.wait_for_selector("[data-testid=replay].replaying")
    steps = 0
    while watcher.page.locator("[data-testid=replay].replaying").count():
        shown = watcher.page.get_attribute(".game", "data-shown-version")
        watcher.page.click("[data-testid=replay] button[aria-label='Step forward']")
        watcher.page.wait_for_function("v => document.querySelector('.game').dataset.shownVersion !== v", arg=shown)
        steps += 1
        assert steps <= PLAYED[game_id] + 3, (steps, PLAYED[game_id])
    last = int(watcher.page.get_attribute(".game", "data-version") or 0)
    assert steps < last, (steps, last)
    watcher.page.click("[data-testid=replay] details summary")
    watcher.page.locator("[data-testid=replay-moves] li[data-version]").last.wait_for()
    lines = watcher.page.locator("[data-testid=replay-moves] li[data-version]").count()
    assert lines <= PLAYED[game_id] + 3, (lines, PLAYED[game_id])
    _shot(watcher, "replay-moves-en")
    watcher.page.select_option("[data-testid=language]", "pt")
    watcher.page.wait_for_selector("[data-testid=breakdown]:has-text('Pontos de pesquisa × pontos do mar')")
    _shot(watcher, "breakdown-pt")
    watcher.page.click("[data-testid=replay] details summary")
    watcher.page.locator("[data-testid=replay-moves] li[data-version]").last.wait_for()
    _shot(watcher, "replay-moves-pt")
    watcher.close()

    # "Your games" keeps a record of the games played: the finished ones, named for their players.
    ines = Page(browser, platform.read_url)
    ines.sign_in("ines")
    ines.goto("#/mine")
    row = ines.page.locator(f"[data-testid=finished-games] tr[data-game='{game_id}']")
    row.wait_for()
    assert row.locator("td").first.inner_text() == "Nautilus · Ines, Joao"
    row.locator("a").click()
    ines.page.wait_for_selector("[data-testid=final] [data-testid=breakdown]")
    ines.goto("#/mine")
    ines.page.locator("[data-testid=finished-games] tr[data-game]").first.wait_for()
    _shot(ines, "your-games-en")
    ines.close()


def test_a_move_costs_one_round_trip(platform: LocalPlatform, browser: Any) -> None:  # noqa: F811 - fixtures
    """A move of the page's seat is one POST whose answer brings the next moves (`?include=legal`): no read of the
    legal moves follows it, and the page's own game's view is not polled beside its live stream."""
    from tests.e2e.test_web_client import _my_turn_against_the_api

    player, game_id = _my_turn_against_the_api(platform, browser, "kim", "lee")
    requests: list[str] = []
    player.page.on("request", lambda r: requests.append(f"{r.method} {r.url.split('?')[0]}"))
    moves = 0
    for _ in range(6):
        button = player.page.locator("#moves button.move:not([disabled])").first
        if not button.count() or "yours" not in (player.page.get_attribute("[data-testid=prompt]", "class") or ""):
            break
        before = player.version()
        button.click()
        player.page.wait_for_function("v => +document.querySelector('.game').dataset.version > v", arg=before)
        player.page.wait_for_timeout(300)  # let the page do what it does after a move
        moves += 1
    assert moves >= 1
    player.page.wait_for_timeout(3500)  # longer than the turn watcher's poll of the player's other games
    posts = [r for r in requests if r.startswith("POST") and r.endswith("/commands")]
    legal = [r for r in requests if r.endswith(f"/games/{game_id}/legal")]
    polled = [r for r in requests if r.endswith(f"/games/{game_id}/view")]
    print(f"requests per move: {len(requests) / moves:.2f} over {moves} moves: {sorted(set(requests))}")
    assert len(posts) == moves and legal == [] and polled == [], requests
    player.close()
