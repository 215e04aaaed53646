"""The web client in a real browser (Debian's headless Chromium driven by Playwright) against the services as
processes: for every game type a player signs in, creates a game with an open seat, a second player joins from
the lobby, the first plays a complete game by clicking legal moves (the second seat plays through the HTTP API),
and a spectator in another browser context sees the board, the prompt and each move arrive live.  Screenshots
go to tests/artifacts/web/."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from benthic.clients.bots_http import play_seat
from benthic.clients.client import BenthicClient
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory, platform_client

CHROMIUM = os.environ.get("BENTHIC_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "web"
MAX_CLICKS = 600  # a complete game of any type takes fewer moves of one seat (measured: at most ~170)

playwright_api = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    if os.environ.get("CI"):
        raise RuntimeError(f"no Chromium at {CHROMIUM}: .ci/run installs Debian's chromium package")
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)

GAMES = game_types()


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({**GENEROUS_LIMITS, "BENTHIC_LIMIT_CREATE_PER_IP": "100000/minute"})


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
        launched = driver.chromium.launch(executable_path=executable, headless=True,
                                          args=["--disable-gpu", "--no-sandbox"])
        yield launched
        launched.close()


class Page:
    """One person in one browser context, with the page's errors collected (any of them fails the test)."""

    def __init__(self, browser: Any, base: str, **context: Any) -> None:
        self.context = browser.new_context(**({"viewport": {"width": 1280, "height": 900}} | context))
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda m: self.errors.append(m.text)
                     if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
        self.page.on("response", self._check)
        self.base = base

    def _check(self, response: Any) -> None:
        """Refusals the client expects: a game not projected yet (404 on its lobby card, retried), a move that
        lost a race with the other seat (409); anything else is a defect."""
        path = response.url.split("?")[0]
        expected = (response.status == 404 and path.count("/") == 4 and "/games/" in path) or (
            response.status == 409 and path.endswith(("/commands", "/undo")))
        if response.status >= 400 and not expected:
            self.errors.append(f"{response.status} {response.request.method} {response.url}")

    def goto(self, fragment: str) -> None:
        self.page.goto(f"{self.base}/app/{fragment}")

    def sign_in(self, player: str) -> None:
        self.goto("#/")
        self.page.fill("#player-id", player)
        self.page.click("form.signin button")
        self.page.wait_for_selector(f"[data-testid=player]:text-is('{player}')")

    def version(self) -> int:
        return int(self.page.get_attribute(".game", "data-version") or 0)

    def shot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.jpg"
        self.page.screenshot(path=str(path), full_page=True, type="jpeg", quality=80)
        return path

    def close(self) -> None:
        assert not self.errors, f"errors in the page: {self.errors}"
        self.context.close()


def _opponent(platform: LocalPlatform, game_id: str, player: str, failures: list[str]) -> None:
    """The other seat, played through the HTTP API (its own JWT, its seat token, random legal moves)."""

    async def play() -> None:
        async with BenthicClient(platform.command_url, platform.read_url, mint=platform.mint) as client:
            seat = await client.seat_token(game_id, player)
            await play_seat(client, game_id, seat["seat"], seat["token"], rng=random.Random(game_id))

    try:
        asyncio.run(play())
    except Exception as error:  # noqa: BLE001 - reported by the test
        failures.append(repr(error))


WAIT_FOR_TURN = """([after]) => {
  const final = document.querySelector('[data-testid=final]');
  if (final && !final.hidden && final.querySelector('[data-testid=scores]')) return 'over';
  const game = document.querySelector('.game');
  if (+game.dataset.version > after && document.querySelector('#moves button.move:not([disabled])')) return 'move';
  return false;
}"""


PAGE_STATE = """() => ({
  version: document.querySelector('.game')?.dataset.version,
  prompt: document.querySelector('[data-testid=prompt]')?.innerText,
  moves: document.querySelectorAll('#moves button.move').length,
  enabled: document.querySelectorAll('#moves button.move:not([disabled])').length,
  toast: document.getElementById('toast')?.innerText,
})"""


