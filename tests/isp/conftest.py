from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from bot.isp import IspClient

from tests.isp.standin import StandIn


@pytest.fixture
def standin() -> StandIn:
    return StandIn()


@pytest.fixture
async def client(standin: StandIn) -> AsyncIterator[IspClient]:
    client = standin.client()
    yield client
    await client.aclose()
