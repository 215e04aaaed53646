"""The notifier's pure parts: which receiver URLs are accepted, the retry delays, the signature's format."""

from __future__ import annotations

import hashlib
import hmac
import random

import pytest

from services.notifier.delivery import backoff_ms
from services.notifier.signing import signature
from services.notifier.urls import UrlRefused, check_url

ACCEPTED = ["https://hooks.example.com/benthic", "http://hooks.example.com:8080/a?b=c", "https://1.1.1.1/h",
            "https://[2606:4700:4700::1111]/h"]
MALFORMED = ["ftp://hooks.example.com/", "hooks.example.com/path", "https:///path", "https://u:p@example.com/",
             "https://user@example.com/", "https://example.com/#x", "https://example.com:99999/",
             "javascript:alert(1)", "https://example.com/" + "a" * 2048, "https://exa mple.com/",
             "https://example.com/\n", "https://example.com/a\tb", "http://exa\x02mple.com:80/", "https://[::1/"]
PRIVATE = ["http://127.0.0.1/", "http://localhost:8000/", "http://api.localhost/", "http://10.0.0.5/",
           "http://172.16.3.4/", "http://192.168.1.1/", "http://169.254.169.254/latest", "http://[::1]/",
           "http://[fd00::1]/", "http://[::ffff:10.0.0.1]/", "http://0.0.0.0/", "http://224.0.0.1/",
           "http://100.64.0.1/", "http://198.51.100.7/"]


@pytest.mark.parametrize("url", ACCEPTED)
def test_public_http_and_https_urls_are_accepted(url: str) -> None:
    assert check_url(url, allow_private=False) == url


@pytest.mark.parametrize("url", MALFORMED)
def test_malformed_urls_are_refused_even_when_private_ones_are_allowed(url: str) -> None:
    with pytest.raises(UrlRefused) as refused:
        check_url(url, allow_private=True)
    assert refused.value.code == "invalid_webhook_url" and refused.value.message


@pytest.mark.parametrize("url", PRIVATE)
def test_private_addresses_are_refused_unless_allowed(url: str) -> None:
    with pytest.raises(UrlRefused) as refused:
        check_url(url, allow_private=False)
    assert refused.value.code == "webhook_url_not_public"
    assert check_url(url, allow_private=True) == url


def test_the_backoff_doubles_from_the_base_up_to_the_cap_with_jitter() -> None:
    rng = random.Random(3)
    for attempts, ceiling in ((1, 1000), (2, 2000), (3, 4000), (5, 16000), (7, 60000), (30, 60000)):
        delays = [backoff_ms(attempts, 1000, 60000, rng) for _ in range(200)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays), (attempts, min(delays), max(delays))
        assert len(set(delays)) > 50, "jittered, not one fixed delay"


def test_the_signature_is_hmac_sha256_over_the_timestamp_and_the_body() -> None:
    body = b'{"id":"g:3:turn.started","type":"turn.started"}'
    header = signature("s3cret-s3cret-s3cret", 1_700_000_000, body)
    t, v1 = (part.split("=", 1)[1] for part in header.split(","))
    assert header.startswith("t=1700000000,v1=") and t == "1700000000"
    assert v1 == hmac.new(b"s3cret-s3cret-s3cret", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert signature("another-secret-value", 1_700_000_000, body) != header
    assert signature("s3cret-s3cret-s3cret", 1_700_000_001, body) != header