def _wait_for_turn(player: Page, after: int, failures: list[str], timeout_s: float = 120.0) -> str:
    """'move' once a view newer than ``after`` offers this seat a move, 'over' once the final scores show.  Fails
    at once on the other seat's failure or an error in the page, and tells what the page showed on a timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        assert not failures, failures
        assert not player.errors, f"errors in the page: {player.errors}"
        try:
            return str(player.page.wait_for_function(WAIT_FOR_TURN, arg=[after], timeout=5_000).json_value())
        except playwright_api.TimeoutError:
            if time.monotonic() > deadline:
                raise AssertionError(f"no turn after version {after} in {timeout_s:.0f}s; the page showed "
                                     f"{player.page.evaluate(PAGE_STATE)}") from None


@pytest.mark.timeout(600)  # ~40 s each on an idle 2-core machine; far longer when the machine is shared
@pytest.mark.parametrize("game_type", GAMES)
def test_play_a_complete_game_in_the_browser(platform: LocalPlatform, browser: Any, game_type: str) -> None:
    started = time.monotonic()
    alice, bob = f"alice-{game_type}", f"bob-{game_type}"
    player = Page(browser, platform.read_url)
    player.sign_in(alice)
    player.goto(f"#/create/{game_type}")
    player.page.wait_for_selector("form.create #seat-1")
    assert player.page.input_value("#game-type") == game_type
    player.page.click("form.create button[type=submit]")
    player.page.wait_for_selector(".game[data-version]")
    game_id = player.page.url.split("#/game/")[1]
    assert player.page.inner_text("[data-testid=role]").startswith("You play seat 1")

    # The second player finds the open game in the lobby and joins it.
    second = Page(browser, platform.read_url)
    second.sign_in(bob)
    second.goto(f"#/?type={game_type}&status=open")
    second.page.click(f"tr[data-game='{game_id}'] button:text('Join')")
    second.page.wait_for_selector(".game[data-version]")
    assert second.page.inner_text("[data-testid=role]").startswith("You play seat 2")
    second.close()

    # A spectator sees the board drawn and the prompt.
    spectator = Page(browser, platform.read_url)
    spectator.goto(f"#/game/{game_id}/watch")
    spectator.page.wait_for_selector(".game[data-version] svg[data-testid=main-board] .space")
    assert spectator.page.locator("[data-testid=main-board] .space").count() > 10
    assert "spectator" in spectator.page.inner_text("[data-testid=role]")
    assert spectator.page.inner_text("[data-testid=prompt]").strip()
    assert spectator.page.locator("#moves button.move").count() == 0
    spectator.shot(f"{game_type}-spectator-start")

    failures: list[str] = []
    other = threading.Thread(target=_opponent, args=(platform, game_id, bob, failures), daemon=True)
    other.start()
    rng = random.Random(game_type)
    clicks = by_board = 0
    seen_live = False
    after = 0
    try:
        while True:
            state = _wait_for_turn(player, after, failures)
            if state == "over":
                break
            assert clicks < MAX_CLICKS, f"{game_type}: no end after {clicks} clicks"
            after = player.version()
            watched_before = spectator.version()
            history_before = spectator.page.locator("[data-testid=history] li").count()
            if clicks == 0:
                player.shot(f"{game_type}-player-first-move")
            highlighted = player.page.locator(".legal[data-id]")
            if clicks == 0 and highlighted.count():  # the first move with the keyboard, on the board or a card
                highlighted.first.focus()
                player.page.keyboard.press("Enter")
                by_board += 1
            elif highlighted.count() and rng.random() < 0.3:
                highlighted.nth(rng.randrange(highlighted.count())).click()
                by_board += 1
            else:
                buttons = player.page.locator("#moves button.move:not([disabled])")
                buttons.nth(rng.randrange(buttons.count())).click()
            choice = player.page.locator(".choices button.move")
            if choice.count():
                choice.nth(rng.randrange(choice.count())).click()
            clicks += 1
            if not seen_live:  # the spectator's page shows the move without a reload
                player.page.wait_for_function("([v]) => +document.querySelector('.game').dataset.version > v",
                                              arg=[after])
                moved_to = player.version()
                spectator.page.wait_for_function(
                    "([v]) => +document.querySelector('.game').dataset.version >= v", arg=[moved_to])
                assert spectator.version() > watched_before
                assert spectator.page.locator("[data-testid=history] li").count() > history_before
                spectator.shot(f"{game_type}-spectator-live")
                seen_live = True
            if clicks == 20:
                player.shot(f"{game_type}-player-midgame")
    except Exception:
        player.shot(f"{game_type}-failure-player")
        spectator.shot(f"{game_type}-failure-spectator")
        raise
    finally:
        other.join(timeout=15)
    assert not failures, failures
    scores = player.page.locator("[data-testid=scores] tbody tr")
    assert scores.count() == 2
    assert "The game is over" in player.page.inner_text("[data-testid=prompt]")
    # Rated: each player's rating shows once the scoring service has scored the game.
    player.page.wait_for_selector("[data-testid=scores] td:has-text('of the leaderboard')", timeout=120_000)
    player.shot(f"{game_type}-player-final")
    spectator.page.wait_for_selector("[data-testid=scores]")
    assert spectator.page.locator("[data-testid=scores] tbody tr").count() == 2
    spectator.close()
    player.close()
    assert by_board >= 1
    print(f"\n{game_type}: {clicks} moves clicked ({by_board} on the board or a card) in "
          f"{time.monotonic() - started:.1f}s")


def _beside_the_browser(work: Any) -> Any:
    """Run a coroutine to its end in a thread of its own (Playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, work).result(timeout=120)


