"""Every id field of every route the OpenAPI documents list refuses what its documented pattern refuses, to the
string's very end (issue 33: `^...$` let Python's `re` take "alice\\n").

The fields are read from the three documents the services serve (command, read, notifier): every path and query
parameter and every request body field with a `pattern`, and the integer path parameters (seats).  Each gets, in
an otherwise valid request, a valid value spoiled three ways: a trailing newline, a NUL inside, a Unicode
look-alike of one of its characters (Cyrillic `а` for `a`, a fullwidth digit).  Whatever the field's documented
pattern refuses, read as a client reads it (ECMA-262, with jsonschema-rs), must be answered `400 invalid_request`
(a webhook's URL: `400 invalid_webhook_url`, its own documented code); what the pattern allows (a look-alike in a
display name) is not sent.  The play socket's frames and a JWT's `sub` are held to the same ids.
"""

from __future__ import annotations

import copy
import json
import re
import urllib.parse
from typing import Any

import httpx
import jsonschema_rs
import msgspec
import pytest
from websockets.asyncio.client import connect

from benthic.local.localplatform import LocalPlatform
from tests.apifuzz import ENV
from tests.platform_helpers import PlatformFactory

# Cyrillic letters that look like Latin ones, a Cyrillic O for 0, fullwidth digits
LOOK_ALIKES = dict(zip("aceopxyis0123456789", "асеорхуіѕО１２３４５６７８９", strict=True))
SPOILED = {
    "a trailing newline": lambda v: v + "\n",
    "a NUL": lambda v: v[:1] + "\x00" + v[1:],
    "a look-alike": lambda v: next(v[:i] + LOOK_ALIKES[ch] + v[i + 1:] for i, ch in enumerate(v.lower())
                                   if ch in LOOK_ALIKES),
}
# A valid request body per operation that has one, holding every field of its documented body.
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("post", "/games"): {"game_type": "nautilus",
                         "seats": [{"player_id": "idf-c", "name": "Cleo"}, {"player_id": "idf-d"}]},
    ("post", "/games/{game_id}/join"): {"player_id": "idf-a", "name": "Ana"},
    ("post", "/games/{game_id}/commands"): {"command_id": "idf-command", "command": {"type": "end_turn"}},
    ("post", "/games/{game_id}/undo"): {"command_id": "idf-undo"},
    ("post", "/games/{game_id}/ops/abort"): {"reason": "a test"},
    ("post", "/dev/token"): {"player": "idf-e", "name": "Eve"},
    ("put", "/players/{player_id}/webhook"): {"url": "https://hooks.example.com/benthic",
                                              "secret": "0123456789abcdef0123"},
}
OWN_CODES = {"url": "invalid_webhook_url"}  # a field whose refusals have a documented code of their own


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform(ENV)


def _documents(platform: LocalPlatform) -> dict[str, dict[str, Any]]:
    with httpx.Client(timeout=30) as http:
        return {base: http.get(f"{base}/schema/openapi.json").json()
                for base in (platform.command_url, platform.read_url, platform.url("notifier"))}


