"""End to end, against the services as processes: the game-type and content documents (ETag, caching, 304,
unknown types) and the labels of `/legal` and `POST /commands?include=legal`."""

from __future__ import annotations

import uuid
from pathlib import Path
from urllib.parse import quote

import httpx
import msgspec
import pytest

from benthic.clients.bots_http import start_bot_game
from benthic.clients.client import ApiFailure, BenthicClient
from benthic.i18n import localized_labels
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from tests.e2e.waiting import until
from tests.platform_helpers import PlatformFactory
from tests.variant_packs import VARIANT_ID, VARIANT_VERSION

GAMES = game_types()
PACKED = [g for g in GAMES if get_engine(g).content_packs is not None]
VARIANT = f"{VARIANT_ID}@{VARIANT_VERSION}"

@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory, packs: Path) -> LocalPlatform:
    """With the second content pack of every game installed (tests/variant_packs.py; ``packs``, in
    tests/e2e/conftest.py, installs it in this process too)."""
    return make_platform({"BENTHIC_DRAIN_TIMEOUT_S": "2", "BENTHIC_CONTENT_DIRS": str(packs)}, shared_archive=False)


def _cacheable(response: httpx.Response, max_age: str = "public, max-age=86400") -> str:
    etag = response.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"') and len(etag) > 2, "a strong entity tag"
    assert response.headers["cache-control"] == max_age
    return etag


@pytest.mark.parametrize("game", GAMES)
async def test_game_type_document_is_cacheable_and_revalidates(platform: LocalPlatform, client: BenthicClient,
                                                                game: str) -> None:
    engine = get_engine(game)
    url = f"{platform.command_url}/game-types/{game}"
    first = await client.http.get(url)
    assert first.status_code == 200 and first.headers["content-type"].startswith("application/json")
    etag = _cacheable(first)
    body = first.json()
    catalogue = engine.catalogue()
    assert body["game_type"] == game and body["content_version"] == engine.content_version
    assert (body["min_seats"], body["max_seats"]) == (engine.min_seats, engine.max_seats)
    assert body["commands"] == sorted(engine.command_names)
    assert body["options"] == catalogue["options"]
    assert body["content_url"] == f"/game-types/{game}/content?v={quote(engine.content_version, safe='')}"
    again = await client.http.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    listed = {t["game_type"]: t for t in await client.game_types()}
    assert listed[game]["content_version"] == engine.content_version


@pytest.mark.parametrize("game", GAMES)
async def test_content_document_is_the_catalogue_versioned_by_its_url(platform: LocalPlatform,
                                                                      client: BenthicClient, game: str) -> None:
    engine = get_engine(game)
    url = f"{platform.command_url}/game-types/{game}/content"
    response = await client.http.get(url)
    assert response.status_code == 200
    etag = _cacheable(response)
    assert response.json() == msgspec.json.decode(msgspec.json.encode(engine.catalogue()))
    assert response.headers["x-benthic-content-version"] == engine.content_version

    pinned = await client.http.get(platform.command_url + (await client.http.get(
        f"{platform.command_url}/game-types/{game}")).json()["content_url"])
    assert pinned.status_code == 200 and pinned.headers["etag"] == etag
    assert pinned.headers["cache-control"] == "public, max-age=31536000, immutable"
    stale = await client.http.get(url, params={"v": "an-old-version"})
    assert stale.status_code == 200 and stale.headers["cache-control"] == "no-cache"
    assert stale.content == response.content

    for header in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        revalidated = await client.http.get(url, headers={"If-None-Match": header})
        assert revalidated.status_code == 304 and revalidated.content == b"", header
    changed = await client.http.get(url, headers={"If-None-Match": '"something-else"'})
    assert changed.status_code == 200 and changed.content == response.content


def _json(value: object) -> object:
    return msgspec.json.decode(msgspec.json.encode(value))


@pytest.mark.parametrize("game", PACKED)
async def test_the_catalogue_of_a_chosen_pack_is_that_packs(platform: LocalPlatform, client: BenthicClient,
                                                            game: str) -> None:
    """`?pack=` draws the catalogue from that content pack (by id, its newest version, or id@version), with its
    own content version and ETag; without it, the default pack as before."""
    engine = get_engine(game)
    packs = engine.content_packs
    assert packs is not None
    url = f"{platform.command_url}/game-types/{game}/content"
    default = await client.http.get(url)
    assert default.headers["x-benthic-content-pack"] == packs.default_ref.key
    variant = await client.http.get(url, params={"pack": VARIANT_ID})
    assert variant.status_code == 200, variant.text
    expected = _json(packs.run(VARIANT, engine.catalogue))
    assert variant.json() == expected and variant.json() != default.json()
    assert variant.headers["x-benthic-content-pack"] == VARIANT
    assert variant.headers["x-benthic-content-version"] == expected["content_version"] != engine.content_version
    assert variant.headers["etag"] != default.headers["etag"]
    assert _json(engine.catalogue()) == default.json(), "the default catalogue stays the default pack's"
    exact = await client.http.get(url, params={"pack": VARIANT})
    assert exact.content == variant.content and exact.headers["etag"] == variant.headers["etag"]
    pinned = await client.http.get(url, params={"pack": VARIANT, "v": expected["content_version"]})
    assert pinned.headers["cache-control"] == "public, max-age=31536000, immutable"
    revalidated = await client.http.get(
        url, params={"pack": VARIANT}, headers={"If-None-Match": variant.headers["etag"]}
    )
    assert revalidated.status_code == 304
    by_default_id = await client.http.get(url, params={"pack": packs.default_ref.id})
    assert by_default_id.content == default.content
    if game == "underwater_cities":  # what the variant changes shows in the catalogue's tables
        assert variant.json()["tables"]["starting_resources"]["credit"] == 9
        assert default.json()["tables"]["starting_resources"]["credit"] != 9


