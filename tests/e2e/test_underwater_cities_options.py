"""End to end, the services as real processes: Underwater Cities' two rule options played to the end of a game.
``early_discard = true``: seats over their hand limit discard during the other seats' turns, a command outside
any prompt that ``GET /legal`` offers them; ``contracts_auto_claim = false``: the bots service's greedy bots claim
the government contracts with ``claim_contract``.  Each game is scored, and its history tells the moves in
English and Portuguese."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest

from benthic.clients.client import BenthicClient
from benthic.local.localplatform import LocalPlatform
from tests.e2e.waiting import scored
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory

GAME = "underwater_cities"


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({"BENTHIC_BOT_MOVE_DELAY_MS": "0", "BENTHIC_CLAIM_IDLE_MS": "1500",
                          "BENTHIC_CLAIM_INTERVAL_S": "0.5", **GENEROUS_LIMITS})


async def _history(client: BenthicClient, game_id: str, language: str) -> list[dict[str, Any]]:
    """The spectator's whole history, its sentences in ``language``."""
    entries: list[dict[str, Any]] = []
    while True:
        response = await client.http.get(f"{client.read_url}/games/{game_id}/history",
                                         params={"after": entries[-1]["version"] if entries else 0, "limit": 1000,
                                                 "lang": language})
        assert response.status_code == 200, response.text
        page = response.json()["events"]
        if not page:
            return entries
        entries.extend(page)


async def _seated_game(client: BenthicClient, seats: int, options: dict[str, Any], seed: int) -> tuple[str, dict]:
    """A game of ``seats`` players this test plays over HTTP (a fixed seed: the operator creates it)."""
    name = f"uc{uuid.uuid4().hex[:6]}"
    players = [{"player_id": f"{name}-{i}", "name": f"Player {i + 1}"} for i in range(seats)]
    created = await client.create_game(GAME, players, options, seed=seed)
    tokens = {s["seat"]: s.get("token") or (await client.seat_token(created["game_id"], s["player_id"]))["token"]
              for s in created["seats"]}
    return created["game_id"], tokens


async def _legal(client: BenthicClient, game_id: str, token: str, language: str = "en") -> dict[str, Any]:
    response = await client.http.get(f"{client.command_url}/games/{game_id}/legal", params={"lang": language},
                                     headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def test_early_discards_between_turns_are_offered_played_and_told_to_the_end_of_a_game(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    game_id, tokens = await _seated_game(client, 3, {"rules": {"early_discard": True}}, seed=36)
    rng = random.Random(36)
    early = asked = 0
    for _ in range(3000):
        answers = {seat: await _legal(client, game_id, token) for seat, token in tokens.items()}
        prompt = answers[0]["prompt"]
        if prompt is None:
            break
        outside = [(seat, i) for seat, answer in answers.items() if seat not in prompt["seats"]
                   for i in range(len(answer["commands"]))]
        if outside and rng.random() < 0.6:
            seat, index = rng.choice(outside)
            command, label = answers[seat]["commands"][index], answers[seat]["labels"][index]["label"]
            assert command["type"] == "discard_cards" and len(command["card_ids"]) == 1
            assert label.endswith("now, before your turn (over your hand limit)")
            if not early:  # the same offer in Portuguese
                portuguese = await _legal(client, game_id, tokens[seat], "pt")
                assert portuguese["labels"][index]["label"].endswith("antes do seu turno (acima do seu limite de mão)")
            early += 1
        else:
            seat = rng.choice(prompt["seats"])
            command = rng.choice(answers[seat]["commands"])
            asked += prompt["kind"] == "discard_to_limit"
        await client.play(game_id, tokens[seat], command, expected_version=answers[0]["version"])
    else:
        raise AssertionError("no end in 3000 moves")
    assert early > 0 and asked > 0  # discards before the turn, and what was still over asked at its start
    summary = await scored(client, game_id)
    assert summary["status"] == "finished"
    assert len((await client.scores(game_id))["results"]) == 3
    history = await _history(client, game_id, "pt")
    told = [e for e in history if e["event"].get("type") == "cards_discarded_early"]
    assert len(told) == early
    assert all(e["text"].endswith(" antes do seu turno") and " descartou " in e["text"] for e in told), told[:2]
    english = {e["version"]: e["text"] for e in await _history(client, game_id, "en")}
    assert all(" before their turn" in english[e["version"]] for e in told)


async def test_the_bots_service_claims_the_contracts_with_claim_contract_to_the_end_of_a_game(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    options = {"government_contracts": True, "rules": {"contracts_auto_claim": False}}
    document = (await client.http.get(f"{client.command_url}/game-types/{GAME}", params={"lang": "pt"})).json()
    rules = next(o for o in document["options"] if o["name"] == "rules")
    flag = next(f for f in rules["flags"] if f["name"] == "contracts_auto_claim")
    assert flag["values"] == [True, False] and flag["text"].startswith("Contratos governamentais")
    created = await client.create_game(GAME, [{"bot": "greedy"}, {"bot": "greedy"}, {"bot": "greedy"}], options,
                                       seed=36)
    game_id = created["game_id"]
    summary = await scored(client, game_id)
    assert summary["status"] == "finished"
    entries = (await client.audit(game_id))["entries"]
    claims = [i for i, e in enumerate(entries) if e["type"] == "contract_claimed"]
    assert claims, "no contract was claimed"
    # each claim opens a commit of its own: a claim_contract command, never a build's automatic claim
    assert all(entries[i - 1]["command_id"] != entries[i]["command_id"] for i in claims)
    assert all(entries[i]["actor_kind"] == "bot" for i in claims)
    history = await _history(client, game_id, "pt")
    told = [e for e in history if e["event"].get("type") == "contract_claimed"]
    assert len(told) == len(claims) and all(" cumpriu o contrato " in e["text"] for e in told)
