"""Fixtures of the end-to-end tests (the services as processes: benthic.local.localplatform.LocalPlatform).

``make_platform(env, shared_archive=...)`` starts a platform on the session's Redis and stops it when the module
is done; a module whose services need settings of their own overrides ``platform`` with one made by it.  The
``platform`` here is the one test_platform.py and test_play_socket.py play on; ``client`` talks to whichever
``platform`` the module has."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from benthic.clients.client import BenthicClient
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from benthic.rules.packs import set_directories
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory, platform_client
from tests.variant_packs import build_variant


@pytest.fixture(scope="module")
def make_platform(request: pytest.FixtureRequest, redis_url: str) -> Iterator[PlatformFactory]:
    """``make_platform(env=None, *, shared_archive=True)``: a started LocalPlatform on the session's Redis with
    ``env`` for its services, stopped at the end of the module.  ``shared_archive``: the session's PostgreSQL
    archive (the ``archive_url`` fixture); False: a private PostgreSQL of the platform's own."""
    factory = PlatformFactory(redis_url, lambda: request.getfixturevalue("archive_url"))
    yield factory
    factory.stop()


@pytest.fixture(scope="module")
def packs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The second content pack of every game (tests/variant_packs.py), for the services and this process."""
    directory = tmp_path_factory.mktemp("content-packs")
    for game in game_types():
        if get_engine(game).content_packs is not None:
            build_variant(game, directory)
    set_directories([directory])
    yield directory
    set_directories([])


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory, packs: Path) -> LocalPlatform:
    """The services with the second content packs installed, quick claims and metrics, a 16 KiB body limit and
    limits the bots do not reach."""
    return make_platform({
        "BENTHIC_CONTENT_DIRS": str(packs),
        "BENTHIC_CLAIM_IDLE_MS": "1500",
        "BENTHIC_CLAIM_INTERVAL_S": "0.5",
        "BENTHIC_METRICS_INTERVAL_S": "1",
        "BENTHIC_MAX_BODY_BYTES": "16384",
        "BENTHIC_DRAIN_TIMEOUT_S": "2",
        **GENEROUS_LIMITS,
    })


@pytest.fixture
async def client(platform: LocalPlatform) -> AsyncIterator[BenthicClient]:
    """A client of the module's platform, with its operator token and its development issuer's JWTs."""
    api = platform_client(platform)
    yield api
    await api.aclose()
