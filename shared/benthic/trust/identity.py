"""Who is calling: bearer JWTs from the platform's identity provider, verified against its JWKS, and the
credentials and scopes they grant.

A JWT is accepted only when it is signed with an asymmetric algorithm from :data:`ALGORITHMS` (never ``none``,
never HMAC) by a key of the configured JWKS (a URL, cached and re-fetched when an unknown key id shows up, so
keys rotate without a restart; or a file, re-read when it changes), names the configured issuer and audience,
carries ``sub`` and ``exp``, and is within its ``nbf``/``iat``/``exp`` window (with a small leeway).  ``sub``
is the player id.  Scopes (``scope``, space-separated, or ``scp``, a list) make a credential a trusted backend
(:data:`MATCHMAKER_SCOPE`) or an operator (:data:`OPERATOR_SCOPE`).  PyJWT does the cryptography.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

import jwt
import msgspec
from jwt import PyJWK, PyJWKClient, PyJWKSet
from jwt.exceptions import PyJWKClientConnectionError, PyJWKClientError, PyJWKSetError, PyJWTError

from benthic.patterns import whole
from benthic.runtime.telemetry import log

# Credential kinds: who acted, as recorded in every event's audit metadata and in the logs.
PLAYER = "player"
MATCHMAKER = "matchmaker"
OPERATOR = "operator"
BOT = "bot"  # seats played by the platform's bots (no credential of their own)

MATCHMAKER_SCOPE = "benthic:matchmaker"
OPERATOR_SCOPE = "benthic:operator"

# Asymmetric only, listed explicitly: "none" and HS* (HMAC keyed with a public key: algorithm confusion) never.
ALGORITHMS = ("RS256", "ES256", "EdDSA")

# Player ids (the JWT's `sub`): what identity providers use (UUIDs, `auth0|123`, e-mail addresses).
PLAYER_ID = re.compile(whole(r"[A-Za-z0-9_.:@|+\-]{1,128}"))
# The platform's bots play as `bot:<name>` (and `bot:<name>@<level>`): no person can be one, or they would share
# a bot's leaderboard entry and its seats' history.
BOT_PLAYER_PREFIX = "bot:"


def is_bot_player_id(player_id: str) -> bool:
    return player_id.startswith(BOT_PLAYER_PREFIX)


class Credential(msgspec.Struct, frozen=True):
    """A verified caller."""

    kind: str  # PLAYER | MATCHMAKER | OPERATOR
    subject: str  # the player id for a player; the backend's client id otherwise
    scopes: frozenset[str] = frozenset()
    expires_at: int | None = None  # the JWT's exp (unix seconds); None for the static operator token
    name: str = ""  # a display name from the JWT (name, preferred_username or nickname), if any

    @property
    def trusted(self) -> bool:
        """A backend or an operator: may name players and is not held to per-player limits."""
        return self.kind in (MATCHMAKER, OPERATOR)


OPERATOR_CREDENTIAL = Credential(OPERATOR, "operator", frozenset({OPERATOR_SCOPE}))


class IdentityError(Exception):
    """A credential refused: ``code`` is the API's error code, ``status`` its HTTP status."""

    def __init__(self, code: str, message: str, status: int = 401) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


class KeySource(Protocol):
    async def key(self, kid: str) -> PyJWK:
        """The signing key of ``kid``; raises IdentityError when there is none."""
        ...


class JwksUrl:
    """A JWKS over HTTP(S) through PyJWT's client: cached for ``cache_s``, re-fetched (at most once per
    ``cooldown_s``) when a token names a key id the cached set lacks.  The client is synchronous (urllib), so
    lookups run in a worker thread: they only happen when a JWT is verified (create, join, token), never per
    move."""

    def __init__(self, url: str, cache_s: float = 300.0, cooldown_s: float = 10.0, timeout_s: float = 5.0) -> None:
        self.url = url
        self.client = PyJWKClient(
            url, cache_jwk_set=True, lifespan=max(cache_s, 0.001), timeout=timeout_s, cooldown_duration=cooldown_s
        )
        self._last_good: dict[str, PyJWK] = {}  # keys seen in a fetched set: used while the provider is down

    async def key(self, kid: str) -> PyJWK:
        try:
            key = await asyncio.to_thread(self.client.get_signing_key, kid)
        except PyJWKClientConnectionError as error:
            known = self._last_good.get(kid)
            if known is not None:
                log().warning("jwks_unreachable_using_cached_key", kid=kid, error=str(error))
                return known
            raise IdentityError(
                "identity_provider_unavailable", f"the JWKS could not be fetched: {error}", 503
            ) from None
        except (PyJWKClientError, PyJWKSetError) as error:
            self._last_good.pop(kid, None)  # retired (the provider answered without it)
            raise IdentityError(
                "invalid_token", f"no signing key {kid!r} in the identity provider's JWKS ({error})"
            ) from None
        if len(self._last_good) < 64:
            self._last_good[kid] = key
        return key


class JwksFile:
    """A JWKS in a file (e.g. a mounted Secret or ConfigMap), re-read when its modification time changes."""

    def __init__(self, path: str | Path, check_every_s: float = 1.0) -> None:
        self.path = Path(path)
        self.check_every_s = check_every_s
        self._keys: PyJWKSet | None = None
        self._stamp: tuple[int, int] | None = None
        self._checked = 0.0
        self._load()

    def _load(self) -> None:
        stat = os.stat(self.path)
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp != self._stamp:
            self._keys = PyJWKSet.from_json(self.path.read_text())
            self._stamp = stamp
        self._checked = time.monotonic()

    async def key(self, kid: str) -> PyJWK:
        if time.monotonic() - self._checked >= self.check_every_s:
            try:
                self._load()
            except (OSError, ValueError, PyJWTError):
                self._checked = time.monotonic()  # keep the last good set; try again later
        return _find(self._keys, kid)