@pytest.mark.parametrize("game", PACKED)
async def test_a_games_lobby_card_names_its_pack_and_the_catalogue_route_draws_it(
        platform: LocalPlatform, client: BenthicClient, game: str) -> None:
    game_id, _ = await start_bot_game(client, game, 2, name=f"pk{uuid.uuid4().hex[:4]}",
                                      options={"content": VARIANT_ID})
    card = await until(lambda: client.summary(game_id), "lobby card", retry_on=(ApiFailure,))
    assert card["content_pack"] == VARIANT
    drawn = await client.http.get(f"{platform.command_url}/game-types/{game}/content",
                                  params={"pack": card["content_pack"]})
    assert drawn.headers["x-benthic-content-pack"] == VARIANT
    plain_id, _ = await start_bot_game(client, game, 2, name=f"pk{uuid.uuid4().hex[:4]}")
    plain = await until(lambda: client.summary(plain_id), "lobby card", retry_on=(ApiFailure,))
    assert plain["content_pack"] == get_engine(game).content_packs.default_ref.key  # type: ignore[union-attr]


async def test_unknown_packs_are_404_unknown_content_pack(platform: LocalPlatform, client: BenthicClient) -> None:
    game = PACKED[0]
    url = f"{platform.command_url}/game-types/{game}/content"
    for pack in ("no-such-pack", f"{VARIANT_ID}@9.9.9", ""):
        response = await client.http.get(url, params={"pack": pack})
        assert response.status_code == 404, (pack, response.text)
        body = response.json()
        assert body["code"] == "unknown_content_pack", body
        assert VARIANT in body["details"]["installed"]
    unknown_type = await client.http.get(f"{platform.command_url}/game-types/chess/content",
                                         params={"pack": VARIANT_ID})
    assert (unknown_type.status_code, unknown_type.json()["code"]) == (404, "unknown_game_type")


async def test_unknown_game_types_are_404_with_the_error_body(platform: LocalPlatform,
                                                              client: BenthicClient) -> None:
    for path in ("/game-types/chess", "/game-types/chess/content"):
        response = await client.http.get(platform.command_url + path)
        assert response.status_code == 404
        body = response.json()
        assert body["code"] == "unknown_game_type" and "chess" in body["message"]


@pytest.mark.parametrize("game", GAMES)
async def test_legal_commands_come_with_aligned_labels(client: BenthicClient, game: str) -> None:
    engine = get_engine(game)
    seats = max(2, engine.min_seats)
    created = await client.create_game(game, [{"player_id": f"p{i}"} for i in range(seats)], seed=21)
    game_id = created["game_id"]
    tokens = {g["seat"]: (await client.seat_token(game_id, g["player_id"]))["token"] for g in created["seats"]}
    for _ in range(6):  # a few moves, each checked against the engine on the operator's state
        version, raw = await client.operator_state(game_id)
        state = engine.decode_state(raw)
        prompt = engine.prompt(state)
        if prompt is None:
            break
        for seat, token in tokens.items():
            legal = await client.legal(game_id, token)
            assert legal["version"] == version
            assert len(legal["labels"]) == len(legal["commands"])
            if seat not in prompt.seats:
                assert legal["commands"] == [] and legal["labels"] == []
                continue
            commands = [engine.decode_command(c) for c in legal["commands"]]
            assert commands == engine.legal_commands(state, seat)
            described = engine.describe_all(state, commands, seat)
            expected = [msgspec.to_builtins(d) for d in localized_labels(described, "en")]
            assert legal["labels"] == expected
            assert all(set(label) == {"label", "highlights"} and label["label"] for label in legal["labels"])
        seat = prompt.seats[0]
        options = (await client.legal(game_id, tokens[seat]))["commands"]
        answer = await client.play(game_id, tokens[seat], options[len(options) // 2], include_legal=True)
        assert len(answer["labels"]) == len(answer["legal"])
        _, raw = await client.operator_state(game_id)
        after = engine.decode_state(raw)
        legal_after = [engine.decode_command(c) for c in answer["legal"]]
        assert answer["labels"] == [msgspec.to_builtins(d)
                                    for d in localized_labels(engine.describe_all(after, legal_after, seat), "en")]
        if engine.prompt(after) is None:
            break
        nxt = engine.prompt(after).seats[0]
        options = (await client.legal(game_id, tokens[nxt]))["commands"]
        plain = await client.play(game_id, tokens[nxt], options[len(options) // 2])
        assert plain.get("labels") is None and plain.get("legal") is None
