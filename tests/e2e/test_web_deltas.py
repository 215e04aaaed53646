"""The web client's live deltas in a real browser (Debian's headless Chromium driven by Playwright) against the
services as processes: its RFC 6902 applier (web/js/patch.js) rebuilds the views of whole games from the
server's patches, and a spectator's board stays right through deltas and through the projection service going
down and coming back (the stream dropped), without a reload: it reconnects with the version it has."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from bench.delta_bench import view_versions
from benthic.clients.bots_http import start_bot_game
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types
from benthic.views.deltas import view_patch
from tests.e2e.test_web_client import CHROMIUM, Page, _beside_the_browser, playwright_api
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory, platform_client


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform(GENEROUS_LIMITS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
        launched = driver.chromium.launch(executable_path=executable, headless=True,
                                          args=["--disable-gpu", "--no-sandbox"])
        yield launched
        launched.close()


APPLY = """async ([cases]) => {
  const { applyPatch, PatchError } = await import('/app/js/patch.js');
  const canonical = (v) => Array.isArray(v) ? v.map(canonical)
    : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])])) : v;
  const same = (a, b) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
  return cases.map(([before, patch, after]) => {
    const kept = JSON.stringify(before);
    try {
      const got = applyPatch(before, patch);
      if (JSON.stringify(before) !== kept) return 'changed its input';
      return after === 'error' ? 'applied' : same(got, after) ? 'ok' : JSON.stringify(got);
    } catch (error) {
      return after === 'error' && error instanceof PatchError ? 'ok' : `${error.name}: ${error.message}`;
    }
  });
}"""

# RFC 6902 appendix A (and the errors the applier must raise rather than build a wrong view)
RFC_CASES: list[tuple[Any, list[dict[str, Any]], Any]] = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"foo": "bar", "baz": "qux"}),
    ({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}], {"foo": ["bar", "qux", "baz"]}),
    ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
    ({"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}], {"baz": "boo", "foo": "bar"}),
    ({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
     [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
     {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}),
    ({"foo": ["all", "grass", "cows", "eat"]}, [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
     {"foo": ["all", "cows", "eat", "grass"]}),
    ({"baz": "qux", "foo": ["a", 2, "c"]},
     [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
     {"baz": "qux", "foo": ["a", 2, "c"]}),
    ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}], "error"),
    ({"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
     {"foo": "bar", "child": {"grandchild": {}}}),
    ({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}], {"foo": ["bar", ["abc", "def"]]}),
    ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}, {"op": "replace", "path": "/~1", "value": 0}],
     {"/": 0, "~1": 10}),
    ({"a": {"b": 1}}, [{"op": "copy", "from": "/a", "path": "/c"}], {"a": {"b": 1}, "c": {"b": 1}}),
    ({"a": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
    ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}], "error"),
    ({"foo": [1]}, [{"op": "remove", "path": "/foo/1"}], "error"),
    ({"foo": [1]}, [{"op": "replace", "path": "/bar", "value": 2}], "error"),
    ({"foo": [1]}, [{"op": "add", "path": "/foo/01", "value": 2}], "error"),
    ({"a": None}, [{"op": "replace", "path": "/a", "value": {"b": None}}], {"a": {"b": None}}),
]


def test_the_client_applier_rebuilds_whole_games_and_follows_rfc_6902(platform: LocalPlatform, browser: Any) -> None:
    page = Page(browser, platform.read_url)
    page.goto("#/")
    cases: list[Any] = [list(case) for case in RFC_CASES]
    for game in game_types():
        previous = None
        for step, (_, views) in enumerate(view_versions(game, 3)):
            if previous is not None and step % 3 == 0:  # a third of the steps of each game: 100-200 patches
                for viewer, body in views.items():
                    patch = view_patch(previous[viewer], body)
                    cases.append([msgspec.json.decode(previous[viewer]), patch, msgspec.json.decode(body)])
            previous = views
    results = page.page.evaluate(APPLY, [cases])
    failures = [(i, r) for i, r in enumerate(results) if r != "ok"]
    assert not failures, failures[:5]
    assert len(results) > len(RFC_CASES) + 100
    page.close()


FRESH_BOARD = """() => ({
  board: document.querySelector('.main-col')?.innerHTML,
  prompt: document.querySelector('[data-testid=prompt]')?.innerText,
  status: document.querySelector('[data-testid=status]')?.innerText,
})"""


async def _moves(platform: LocalPlatform, game_id: str, tokens: dict[int, str], count: int) -> int:
    """``count`` random legal commands of the prompted seats; the game's version after them."""
    version = 0
    async with platform_client(platform) as client:
        for _ in range(count):
            for token in tokens.values():
                legal = await client.legal(game_id, token)
                if legal["commands"]:
                    command = random.Random(legal["version"]).choice(legal["commands"])
                    version = (await client.play(game_id, token, command, expected_version=legal["version"]))[
                        "last_version"]
                    break
    return version


