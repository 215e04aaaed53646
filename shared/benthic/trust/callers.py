"""Who calls an API route: a JWT of the identity provider, or the operator token, checked once for every service
that takes them (the command API, the notifier)."""

from __future__ import annotations

from collections.abc import Callable

from benthic.errors import ApiError
from benthic.trust.auth import bearer, is_operator, unauthorized
from benthic.trust.identity import OPERATOR, OPERATOR_CREDENTIAL, Credential, IdentityError, JwtVerifier


async def caller_credential(
    authorization: str | None, operator_token: str, identity: JwtVerifier, kinds: tuple[str, ...], *,
    missing: str, wrong_kind: Callable[[str], ApiError],
) -> Credential:
    """The credential of the ``Authorization`` header if it is of one of ``kinds``.  No token: ``401
    operator_only`` on an operator-only route, else ``401 missing_token`` (``missing``: what to send); a token the
    identity provider refuses: its status and code; a credential of another kind: ``403 operator_only`` on an
    operator-only route, else ``wrong_kind(kind)``."""
    token = bearer(authorization)
    if token is None:
        if kinds == (OPERATOR,):
            raise ApiError(401, "operator_only", "this endpoint needs the operator token",
                           headers={"WWW-Authenticate": "Bearer"})
        raise unauthorized("missing_token", missing)
    if is_operator(token, operator_token):
        credential = OPERATOR_CREDENTIAL
    else:
        try:
            credential = await identity.verify(token)
        except IdentityError as error:
            if error.status == 401:
                raise unauthorized(error.code, error.message) from None
            raise ApiError(error.status, error.code, error.message) from None
    if credential.kind not in kinds:
        if kinds == (OPERATOR,):
            raise ApiError(403, "operator_only", "this endpoint needs the operator token or scope benthic:operator")
        raise wrong_kind(credential.kind)
    return credential