def _body_fields(schema: dict[str, Any], document: dict[str, Any], path: str = "",
                 seen: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """The body's string fields with a pattern: their path (``seats[].player_id``) and schema."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return {} if name in seen else _body_fields(document["components"]["schemas"][name], document, path,
                                                    (*seen, name))
    found: dict[str, dict[str, Any]] = {}
    for alternative in (*schema.get("oneOf", ()), *schema.get("anyOf", ())):
        found.update(_body_fields(alternative, document, path, seen))
    if schema.get("type") == "string" and "pattern" in schema:
        found[path] = schema
    for name, sub in schema.get("properties", {}).items():
        if name != "command":  # a game's command: the engine decides (malformed_command), not a pattern
            found.update(_body_fields(sub, document, f"{path}.{name}" if path else name, seen))
    if isinstance(schema.get("items"), dict):
        found.update(_body_fields(schema["items"], document, f"{path}[]", seen))
    return found


def _set(body: dict[str, Any], path: str, value: str) -> dict[str, Any]:
    spoiled = copy.deepcopy(body)
    node: Any = spoiled
    parts = path.split(".")
    for part in parts[:-1]:
        node = node[part[:-2]][0] if part.endswith("[]") else node[part]
    node[parts[-1]] = value
    return spoiled


def _get(body: dict[str, Any], path: str) -> str:
    node: Any = body
    for part in path.split("."):
        node = node[part[:-2]][0] if part.endswith("[]") else node[part]
    return str(node)


def _refuses(schema: dict[str, Any], value: str) -> bool:
    """Whether the documented schema refuses ``value``, as a client's validator (ECMA-262 patterns) reads it."""
    return not jsonschema_rs.validator_for(schema).is_valid(value)


@pytest.fixture
def game(platform: LocalPlatform) -> dict[str, str]:
    """A running game, one of its seat tokens, and valid values of every path and query parameter (a game of
    each test's own: the sweep's valid requests resign, revoke and abort)."""
    backend = {"Authorization": f"Bearer {platform.mint('house', ['benthic:matchmaker'])}"}
    with httpx.Client(timeout=30) as http:
        created = http.post(f"{platform.command_url}/games", headers=backend, json={
            "game_type": "nautilus", "seats": [{"player_id": "idf-a"}, {"player_id": "idf-b"}]})
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        token = http.post(f"{platform.command_url}/games/{game_id}/token",
                          headers={"Authorization": f"Bearer {platform.mint('idf-a')}"}).json()["token"]
    return {"game_id": game_id, "token": token, "seat": "0", "player_id": "idf-a", "game_type": "nautilus",
            "command_id": "idf-lifecycle", "entry_id": "1-0", "after": "0"}


def _credential(platform: LocalPlatform, operation: dict[str, Any], token: str) -> dict[str, str]:
    schemes = [name for requirement in operation.get("security", []) for name in requirement]
    if not schemes:
        return {}
    scheme = schemes[0].lower()
    if "seat" in scheme:
        return {"Authorization": f"Bearer {token}"}
    if "operator" in scheme:
        return {"Authorization": f"Bearer {platform.operator_token}"}
    return {"Authorization": f"Bearer {platform.mint('house', ['benthic:matchmaker'])}"}


def _request(http: httpx.Client, base: str, method: str, template: str, path_values: dict[str, str],
             query: dict[str, str], body: dict[str, Any] | None, headers: dict[str, str]) -> httpx.Response:
    path = re.sub(r"\{(\w+)\}", lambda m: urllib.parse.quote(path_values[m.group(1)], safe=""), template)
    return http.request(method.upper(), base + path, params=query, headers=headers,
                        content=None if body is None else json.dumps(body))


def test_every_id_field_refuses_a_trailing_newline_a_nul_and_a_look_alike(platform: LocalPlatform,
                                                                         game: dict[str, str]) -> None:
    checked: list[str] = []
    wrong: list[str] = []
    with httpx.Client(timeout=30) as http:
        for base, document in _documents(platform).items():
            for template, item in document["paths"].items():
                for method, operation in item.items():
                    if not isinstance(operation, dict) or "responses" not in operation:
                        continue
                    parameters = [p for p in operation.get("parameters", []) if p["in"] in ("path", "query")]
                    required_path = {p["name"]: game[p["name"]] for p in parameters if p["in"] == "path"}
                    headers = {**_credential(platform, operation, game["token"]), "Content-Type": "application/json"}
                    body = None
                    if "requestBody" in operation:
                        assert (method, template) in BODIES, f"no valid body for {method} {template}: add one"
                        body = BODIES[(method, template)]
                    fields: list[tuple[str, str, dict[str, Any]]] = []  # (where, name, schema)
                    for parameter in parameters:
                        schema = parameter["schema"]
                        schema = next((s for s in schema.get("oneOf", [schema]) if s.get("type") != "null"), schema)
                        if schema.get("pattern") or (parameter["in"] == "path" and schema.get("type") == "integer"):
                            fields.append((parameter["in"], parameter["name"], {**schema, "type": "string"}
                                           if schema.get("type") == "string" else {"type": "string",
                                                                                    "pattern": "^[0-9]+$"}))
                    if body is not None:
                        schema = operation["requestBody"]["content"]["application/json"]["schema"]
                        fields += [("body", name, s) for name, s in _body_fields(schema, document).items()]
                    live = "text/event-stream" in operation["responses"].get("200", {}).get("content", {})
                    if not live:  # a live stream's valid request never ends
                        valid_answer = _request(http, base, method, template, required_path, {}, body, headers)
                        assert valid_answer.status_code < 500 and not (
                            valid_answer.status_code == 400 and valid_answer.json()["code"] == "invalid_request"
                        ), (method, template, valid_answer.text)
                    for where, name, schema in fields:
                        valid = _get(body, name) if where == "body" and body is not None else game[name]
                        assert not _refuses(schema, valid), (method, template, name, valid)
                        for how, spoil in SPOILED.items():
                            value = spoil(valid)
                            if not _refuses(schema, value):
                                continue  # the document allows it (a look-alike in a display name)
                            path_values = {**required_path, **({name: value} if where == "path" else {})}
                            query = {name: value} if where == "query" else {}
                            sent = _set(body, name, value) if where == "body" and body is not None else body
                            answer = _request(http, base, method, template, path_values, query, sent, headers)
                            code = answer.json().get("code") if answer.headers.get("content-type", "").startswith(
                                "application/json") else None
                            expected = OWN_CODES.get(name, "invalid_request")
                            checked.append(f"{method} {template} {name}: {how}")
                            if (answer.status_code, code) != (400, expected):
                                wrong.append(f"{method.upper()} {template} {where} {name} with {how}: "
                                             f"{answer.status_code} {answer.text[:120]}")
    print(f"{len(checked)} spoiled ids sent")
    assert len(checked) >= 80, checked
    assert wrong == [], "\n".join(wrong)
    names = {line.split(":")[0].split()[-1] for line in checked}
    assert {"game_id", "seat", "player_id", "command_id", "player", "entry_id", "after", "game_type", "secret",
            "seats[].player_id"} <= names, names


async def test_play_socket_frames_and_jwt_subjects_are_held_to_the_same_ids(platform: LocalPlatform,
                                                                           game: dict[str, str]) -> None:
    url = platform.command_url.replace("http://", "ws://") + f"/games/{game['game_id']}/play?token={game['token']}"
    async with connect(url) as socket:
        for how, spoil in SPOILED.items():
            frame = {"command_id": spoil("idf-frame"), "command": {"type": "end_turn"}}
            await socket.send(msgspec.json.encode(frame).decode())
            answer = msgspec.json.decode(await socket.recv())
            assert (answer["status"], answer["error"]["code"]) == (400, "invalid_request"), (how, answer)
    async with httpx.AsyncClient(timeout=30) as http:
        for how, spoil in SPOILED.items():
            jwt = platform.mint(spoil("idf-subject"))
            answer = await http.post(f"{platform.command_url}/games", headers={"Authorization": f"Bearer {jwt}"},
                                     json={"game_type": "nautilus", "seats": [{}, {"player_id": "idf-b"}]})
            assert (answer.status_code, answer.json()["code"]) == (401, "invalid_token"), (how, answer.text)
