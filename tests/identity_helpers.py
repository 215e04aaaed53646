"""A test identity provider: generated keys (RSA, EC P-256, Ed25519), JWTs with any claims and headers (forged,
expired, wrong algorithm...), and a JWKS served over HTTP from a thread, whose keys can rotate while it runs."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

ISSUER = "https://idp.test.example/"
AUDIENCE = "benthic-tests"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class SigningKey:
    def __init__(self, alg: str, kid: str | None = None) -> None:
        self.alg = alg
        self.kid = kid or f"{alg.lower()}-{uuid.uuid4().hex[:8]}"
        if alg == "RS256":
            self.private: Any = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            jwk = RSAAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        elif alg == "ES256":
            self.private = ec.generate_private_key(ec.SECP256R1())
            jwk = ECAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        elif alg == "EdDSA":
            self.private = ed25519.Ed25519PrivateKey.generate()
            jwk = OKPAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        else:
            raise ValueError(alg)
        self.jwk = {**jwk, "kid": self.kid, "alg": alg, "use": "sig"}

    @property
    def public_pem(self) -> bytes:
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )

    def sign(self, claims: dict[str, Any], headers: dict[str, Any] | None = None) -> str:
        return jwt.encode(claims, self.private, algorithm=self.alg, headers={"kid": self.kid, **(headers or {})})


def claims(subject: str, **overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    values: dict[str, Any] = {"iss": ISSUER, "aud": AUDIENCE, "sub": subject, "iat": now, "nbf": now - 5,
                              "exp": now + 600}
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


def unsigned(claims_: dict[str, Any], kid: str) -> str:
    """alg "none"."""
    header = _b64(json.dumps({"alg": "none", "typ": "JWT", "kid": kid}).encode())
    return f"{header}.{_b64(json.dumps(claims_).encode())}."


def hmac_with_public_key(claims_: dict[str, Any], key: SigningKey) -> str:
    """The algorithm-confusion attack: HS256 keyed with the (public) PEM of an asymmetric key."""
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": key.kid}).encode())
    body = _b64(json.dumps(claims_).encode())
    signature = hmac.new(key.public_pem, f"{header}.{body}".encode(), hashlib.sha256).digest()
    return f"{header}.{body}.{_b64(signature)}"


class JwksServer:
    """The identity provider's JWKS endpoint, over HTTP on a free port of 127.0.0.1."""

    def __init__(self, keys: list[SigningKey]) -> None:
        self.keys = list(keys)
        self.fetches = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                if self.path != "/jwks.json":
                    self.send_error(404)
                    return
                server.fetches += 1
                body = json.dumps({"keys": [k.jwk for k in server.keys]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/jwks.json"

    def __enter__(self) -> JwksServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
