"""Seat tokens (HMAC-signed: game, seat, player, issue and expiry times), the one check both services make
of them, and the operator token.

A seat token is ``<kid>.<payload>.<signature>``, payload and signature base64url; any replica verifies it
with the shared keys, and the key id lets keys rotate (sign with the first, verify with all).  A token expires
``BENTHIC_SEAT_TOKEN_TTL_S`` after it was issued; the player gets a new one with their JWT.  The operator can
revoke every token of a game or of a player issued up to a moment (see ``benthic.trust.revocation``)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import Protocol

import msgspec

from benthic.errors import ApiError


class SeatClaim(msgspec.Struct, frozen=True, array_like=True):
    game_id: str
    seat: int
    player_id: str
    issued_ms: int
    expires_ms: int


class IssuedToken(msgspec.Struct, frozen=True):
    token: str
    expires_at_ms: int


class TokenError(Exception):
    """A seat token that is malformed, not signed by our keys (``invalid_token``) or expired (``token_expired``)."""

    def __init__(self, message: str, code: str = "invalid_token") -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def now_ms() -> int:
    return int(time.time() * 1000)


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(SeatClaim)


def unexpired(claim: SeatClaim, at_ms: int | None = None) -> SeatClaim:
    """The claim, unless it has expired (TokenError ``token_expired``)."""
    if claim.expires_ms <= (now_ms() if at_ms is None else at_ms):
        raise TokenError("the seat token has expired: get a new one with your JWT", "token_expired")
    return claim


class SeatTokens:
    def __init__(self, keys: tuple[tuple[str, bytes], ...], ttl_s: int = 3600) -> None:
        if not keys:
            raise ValueError("no seat token keys configured (BENTHIC_TOKEN_KEYS)")
        if ttl_s <= 0:
            raise ValueError("seat tokens need a positive lifetime (BENTHIC_SEAT_TOKEN_TTL_S)")
        self._signing = keys[0]
        self._keys = dict(keys)
        self.ttl_ms = ttl_s * 1000

    def issue(self, game_id: str, seat: int, player_id: str, at_ms: int | None = None) -> IssuedToken:
        issued = now_ms() if at_ms is None else at_ms
        claim = SeatClaim(game_id, seat, player_id, issued, issued + self.ttl_ms)
        kid, secret = self._signing
        payload = _b64(_encoder.encode(claim))
        signature = _b64(hmac.new(secret, f"{kid}.{payload}".encode(), hashlib.sha256).digest())
        return IssuedToken(f"{kid}.{payload}.{signature}", claim.expires_ms)

    def verify(self, token: str, at_ms: int | None = None) -> SeatClaim:
        """The claim of a token signed by one of our keys and not expired; raises TokenError."""
        try:
            kid, payload, signature = token.split(".")
        except ValueError:
            raise TokenError("malformed seat token") from None
        secret = self._keys.get(kid)
        if secret is None:
            raise TokenError("seat token signed with an unknown key")
        expected = hmac.new(secret, f"{kid}.{payload}".encode(), hashlib.sha256).digest()
        try:
            valid = hmac.compare_digest(expected, _unb64(signature))
        except (ValueError, TypeError):
            valid = False
        if not valid:
            raise TokenError("bad seat token signature")
        try:
            claim = _decoder.decode(_unb64(payload))
        except (msgspec.DecodeError, ValueError):
            raise TokenError(
                "malformed seat token payload (tokens issued before expiry existed: get a new one)"
            ) from None
        return unexpired(claim, at_ms)


class RevocationCheck(Protocol):
    async def revoked(self, claim: SeatClaim) -> bool:
        """Whether the operator revoked this token (its game's or its player's tokens issued until then)."""
        ...


def unauthorized(code: str, message: str) -> ApiError:
    """401 with the RFC 6750 challenge."""
    challenge = "Bearer" if code == "missing_token" else f'Bearer error="invalid_token", error_description="{code}"'
    return ApiError(401, code, message, headers={"WWW-Authenticate": challenge})


class SeatGate:
    """The one check of a seat token, shared by the command service and the projection's seat routes:
    :meth:`verify` (signature, expiry, revocation: 401) and :meth:`authorize` (its game and seat: 403)."""

    def __init__(self, tokens: SeatTokens, revocations: RevocationCheck) -> None:
        self.tokens = tokens
        self.revocations = revocations

    async def verify(self, token: str | None) -> SeatClaim:
        if token is None:
            raise unauthorized("missing_token", "send the seat token as `Authorization: Bearer <token>`")
        try:
            claim = self.tokens.verify(token)  # signature and expiry
        except TokenError as error:
            raise unauthorized(error.code, error.message) from None
        return await self._not_revoked(claim)

    async def still_valid(self, claim: SeatClaim) -> SeatClaim:
        """A claim :meth:`verify` accepted before, checked again for what can change since: its expiry and the
        operator's revocations (a socket checks its token's signature once, these with every frame)."""
        try:
            unexpired(claim)
        except TokenError as error:
            raise unauthorized(error.code, error.message) from None
        return await self._not_revoked(claim)

    async def _not_revoked(self, claim: SeatClaim) -> SeatClaim:
        if await self.revocations.revoked(claim):
            raise unauthorized("token_revoked", "an operator revoked this seat token: get a new one with your JWT")
        return claim

    @staticmethod
    def authorize(claim: SeatClaim, game_id: str, seat: int | None = None) -> None:
        if claim.game_id != game_id:
            raise ApiError(403, "wrong_game", "this seat token belongs to another game")
        if seat is not None and claim.seat != seat:
            raise ApiError(403, "wrong_seat", f"this seat token is for seat {claim.seat}, not seat {seat}")

    async def check(self, token: str | None, game_id: str, seat: int | None = None) -> SeatClaim:
        claim = await self.verify(token)
        self.authorize(claim, game_id, seat)
        return claim


def bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def is_operator(token: str | None, operator_token: str) -> bool:
    return bool(operator_token) and token is not None and hmac.compare_digest(token, operator_token)
