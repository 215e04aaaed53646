"""Identity without servers: JWT verification against a key set, credentials and scopes, seat tokens with
expiry, the seat gate's order of checks, who may sit where and what is rated, the settings' checks."""

from __future__ import annotations

import json
import time
from pathlib import Path

import jwt
import pytest

from benthic.errors import ApiError
from benthic.runtime.config import Settings, check_identity, from_env
from benthic.store import SeatInfo
from benthic.trust.auth import SeatClaim, SeatGate, SeatTokens, TokenError
from benthic.trust.devissuer import DEV_AUDIENCE, DEV_ISSUER, DevIssuer
from benthic.trust.identity import (
    MATCHMAKER,
    OPERATOR,
    PLAYER,
    Credential,
    IdentityError,
    JwksFile,
    JwtVerifier,
    StaticJwks,
)
from benthic.trust.ratelimit import configured_limits
from services.command.seating import SeatRequest, rated_at_creation, seats_at_creation
from tests.identity_helpers import AUDIENCE, ISSUER, SigningKey, claims, hmac_with_public_key, unsigned

KEYS = [SigningKey("RS256"), SigningKey("ES256"), SigningKey("EdDSA")]


def _verifier(keys: list[SigningKey] = KEYS) -> JwtVerifier:
    return JwtVerifier(StaticJwks({"keys": [k.jwk for k in keys]}), ISSUER, AUDIENCE, leeway_s=5)


async def _refused(token: str, code: str = "invalid_token", verifier: JwtVerifier | None = None) -> str:
    with pytest.raises(IdentityError) as refused:
        await (verifier or _verifier()).verify(token)
    assert refused.value.code == code, refused.value.message
    assert refused.value.status == 401
    return refused.value.message


@pytest.mark.parametrize("key", KEYS, ids=lambda k: k.alg)
async def test_each_accepted_algorithm_verifies(key: SigningKey) -> None:
    credential = await _verifier().verify(key.sign(claims("alice", name="Alice A.")))
    assert credential == Credential(PLAYER, "alice", frozenset(), credential.expires_at, "Alice A.")
    assert credential.expires_at and credential.expires_at > time.time()


async def test_scopes_make_backends_and_operators() -> None:
    rs = KEYS[0]
    matchmaker = await _verifier().verify(rs.sign(claims("mm-1", scope="openid benthic:matchmaker")))
    assert (matchmaker.kind, matchmaker.subject, matchmaker.trusted) == (MATCHMAKER, "mm-1", True)
    operator = await _verifier().verify(rs.sign(claims("ops", scp=["benthic:operator", "x"])))
    assert operator.kind == OPERATOR and operator.trusted
    player = await _verifier().verify(rs.sign(claims("auth0|123", scope="openid profile")))
    assert player.kind == PLAYER and not player.trusted and player.subject == "auth0|123"


async def test_every_bad_jwt_is_refused_with_its_reason() -> None:
    rs, es, ed = KEYS
    now = int(time.time())
    impostor = SigningKey("RS256", kid=rs.kid)  # same key id, another key: a forgery
    assert "signature" in await _refused(impostor.sign(claims("alice")))
    assert "expired" in await _refused(rs.sign(claims("alice", exp=now - 60)), "token_expired")
    assert "not valid yet" in await _refused(rs.sign(claims("alice", nbf=now + 600)))
    assert "not valid yet" in await _refused(rs.sign(claims("alice", iat=now + 600)))
    assert ISSUER in await _refused(rs.sign(claims("alice", iss="https://evil.example/")))
    assert AUDIENCE in await _refused(rs.sign(claims("alice", aud="another-service")))
    assert "'none'" in await _refused(unsigned(claims("alice"), rs.kid))
    assert "'HS256'" in await _refused(hmac_with_public_key(claims("alice"), rs))
    rs384 = jwt.encode(claims("alice"), rs.private, algorithm="RS384", headers={"kid": rs.kid})
    assert "'RS384'" in await _refused(rs384)
    # An allowed algorithm, but not the one of the key the kid names (ES256 header, RSA key).
    crossed = jwt.encode(claims("alice"), es.private, algorithm="ES256", headers={"kid": rs.kid})
    assert "algorithm" in await _refused(crossed)
    assert "unknown-kid" in await _refused(jwt.encode(claims("alice"), ed.private, algorithm="EdDSA",
                                                     headers={"kid": "unknown-kid"}))
    no_kid = jwt.encode(claims("alice"), ed.private, algorithm="EdDSA")
    assert "kid" in await _refused(no_kid)
    for missing in ("sub", "exp", "iss", "aud"):
        assert missing in await _refused(rs.sign(claims("alice", **{missing: None})))
    assert "sub" in await _refused(rs.sign(claims("alice bob")))
    assert "bot:" in await _refused(rs.sign(claims("bot:random")))  # a person may not be one of the bots
    backend = await _verifier().verify(rs.sign(claims("bot:matchmaker", scope="benthic:matchmaker")))
    assert backend.kind == MATCHMAKER  # a backend's client id is no player id
    for junk in ("", "abc", "a.b.c", "x.y", rs.sign(claims("alice")) + "x"):
        await _refused(junk)