async def _other_seat_until_first_seats_turn(platform: LocalPlatform, game_id: str, player: str) -> int:
    """The second seat (``player``, through the HTTP API) moves until the first seat must decide; the version."""
    async with BenthicClient(platform.command_url, platform.read_url, mint=platform.mint) as client:
        token = (await client.seat_token(game_id, player))["token"]
        rng = random.Random(game_id)
        while True:
            legal = await client.legal(game_id, token)
            if 0 in legal["prompt"]["seats"]:
                return int(legal["version"])
            await client.play(game_id, token, rng.choice(legal["commands"]), expected_version=legal["version"])


def _my_turn_against_the_api(platform: LocalPlatform, browser: Any, player_id: str, other_id: str) -> tuple[Page, str]:
    """A player in the browser creates a game of the first type, ``other_id`` joins and plays through the HTTP
    API until it is the browser's turn."""
    player = Page(browser, platform.read_url)
    player.sign_in(player_id)
    player.goto(f"#/create/{GAMES[0]}")
    player.page.wait_for_selector("form.create #seat-1")
    player.page.click("form.create button[type=submit]")
    player.page.wait_for_selector(".game[data-version]")
    game_id = player.page.url.split("#/game/")[1]

    async def join() -> None:
        async with BenthicClient(platform.command_url, platform.read_url, mint=platform.mint) as client:
            await client.join(game_id, other_id)

    _beside_the_browser(join())
    version = _beside_the_browser(_other_seat_until_first_seats_turn(platform, game_id, other_id))
    assert _wait_for_turn(player, version - 1, []) == "move"
    return player, game_id


def _click_a_move_until(player: Page, caught: list[Any], timeout_s: float = 20) -> int:
    """Click the first move offered, then let the page's events run until a route handler has put something in
    ``caught``.  The version the move was played at."""
    after = player.version()
    player.page.locator("#moves button.move:not([disabled])").first.click()
    deadline = time.monotonic() + timeout_s
    while not caught and time.monotonic() < deadline:
        player.page.wait_for_timeout(25)
    assert caught, "the route handler caught nothing"
    return after


