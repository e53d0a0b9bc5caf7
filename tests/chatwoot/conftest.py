"""``chatwoot``: a serving fake Chatwoot; ``client``: the bot's API client pointed at it; ``database`` and
``sandbox`` as the Telegram tests have them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from bot.desks.chatwoot.client import ChatwootClient
from bot.desks.chatwoot.settings import ChatwootSettings

from tests.chatwoot.fake_chatwoot import FakeChatwoot
from tests.store.conftest import database, database_url  # noqa: F401
from tests.telegram.conftest import sandbox  # noqa: F401


@pytest.fixture
async def chatwoot() -> AsyncIterator[FakeChatwoot]:
    async with FakeChatwoot() as fake:
        yield fake


def settings_for(fake: FakeChatwoot, **extra: object) -> ChatwootSettings:
    values = {key.removeprefix("ISPBOT_CHATWOOT_").lower(): value for key, value in fake.environment().items()}
    return ChatwootSettings(_env_file=None, **{**values, **extra})  # type: ignore[arg-type]


@pytest.fixture
async def client(chatwoot: FakeChatwoot) -> AsyncIterator[ChatwootClient]:
    async def no_wait(_: float) -> None:
        return None

    api = ChatwootClient(settings_for(chatwoot, timeout=1.0), sleep=no_wait)
    try:
        yield api
    finally:
        await api.aclose()