async def test_jwks_file_rotation_is_read_without_restart(tmp_path: Path) -> None:
    old, new = SigningKey("ES256"), SigningKey("EdDSA")
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [old.jwk]}))
    verifier = JwtVerifier(JwksFile(path, check_every_s=0), ISSUER, AUDIENCE)
    assert (await verifier.verify(old.sign(claims("alice")))).subject == "alice"
    await _refused(new.sign(claims("alice")), verifier=verifier)
    path.write_text(json.dumps({"keys": [old.jwk, new.jwk], "note": "rotating"}))
    assert (await verifier.verify(new.sign(claims("bob")))).subject == "bob"
    path.write_text(json.dumps({"keys": [new.jwk]}))
    await _refused(old.sign(claims("alice")), verifier=verifier)
    path.write_text("{ not json")  # a broken write keeps the last good set
    assert (await verifier.verify(new.sign(claims("carol")))).subject == "carol"


async def test_a_verified_jwt_is_remembered_only_while_its_exp_and_its_key_hold(tmp_path: Path) -> None:
    key = SigningKey("EdDSA")
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [key.jwk]}))
    verifier = JwtVerifier(JwksFile(path, check_every_s=0), ISSUER, AUDIENCE, leeway_s=0, remembered=2)
    short = key.sign(claims("alice", exp=int(time.time()) + 2))
    first = await verifier.verify(short)
    assert await verifier.verify(short) is first  # remembered: not decoded again
    others = [key.sign(claims(name)) for name in ("bob", "carol")]
    for token in others:
        await verifier.verify(token)
    assert list(verifier._verified) == others  # bounded: the least recently used went first
    remembered = await verifier.verify(others[0])
    assert await verifier.verify(others[0]) is remembered
    await verifier.verify(short)
    while time.time() < first.expires_at:  # type: ignore[operator]
        time.sleep(0.1)
    await _refused(short, "token_expired", verifier)  # remembered, but past its exp
    path.write_text(json.dumps({"keys": [SigningKey("EdDSA", kid=key.kid).jwk]}))  # the key id now names another key
    assert "signature" in await _refused(others[0], verifier=verifier)
    path.write_text(json.dumps({"keys": []}))
    await _refused(others[1], verifier=verifier)


async def test_dev_issuer_keeps_its_key_and_its_tokens_verify(tmp_path: Path) -> None:
    first = DevIssuer.load_or_create(tmp_path / "dev")
    again = DevIssuer.load_or_create(tmp_path / "dev")
    assert first.kid == again.kid and first.jwks() == json.loads((tmp_path / "dev" / "jwks.json").read_text())
    verifier = JwtVerifier(StaticJwks(again.jwks()), DEV_ISSUER, DEV_AUDIENCE)
    credential = await verifier.verify(first.mint("alice", ("benthic:matchmaker",)))
    assert (credential.kind, credential.subject) == (MATCHMAKER, "alice")
    other = DevIssuer.load_or_create(tmp_path / "other")
    with pytest.raises(IdentityError):
        await verifier.verify(other.mint("alice"))


def test_seat_tokens_expire_and_name_their_key() -> None:
    tokens = SeatTokens((("k9", b"secret"),), ttl_s=60)
    issued = tokens.issue("g1", 1, "alice", at_ms=1_000_000)
    assert issued.token.startswith("k9.") and issued.expires_at_ms == 1_060_000
    claim = tokens.verify(issued.token, at_ms=1_059_999)
    assert claim == SeatClaim("g1", 1, "alice", 1_000_000, 1_060_000)
    with pytest.raises(TokenError) as expired:
        tokens.verify(issued.token, at_ms=1_060_000)
    assert expired.value.code == "token_expired"
    with pytest.raises(TokenError) as other:
        SeatTokens((("k9", b"another"),)).verify(issued.token, at_ms=1_000_001)
    assert other.value.code == "invalid_token"


class _Revoked:
    """A denylist of games, in memory (the Redis-backed one is tested against Redis)."""

    def __init__(self, games: set[str]) -> None:
        self.games = games

    async def revoked(self, claim: SeatClaim) -> bool:
        return claim.game_id in self.games