def test_the_next_moves_stay_when_the_view_comes_before_the_answer(platform: LocalPlatform, browser: Any) -> None:
    """A move's view (over SSE) and the view after it can reach the page before the answer to the move's POST
    does: the moves those views brought stay offered once the answer comes (they used to be cleared, and the
    page waited for a view that would never come)."""
    player, game_id = _my_turn_against_the_api(platform, browser, "erin", "fred")
    held: list[tuple[Any, Any]] = []

    def hold(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        held.append((route, route.fetch()))  # the move is made; its answer waits

    player.page.route("**/commands*", hold)
    after = _click_a_move_until(player, held)
    route, answer = held[0]
    assert answer.status == 200, answer.text()
    version = _beside_the_browser(_other_seat_until_first_seats_turn(platform, game_id, "fred"))
    player.page.wait_for_function("([v]) => +document.querySelector('.game').dataset.version >= v", arg=[version])
    route.fulfill(response=answer)
    player.page.unroute("**/commands*")
    assert _wait_for_turn(player, after, [], timeout_s=20) == "move"
    player.close()


async def _a_silent_move_of(platform: LocalPlatform, game_id: str, players: list[str]) -> int:
    """Both seats play random legal moves through the HTTP API until the browser's seat (``players[0]``) has a
    move that reveals nothing and keeps it the one to decide, then it plays that move; the version after it."""
    async with platform_client(platform) as client:
        seats = [await client.seat_token(game_id, p) for p in players]
        tokens = {s["seat"]: s["token"] for s in seats}
        mine = seats[0]["seat"]
        engine = get_engine(GAMES[0])
        rng = random.Random(7)
        for _ in range(400):
            version, raw = await client.operator_state(game_id)
            state = engine.decode_state(raw)
            prompt = engine.prompt(state)
            assert prompt is not None, "the game ended before a silent move"
            seat = rng.choice(prompt.seats)
            command = rng.choice((await client.legal(game_id, tokens[seat]))["commands"])
            events = engine.decide(state, seat, engine.decode_command(command))
            after = engine.prompt(engine.fold(state, events))
            silent = not any(engine.reveals(e) for e in events) and after is not None and seat in after.seats
            played = await client.play(game_id, tokens[seat], command, expected_version=version)
            if silent and seat == mine:
                return int(played["last_version"])
    raise AssertionError("no silent move of the browser's seat in 400 commands")


def test_undo_takes_back_a_move_that_showed_nothing_and_says_why_not_otherwise(
    platform: LocalPlatform, browser: Any
) -> None:
    player, game_id = _my_turn_against_the_api(platform, browser, "ulla", "vic")
    undo = player.page.locator("[data-testid=undo]")
    assert undo.is_visible()
    played = _beside_the_browser(_a_silent_move_of(platform, game_id, ["ulla", "vic"]))
    player.page.wait_for_function("([v]) => +document.querySelector('.game').dataset.version >= v", arg=[played])
    undo.click()
    player.page.wait_for_function("([v]) => +document.querySelector('.game').dataset.version === v", arg=[played + 1])
    player.page.wait_for_selector("#toast:has-text('taken back')")
    history = player.page.locator("[data-testid=history]").inner_text()
    assert "ulla took back their last move" in history, history[:500]  # command_undone's sentence, newest first
    undo.click()  # the move before was the other seat's, or showed something: refused, and the page says why
    player.page.wait_for_function("() => !/taken back/.test(document.getElementById('toast').innerText)")
    toast = player.page.locator("#toast").inner_text()
    assert player.version() == played + 1 and toast, toast
    player.close()


STORE_UNAVAILABLE = {"code": "store_unavailable", "message": "the store cannot answer now"}


def _mishandle_the_first_post(mishap: str, sent: list[str], answers: list[dict[str, Any]]) -> Any:
    def handle(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        sent.append(route.request.post_data_json["command_id"])
        if len(sent) > 1:
            answer = route.fetch()
            route.fulfill(response=answer)
            answers.append(answer.json())  # last: the test unroutes once the handler is done
        elif mishap == "503":
            route.fulfill(status=503, json=STORE_UNAVAILABLE, headers={"Retry-After": "1"})
        else:
            route.fetch()  # the server applies the move; its answer never reaches the page
            route.abort("connectionreset")

    return handle


def test_a_move_is_sent_again_once_after_a_503_or_a_lost_answer(platform: LocalPlatform, browser: Any) -> None:
    """The page sends a move again, with the same command id, after a 503 and after losing the answer of a move
    the server did apply; either way the game takes the move exactly once and the page goes on."""
    player, game_id = _my_turn_against_the_api(platform, browser, "gina", "hal")
    for mishap in ("503", "lost answer"):
        sent: list[str] = []
        answers: list[dict[str, Any]] = []
        player.page.route("**/commands*", _mishandle_the_first_post(mishap, sent, answers))
        after = _click_a_move_until(player, answers)
        player.page.wait_for_function("([v]) => +document.querySelector('.game').dataset.version > v", arg=[after],
                                      timeout=20_000)
        player.page.unroute("**/commands*")
        assert len(sent) == 2 and sent[0] == sent[1], (mishap, sent)
        answer = answers[0]
        assert answer["duplicate"] is (mishap == "lost answer"), (mishap, answer)

        async def versions_of(command_id: str) -> list[int]:
            async with BenthicClient(platform.command_url, platform.read_url,
                                     operator_token=platform.operator_token) as client:
                return [e["version"] for e in (await client.audit(game_id))["entries"] if e["command_id"] == command_id]

        once = list(range(answer["first_version"], answer["last_version"] + 1))
        assert _beside_the_browser(versions_of(sent[0])) == once, mishap  # one commit, not two
        player.errors = [e for e in player.errors if not e.startswith("503 POST")]  # the one the test made
        version = _beside_the_browser(_other_seat_until_first_seats_turn(platform, game_id, "hal"))
        assert _wait_for_turn(player, version - 1, []) == "move"
    player.close()


def test_the_legal_moves_are_read_again_after_a_503(platform: LocalPlatform, browser: Any) -> None:
    """Reading the legal moves fails once (503) when the player's turn comes: the page reads them again (it used
    to show no move at all, and no view would come while it was this player's turn)."""
    player, game_id = _my_turn_against_the_api(platform, browser, "ivy", "jon")
    asked: list[str] = []

    def fail_once(route: Any) -> None:  # the page reads its moves at every version: fail its turn's first read
        answer = route.fetch()
        prompt = answer.json().get("prompt") if answer.ok else None
        if not asked and prompt is not None and 0 in prompt["seats"]:
            asked.append(route.request.url)
            route.fulfill(status=503, json=STORE_UNAVAILABLE)
        else:
            if asked:
                asked.append(route.request.url)
            route.fulfill(response=answer)

    player.page.route("**/legal", fail_once)
    after = player.version()
    player.page.locator("#moves button.move:not([disabled])").first.click()
    _beside_the_browser(_other_seat_until_first_seats_turn(platform, game_id, "jon"))
    state = player.page.wait_for_function(WAIT_FOR_TURN, arg=[after], timeout=20_000).json_value()
    player.page.unroute("**/legal")
    assert state == "move" and len(asked) >= 2, asked
    player.errors = [e for e in player.errors if not e.startswith("503 GET")]  # the one the test made
    player.close()


def test_phone_layout_and_keyboard(platform: LocalPlatform, browser: Any) -> None:
    """On a phone-sized screen the lobby, the create form and a game page fit the width; every control is
    reachable with Tab and shows its focus."""
    phone = Page(browser, platform.read_url, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.sign_in("carol")
    phone.goto(f"#/create/{GAMES[0]}")
    phone.page.wait_for_selector("form.create #seat-1")
    width = phone.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the create page is {width}px wide on a 390px screen"
    phone.page.click("form.create button[type=submit]")
    phone.page.wait_for_selector(".game[data-version] [data-testid=main-board]")
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= 390
    reached = []
    for _ in range(60):  # Tab through the page: every control takes the focus visibly
        phone.page.keyboard.press("Tab")
        reached.append(phone.page.evaluate(
            "[document.activeElement.tagName, document.activeElement.textContent.slice(0, 40), "
            "getComputedStyle(document.activeElement).outlineStyle]"))
    assert all(style != "none" for tag, _, style in reached if tag != "BODY"), reached
    names = {text for _, text, _ in reached}
    assert {"Skip to content", "Lobby", "New game", "Sign out"} <= names, names
    phone.shot("phone-game")
    phone.goto("#/")
    phone.page.wait_for_selector("table.list")
    phone.shot("phone-lobby")
    phone.close()


def test_dev_token_cors_and_client_config(platform: LocalPlatform) -> None:
    """Dev mode: a browser gets a player's JWT from POST /dev/token (bad input refused), the read API tells the
    client where the command API is, and the command API allows the read API's origin (and no other)."""
    import httpx

    origin = platform.read_url
    with httpx.Client(timeout=10) as http:
        minted = http.post(f"{platform.command_url}/dev/token", json={"player": "dora", "name": "Dora"})
        assert minted.status_code == 200 and minted.headers["cache-control"] == "no-store"
        jwt = minted.json()["token"]
        created = http.post(f"{platform.command_url}/games",
                            headers={"Authorization": f"Bearer {jwt}", "Origin": origin},
                            json={"game_type": GAMES[0], "seats": [{}, None]})
        assert created.status_code == 201, created.text
        assert created.headers["access-control-allow-origin"] == origin
        assert created.json()["seats"][0]["player_id"] == "dora"
        for body, code in (({"player": "no spaces"}, "invalid_request"), ({}, None), ({"player": "x", "name": "n" * 65},
                           "invalid_request"), ({"player": "x", "admin": True}, None),
                           ({"player": "bot:random"}, "reserved_player_id")):
            refused = http.post(f"{platform.command_url}/dev/token", json=body)
            assert refused.status_code == 400, (body, refused.text)
            assert "token" not in refused.json() and (code is None or refused.json()["code"] == code)
        preflight = {"Access-Control-Request-Method": "POST",
                     "Access-Control-Request-Headers": "authorization,content-type"}
        allowed = http.options(f"{platform.command_url}/games", headers={"Origin": origin, **preflight})
        assert allowed.status_code == 204 and allowed.headers["access-control-allow-origin"] == origin
        other = http.options(f"{platform.command_url}/games", headers={"Origin": "https://evil.example", **preflight})
        assert "access-control-allow-origin" not in other.headers
        assert http.get(f"{platform.read_url}/client-config").json()["command_url"] == platform.command_url
        root = http.get(f"{platform.read_url}/")
        assert root.status_code in (301, 302, 307) and root.headers["location"].endswith("/app/")
        page = http.get(f"{platform.read_url}/app/")
        assert page.status_code == 200 and '<script type="module" src="/app/js/main.js">' in page.text


async def _over_the_limit_on_the_other_seats_turn(platform: LocalPlatform, player: str, other: str) -> str:
    """An Underwater Cities game with the rule flag ``early_discard``: ``player`` (seat 0) plays a card on AA (2
    cards more), so that during ``other``'s turn it holds more cards than its limit.  The game's id."""
    async with platform_client(platform) as client:  # the operator: a fixed seed
        created = await client.create_game("underwater_cities", [{"player_id": player}, {"player_id": other}],
                                           {"rules": {"early_discard": True}}, seed=36)
        game_id = created["game_id"]
        tokens = [(await client.seat_token(game_id, p))["token"] for p in (player, other)]
        rng = random.Random(36)
        for _ in range(200):
            answers = [await client.legal(game_id, token) for token in tokens]
            prompt = answers[0]["prompt"]
            if prompt["kind"] == "choose_play" and 1 in prompt["seats"] and len(answers[0]["commands"]):
                return str(game_id)  # seat 0 may discard now, on seat 1's turn
            seat = 0 if 0 in prompt["seats"] else 1
            moves = answers[seat]["commands"]
            on_aa = [c for c in moves if c.get("slot_id") == "AA"] if seat == 0 else []
            await client.play(game_id, tokens[seat], (on_aa or moves)[0] if seat == 0 else rng.choice(moves),
                              expected_version=answers[0]["version"])
    raise AssertionError("seat 0 never got over its hand limit on seat 1's turn")


def test_a_move_outside_the_prompt_is_offered_on_another_seats_turn(platform: LocalPlatform, browser: Any) -> None:
    """Underwater Cities' early discard: the page lists the seat's legal moves at every version, so the discards
    it may make during the other seat's turn are buttons like any move; clicking one discards."""
    game_id = _beside_the_browser(_over_the_limit_on_the_other_seats_turn(platform, "kim", "lee"))
    player = Page(browser, platform.read_url)
    player.sign_in("kim")
    player.goto(f"#/game/{game_id}")
    player.page.wait_for_selector(".game[data-version]")
    moves = player.page.locator("#moves button.move:not([disabled])")
    moves.first.wait_for()
    labels = moves.all_inner_texts()
    assert labels and all(label.endswith("now, before your turn (over your hand limit)") for label in labels), labels
    assert "Waiting for" in (player.page.locator("[data-testid=prompt]").inner_text())  # not kim's turn
    player.shot("underwater_cities-early-discard")
    before = player.version()
    moves.first.click()
    player.page.wait_for_function("(v) => +document.querySelector('.game').dataset.version > v", arg=before)
    player.page.wait_for_function("(n) => document.querySelectorAll('#moves button.move').length === n",
                                  arg=len(labels) - 1)  # one card fewer, still over the limit
    player.page.wait_for_selector("text=before their turn")  # the history tells it
    player.shot("underwater_cities-early-discard-done")
    player.close()
