"""The web client's replay mode, "your games" page with turn notifications, and Nautilus research tracks, in a real
headless Chromium (Playwright) against the services as processes.  Games are played by bots over the HTTP API;
what the page draws is checked against the read API's answers for the same versions.  A replay steps from one
commit's end to the next (the versions a viewer saw: benthic.game.commits)."""

from __future__ import annotations

import asyncio
import random
import re
import time
from typing import Any

import httpx
import pytest

from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import BenthicClient
from benthic.game.commits import commit_span
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types
from tests.e2e.test_web_client import Page, _beside_the_browser, browser  # noqa: F401 - the browser fixture
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory, raw_game


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform(GENEROUS_LIMITS)


def _client(platform: LocalPlatform) -> BenthicClient:
    return BenthicClient(platform.command_url, platform.read_url, mint=platform.mint)


async def _bot_game(platform: LocalPlatform, game_type: str, name: str, moves: int | None) -> tuple[str, int]:
    """A game of two bots played ``moves`` commands (None: to its end, scored); its id and version."""
    async with _client(platform) as client:
        game_id, tokens = await start_bot_game(client, game_type, 2, name=name)
        version = await HttpGame(client, game_id, tokens, random.Random(name)).play(pause_after=moves)
        deadline = time.monotonic() + 60
        while True:  # projected (and, for a finished game, scored)
            try:
                seen = await client.view(game_id)
                if seen["version"] >= version and (moves is not None or (await client.summary(game_id)).get("scored")):
                    return game_id, (await client.view(game_id))["version"]  # with game_scored
            except Exception:  # noqa: BLE001 - not projected yet
                pass
            assert time.monotonic() < deadline, f"{game_id} not projected at {version}"
            await asyncio.sleep(0.2)


def _ends(platform: LocalPlatform, game_id: str) -> list[int]:
    """The versions that end a commit of the game, oldest first: the versions a replay steps through."""
    _, envelopes, _ = _beside_the_browser(raw_game(platform, game_id))
    return sorted({commit_span(envelopes, e.version)[1] for e in envelopes})