@pytest.mark.timeout(300)
def test_the_board_stays_right_through_deltas_and_a_dropped_connection(platform: LocalPlatform, browser: Any) -> None:
    async def create() -> tuple[str, dict[int, str]]:
        async with platform_client(platform) as client:
            return await start_bot_game(client, "aquatica", 2, name=f"wd{random.randrange(10**6)}")

    game_id, tokens = _beside_the_browser(create())
    watcher = Page(browser, platform.read_url)
    frames: list[dict[str, Any]] = []
    streams: list[Any] = []
    cdp = watcher.context.new_cdp_session(watcher.page)
    cdp.send("Network.enable")
    cdp.on("Network.eventSourceMessageReceived", lambda frame: frames.append(frame))
    watcher.page.on("request", lambda r: streams.append(r) if "/live" in r.url else None)
    watcher.goto(f"#/game/{game_id}/watch")
    watcher.page.wait_for_selector(".game[data-version]")
    watcher.page.evaluate("window.notReloaded = true")

    def reaches(version: int) -> None:
        watcher.page.wait_for_function("([v]) => +document.querySelector('.game').dataset.version >= v",
                                       arg=[version], timeout=60_000)
        assert watcher.version() == version

    def same_board_as_a_fresh_page() -> None:
        fresh = Page(watcher.context.browser, platform.read_url)
        fresh.goto(f"#/game/{game_id}/watch")
        fresh.page.wait_for_function("([v]) => +document.querySelector('.game')?.dataset.version === v",
                                     arg=[watcher.version()])
        fresh.page.wait_for_timeout(300)  # the history and the moves, read after the view
        watcher.page.wait_for_timeout(300)
        assert watcher.page.evaluate(FRESH_BOARD) == fresh.page.evaluate(FRESH_BOARD)
        fresh.close()

    for _ in range(3):
        reaches(_beside_the_browser(_moves(platform, game_id, tokens, 2)))
    assert [f["eventName"] for f in frames][:1] == ["view"] and frames[-1]["eventName"] == "delta"
    same_board_as_a_fresh_page()

    before_drop = watcher.version()
    platform.kill("projection")  # every stream drops; moves go on through the command service
    during = _beside_the_browser(_moves(platform, game_id, tokens, 3))
    platform.start_service("projection")
    platform.wait_ready(services=("projection",))
    reaches(during)
    asked = [(r.url, r.all_headers().get("last-event-id")) for r in streams[1:]]
    assert any(last == str(before_drop) or f"since={before_drop}" in url for url, last in asked), asked
    assert frames[-1]["eventName"] == "view"  # the new process holds no step from the client's version
    after = _beside_the_browser(_moves(platform, game_id, tokens, 2))
    reaches(after)
    assert frames[-1]["eventName"] == "delta" and int(frames[-1]["eventId"]) == after
    same_board_as_a_fresh_page()
    assert watcher.page.evaluate("window.notReloaded") is True
    watcher.close()
