"""How a webhook body is signed: ``Benthic-Signature: t=<unix seconds>,v1=<hex>``, where ``v1`` is
HMAC-SHA256 keyed with the registration's secret over ``<t>.<body>`` (the body's exact bytes).  The timestamp is
signed too, so a receiver can refuse replays older than a few minutes."""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "Benthic-Signature"
EVENT_ID_HEADER = "Benthic-Event-Id"
EVENT_TYPE_HEADER = "Benthic-Event-Type"
DELIVERY_HEADER = "Benthic-Delivery-Attempt"


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The ``Benthic-Signature`` header's value for ``body`` sent at ``timestamp`` (unix seconds)."""
    digest = hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"
