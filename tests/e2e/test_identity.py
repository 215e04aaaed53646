"""Players and trust end to end: the services as processes (two command and two projection replicas) trusting
an identity provider whose JWKS this test serves over HTTP with keys it generates."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import jwt
import pytest

from benthic.clients.client import ApiFailure, BenthicClient
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from benthic.trust.auth import SeatTokens
from tests.e2e.waiting import until
from tests.identity_helpers import (
    AUDIENCE,
    ISSUER,
    JwksServer,
    SigningKey,
    claims,
    hmac_with_public_key,
    unsigned,
)
from tests.platform_helpers import PlatformFactory

GAMES = game_types()
MATCHMAKER = ("benthic:matchmaker",)
OPEN_GAMES_CAP = 2
_ips = (f"198.51.100.{i}" for i in itertools.count(1))


class IdP:
    """The identity provider: its JWKS server and a key that signs (the first one served)."""

    def __init__(self, server: JwksServer) -> None:
        self.server = server

    @property
    def signer(self) -> SigningKey:
        return self.server.keys[0]

    def mint(self, subject: str, scopes: tuple[str, ...] | list[str] = (), ttl_s: int = 600) -> str:
        extra: dict[str, Any] = {"scope": " ".join(scopes)} if scopes else {}
        return self.signer.sign(claims(subject, exp=claims(subject)["iat"] + ttl_s, **extra))


@pytest.fixture(scope="module")
def idp() -> Iterator[IdP]:
    with JwksServer([SigningKey("RS256"), SigningKey("ES256")]) as server:
        yield IdP(server)


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory, idp: IdP) -> LocalPlatform:
    running = make_platform({
        "BENTHIC_JWKS_URL": idp.server.url,
        "BENTHIC_JWT_ISSUER": ISSUER,
        "BENTHIC_JWT_AUDIENCE": AUDIENCE,
        "BENTHIC_JWKS_CACHE_S": "1",  # a key removed from the JWKS is forgotten within a second
        "BENTHIC_JWKS_COOLDOWN_S": "0",  # an unknown key id re-fetches the JWKS at once
        "BENTHIC_LIMIT_CREATE_PER_PLAYER": "3/hour",
        "BENTHIC_LIMIT_CREATE_PER_IP": "6/hour",
        "BENTHIC_LIMIT_COMMAND_PER_PLAYER": "8/hour",
        "BENTHIC_LIMIT_COMMAND_PER_IP": "1000/hour",
        "BENTHIC_MAX_OPEN_GAMES_PER_PLAYER": str(OPEN_GAMES_CAP),
        "BENTHIC_LOG_LEVEL": "debug",
    }, shared_archive=False)
    running.start_replica("command", "command-b")
    running.start_replica("projection", "projection-b")
    return running


def _client(platform: LocalPlatform, idp: IdP, ip: str, command: str = "command",
            projection: str = "projection") -> BenthicClient:
    """A client from its own address (X-Forwarded-For, trusted from 127.0.0.1), so tests share no IP limits."""
    return BenthicClient(platform.url(command), platform.url(projection), operator_token=platform.operator_token,
                         mint=idp.mint, retry_rate_limited=False,
                         http=httpx.AsyncClient(timeout=30, headers={"X-Forwarded-For": ip}))


@pytest.fixture
async def clients(platform: LocalPlatform, idp: IdP) -> AsyncIterator[tuple[BenthicClient, BenthicClient]]:
    """Two clients from one address: one talks to the first replicas, one to the second."""
    ip = next(_ips)
    pair = (_client(platform, idp, ip), _client(platform, idp, ip, "command-b", "projection-b"))
    yield pair
    for client in pair:
        await client.aclose()


def _seat_tokens(platform: LocalPlatform) -> SeatTokens:
    """The platform's own seat-token keys (to make tokens it would not issue: expired ones)."""
    kid, _, secret = platform.env["BENTHIC_TOKEN_KEYS"].partition(":")
    return SeatTokens(((kid, secret.encode()),), ttl_s=60)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _who(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


async def _refused(call: Any, status: int, code: str) -> ApiFailure:
    with pytest.raises(ApiFailure) as refused:
        await call
    assert (refused.value.status, refused.value.code) == (status, code), refused.value.message
    return refused.value


async def _two_player_game(client: BenthicClient, *players: str, **create: Any) -> tuple[str, dict[str, str]]:
    """A game created by a matchmaker naming ``players``; each fetches its own seat token with its JWT."""
    game_type = create.pop("game_type", GAMES[0])
    count = max(len(players), get_engine(game_type).min_seats)
    seats = [{"player_id": p} for p in players] + [None] * (count - len(players))
    created = await client.create_game(game_type, seats, jwt=client.mint("mm", MATCHMAKER), **create)
    assert all(not s.get("token") for s in created["seats"]), "a backend never receives the players' tokens"
    tokens = {p: (await client.seat_token(created["game_id"], p))["token"] for p in players}
    return created["game_id"], tokens


async def test_bad_jwts_are_refused_and_change_nothing(platform: LocalPlatform, idp: IdP, clients: Any) -> None:
    client, _ = clients
    rs, es = idp.server.keys[0], idp.server.keys[1]
    player = _who("victim")
    now = claims(player)["iat"]
    url = f"{platform.command_url}/games"
    body = {"game_type": GAMES[0], "seats": [{}, None]}
    bad = {
        "forged": SigningKey("RS256", kid=rs.kid).sign(claims(player)),
        "expired": rs.sign(claims(player, exp=now - 120)),
        "not yet valid": es.sign(claims(player, nbf=now + 600)),
        "issued in the future": es.sign(claims(player, iat=now + 600)),
        "wrong issuer": rs.sign(claims(player, iss="https://impostor.example/")),
        "wrong audience": rs.sign(claims(player, aud="another-api")),
        "alg none": unsigned(claims(player), rs.kid),
        "HS256 keyed with the RSA public key": hmac_with_public_key(claims(player), rs),
        "RS512": jwt.encode(claims(player), rs.private, algorithm="RS512", headers={"kid": rs.kid}),
        "unknown key": SigningKey("EdDSA").sign(claims(player)),
        "no subject": rs.sign(claims(player, sub=None)),
        "a seat token": _seat_tokens(platform).issue("g", 0, player).token,
    }
    for reason, token in bad.items():
        response = await client.http.post(url, json=body, headers=_bearer(token))
        expected = "token_expired" if reason == "expired" else "invalid_token"
        assert (response.status_code, response.json()["code"]) == (401, expected), (reason, response.text)
        assert response.headers["www-authenticate"].startswith("Bearer"), reason
    assert (await client.http.post(url, json=body)).json()["code"] == "missing_token"
    assert (await client.my_seats(player))["seats"] == [], "no refused request created a game"
    created = await client.create_game(GAMES[0], body["seats"], jwt=rs.sign(claims(player)))
    assert created["seats"][0]["player_id"] == player and created["seats"][0]["token"]


async def test_jwks_keys_rotate_while_the_services_run(platform: LocalPlatform, idp: IdP, clients: Any) -> None:
    client, other = clients
    player = _who("rotating")
    old = idp.server.keys[0]
    new = SigningKey("EdDSA")
    before = idp.server.fetches
    await _refused(client.my_seats(jwt=new.sign(claims(player))), 401, "invalid_token")
    idp.server.keys = [new, *idp.server.keys]  # the provider publishes a new key and signs with it
    try:
        for api in (client, other):  # both replicas fetch the new set on the unknown key id
            assert (await api.my_seats(jwt=new.sign(claims(player))))["player_id"] == player
        assert idp.server.fetches > before
        idp.server.keys = [k for k in idp.server.keys if k is not old]  # the old key is retired
        for api in (client, other):
            await until(lambda a=api: _is_refused(a.my_seats(jwt=old.sign(claims(player)))),
                        "a token of the retired key is refused once the cached JWKS expires", retry_on=(ApiFailure,))
    finally:
        idp.server.keys = [old, *[k for k in idp.server.keys if k is not old and k is not new]]


async def _is_refused(call: Any) -> bool:
    try:
        await call
    except ApiFailure as failure:
        return failure.code == "invalid_token"
    return False


async def test_impersonation_is_refused(platform: LocalPlatform, idp: IdP, clients: Any) -> None:
    client, other = clients
    alice, bob, carol, mallory = _who("alice"), _who("bob"), _who("carol"), _who("mallory")
    game_type = GAMES[0]
    opens = [None]  # two seats: the second stays open
    await _refused(client.create_game(game_type, [{"player_id": bob}, *opens], jwt=idp.mint(mallory)),
                   403, "player_mismatch")
    await _refused(client.create_game(game_type, [{}, {"player_id": bob}], jwt=idp.mint(mallory)),
                   403, "player_mismatch")
    await _refused(client.create_game(game_type, [None, *opens], jwt=idp.mint(mallory)), 422, "creator_not_seated")
    await _refused(client.create_game(game_type, [{"player_id": alice}, *opens], seed=5,
                                      jwt=idp.mint("mm", MATCHMAKER)), 403, "seed_requires_operator")
    created = await client.create_game(game_type, [{}, *opens], jwt=idp.mint(alice))
    game_id = created["game_id"]
    await _refused(client.join(game_id, bob, jwt=idp.mint(carol)), 403, "player_mismatch")
    await _refused(client.join(game_id, jwt=idp.mint("mm", MATCHMAKER)), 403, "player_only")
    await _refused(client.seat_token(game_id, carol), 403, "not_seated")
    await _refused(client.seat_token(game_id, jwt=idp.mint("mm", MATCHMAKER)), 403, "player_only")
    for method, path in (("POST", f"/games/{game_id}/ops/revoke"), ("GET", f"/games/{game_id}/ops/audit"),
                         ("GET", f"/games/{game_id}/ops/state")):
        response = await client.http.request(method, f"{platform.command_url}{path}", headers=_bearer(idp.mint(alice)))
        assert (response.status_code, response.json()["code"]) == (403, "operator_only"), path
    joined = await other.join(game_id, bob)
    assert joined["seat"] == 1 and joined["token"] and joined["rated"]
    alice_token = created["seats"][0]["token"]
    other_game, other_tokens = await _two_player_game(client, _who("dave"), _who("erin"))
    foreign = next(iter(other_tokens.values()))
    for api in (client, other):
        await _refused(api.play(game_id, foreign, {"type": "anything"}), 403, "wrong_game")
        await _refused(api.legal(game_id, foreign), 403, "wrong_game")
        await until(lambda a=api: a.view(game_id), "projected", retry_on=(ApiFailure,))
        await _refused(api.view(game_id, 1, alice_token), 403, "wrong_seat")  # alice's token, bob's seat
        await _refused(api.view(game_id, 0, foreign), 403, "wrong_game")
        await _refused(api.history(game_id, 1, alice_token), 403, "wrong_seat")
        assert (await api.view(game_id, 0, alice_token))["seat"] == 0


async def test_a_backend_names_the_players_who_then_get_and_refresh_their_own_tokens(
    platform: LocalPlatform, idp: IdP, clients: Any
) -> None:
    client, other = clients
    alice, bob = _who("alice"), _who("bob")
    game_id, tokens = await _two_player_game(client, alice, bob)
    seats = (await other.my_seats(alice))["seats"]  # reconnect from another device, on another replica
    assert [(s["game_id"], s["seat"], s["status"], s["rated"]) for s in seats] == [(game_id, 0, "running", True)]
    legal = await other.legal(game_id, seats[0]["token"])
    assert legal["seat"] == 0 and legal["version"] >= 1
    acting = legal["prompt"]["seats"][0]
    token = tokens[alice] if acting == 0 else tokens[bob]
    command = (await client.legal(game_id, token))["commands"][0]
    played = await client.play(game_id, token, command, expected_version=legal["version"])
    assert played["seat"] == acting and not played["duplicate"]
    summary = await until(lambda: _projected(client, game_id, played["last_version"]), "projected",
                          retry_on=(ApiFailure,))
    assert summary["rated"] is True and [s["kind"] for s in summary["seats"]] == ["player", "player"]

    expired = _seat_tokens(platform).issue(game_id, 0, alice, at_ms=1_000).token
    for api in (client, other):
        await _refused(api.legal(game_id, expired), 401, "token_expired")
        await _refused(api.view(game_id, 0, expired), 401, "token_expired")
    refreshed = await other.seat_token(game_id, alice)
    assert refreshed["seat"] == 0 and refreshed["expires_at_ms"] > played["last_version"]
    assert (await client.view(game_id, 0, refreshed["token"]))["seat"] == 0


async def _projected(client: BenthicClient, game_id: str, version: int) -> dict[str, Any] | None:
    summary = await client.summary(game_id)
    return summary if summary["version"] >= version else None


async def test_revocation_takes_effect_on_every_replica(platform: LocalPlatform, idp: IdP, clients: Any) -> None:
    client, other = clients
    alice, bob = _who("alice"), _who("bob")
    game_id, tokens = await _two_player_game(client, alice, bob)
    second_game, second_tokens = await _two_player_game(client, bob, _who("carol"))
    for api in (client, other):
        await until(lambda a=api: a.view(game_id), "projected", retry_on=(ApiFailure,))
        assert (await api.view(game_id, 0, tokens[alice]))["seat"] == 0
    opened = asyncio.Event()
    live = asyncio.create_task(_live_events(other, game_id, 1, tokens[bob], opened))
    await asyncio.wait_for(opened.wait(), 60)  # the stream is open and sent the view
    revoked = await client.revoke_game(game_id)
    assert revoked["scope"] == "game" and revoked["target"] == game_id
    for api in (client, other):  # both command replicas and both projection replicas
        await until(lambda a=api: _refused_with(a.legal(game_id, tokens[alice]), "token_revoked"),
                    "the command replica refuses the revoked token", retry_on=(ApiFailure,))
        await until(lambda a=api: _refused_with(a.view(game_id, 1, tokens[bob]), "token_revoked"),
                    "the projection replica refuses the revoked token", retry_on=(ApiFailure,))
        assert (await api.legal(second_game, second_tokens[bob]))["seat"] == 0, "another game is untouched"
    fresh = (await other.seat_token(game_id, alice))["token"]
    for api in (client, other):
        assert (await api.legal(game_id, fresh))["seat"] == 0, "a token issued after the revocation works"
    legal = await client.legal(game_id, fresh)
    acting = legal["prompt"]["seats"][0]
    mover = fresh if acting == 0 else (await client.seat_token(game_id, bob))["token"]
    await client.play(game_id, mover, (await client.legal(game_id, mover))["commands"][0])  # wakes the stream
    events = await asyncio.wait_for(live, 60)
    assert events[0][0] == "view" and events[-1][0] == "closed"
    assert json.loads(events[-1][1])["code"] == "token_revoked", "an open live stream ends on revocation"
    await other.revoke_player(bob)
    for api in (client, other):
        await until(lambda a=api: _refused_with(a.legal(second_game, second_tokens[bob]), "token_revoked"),
                    "every token of the player is refused", retry_on=(ApiFailure,))
        assert (await api.legal(game_id, fresh))["seat"] == 0
    await _refused(client.revoke_game("no-such-game"), 404, "game_not_found")


async def _live_events(
    client: BenthicClient, game_id: str, seat: int, token: str, opened: asyncio.Event
) -> list[tuple[str, str]]:
    """The (event, data) pairs of a seat's live stream (``?token=``, as EventSource sends it) until it ends."""
    events: list[tuple[str, str]] = []
    url = f"{client.read_url}/games/{game_id}/seats/{seat}/live"
    async with client.http.stream("GET", url, params={"token": token}, timeout=90) as stream:
        name = ""
        async for line in stream.aiter_lines():
            if line.startswith("event:"):
                name = line.partition(":")[2].strip()
            elif line.startswith("data:"):
                events.append((name, line.partition(":")[2].strip()))
                opened.set()
    return events


async def _refused_with(call: Any, code: str) -> bool:
    try:
        await call
    except ApiFailure as failure:
        return failure.code == code
    return False


async def test_rate_limits_and_the_open_games_cap_hold_across_replicas(
    platform: LocalPlatform, idp: IdP, clients: Any
) -> None:
    client, other = clients
    game_type = GAMES[0]
    opens = [None]  # two seats: the second stays open
    player = _who("busy")
    jwt = idp.mint(player)
    # Per player: 3 creates an hour, alternating replicas; the cap (2 unfinished games) refuses the third.
    await client.create_game(game_type, [{}, *opens], jwt=jwt)
    await other.create_game(game_type, [{}, *opens], jwt=jwt)
    capped = await _refused(client.create_game(game_type, [{}, *opens], jwt=jwt), 409, "too_many_open_games")
    assert str(OPEN_GAMES_CAP) in capped.message
    limited = await _refused(other.create_game(game_type, [{}, *opens], jwt=jwt), 429, "rate_limited")
    assert limited.retry_after and limited.retry_after >= 1
    # Per address: 6 creates an hour from one IP, whoever asks.
    for i, api in zip(range(2), (client, other), strict=True):
        await api.create_game(game_type, [{}, *opens], jwt=idp.mint(_who(f"neighbour{i}")))
    await _refused(client.create_game(game_type, [{}, *opens], jwt=idp.mint(_who("third"))), 429, "rate_limited")
    response = await other.http.post(f"{platform.url('command-b')}/games", headers=_bearer(idp.mint(_who("x"))),
                                     json={"game_type": game_type, "seats": [{}, *opens]})
    assert response.status_code == 429 and response.json()["details"]["scope"] == "ip"
    assert int(response.headers["retry-after"]) >= 1
    # A trusted backend is held to neither; its players' commands are, per player, on every replica.
    alice = _who("alice")
    game_id, tokens = await _two_player_game(client, alice, _who("bob"))
    for i in range(8):
        api = (client, other)[i % 2]
        try:
            await api.play(game_id, tokens[alice], {"type": "no_such_command"})
        except ApiFailure as failure:
            assert failure.status != 429, f"command {i + 1} of 8"
    await _refused(other.play(game_id, tokens[alice], {"type": "no_such_command"}), 429, "rate_limited")
    await _refused(client.legal(game_id, tokens[alice] + "x"), 401, "invalid_token")


async def test_the_actor_is_in_every_commands_events_and_in_the_logs(
    platform: LocalPlatform, idp: IdP, clients: Any
) -> None:
    client, other = clients
    alice, bob = _who("alice"), _who("bob")
    game_id, tokens = await _two_player_game(client, alice, bob)
    legal = await client.legal(game_id, tokens[alice])
    acting = legal["prompt"]["seats"][0]
    player, token = (alice, tokens[alice]) if acting == 0 else (bob, tokens[bob])
    command = (await other.legal(game_id, token))["commands"][0]
    played = await other.play(game_id, token, command, command_id=f"audit-{game_id}")
    with pytest.raises(ApiFailure):
        await client.play(game_id, tokens[alice], {"type": "no_such_command"}, command_id="audit-bad")
    audit = await client.audit(game_id)
    creation = [e for e in audit["entries"] if e["version"] <= legal["version"]]
    assert creation and all((e["actor"], e["actor_kind"]) == ("mm", "matchmaker") for e in creation)
    moves = [e for e in audit["entries"] if e["command_id"] == f"audit-{game_id}"]
    assert len(moves) == played["last_version"] - played["first_version"] + 1
    assert all((e["actor"], e["actor_kind"], e["seat"]) == (player, "player", acting) for e in moves)
    lines = [json.loads(line) for name in ("command", "command-b")
             for line in (platform.log_dir / f"{name}.log").read_text().splitlines() if line.startswith("{")]
    about = [e for e in lines if e.get("game_id") == game_id]
    assert {"game_created"} <= {e["event"] for e in about if e.get("actor") == "mm" and e["actor_kind"] == "matchmaker"}
    assert any(e["event"] == "seat_token_issued" and e.get("actor") == alice for e in about)
    assert any(e["event"] == "command_accepted" and e.get("actor") == player and e.get("actor_kind") == "player"
               for e in about)


async def test_openapi_documents_the_security_schemes(platform: LocalPlatform, clients: Any) -> None:
    client, _ = clients
    command = (await client.http.get(f"{platform.command_url}/schema/openapi.json")).json()
    schemes = command["components"]["securitySchemes"]
    assert schemes["playerJwt"] == {**schemes["playerJwt"], "type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
    assert {"seatToken", "operator"} <= set(schemes)
    paths = command["paths"]
    assert paths["/games"]["post"]["security"] == [{"playerJwt": []}, {"operator": []}]
    assert paths["/games/{game_id}/commands"]["post"]["security"] == [{"seatToken": []}]
    assert paths["/games/{game_id}/token"]["post"]["security"] == [{"playerJwt": []}]
    assert paths["/games/{game_id}/ops/revoke"]["post"]["security"] == [{"operator": []}]
    read = (await client.http.get(f"{platform.read_url}/schema/openapi.json")).json()
    assert set(read["components"]["securitySchemes"]) == {"seatToken"}
    assert read["paths"]["/games/{game_id}/seats/{seat}/view"]["get"]["security"] == [{"seatToken": []}]
    assert "security" not in read["paths"]["/games/{game_id}/view"]["get"]
    # With an identity provider configured, there is no development issuer.
    assert (await client.http.get(f"{platform.command_url}/.well-known/jwks.json")).status_code == 404
    minted = await client.http.post(f"{platform.command_url}/dev/token", json={"player": "mallory"})
    assert minted.status_code == 404 and "token" not in minted.json()


def test_the_development_issuer_is_refused_in_production(tmp_path: Any) -> None:
    env = {**os.environ, "BENTHIC_ENVIRONMENT": "production", "BENTHIC_TOKEN_KEYS": "k:" + "s" * 32,
           "BENTHIC_OPERATOR_TOKEN": "o" * 32, "REDIS_URL": "redis://127.0.0.1:1/0"}
    for name in ("BENTHIC_JWKS_URL", "BENTHIC_JWKS_FILE"):
        env.pop(name, None)
    result = subprocess.run([sys.executable, "-m", "benthic.cli", "serve", "command", "--port", "1"], env=env,
                            capture_output=True, text=True, timeout=60, cwd=tmp_path, check=False)
    assert result.returncode != 0 and "development issuer is insecure" in result.stderr
    minted = subprocess.run([sys.executable, "-m", "benthic.cli", "dev-token", "alice"], env=env,
                            capture_output=True, text=True, timeout=60, cwd=tmp_path, check=False)
    assert minted.returncode != 0 and "only in dev" in minted.stderr
    assert not (tmp_path / ".run").exists()
