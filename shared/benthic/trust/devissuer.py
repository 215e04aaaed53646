"""The development issuer: a local stand-in for an identity provider, so `make run` needs no setup.

INSECURE BY DESIGN: anyone who can read its key directory can mint a token for any player, with any scope.
It has its own Ed25519 key pair in a directory (``.run/dev-issuer`` for `make run`), its JWKS is served by the
command service at ``/.well-known/jwks.json``, and ``benthic dev-token PLAYER`` mints tokens with it.  The
services refuse it outside ``BENTHIC_ENVIRONMENT=dev`` (see ``config.check_identity``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

DEV_ISSUER = "benthic-dev"
DEV_AUDIENCE = "benthic"
_KEY_FILE = "private-key.pem"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class DevIssuer:
    def __init__(self, private_key: Ed25519PrivateKey, issuer: str = DEV_ISSUER, audience: str = DEV_AUDIENCE) -> None:
        self.private_key = private_key
        self.issuer = issuer
        self.audience = audience
        public = private_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.kid = "dev-" + hashlib.sha256(public).hexdigest()[:16]
        self._jwk = {"kty": "OKP", "crv": "Ed25519", "x": _b64(public), "kid": self.kid, "alg": "EdDSA", "use": "sig"}

    @classmethod
    def load_or_create(cls, directory: str | Path) -> DevIssuer:
        """The key pair in ``directory``, created on first use (by whichever process comes first)."""
        try:
            return cls._load_or_create(Path(directory))
        except OSError as error:
            raise SystemExit(f"the development issuer needs a writable BENTHIC_DEV_ISSUER_DIR ({error})") from None

    @classmethod
    def _load_or_create(cls, folder: Path) -> DevIssuer:
        path = folder / _KEY_FILE
        if not path.exists():
            folder.mkdir(parents=True, exist_ok=True)
            pem = Ed25519PrivateKey.generate().private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
            staged = folder / f".{_KEY_FILE}.{os.getpid()}"
            staged.write_bytes(pem)
            os.chmod(staged, 0o600)
            try:
                os.link(staged, path)  # atomic: a concurrent creator's key wins, never a half-written file
            except FileExistsError:
                pass
            finally:
                staged.unlink()
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise SystemExit(f"{path} is not an Ed25519 private key")
        issuer = cls(key)
        staged_jwks = folder / f".jwks.json.{os.getpid()}"
        staged_jwks.write_text(json.dumps(issuer.jwks(), indent=2))
        os.replace(staged_jwks, folder / "jwks.json")  # for tools that want the file; the service serves it too
        return issuer

    def jwks(self) -> dict[str, Any]:
        return {"keys": [dict(self._jwk)]}

    def mint(self, subject: str, scopes: tuple[str, ...] | list[str] = (), ttl_s: int = 3600,
             **claims: Any) -> str:
        now = int(time.time())
        payload: dict[str, Any] = {"iss": self.issuer, "aud": self.audience, "sub": subject, "iat": now,
                                   "nbf": now, "exp": now + ttl_s, **claims}
        if scopes:
            payload["scope"] = " ".join(scopes)
        return jwt.encode(payload, self.private_key, algorithm="EdDSA", headers={"kid": self.kid})


INSECURE_WARNING = (
    "INSECURE: no identity provider is configured (BENTHIC_JWKS_URL / BENTHIC_JWKS_FILE), so the built-in "
    "development issuer signs player tokens; anyone with its key directory can act as any player. Dev only."
)
