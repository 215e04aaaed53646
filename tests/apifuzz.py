"""schemathesis against the running services (every check, positive and negative cases, SSE included), for
``tests/e2e/test_openapi.py`` (bounded) and ``bench/api_fuzz.py`` (longer).

The platform's OpenAPI documents are the only description of the APIs it uses.  Credentials go in per
security scheme (a player's JWT, a seat token, the operator token); path parameters name a real game, so the
cases reach its views, histories and commands instead of 404s, except the revocations, which act on games and
players of their own so that the seat token stays valid.  Two allowances, each a property of the API rather
than of a case: a schema-valid game setup or join may be refused by the game's rules (422, e.g. an option
combination the engine refuses, a seat number past the game's seats), and a schema-valid command may be one of
another game type (the command body lists every game type's commands; the path names the game): 400
``unknown_command_type``.  The notifier's webhooks take a backend's JWT; a schema-valid URL may still be refused
400 ``invalid_webhook_url`` (a bracketed IPv6 host the pattern cannot tell from a real address).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import httpx

from benthic.local.localplatform import LocalPlatform

APIS = ("command", "read", "notifier", "matchmaker")
# The platform's settings these runs need: long-polls capped at 1 s (cases ask for waits up to 1e308 s).
ENV = {
    "BENTHIC_LONG_POLL_MAX_S": "1",
    "BENTHIC_LIMIT_CREATE_PER_PLAYER": "", "BENTHIC_LIMIT_CREATE_PER_IP": "",
    "BENTHIC_LIMIT_JOIN_PER_PLAYER": "", "BENTHIC_LIMIT_JOIN_PER_IP": "",
    "BENTHIC_LIMIT_TOKEN_PER_PLAYER": "", "BENTHIC_LIMIT_TOKEN_PER_IP": "",
    "BENTHIC_LIMIT_COMMAND_PER_PLAYER": "", "BENTHIC_LIMIT_COMMAND_PER_IP": "",
    "BENTHIC_MAX_OPEN_GAMES_PER_PLAYER": "0",
}


class Result(NamedTuple):
    api: str
    returncode: int
    generated: int
    failures: int
    errored: int
    seconds: float
    report: dict[str, Any]
    output: str


def _setup(platform: LocalPlatform) -> dict[str, str]:
    """A running game with a seat token for the cases, another game and player for the revocations."""
    matchmaker = {"Authorization": f"Bearer {platform.mint('house', ['benthic:matchmaker'])}"}
    alice = platform.mint("alice")
    with httpx.Client(base_url=platform.command_url, timeout=30) as http:
        games = []
        for game_type, players in (("nautilus", ("alice", "bob")), ("aquatica", ("carol", "dave")),
                                   ("nautilus", ("erin", "finn"))):
            created = http.post("/games", headers=matchmaker, json={
                "game_type": game_type, "seats": [{"player_id": p} for p in players]})
            created.raise_for_status()
            games.append(created.json()["game_id"])
        token = http.post(f"/games/{games[0]}/token", headers={"Authorization": f"Bearer {alice}"})
        token.raise_for_status()
        erin = http.post(f"/games/{games[2]}/token", headers={"Authorization": f"Bearer {platform.mint('erin')}"})
        erin.raise_for_status()
        lifecycle = "/resign" in http.get("/schema/openapi.json").text
    return {"game": games[0], "other_game": games[1], "player_jwt": alice, "seat_token": token.json()["token"],
            "backend_jwt": platform.mint("house", ["benthic:matchmaker"]),
            "operator": platform.operator_token, "lifecycle_game": games[2], "lifecycle_token": erin.json()["token"],
            "lifecycle": "yes" if lifecycle else ""}


LIFECYCLE = "/games/{game_id}/(resign|reclaim)$"  # a seat leaving its game: run on a game of its own


def _config(setup: dict[str, str], api: str, max_examples: int) -> str:
    lifecycle = api == "lifecycle"
    lines = [
        "max-stream-events = 1",
        "request-timeout = 20",
        "[generation]",
        f"max-examples = {max_examples}",
        "[parameters]",
        f'"path.game_id" = "{setup["lifecycle_game" if lifecycle else "game"]}"',
        '"path.seat" = 0',
        '"path.player_id" = "nobody"',
        "[auth.openapi.seatToken]",
        f'bearer = "{setup["lifecycle_token" if lifecycle else "seat_token"]}"',
    ]
    if lifecycle:
        lines += ["[[operations]]", f'exclude-path-regex = "{LIFECYCLE}"', "enabled = false"]
    if api == "command" and setup["lifecycle"]:
        lines += ["[[operations]]", f'include-path-regex = "{LIFECYCLE}"', "enabled = false"]
    if api in ("command", "lifecycle"):
        lines += [
            "[auth.openapi.playerJwt]",
            f'bearer = "{setup["player_jwt"]}"',
            "[auth.openapi.operator]",
            f'bearer = "{setup["operator"]}"',
            "[[operations]]",
            'include-path = ["/games/{game_id}/ops/revoke", "/games/{game_id}/ops/abort"]',
            f'parameters = {{ "path.game_id" = "{setup["other_game"]}" }}',
            "[[operations]]",
            'include-path = ["/games", "/games/{game_id}/join"]',
            'checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "409", "422", "429"]',
            "[[operations]]",
            'include-path = "/games/{game_id}/commands"',
            'checks.positive_data_acceptance.expected-statuses = '
            '["2xx", "400", "401", "403", "404", "409", "422", "429"]',
        ]
    if api == "notifier":
        lines += [
            "[auth.openapi.playerJwt]",
            f'bearer = "{setup["backend_jwt"]}"',
            "[auth.openapi.operator]",
            f'bearer = "{setup["operator"]}"',
            "[[operations]]",
            'include-path = "/players/{player_id}/webhook"',
            'include-method = "PUT"',
            'checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404"]',
        ]
    if api == "matchmaker":
        # A player's JWT; a schema-valid ticket or invitation may still be refused by the game's rules or by the
        # player's state (a cap reached, no such invitee, on vacation): the documented 4xx of the operation.
        lines += [
            "[auth.openapi.playerJwt]",
            f'bearer = "{setup["player_jwt"]}"',
            "[[operations]]",
            'include-path-regex = "^/(matchmaking|invitations|players)"',
            'checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "422"]',
        ]
    return "\n".join(lines) + "\n"


def run(platform: LocalPlatform, workdir: Path, max_examples: int, seed: int | None = None) -> list[Result]:
    """One schemathesis run per API (every phase, ``--checks all``); their reports."""
    setup = _setup(platform)
    results = []
    for api in (*APIS, "lifecycle") if setup["lifecycle"] else APIS:
        config = workdir / f"schemathesis-{api}.toml"
        config.write_text(_config(setup, api, max_examples))
        report = workdir / f"schemathesis-{api}.json"
        url = {"read": platform.read_url, "notifier": platform.url("notifier"),
               "matchmaker": platform.url("matchmaker")}.get(api, platform.command_url)
        command = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "--no-color", "run",
                   f"{url}/schema/openapi.json", "--checks", "all", "--report", "json",
                   "--report-json-path", str(report)]
        if seed is not None:
            command += ["--seed", str(seed)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=workdir, check=False)
        data = json.loads(report.read_text()) if report.exists() else {}
        cases = data.get("test_cases", {})
        results.append(Result(api, done.returncode, int(cases.get("generated", 0)),
                              int(cases.get("unique_failures", 0)), int(cases.get("errored", 0)),
                              float(data.get("running_time", 0.0)), data, done.stdout + done.stderr))
    return results
