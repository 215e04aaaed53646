"""Seat tokens (HMAC-signed: game, seat, player) and the operator token.

A seat token is ``<kid>.<payload>.<signature>``, payload and signature base64url; any replica verifies it
with the shared keys, and the key id lets keys rotate (sign with the first, verify with all)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import msgspec


class SeatClaim(msgspec.Struct, frozen=True, array_like=True):
    game_id: str
    seat: int
    player_id: str
    issued_at: int


class TokenError(Exception):
    """A token that is missing, malformed or not signed by our keys (HTTP 401)."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(SeatClaim)


class SeatTokens:
    def __init__(self, keys: tuple[tuple[str, bytes], ...]) -> None:
        if not keys:
            raise ValueError("no seat token keys configured (BENTHIC_TOKEN_KEYS)")
        self._signing = keys[0]
        self._keys = dict(keys)

    def issue(self, game_id: str, seat: int, player_id: str) -> str:
        kid, secret = self._signing
        payload = _b64(_encoder.encode(SeatClaim(game_id, seat, player_id, int(time.time()))))
        signature = _b64(hmac.new(secret, f"{kid}.{payload}".encode(), hashlib.sha256).digest())
        return f"{kid}.{payload}.{signature}"

    def verify(self, token: str) -> SeatClaim:
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
            return _decoder.decode(_unb64(payload))
        except (msgspec.DecodeError, ValueError):
            raise TokenError("malformed seat token payload") from None


def bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def is_operator(token: str | None, operator_token: str) -> bool:
    return bool(operator_token) and token is not None and hmac.compare_digest(token, operator_token)