class StaticJwks:
    """A fixed key set (the development issuer's, or tests')."""

    def __init__(self, jwks: dict[str, Any]) -> None:
        self._keys = PyJWKSet.from_dict(jwks)

    async def key(self, kid: str) -> PyJWK:
        return _find(self._keys, kid)


def _find(keys: PyJWKSet | None, kid: str) -> PyJWK:
    for key in keys.keys if keys is not None else ():
        if key.key_id == kid and key.public_key_use in ("sig", None):
            return key
    raise IdentityError("invalid_token", f"no signing key {kid!r} in the identity provider's JWKS")


class JwtVerifier:
    """Verifies bearer JWTs.  A player sends the same JWT with many requests, so a token that verified is kept
    (bounded, least recently used first out) and accepted again without the signature check while its key is
    still the one the JWKS names for its ``kid`` and its ``exp`` (with the leeway) has not passed."""

    def __init__(
        self, keys: KeySource, issuer: str, audience: str, leeway_s: float = 30.0, remembered: int = 4096
    ) -> None:
        if not issuer or not audience:
            raise ValueError("a JWT verifier needs an issuer and an audience")
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.leeway_s = leeway_s
        self.remembered = remembered
        self._verified: OrderedDict[str, tuple[PyJWK, Credential]] = OrderedDict()

    async def verify(self, token: str) -> Credential:
        """The credential a bearer JWT proves; raises IdentityError (401 ``invalid_token``/``token_expired``,
        503 ``identity_provider_unavailable``)."""
        try:
            header = jwt.get_unverified_header(token)
        except PyJWTError:
            raise IdentityError("invalid_token", "the bearer token is not a well-formed JWT") from None
        alg = header.get("alg")
        if alg not in ALGORITHMS:
            accepted = ", ".join(ALGORITHMS)
            raise IdentityError("invalid_token", f"JWT algorithm {alg!r} is not accepted (only {accepted})")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise IdentityError("invalid_token", "the JWT names no signing key (kid)")
        key = await self.keys.key(kid)
        known = self._verified.get(token)
        if known is not None:
            if known[0] is key and time.time() < (known[1].expires_at or 0) + self.leeway_s:
                self._verified.move_to_end(token)
                return known[1]
            del self._verified[token]  # expired, or its key was rotated: verified again below
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=list(ALGORITHMS),
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway_s,
                options={"require": ["exp", "sub", "iss", "aud"], "enforce_minimum_key_length": True},
            )
        except jwt.ExpiredSignatureError:
            raise IdentityError(
                "token_expired", "the JWT has expired: get a new one from the identity provider"
            ) from None
        except jwt.ImmatureSignatureError as error:
            raise IdentityError("invalid_token", f"the JWT is not valid yet ({error})") from None
        except jwt.InvalidIssuerError:
            raise IdentityError("invalid_token", f"the JWT was not issued by {self.issuer!r}") from None
        except jwt.InvalidAudienceError:
            raise IdentityError("invalid_token", f"the JWT is not meant for audience {self.audience!r}") from None
        except jwt.InvalidAlgorithmError as error:
            raise IdentityError("invalid_token", f"JWT algorithm refused: {error}") from None
        except jwt.InvalidSignatureError:
            raise IdentityError("invalid_token", "the JWT's signature does not verify") from None
        except PyJWTError as error:
            raise IdentityError("invalid_token", f"the JWT is not acceptable: {error}") from None
        credential = credential_from_claims(claims)
        self._verified[token] = (key, credential)
        if len(self._verified) > self.remembered:
            self._verified.popitem(last=False)
        return credential


def scopes_of(claims: dict[str, Any]) -> frozenset[str]:
    """OAuth scopes: ``scope`` (RFC 8693/9068, space-separated) or ``scp`` (a list, or a string)."""
    found: set[str] = set()
    for name in ("scope", "scp"):
        value = claims.get(name)
        if isinstance(value, str):
            found.update(value.split())
        elif isinstance(value, list):
            found.update(v for v in value if isinstance(v, str))
    return frozenset(found)


def credential_from_claims(claims: dict[str, Any]) -> Credential:
    subject = claims.get("sub")
    if not isinstance(subject, str) or not PLAYER_ID.match(subject):
        raise IdentityError("invalid_token", "the JWT's sub must be 1-128 characters of [A-Za-z0-9_.:@|+-]")
    scopes = scopes_of(claims)
    kind = OPERATOR if OPERATOR_SCOPE in scopes else MATCHMAKER if MATCHMAKER_SCOPE in scopes else PLAYER
    if kind == PLAYER and is_bot_player_id(subject):
        raise IdentityError("invalid_token", f"the JWT's sub may not start with {BOT_PLAYER_PREFIX!r}: the "
                                             "platform's bots play under those ids")
    exp = claims.get("exp")
    return Credential(kind, subject, scopes, int(exp) if isinstance(exp, int | float) else None, _name(claims))


def _name(claims: dict[str, Any]) -> str:
    for field in ("name", "preferred_username", "nickname"):
        value = claims.get(field)
        if isinstance(value, str) and value.strip():
            return "".join(c for c in value.strip() if c.isprintable())[:64]
    return ""


def key_source(
    jwks_url: str = "", jwks_file: str = "", cache_s: float = 300.0, cooldown_s: float = 10.0
) -> KeySource | None:
    """The configured identity provider's keys, or None when none is configured (dev issuer)."""
    if jwks_url:
        return JwksUrl(jwks_url, cache_s, cooldown_s)
    if jwks_file:
        return JwksFile(jwks_file)
    return None
