"""Which receiver URLs are accepted: http or https, a host, no credentials in the URL, at most 2048 characters.

Private addresses (loopback, RFC 1918, link-local, unique-local, reserved, multicast, unspecified) are refused
unless ``BENTHIC_WEBHOOK_ALLOW_PRIVATE`` (local development): a backend must not make the notifier call into the
platform's own network.  The check runs twice: at registration on the URL's host (an IP literal in any spelling
the system's resolver reads as an address: ``2130706433``, ``0x7f000001``, ``0177.0.0.1``, ``127.1``, with or
without a trailing dot; or ``localhost``), and before every POST on the addresses the host name resolves to then,
so a public name that later resolves to a private address is refused too (httpx resolves again when it connects:
a rebinding in between is not caught)."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2048
_PORT = r"(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
# scheme://host[:port][/path][?query]: a host name or IPv4 address, or an IPv6 one in brackets; no user
# information, no fragment, no spaces or control characters.  Also the OpenAPI's pattern of the field.
URL_PATTERN = (r"^https?://(?:[A-Za-z0-9._~%!$&'()*+,;=-]+|\[[0-9A-Fa-f:.]+\])(?::" + _PORT + r")?"
               r"(?:[/?][^#\s\x00-\x1f\x7f]*)?$")
_URL = re.compile(URL_PATTERN)


class UrlRefused(ValueError):
    """``code``: ``invalid_webhook_url`` (malformed) or ``webhook_url_not_public`` (a private address)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _private(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


def _address(host: str) -> str | None:
    """The IP address ``host`` spells, or None for a host name: an IP literal, or another spelling of an IPv4
    address that the system's resolver takes for one (``inet_aton``: decimal, hex and octal numbers, short forms
    of one to three parts), as getaddrinfo reads it before each POST."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        return socket.inet_ntoa(socket.inet_aton(host))
    except OSError:
        return None


def check_url(url: str, allow_private: bool) -> str:
    """``url`` if it may be registered, else raises :class:`UrlRefused`."""
    if len(url) > MAX_URL_LENGTH:
        raise UrlRefused("invalid_webhook_url", f"the URL is longer than {MAX_URL_LENGTH} characters")
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - raises on a port out of range
    except ValueError as error:
        raise UrlRefused("invalid_webhook_url", f"the URL cannot be parsed: {error}") from None
    if parts.scheme not in ("http", "https"):
        raise UrlRefused("invalid_webhook_url", "the URL must be http:// or https://")
    if not host:
        raise UrlRefused("invalid_webhook_url", "the URL names no host")
    if parts.username is not None or parts.password is not None:
        raise UrlRefused("invalid_webhook_url", "the URL must not carry credentials: the body is signed instead")
    if parts.fragment:
        raise UrlRefused("invalid_webhook_url", "the URL must not have a fragment")
    if not _URL.fullmatch(url):
        raise UrlRefused("invalid_webhook_url", "the URL must be scheme://host[:port][/path][?query] with a host "
                                                "name or address and no spaces or control characters")
    if "%" in host:
        raise UrlRefused("invalid_webhook_url", "the URL's host must not be percent-encoded")
    if not allow_private:
        name = host[:-1] if host.endswith(".") else host  # a fully qualified name: the same host
        if name == "localhost" or name.endswith(".localhost"):
            raise UrlRefused("webhook_url_not_public", "the URL names this machine (localhost)")
        address = _address(name)  # None: a host name, checked again when it is resolved, before each POST
        if address is not None and _private(address):
            raise UrlRefused("webhook_url_not_public", f"{host} is a private, loopback or reserved address"
                                                       + (f" ({address})" if address != name else ""))
    return url


async def resolves_to_private(url: str) -> str | None:
    """The first private address the URL's host resolves to now (None: every address is public)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return None  # unresolvable: the POST fails and is retried like any unreachable receiver
    for info in infos:
        address = str(info[4][0])
        if _private(address):
            return address
    return None
