"""End to end, against the services as processes: `Accept-Language` and `?lang=` choose the language of the
content catalogue, the labels of `/legal` and the history's sentences (Portuguese or English, the default);
`Content-Language` says which (as we spell the language, whatever the case of the tag asked: one language, one
ETag), `Vary: Accept-Language` keeps shared caches apart.  The play socket chooses its
language at the handshake, the same way."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import msgspec
import pytest
from websockets.asyncio.client import connect

from benthic.clients.bots_http import start_bot_game
from benthic.clients.client import BenthicClient
from benthic.i18n import localized_catalogue, localized_labels, render
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from benthic.service.errormessages import localized_message
from tests.e2e.waiting import until
from tests.english_words import english_in

GAMES = game_types()
PT = {"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.5"}


def _json(value: object) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


def _in(response: httpx.Response, language: str) -> None:
    assert response.status_code == 200, response.text
    assert response.headers["content-language"] == language
    assert "accept-language" in response.headers["vary"].lower()


@pytest.mark.parametrize("game", GAMES)
async def test_the_content_catalogue_in_portuguese_english_and_the_fallback(
        platform: LocalPlatform, client: BenthicClient, game: str) -> None:
    engine = get_engine(game)
    url = f"{platform.command_url}/game-types/{game}/content"
    pt = await client.http.get(url, headers=PT)
    _in(pt, "pt")
    assert pt.json() == _json(localized_catalogue(engine.catalogue(), "pt"))
    english = _json(engine.catalogue())
    assert pt.json()["terms"] != english["terms"] and pt.json()["content_version"] == english["content_version"]
    effect_texts = [c["text"] for c in pt.json()["components"].values() if c.get("text")]
    assert effect_texts and english_in(effect_texts) == []  # "Ganhar 1 moeda, depois ...", not "Gain 1 coin, ..."
    for headers, params in (({}, {}), ({"Accept-Language": "en"}, {}), ({"Accept-Language": "fr, de;q=0.8"}, {}),
                            (PT, {"lang": "en"})):
        answer = await client.http.get(url, headers=headers, params=params)
        _in(answer, "en")
        assert answer.json() == english, (headers, params)
    by_query = await client.http.get(url, params={"lang": "pt"})
    _in(by_query, "pt")
    assert by_query.content == pt.content
    english_etag = (await client.http.get(url)).headers["etag"]
    assert pt.headers["etag"] != english_etag  # a cache keyed on the ETag keeps the languages apart
    revalidated = await client.http.get(url, headers={**PT, "If-None-Match": pt.headers["etag"]})
    assert revalidated.status_code == 304
    for headers, params in (({"Accept-Language": "PT"}, {}), ({"Accept-Language": "Pt"}, {}),  # any case: one tag
                            ({"Accept-Language": "PT-br"}, {}), ({}, {"lang": "PT"}), ({}, {"lang": "pT-Br"})):
        spelled = await client.http.get(url, headers=headers, params=params)
        _in(spelled, "pt")
        assert spelled.content == pt.content and spelled.headers["etag"] == pt.headers["etag"], (headers, params)
    shouted = await client.http.get(url, headers={"Accept-Language": "EN-us"})
    _in(shouted, "en")
    assert shouted.headers["etag"] == english_etag
    document = await client.http.get(f"{platform.command_url}/game-types/{game}", headers=PT)
    _in(document, "pt")
    assert document.json()["options"] == pt.json()["options"] and document.json()["name"] == pt.json()["name"]


@pytest.mark.parametrize("game", GAMES)
async def test_legal_labels_and_history_sentences_in_portuguese(client: BenthicClient, game: str) -> None:
    engine = get_engine(game)
    seats = max(2, engine.min_seats)
    created = await client.create_game(game, [{"player_id": f"lang{i}", "name": f"Player {i}"} for i in range(seats)],
                                       seed=33)
    game_id = created["game_id"]
    tokens = {g["seat"]: (await client.seat_token(game_id, g["player_id"]))["token"] for g in created["seats"]}
    for _ in range(4):
        version, raw = await client.operator_state(game_id)
        state = engine.decode_state(raw)
        prompt = engine.prompt(state)
        assert prompt is not None
        seat = prompt.seats[0]
        url = f"{client.command_url}/games/{game_id}/legal"
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        pt = await client.http.get(url, headers={**auth, **PT})
        _in(pt, "pt")
        described = engine.describe_all(state, engine.legal_commands(state, seat), seat)
        assert pt.json()["labels"] == _json(localized_labels(described, "pt"))
        assert english_in([label["label"] for label in pt.json()["labels"]]) == []
        assert pt.json()["commands"] == _json(engine.legal_commands(state, seat))
        english = await client.http.get(url, headers=auth)
        _in(english, "en")
        assert english.json()["labels"] == [{"label": d.label, "highlights": d.highlights} for d in described]
        assert english.json()["labels"] != pt.json()["labels"]
        unknown = await client.http.get(url, headers=auth, params={"lang": "xx"})
        _in(unknown, "en")
        assert unknown.json() == english.json()
        options = pt.json()["commands"]
        answer = await client.http.post(f"{client.command_url}/games/{game_id}/commands", params={"include": "legal"},
                                        json={"command_id": f"lang-{version}", "command": options[len(options) // 2]},
                                        headers={**auth, **PT})
        _in(answer, "pt")
        after = engine.decode_state((await client.operator_state(game_id))[1])
        labels = engine.describe_all(after, engine.legal_commands(after, seat), seat)
        assert answer.json()["labels"] == _json(localized_labels(labels, "pt"))

    await until(lambda: _projected(client, game_id, version), "projected")
    for viewer in (None, 0):
        path = f"/games/{game_id}/history" if viewer is None else f"/games/{game_id}/seats/{viewer}/history"
        auth = {"Authorization": f"Bearer {tokens[0]}"} if viewer is not None else {}
        pt_history = await client.http.get(client.read_url + path, headers={**auth, **PT})
        _in(pt_history, "pt")
        en_history = await client.http.get(client.read_url + path, headers=auth)
        _in(en_history, "en")
        assert pt_history.json()["language"] == "pt" and en_history.json()["language"] == "en"
        pt_events, en_events = pt_history.json()["events"], en_history.json()["events"]
        assert [e["event"] for e in pt_events] == [e["event"] for e in en_events]
        told = 0
        names = [f"Player {i}" for i in range(seats)]
        for pt_entry, en_entry in zip(pt_events, en_events, strict=True):
            sentence = engine.sentence(pt_entry["event"]) if "type" in pt_entry["event"] else None
            if sentence is None:
                assert pt_entry["text"] is None and en_entry["text"] is None
                continue
            told += 1
            # made from the event as this viewer sees it, the seats named by their players' names
            assert pt_entry["text"] == render(sentence, "pt", names)
            assert en_entry["text"] == render(sentence, "en", names)
        assert told >= 2, f"{game}: too few sentences in {len(pt_events)} entries"
        assert any("Player " in e["text"] for e in pt_events if e["text"])  # a name, not "Lugar 1"
        assert any(p["text"] != e["text"] for p, e in zip(pt_events, en_events, strict=True) if p["text"])


async def _projected(client: BenthicClient, game_id: str, version: int) -> bool:
    history = await client.history(game_id, None, None, limit=1000)
    return bool(history["version"] > version)


async def test_error_messages_follow_the_language_and_keep_their_codes(client: BenthicClient) -> None:
    missing = f"{client.read_url}/games/no-such-game/history"
    pt = await client.http.get(missing, headers=PT)
    english = await client.http.get(missing)
    assert pt.status_code == english.status_code == 404
    assert pt.json()["code"] == english.json()["code"] == "game_not_found"
    assert pt.headers["content-language"] == "pt" and pt.json()["message"].startswith("essa partida não existe")
    assert "no-such-game" in english.json()["message"] and "content-language" not in english.headers

    engine = get_engine("nautilus")
    created = await client.create_game("nautilus", [{"player_id": "err0"}, {"player_id": "err1"}], seed=5)
    game_id = created["game_id"]
    tokens = {g["seat"]: (await client.seat_token(game_id, g["player_id"]))["token"] for g in created["seats"]}
    _, raw = await client.operator_state(game_id)
    state = engine.decode_state(raw)
    prompt = engine.prompt(state)
    assert prompt is not None
    waiting = next(s for s in tokens if s not in prompt.seats)
    command = _json(engine.legal_commands(state, prompt.seats[0])[0])
    url = f"{client.command_url}/games/{game_id}/commands"
    answers = []
    for headers in (PT, {}):
        answers.append(await client.http.post(url, json={"command_id": f"c-{len(answers)}", "command": command},
                                              headers={"Authorization": f"Bearer {tokens[waiting]}", **headers}))
    refused_pt, refused_en = answers
    assert refused_pt.status_code == refused_en.status_code == 422
    assert refused_pt.json()["code"] == refused_en.json()["code"]
    assert refused_pt.json()["message"] == (f"As regras não permitem isso ({refused_en.json()['code']}): "
                                            f"{refused_en.json()['message']}")


def _socket(platform: LocalPlatform, game_id: str, token: str | None, query: str = "") -> str:
    url = platform.command_url.replace("http://", "ws://") + f"/games/{game_id}/play?token={token or ''}"
    return url + query


async def _ask(socket: Any, frame: dict[str, Any] | str) -> dict[str, Any]:
    await socket.send(frame if isinstance(frame, str) else msgspec.json.encode(frame).decode())
    return msgspec.json.decode(await socket.recv())  # type: ignore[no-any-return]


async def _labels(client: BenthicClient, game_id: str, token: str, headers: dict[str, str]) -> Any:
    answer = await client.http.get(f"{client.command_url}/games/{game_id}/legal",
                                   headers={"Authorization": f"Bearer {token}", **headers})
    return answer.json()


@pytest.mark.parametrize("game", GAMES)
async def test_the_play_socket_speaks_the_language_chosen_at_its_handshake(
        platform: LocalPlatform, client: BenthicClient, game: str) -> None:
    """``?lang=`` or the handshake's Accept-Language, as over HTTP: the legal answers, the labels of a command's
    answer, the turn pushes and the error messages of the socket are in that language; codes are the same."""
    engine = get_engine(game)
    game_id, tokens = await start_bot_game(client, game, max(2, engine.min_seats), name=f"wslang{game[:3]}")
    legal = {seat: await _labels(client, game_id, token, {}) for seat, token in tokens.items()}
    seat = next(s for s, answer in legal.items() if answer["commands"])
    other = next(s for s in tokens if s != seat)
    token = tokens[seat]
    async with connect(_socket(platform, game_id, token, "&lang=pt")) as by_query, \
            connect(_socket(platform, game_id, token), additional_headers=PT) as by_header, \
            connect(_socket(platform, game_id, token)) as english, \
            connect(_socket(platform, game_id, token, "&lang=en"), additional_headers=PT) as overridden, \
            connect(_socket(platform, game_id, tokens[other], "&push=turns&lang=pt")) as pushed_to:
        pt_labels = (await _labels(client, game_id, token, PT))["labels"]
        assert pt_labels != legal[seat]["labels"]
        for socket, labels in ((by_query, pt_labels), (by_header, pt_labels), (english, legal[seat]["labels"]),
                               (overridden, legal[seat]["labels"])):
            asked = await _ask(socket, {"query": "legal"})
            assert asked["status"] == 200 and asked["result"]["labels"] == labels
            assert asked["result"]["commands"] == legal[seat]["commands"]
        refused_pt, refused_en = await _ask(by_query, "{not json"), await _ask(english, "{not json")
        assert refused_pt["error"]["code"] == refused_en["error"]["code"] == "invalid_json"
        assert refused_pt["error"]["message"] == localized_message(400, "invalid_json", "", "pt")
        assert refused_pt["error"]["message"] != refused_en["error"]["message"]
        pushes = 0
        for move in range(40):
            now = await _labels(client, game_id, token, {})
            if not now["commands"]:
                break
            answer = await _ask(by_header, {"command_id": f"lang{move}", "command": now["commands"][0],
                                            "expected_version": now["version"], "include": "legal"})
            assert answer["status"] == 200, answer
            after = await _labels(client, game_id, token, PT)
            if after["version"] == answer["result"]["last_version"]:  # no platform event in between
                assert answer["result"]["labels"] == after["labels"]
            theirs = await _labels(client, game_id, tokens[other], PT)
            if theirs["commands"] and theirs["version"] == answer["result"]["last_version"]:
                push = msgspec.json.decode(await asyncio.wait_for(pushed_to.recv(), 5))
                assert (push["status"], push["push"]) == (200, "turn")
                assert push["result"]["labels"] == theirs["labels"], "a push in the language of its socket"
                pushes += 1
                break
        assert pushes == 1
    async with connect(_socket(platform, game_id, None, "&lang=pt")) as refused:
        answer = msgspec.json.decode(await refused.recv())
        assert answer["error"]["code"] == "missing_token"
        assert answer["error"]["message"] == localized_message(401, "missing_token", "", "pt") != ""
