"""The notifier's pure parts: which receiver URLs and secrets are accepted, the retry delays, the signature's
format."""

from __future__ import annotations

import hashlib
import hmac
import random

import msgspec
import pytest

from services.notifier.delivery import backoff_ms
from services.notifier.registrations import WebhookRequest
from services.notifier.signing import signature
from services.notifier.urls import UrlRefused, check_url

ACCEPTED = ["https://hooks.example.com/benthic", "http://hooks.example.com:8080/a?b=c", "https://1.1.1.1/h",
            "https://[2606:4700:4700::1111]/h"]
MALFORMED = ["ftp://hooks.example.com/", "hooks.example.com/path", "https:///path", "https://u:p@example.com/",
             "https://user@example.com/", "https://example.com/#x", "https://example.com:99999/",
             "javascript:alert(1)", "https://example.com/" + "a" * 2048, "https://exa mple.com/",
             "https://example.com/\n", "https://example.com/a\tb", "http://exa\x02mple.com:80/", "https://[::1/",
             "https://%6c%6fcalhost/", "https://127.0.0.1%2e/", "https://ex%61mple.com/"]
PRIVATE = ["http://127.0.0.1/", "http://localhost:8000/", "http://api.localhost/", "http://10.0.0.5/",
           "http://172.16.3.4/", "http://192.168.1.1/", "http://169.254.169.254/latest", "http://[::1]/",
           "http://[fd00::1]/", "http://[::ffff:10.0.0.1]/", "http://0.0.0.0/", "http://224.0.0.1/",
           "http://100.64.0.1/", "http://198.51.100.7/",
           # the other spellings of an IPv4 address the resolver reads (inet_aton), and fully qualified names
           "http://2130706433/", "http://0x7f000001/", "http://0X7F.1/", "http://0177.0.0.1/", "http://017700000001/",
           "http://127.1/", "http://127.0.1/", "http://127.000.000.001/", "http://10.1/", "http://0xa.0x1.0x2.0x3/",
           "http://3232235777/", "http://0/", "http://127.0.0.1./", "http://localhost./", "http://api.localhost./",
           "http://[::ffff:7f00:1]/", "http://[0:0:0:0:0:0:0:1]/"]
PUBLIC_SPELLINGS = ["https://16843009/", "https://0x01010101/", "https://1.1.1.1./", "https://hooks.example.com./"]


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


@pytest.mark.parametrize("url", PUBLIC_SPELLINGS)
def test_other_spellings_of_public_addresses_and_names_are_accepted(url: str) -> None:
    assert check_url(url, allow_private=False) == url


def test_a_url_over_2048_characters_is_refused_by_the_url_rules_not_by_decoding() -> None:
    long = "https://example.com/" + "a" * 2100
    request = msgspec.json.decode(msgspec.json.encode({"url": long}), type=WebhookRequest)
    with pytest.raises(UrlRefused) as refused:
        check_url(request.url, allow_private=True)
    assert refused.value.code == "invalid_webhook_url" and "2048" in refused.value.message
    assert check_url("https://example.com/" + "a" * 2028, allow_private=False)  # 2048 exactly


@pytest.mark.parametrize("secret", ["x" * 20 + "\n", "x" * 20 + "\r\n", "\n" + "x" * 20, "x" * 10 + "\t" + "x" * 10,
                                    "x" * 10 + " " + "x" * 10, "x" * 20 + "\x00", "x" * 19 + "é", "x" * 15, "x" * 257])
def test_a_secret_is_16_to_256_printable_ascii_characters_and_nothing_else(secret: str) -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(msgspec.json.encode({"url": "https://a.example/", "secret": secret}), type=WebhookRequest)
    for good in ("x" * 16, "!~" * 128, "0123456789abcdef0123"):
        request = msgspec.json.decode(msgspec.json.encode({"url": "https://a.example/", "secret": good}),
                                      type=WebhookRequest)
        assert request.secret == good


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