async def test_seat_gate_checks_token_then_revocation_then_game_then_seat() -> None:
    tokens = SeatTokens((("k1", b"s"),), ttl_s=60)
    gate = SeatGate(tokens, _Revoked({"revoked-game"}))

    async def status(token: str | None, game: str, seat: int | None = None) -> tuple[int, str]:
        with pytest.raises(ApiError) as refused:
            await gate.check(token, game, seat)
        return refused.value.status, refused.value.code

    good = tokens.issue("g1", 2, "alice").token
    assert (await gate.check(good, "g1", 2)).player_id == "alice"
    assert (await gate.check(good, "g1")).seat == 2
    assert await status(None, "g1") == (401, "missing_token")
    assert await status("x.y.z", "g1") == (401, "invalid_token")
    expired = tokens.issue("g1", 2, "alice", at_ms=1).token
    assert await status(expired, "g1", 2) == (401, "token_expired")
    assert await status(tokens.issue("revoked-game", 0, "alice").token, "revoked-game") == (401, "token_revoked")
    assert await status(good, "g2", 2) == (403, "wrong_game")
    assert await status(good, "g2", 1) == (403, "wrong_game")
    assert await status(good, "g1", 1) == (403, "wrong_seat")


PLAYER_ALICE = Credential(PLAYER, "alice", name="Alice")
BACKEND = Credential(MATCHMAKER, "mm", frozenset({"benthic:matchmaker"}))


def _refusal(requested: list[SeatRequest | None], creator: Credential) -> tuple[int, str]:
    with pytest.raises(ApiError) as refused:
        seats_at_creation(requested, creator)
    return refused.value.status, refused.value.code


def test_who_may_sit_where() -> None:
    seats = seats_at_creation([SeatRequest(), None, None], PLAYER_ALICE)
    assert seats == [SeatInfo("alice", "Alice", PLAYER), None, None]
    assert seats_at_creation([None, SeatRequest("alice", "Al")], PLAYER_ALICE)[1] == SeatInfo("alice", "Al")
    assert _refusal([SeatRequest(), SeatRequest("bob")], PLAYER_ALICE) == (403, "player_mismatch")
    assert _refusal([None, None], PLAYER_ALICE) == (422, "creator_not_seated")
    assert _refusal([SeatRequest(), SeatRequest()], PLAYER_ALICE) == (422, "duplicate_player")
    named = seats_at_creation([SeatRequest("alice"), SeatRequest("bob", "Bob")], BACKEND)
    assert [s.player_id for s in named if s] == ["alice", "bob"]
    assert _refusal([SeatRequest(), SeatRequest("bob")], BACKEND) == (400, "invalid_request")
    assert _refusal([SeatRequest("bad id!"), None], BACKEND) == (400, "invalid_request")
    assert _refusal([SeatRequest("alice"), SeatRequest("bot:random")], BACKEND) == (400, "reserved_player_id")
    assert _refusal([SeatRequest("bot:greedy@2"), None], BACKEND) == (400, "reserved_player_id")


def test_what_is_rated() -> None:
    alice = SeatInfo("alice", "Alice")
    bob = SeatInfo("bob", "Bob")
    assert rated_at_creation(True, False, PLAYER_ALICE, [alice, None])
    assert rated_at_creation(True, False, BACKEND, [alice, bob])
    assert not rated_at_creation(False, False, BACKEND, [alice, bob]), "asked for a casual game"
    assert not rated_at_creation(True, True, BACKEND, [alice, bob]), "a chosen seed reveals the hidden cards"
    assert not rated_at_creation(True, False, PLAYER_ALICE, [bob, None]), "the creator is not in the game"
    assert not rated_at_creation(True, False, BACKEND, [alice, SeatInfo("x", "X", "guest")])


def test_identity_settings_are_complete_or_dev(tmp_path: Path) -> None:
    check_identity(from_env({}))  # dev: the development issuer stands in
    with pytest.raises(SystemExit, match="development issuer is insecure"):
        check_identity(from_env({"BENTHIC_ENVIRONMENT": "production"}))
    with pytest.raises(SystemExit, match="ISSUER"):
        check_identity(from_env({"BENTHIC_JWKS_URL": "https://idp/jwks.json"}))
    with pytest.raises(SystemExit, match="not both"):
        check_identity(from_env({"BENTHIC_JWKS_URL": "u", "BENTHIC_JWKS_FILE": "f"}))
    production = from_env({"BENTHIC_ENVIRONMENT": "production", "BENTHIC_JWKS_FILE": str(tmp_path / "j.json"),
                           "BENTHIC_JWT_ISSUER": ISSUER, "BENTHIC_JWT_AUDIENCE": AUDIENCE,
                           "BENTHIC_SEAT_TOKEN_TTL_S": "900", "BENTHIC_LIMIT_COMMAND_PER_IP": ""})
    check_identity(production)
    assert production.seat_token_ttl_s == 900 and production.jwt_issuer == ISSUER


def test_rate_limit_settings_parse() -> None:
    limits = configured_limits(Settings(limit_command_per_player="5/second;100/minute", limit_join_per_ip=""))
    assert [str(i) for i in limits[("command", "player")]] == ["5 per 1 second", "100 per 1 minute"]
    assert limits[("join", "ip")] == []
    with pytest.raises(SystemExit, match="BENTHIC_LIMIT_CREATE_PER_PLAYER"):
        configured_limits(Settings(limit_create_per_player="lots"))
