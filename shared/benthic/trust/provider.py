"""The identity provider the settings name: a verifier of its JWTs (BENTHIC_JWKS_URL or BENTHIC_JWKS_FILE), or, in
dev mode only, the development issuer's."""

from __future__ import annotations

from benthic.runtime.config import Settings, check_identity
from benthic.trust.devissuer import DEV_AUDIENCE, DEV_ISSUER, DevIssuer
from benthic.trust.identity import JwtVerifier, StaticJwks, key_source


def build_identity(settings: Settings) -> tuple[JwtVerifier, DevIssuer | None]:
    """The configured identity provider's verifier, or (dev only) the development issuer's (its keys are
    created on first use)."""
    check_identity(settings)
    keys = key_source(settings.jwks_url, settings.jwks_file, settings.jwks_cache_s, settings.jwks_cooldown_s)
    if keys is not None:
        return JwtVerifier(keys, settings.jwt_issuer, settings.jwt_audience, settings.jwt_leeway_s), None
    issuer = DevIssuer.load_or_create(settings.dev_issuer_dir)
    verifier = JwtVerifier(StaticJwks(issuer.jwks()), settings.jwt_issuer or DEV_ISSUER,
                           settings.jwt_audience or DEV_AUDIENCE, settings.jwt_leeway_s)
    return verifier, issuer
