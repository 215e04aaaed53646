"""The event store's contract against a single real Redis."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.store_contract import EventStoreContract


class TestEventStoreOnRedis(EventStoreContract):
    @pytest.fixture
    def client(self, redis: Any) -> Any:
        return redis