def _view_at(platform: LocalPlatform, game_id: str, version: int) -> dict[str, Any]:
    answer = httpx.get(f"{platform.read_url}/games/{game_id}/view", params={"at": version}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _shown(page: Page) -> int:
    return int(page.page.get_attribute(".game", "data-shown-version") or 0)


def _wait_shown(page: Page, version: int) -> None:
    try:
        page.page.wait_for_function("([v]) => +document.querySelector('.game')?.dataset.shownVersion === v",
                                    arg=[version], timeout=20_000)
    except Exception as error:
        state = page.page.evaluate("() => [document.querySelector('.game')?.dataset.version, "
                                   "document.querySelector('.game')?.dataset.shownVersion, "
                                   "document.querySelector('[data-testid=replay-where]')?.innerText]")
        raise AssertionError(f"version {version} not shown; the page shows {state}; errors {page.errors}") from error


RESEARCH_DRAWN = """() => Object.fromEntries(
  [...document.querySelectorAll('svg[data-testid^=research-]')].map((svg) => [svg.dataset.testid.split('-')[1],
  Object.fromEntries([...svg.querySelectorAll('.track-words')].map((row) => {
    const track = row.dataset.track;
    const here = [...svg.querySelectorAll(`.space.current[data-space^="${track}:"]`)].map((g) => g.dataset.space);
    const note = row.querySelector('.track-note').lastChild.textContent;  // its text, not its <title>
    return [track.split(':')[1], [here.map((id) => +id.split(':')[2]), note]];
  }))]))"""


def _research_drawn(page: Page) -> dict[str, dict[str, list[Any]]]:
    """Per seat and research type as the page draws them: the spaces marked as the player's, the note after the row."""
    return page.page.evaluate(RESEARCH_DRAWN)


def _research_of(view: dict[str, Any]) -> dict[str, dict[str, list[Any]]]:
    """What the research tracks must show for a Nautilus view (rules §3.3.3): one space per type, the count of
    stations in operation, and the research value, starred for the 3-chip's holder."""
    def note(kind: str, value: int, seat: int) -> str:
        return f"{value}★" if view["three_chips"][kind] == seat else str(value)

    return {str(seat["seat"]): {kind: [[r["count"]], note(kind, r["value"], seat["seat"])]
                                for kind, r in seat["research"].items()} for seat in view["seats"]}


def _round_shown(page: Page) -> str:
    return page.page.inner_text("[data-testid=table] dl.stats div:has(dt:text-is('round')) dd")


@pytest.fixture(scope="module")
def finished_nautilus(platform: LocalPlatform) -> tuple[str, int]:
    """A Nautilus game two bots played to its end (scored); its id and last version."""
    return _beside_the_browser(_bot_game(platform, "nautilus", "replay", None))


@pytest.mark.timeout(300)
def test_replay_of_a_finished_game(platform: LocalPlatform, browser: Any,  # noqa: F811
                                   finished_nautilus: tuple[str, int]) -> None:
    """A finished game's page: first, step, jump to a move of the list, play and pause, back to the end; each
    version shown is the read API's view at that version, and the steps go from one commit's end to the next."""
    game_id, last = finished_nautilus
    ends = _ends(platform, game_id)
    assert ends[-1] == last and len(ends) < last, "commits of several events"
    watcher = Page(browser, platform.read_url)
    watcher.goto(f"#/game/{game_id}/watch")
    watcher.page.wait_for_selector("[data-testid=replay]")
    _wait_shown(watcher, last)
    assert "Final position" in watcher.page.inner_text("[data-testid=replay-where]")

    watcher.page.click("[data-testid=replay] button[aria-label='First move']")
    _wait_shown(watcher, ends[0])  # the end of the setup: the first version anyone saw
    assert watcher.page.inner_text("[data-testid=prompt]").startswith(f"Replay of version {ends[0]}")
    assert _round_shown(watcher) == str(_view_at(platform, game_id, 1)["view"]["round"])
    assert _research_drawn(watcher) == _research_of(_view_at(platform, game_id, 1)["view"])
    for _ in range(2):
        watcher.page.click("[data-testid=replay] button[aria-label='Step forward']")
    _wait_shown(watcher, ends[2])
    watcher.page.click("[data-testid=replay] button[aria-label='Step back']")
    _wait_shown(watcher, ends[1])

    watcher.page.click("[data-testid=replay] details summary")
    entries = watcher.page.locator("[data-testid=replay-moves] li[data-version]")
    entries.last.wait_for()
    # One line per move: each line is one commit (its end is what a click shows), no commit has two lines.
    versions = [int(v) for v in watcher.page.eval_on_selector_all(
        "[data-testid=replay-moves] li[data-version]", "(items) => items.map((i) => i.dataset.version)")]
    assert set(versions) <= set(ends) and len(versions) == len(set(versions)), "one line per commit"
    assert len(versions) >= len(ends) // 2, "the move list holds the game's moves"
    middle = entries.nth(len(versions) // 2)
    asked = int(middle.get_attribute("data-first"))
    jump_to = int(middle.get_attribute("data-version"))
    middle.locator("button").click()
    _wait_shown(watcher, jump_to)
    previous = ends[ends.index(jump_to) - 1]
    current = [int(v) for v in watcher.page.eval_on_selector_all(
        "[data-testid=replay-moves] li.current", "(items) => items.map((i) => i.dataset.version)")]
    assert current == [jump_to] and previous < asked <= jump_to, (current, previous, asked, jump_to)
    expected = _view_at(platform, game_id, asked)["view"]
    assert expected == _view_at(platform, game_id, jump_to)["view"]
    assert _round_shown(watcher) == str(expected["round"])
    assert _research_drawn(watcher) == _research_of(expected)
    assert watcher.page.input_value("[data-testid=replay-slider]") == str(jump_to)
    watcher.shot("replay")

    watcher.page.click("[data-testid=replay] button[aria-label='Play']")
    watcher.page.wait_for_function("([v]) => +document.querySelector('.game').dataset.shownVersion >= v",
                                   arg=[ends[ends.index(jump_to) + 2]], timeout=20_000)
    watcher.page.click("[data-testid=replay] button[aria-label='Pause']")
    paused_at = _shown(watcher)
    watcher.page.wait_for_timeout(2000)
    assert _shown(watcher) == paused_at, "pause stops the replay"

    watcher.page.focus("[data-testid=replay-slider]")  # the slider, with the keyboard
    watcher.page.keyboard.press("Home")
    _wait_shown(watcher, ends[0])
    watcher.page.keyboard.press("ArrowRight")
    _wait_shown(watcher, ends[1])
    watcher.page.click("[data-testid=replay] button[aria-label='Last move (live)']")
    _wait_shown(watcher, last)
    assert "Final position" in watcher.page.inner_text("[data-testid=replay-where]")
    assert watcher.page.inner_text("[data-testid=prompt]") == "The game is over."
    watcher.close()


def _assignment_shown(page: Page, seat: int) -> str:
    """The special assignment a Nautilus player's area shows ("hidden" when the view does not tell it)."""
    area = f"section.player-area[data-seat='{seat}']"
    return page.page.inner_text(f"{area} dl.stats div:has(dt:text-is('assignment')) dd")


async def _an_assignment_only_its_seat_sees(platform: LocalPlatform, game_id: str, player: str,
                                           last: int) -> tuple[int, int, str]:
    """(the player's seat, the first version at which the seat's view tells its special assignment and the
    spectator's does not, that assignment), read with the player's seat token (a version that ends a commit)."""
    async with _client(platform) as client:
        granted = await client.seat_token(game_id, player)
        seat = granted["seat"]
        for version in range(1, last + 1):
            mine = await client.view(game_id, seat, granted["token"], at=version)
            public = await client.view(game_id, at=version)
            known, shown = (next(s for s in v["view"]["seats"] if s["seat"] == seat)["assignment"]
                            for v in (mine, public))
            if known is not None and shown is None:
                return seat, mine["version"], known
    raise AssertionError("no version at which only the seat knows its assignment")


@pytest.mark.timeout(300)
def test_a_player_replays_their_own_game_as_their_seat_saw_it(platform: LocalPlatform, browser: Any,  # noqa: F811
                                                              finished_nautilus: tuple[str, int]) -> None:
    """A player of a finished game steps back through it with their seat's view at each version (their special
    assignment, which spectators do not see), read with their seat token; a spectator replays the public view."""
    game_id, last = finished_nautilus
    seat, version, assignment = _beside_the_browser(
        _an_assignment_only_its_seat_sees(platform, game_id, "replay-nautilus-0", last))
    ends = _ends(platform, game_id)
    name = httpx.get(f"{platform.command_url}/game-types/nautilus/content", timeout=30).json()["components"][
        assignment]["name"]

    player = Page(browser, platform.read_url)
    asked: list[str] = []
    player.page.on("request", lambda r: asked.append(r.url.split("?")[0]) if "?at=" in r.url else None)
    player.sign_in("replay-nautilus-0")
    player.goto(f"#/game/{game_id}")
    player.page.wait_for_selector("[data-testid=replay]")
    _wait_shown(player, last)
    later = ends[ends.index(version) + 1]  # a version to step back from (the first may have no version before it)
    player.page.fill("[data-testid=replay-slider]", str(later))
    _wait_shown(player, later)
    assert _assignment_shown(player, seat) == name
    player.page.click("[data-testid=replay] button[aria-label='Step back']")
    _wait_shown(player, version)
    assert _assignment_shown(player, seat) == name
    assert asked and set(asked) == {f"{platform.read_url}/games/{game_id}/seats/{seat}/view"}, asked
    player.close()

    watcher = Page(browser, platform.read_url)
    watcher.goto(f"#/game/{game_id}/watch")
    _wait_shown(watcher, last)
    watcher.page.fill("[data-testid=replay-slider]", str(version))
    _wait_shown(watcher, version)
    assert _assignment_shown(watcher, seat) == "hidden"
    watcher.close()


@pytest.mark.timeout(300)
def test_a_spectator_replays_a_live_game_while_it_goes_on(platform: LocalPlatform, browser: Any) -> None:  # noqa: F811
    """A spectator of a running game steps back; the moves played meanwhile extend the bar without moving the
    replayed view; "Live" shows the game as it is now."""
    game_id, version = _beside_the_browser(_bot_game(platform, "underwater_cities", "livereplay", 8))
    watcher = Page(browser, platform.read_url)
    watcher.goto(f"#/game/{game_id}/watch")
    _wait_shown(watcher, version)
    assert "Live" in watcher.page.inner_text("[data-testid=replay-where]")
    ends = _ends(platform, game_id)
    before = ends[ends.index(version) - 1]  # the end of the commit before the last
    watcher.page.click("[data-testid=replay] button[aria-label='Step back']")
    _wait_shown(watcher, before)

    async def more() -> int:
        async with _client(platform) as client:
            granted = [await client.seat_token(game_id, f"livereplay-underwater_cities-{i}") for i in range(2)]
            tokens = {s["seat"]: s["token"] for s in granted}
            return await HttpGame(client, game_id, tokens, random.Random(2)).play(pause_after=6)

    now = _beside_the_browser(more())
    assert now > version
    watcher.page.wait_for_function("([v]) => +document.querySelector('.game').dataset.version >= v", arg=[now])
    assert _shown(watcher) == before
    assert watcher.page.get_attribute("[data-testid=replay-slider]", "max") == str(now)
    assert f"version {before} of {now}" in watcher.page.inner_text("[data-testid=replay-where]")
    watcher.page.click("[data-testid=replay] button[aria-label='Last move (live)']")
    _wait_shown(watcher, now)
    assert "Live" in watcher.page.inner_text("[data-testid=replay-where]")
    watcher.close()


@pytest.mark.timeout(300)
def test_nautilus_research_tracks_are_drawn(platform: LocalPlatform, browser: Any,  # noqa: F811
                                            finished_nautilus: tuple[str, int]) -> None:
    """Each player's five research tracks show the stations in operation per type, the benefits and the research
    values of the view; the final position has stations in operation, the first has none."""
    game_id, last = finished_nautilus
    final = _view_at(platform, game_id, last)["view"]
    assert any(r["count"] for seat in final["seats"] for r in seat["research"].values()), "no station ever active"
    watcher = Page(browser, platform.read_url)
    watcher.goto(f"#/game/{game_id}/watch")
    _wait_shown(watcher, last)
    assert _research_drawn(watcher) == _research_of(final)
    label = watcher.page.locator("svg[data-testid=research-0] .track-words[data-track='research:training'] text")
    assert label.first.evaluate("(t) => t.lastChild.textContent") == "Training"
    benefits = watcher.page.locator("svg[data-testid=research-0] .space[data-space^='research:training:'] text")
    assert benefits.evaluate_all("(ts) => ts.map((t) => t.textContent)") == ["3", "4", "5", "5", "5"]  # §3.3.3
    watcher.page.locator("svg[data-testid=research-0]").scroll_into_view_if_needed()
    watcher.shot("nautilus-research-tracks")
    watcher.close()


# Records each notification the page shows (the browser's own are not observable from a test).
RECORD_NOTIFICATIONS = """(() => {
  const Real = window.Notification;
  window.__notifications = [];
  function Recording(title, options) {
    window.__notifications.push({ title, body: options?.body, tag: options?.tag });
    return new Real(title, options);
  }
  Object.defineProperty(Recording, "permission", { get: () => Real.permission });
  Recording.requestPermission = (...args) => Real.requestPermission(...args);
  window.Notification = Recording;
})();"""

GAMES = game_types()
TURN_GAMES = ("aquatica", "underwater_cities")


async def _play_until(platform: LocalPlatform, game_id: str, players: list[str], first_seats_turn: bool) -> int:
    """Both seats play random legal moves until it is (or is not) the first seat's turn; the version then."""
    async with _client(platform) as client:
        tokens = [(await client.seat_token(game_id, player))["token"] for player in players]
        rng = random.Random(game_id)
        while True:
            legal = await client.legal(game_id, tokens[0])
            seats = legal["prompt"]["seats"]
            if (0 in seats) == first_seats_turn:
                return int(legal["version"])
            mover = 0 if 0 in seats else seats[0]
            offered = legal if mover == 0 else await client.legal(game_id, tokens[mover])
            await client.play(game_id, tokens[mover], rng.choice(offered["commands"]),
                              expected_version=offered["version"])


async def _games_of(platform: LocalPlatform, players: list[str]) -> list[str]:
    async with _client(platform) as client:
        created = [await client.create_game(game_type, [{"player_id": p, "name": p.title()} for p in players])
                   for game_type in TURN_GAMES]
    return [game["game_id"] for game in created]


def _title_becomes(page: Page, title: str) -> None:
    page.page.wait_for_function("([t]) => document.title === t", arg=[title], timeout=30_000)


@pytest.mark.timeout(300)
def test_your_games_page_counts_your_turns_and_notifies(platform: LocalPlatform, browser: Any) -> None:  # noqa: F811
    """The player's games listed on one page; when one becomes their turn the row is marked, the tab title counts
    it and a notification (asked for with a click) names the game; the count follows on any page."""
    players = ["pat", "quinn"]
    games = _beside_the_browser(_games_of(platform, players))
    for game_id in games:
        _beside_the_browser(_play_until(platform, game_id, players, first_seats_turn=False))
    pat = Page(browser, platform.read_url)
    pat.page.add_init_script(RECORD_NOTIFICATIONS)
    pat.sign_in("pat")
    pat.goto("#/mine")
    rows = pat.page.locator("[data-testid=your-games] tr[data-game]")
    pat.page.wait_for_function("() => document.querySelectorAll('[data-testid=your-games] tr[data-game]').length === 2")
    assert {rows.nth(i).get_attribute("data-game") for i in range(2)} == set(games)
    assert all(rows.nth(i).get_attribute("data-yours") == "false" for i in range(2))
    assert "Waiting for Quinn" in pat.page.inner_text("[data-testid=your-games]")
    assert pat.page.title() == "Benthic"

    pat.context.grant_permissions(["notifications"], origin=platform.read_url)
    pat.page.click("[data-testid=enable-notifications]")  # the permission is asked on a click
    pat.page.wait_for_selector("[data-testid=notices]:has-text('You get a notification')")

    for count, game_id in enumerate(games, start=1):
        _beside_the_browser(_play_until(platform, game_id, players, first_seats_turn=True))
        _title_becomes(pat, f"({count}) Your turn — Benthic")
        row = pat.page.locator(f"[data-testid=your-games] tr[data-game='{game_id}']")
        assert row.get_attribute("data-yours") == "true"
        assert "Your turn" in row.inner_text()
        notes = pat.page.evaluate("window.__notifications")
        assert len(notes) == count, notes
        assert notes[-1]["tag"] == f"benthic-turn-{game_id}" and notes[-1]["title"] == "Your turn — Benthic"
        assert pat.page.inner_text("#turn-count") == str(count)
    assert pat.page.locator("[data-testid=your-games] tr[data-game]").first.get_attribute("data-yours") == "true"
    pat.shot("your-games")

    pat.goto("#/")  # the lobby: the count goes on
    pat.page.wait_for_selector("table.list, .games p")
    _title_becomes(pat, "(2) Your turn — Benthic")
    _beside_the_browser(_play_until(platform, games[0], players, first_seats_turn=False))
    _title_becomes(pat, "(1) Your turn — Benthic")
    assert len(pat.page.evaluate("window.__notifications")) == 2, "no notification for a turn that ended"
    pat.close()


READABLE_TEXT = """() => {
  const root = document.querySelector('.game').cloneNode(true);
  // game ids; tooltips (checked apart); the history's sentences (js/history.js shortens long ones)
  root.querySelectorAll('code, title, [data-testid=history], [data-testid=replay-moves]').forEach((e) => e.remove());
  return root.textContent;
}"""

SPACE_TEXTS = """(svg) => Object.fromEntries([...svg.querySelectorAll('.space')].map((g) => [g.dataset.space,
  [[...g.querySelectorAll(':scope > text tspan')].map((t) => t.textContent).join(' '),
   g.querySelector(':scope > title')?.textContent || '']]))"""

IDENTIFIER = re.compile(r"\b[a-z]+_[a-z0-9_]+\b")
ABBREVIATION = re.compile(r"^(?:[GRY][1-5]|AA|P[1-4])$")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("game_type", GAMES)
def test_boards_read_without_the_rulebook(platform: LocalPlatform, browser: Any, game_type: str) -> None:  # noqa: F811
    """A spectator's page shows no identifier (`cloning_tile`), draws every card name on a board in full, gives
    each space a tooltip (its name, and a card's effect from the catalogue), and explains its abbreviations in
    a legend."""
    game_id, _ = _beside_the_browser(_bot_game(platform, game_type, "readable", 40))
    cat = httpx.get(f"{platform.command_url}/game-types/{game_type}/content", timeout=30).json()
    watcher = Page(browser, platform.read_url)
    watcher.goto(f"#/game/{game_id}/watch")
    watcher.page.wait_for_selector(".game[data-version] svg[data-testid=main-board] .space")
    shown = watcher.page.evaluate(READABLE_TEXT)
    assert not IDENTIFIER.findall(shown), f"identifiers on screen: {sorted(set(IDENTIFIER.findall(shown)))}"
    assert "…" not in shown

    names = {c["name"] for c in cat["components"].values()}
    spaces = watcher.page.locator("svg[data-testid=main-board]").evaluate(SPACE_TEXTS)
    drawn_names = [text for text, _ in spaces.values() if text in names]
    for space, (text, tip) in spaces.items():
        assert tip, f"{space} has no tooltip"
        if text in names:  # a component on the board: its effect on hover
            component = next(c for c in cat["components"].values() if c["name"] == text)
            assert not component.get("text") or component["text"] in tip, (space, tip)
    clipped = [text for text, _ in spaces.values()
               if len(text) >= 3 and text not in names and any(n.startswith(text) for n in names)]
    assert not clipped, f"names cut off: {clipped}"

    legend = watcher.page.inner_text("figure:has(svg[data-testid=main-board]) [data-testid=legend]")
    tokens = {token for text, _ in spaces.values() for token in text.split() if ABBREVIATION.match(token)}
    for token in tokens:
        group = f"{token[0]}1–" if token[0] in "GRYP" else token
        assert group in legend, f"{token} is not explained in the legend: {legend}"
    if game_type == "underwater_cities":
        assert spaces.get("cloning_tile", ["Action-cloning tile"])[0] == "Action-cloning tile"
        assert spaces["era_deck"][0] != "era_deck" and {"G1", "AA"} <= tokens | set(legend.split())
    print(f"\n{game_type}: {len(spaces)} spaces, {len(drawn_names)} component names drawn, "
          f"abbreviations {sorted(tokens)}")
    watcher.shot(f"{game_type}-readable")
    watcher.close()


@pytest.mark.timeout(300)
def test_replay_and_your_games_fit_a_phone(platform: LocalPlatform, browser: Any,  # noqa: F811
                                           finished_nautilus: tuple[str, int]) -> None:
    """On a 390 px screen the replay bar and the "your games" page fit the width, and the bar's controls work by
    touch."""
    game_id, last = finished_nautilus
    phone = Page(browser, platform.read_url, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.goto(f"#/game/{game_id}/watch")
    _wait_shown(phone, last)
    phone.page.tap("[data-testid=replay] button[aria-label='Step back']")
    _wait_shown(phone, last - 1)
    width = phone.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the replay page is {width}px wide on a 390px screen"
    players = ["rosa", "sam"]
    _beside_the_browser(_games_of(platform, players))
    phone.sign_in("rosa")
    phone.goto("#/mine")
    phone.page.wait_for_selector("[data-testid=your-games] tr[data-game]")
    width = phone.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the your games page is {width}px wide on a 390px screen"
    phone.close()
