"""The OpenAPI documents against the running services: schemathesis finds nothing (every check, a bounded
number of cases), and the defects found from the outside stay fixed."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import httpx
import jsonschema
import pytest

from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from tests.apifuzz import ENV, run
from tests.games import BUILT_IN
from tests.platform_helpers import PlatformFactory

# Cases per operation and phase: about 2,300 cases in all, well under a minute on a quiet machine.
EXAMPLES = int(os.environ.get("BENTHIC_SCHEMATHESIS_EXAMPLES", "10"))
# A fixed seed keeps make test repeatable; bench/api_fuzz.py explores with fresh seeds (any seed: "random").
SEED = os.environ.get("BENTHIC_SCHEMATHESIS_SEED", "20261201")
DEEP = "[" * 1000 + "]" * 1000


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({**ENV, "BENTHIC_METRICS_INTERVAL_S": "0.5"})


def _jwt(platform: LocalPlatform, player: str, *scopes: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {platform.mint(player, list(scopes))}"}


def _game(platform: LocalPlatform, http: httpx.Client, players: tuple[str, ...]) -> tuple[str, list[str]]:
    """A running nautilus game of ``players`` and their seat tokens."""
    created = http.post(f"{platform.command_url}/games", headers=_jwt(platform, "house", "benthic:matchmaker"),
                        json={"game_type": "nautilus", "seats": [{"player_id": p} for p in players]})
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    tokens = [http.post(f"{platform.command_url}/games/{game_id}/token", headers=_jwt(platform, p)).json()["token"]
              for p in players]
    return game_id, tokens


def test_schemathesis_finds_nothing(platform: LocalPlatform, tmp_path: Path) -> None:
    results = run(platform, tmp_path, EXAMPLES, None if SEED == "random" else int(SEED))
    for result in results:
        print(f"schemathesis {result.api} API: {result.generated} cases generated, {result.failures} failures, "
              f"{result.errored} errored, {result.seconds:.0f}s")
    for result in results:
        failures = result.output[result.output.find("= FAILURES"):result.output.find("= SUMMARY")]
        assert result.returncode == 0 and result.failures == 0 and result.errored == 0, failures[:8000]
        assert result.generated >= 5 * EXAMPLES, result.output[-2000:]
        assert result.report["warnings"]["unsupported_regex"] == [], result.report["warnings"]


def test_the_documents_say_what_the_services_answer(platform: LocalPlatform) -> None:
    with httpx.Client(timeout=30) as http:
        command = http.get(f"{platform.command_url}/schema/openapi.json").json()
        read = http.get(f"{platform.read_url}/schema/openapi.json").json()
    play = command["paths"]["/games/{game_id}/commands"]["post"]["responses"]
    assert set(play) == {"200", "400", "401", "403", "404", "409", "413", "414", "422", "429", "431", "503"}
    assert play["403"]["content"]["application/json"]["schema"]["properties"]["code"]["enum"] == ["wrong_game"]
    assert "body_too_deep" in play["400"]["content"]["application/json"]["schema"]["properties"]["code"]["enum"]
    assert play["401"]["headers"]["WWW-Authenticate"]["required"] is True
    schemas = command["components"]["schemas"]
    assert {f"{game}.Command" for game in BUILT_IN} | {"nautilus.Event"} <= set(schemas)
    create = command["paths"]["/games"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert {(a["properties"]["game_type"]["const"], a["properties"]["seats"]["maxItems"]) for a in create["oneOf"]} \
        == {(game, get_engine(game).max_seats) for game in game_types()}
    live = read["paths"]["/games/{game_id}/live"]["get"]["responses"]["200"]["content"]
    assert list(live) == ["text/event-stream"]
    view = read["paths"]["/games/{game_id}/seats/{seat}/view"]["get"]
    assert view["responses"]["403"]["content"]["application/json"]["schema"]["properties"]["code"]["enum"] == \
        ["wrong_game", "wrong_seat"]
    limit = next(p for p in read["paths"]["/games/{game_id}/history"]["get"]["parameters"] if p["name"] == "limit")
    assert limit["schema"]["minimum"] == 1 and "maximum" not in limit["schema"]  # more than 1000: a page of 1000


def test_deep_and_broken_bodies_are_refused_with_a_short_log(platform: LocalPlatform) -> None:
    with httpx.Client(base_url=platform.command_url, timeout=30) as http:
        game_id, tokens = _game(platform, http, ("nina", "omar"))
        before = (platform.log_dir / "command.log").stat().st_size
        for path, headers, body in (
            ("/games", _jwt(platform, "nina"), f'{{"game_type": "nautilus", "seats": {DEEP}}}'),
            (f"/games/{game_id}/join", _jwt(platform, "pia"), f'{{"name": {DEEP}}}'),
            (f"/games/{game_id}/commands", {"Authorization": f"Bearer {tokens[0]}"},
             '{"command_id": "c1", "command": ' + '{"a": ' * 1000 + "1" + "}" * 1000 + "}"),
            (f"/games/{game_id}/commands", {"Authorization": f"Bearer {tokens[0]}"}, DEEP),
        ):
            answer = http.post(path, headers={**headers, "Content-Type": "application/json"}, content=body)
            assert (answer.status_code, answer.json()["code"]) == (400, "body_too_deep"), (path, answer.text)
        # 32 levels are fine (a command of another shape: refused as a command, not as a body).
        answer = http.post(f"/games/{game_id}/commands", headers={"Authorization": f"Bearer {tokens[0]}"},
                           json={"command_id": "c2", "command": {"type": "pass", "x": json.loads("[" * 30 + "]" * 30)}})
        assert answer.status_code in (400, 422) and answer.json()["code"] != "body_too_deep", answer.text
        for body, code in (("", "invalid_request"), ("\n", "invalid_json"), ("{", "invalid_json"),
                           ('{"command_id": "c3"', "invalid_json")):  # no body, or not JSON: never a server error
            answer = http.post(f"/games/{game_id}/commands", headers={"Authorization": f"Bearer {tokens[0]}",
                                                                     "Content-Type": "application/json"}, content=body)
            assert (answer.status_code, answer.json()["code"]) == (400, code), (body, answer.text)
    logged = (platform.log_dir / "command.log").read_bytes()[before:]
    assert b"RecursionError" not in logged and b"Traceback" not in logged and len(logged) < 4000, logged[:2000]


def test_a_seat_token_of_another_game_is_wrong_game_on_the_read_side_too(platform: LocalPlatform) -> None:
    with httpx.Client(timeout=30) as http:
        game_id, _ = _game(platform, http, ("quinn", "rosa"))
        _, foreign = _game(platform, http, ("sam", "tia"))
        for path in ("view", "history", "live"):
            for seat in (0, 1):
                answer = http.get(f"{platform.read_url}/games/{game_id}/seats/{seat}/{path}",
                                  headers={"Authorization": f"Bearer {foreign[seat]}"})
                assert (answer.status_code, answer.json()["code"]) == (403, "wrong_game"), (path, answer.text)
        played = http.post(f"{platform.command_url}/games/{game_id}/commands",
                           headers={"Authorization": f"Bearer {foreign[0]}"},
                           json={"command_id": "x", "command": {"type": "pass"}})
        assert (played.status_code, played.json()["code"]) == (403, "wrong_game")


def test_every_service_reports_the_memory_of_redis(platform: LocalPlatform) -> None:
    deadline = time.monotonic() + 30
    with httpx.Client(timeout=10) as http:
        for service in ("command", "projection", "scoring"):
            while True:
                text = http.get(f"{platform.url(service)}/metrics").text
                line = next(x for x in text.splitlines() if x.startswith("benthic_redis_memory_used_bytes "))
                if float(line.split()[1]) > 0:
                    break
                assert time.monotonic() < deadline, f"{service}: {line}"
                time.sleep(0.2)


def test_history_limits_and_unsupported_methods(platform: LocalPlatform) -> None:
    with httpx.Client(timeout=30) as http:
        game_id, _ = _game(platform, http, ("uma", "vic"))
        history = f"{platform.read_url}/games/{game_id}/history"
        for limit in ("0", "-1", "x"):
            answer = http.get(history, params={"limit": limit})
            assert (answer.status_code, answer.json()["code"]) == (400, "invalid_request"), (limit, answer.text)
        assert len(http.get(history, params={"limit": 1}).json()["events"]) == 1
        assert http.get(history, params={"after": 2**53}).json()["events"] == []
        for path in ("/games/a%20b/view", "/games/%C3%A9/history", f"/games/{'g' * 129}"):  # ids: 1-128 [A-Za-z0-9_.:-]
            answer = http.get(f"{platform.read_url}{path}")
            assert (answer.status_code, answer.json()["code"]) == (400, "invalid_request"), (path, answer.text)
        beyond = http.get(history, params={"after": 2198570001027439001600})  # was a 500 (no such stream id)
        assert (beyond.status_code, beyond.json()["code"]) == (400, "invalid_request"), beyond.text
        for url, method, allowed in ((f"{platform.command_url}/games", "DELETE", "POST"),
                                     (f"{platform.command_url}/games/{game_id}/commands", "GET", "POST"),
                                     (f"{platform.read_url}/games/{game_id}/view", "POST", "GET")):
            answer = http.request(method, url)
            assert (answer.status_code, answer.json()["code"]) == (405, "method_not_allowed"), answer.text
            assert allowed in {m.strip() for m in answer.headers["allow"].split(",")}, answer.headers


def _ucg(platform: LocalPlatform, http: httpx.Client, players: tuple[str, ...]) -> tuple[str, list[str]]:
    created = http.post(f"{platform.command_url}/games", headers=_jwt(platform, "house", "benthic:matchmaker"),
                        json={"game_type": "underwater_cities", "seats": [{"player_id": p} for p in players]})
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    return game_id, [http.post(f"{platform.command_url}/games/{game_id}/token",
                               headers=_jwt(platform, p)).json()["token"] for p in players]


def test_every_command_answer_with_legal_of_a_whole_game_validates(platform: LocalPlatform) -> None:
    """Issue 25: an answer of `POST /commands?include=legal` of an Underwater Cities game carried `event: null`
    (an event the caller's seat sees nothing of), which the document did not allow.  A whole game, each answer
    checked against the served document."""
    with httpx.Client(timeout=30) as http:
        document = http.get(f"{platform.command_url}/schema/openapi.json").json()
        validator = jsonschema.Draft202012Validator(
            {"$ref": "#/components/schemas/CommandAccepted", "components": document["components"]})
        game_id, tokens = _ucg(platform, http, ("wes", "xia"))
        rng = random.Random(25)
        answers = nulls = 0
        url = f"{platform.command_url}/games/{game_id}"
        while True:
            legal = http.get(f"{url}/legal", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
            if legal["prompt"] is None:
                break
            seat = legal["prompt"]["seats"][0]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            options = http.get(f"{url}/legal", headers=auth).json()["commands"]
            answer = http.post(f"{url}/commands", params={"include": "legal"}, headers=auth,
                               json={"command_id": f"c{answers}", "command": rng.choice(options)})
            assert answer.status_code == 200, answer.text
            body = answer.json()
            errors = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(body)]
            assert not errors, (answers, errors[:5])
            nulls += sum(entry["event"] is None for entry in body["events"])
            answers += 1
            assert answers < 2000, "the game does not end"
        assert body["prompt"] is None and body["legal"] == [] and body["labels"] == []
        assert nulls > 0, "the game had no event hidden from its player: the case is not covered"


def test_views_at_a_version_and_content_packs_are_documented(platform: LocalPlatform) -> None:
    with httpx.Client(timeout=30) as http:
        command = http.get(f"{platform.command_url}/schema/openapi.json").json()
        read = http.get(f"{platform.read_url}/schema/openapi.json").json()
    for path in ("/games/{game_id}/view", "/games/{game_id}/seats/{seat}/view"):
        operation = read["paths"][path]["get"]
        at = next(p for p in operation["parameters"] if p["name"] == "at")
        assert at["in"] == "query" and at["schema"]["minimum"] == 1 and not at.get("required")
        codes = operation["responses"]["404"]["content"]["application/json"]["schema"]["properties"]["code"]["enum"]
        assert {"game_not_found", "version_not_found"} <= set(codes)
    content = command["paths"]["/game-types/{game_type}/content"]["get"]
    assert any(p["name"] == "pack" and p["in"] == "query" for p in content["parameters"])
    codes = content["responses"]["404"]["content"]["application/json"]["schema"]["properties"]["code"]["enum"]
    assert set(codes) == {"unknown_game_type", "unknown_content_pack"}
    assert "content_pack" in read["components"]["schemas"]["Summary"]["properties"]
