"""PostgreSQL drops every connection of the bot (a restart, a failover) while chats are writing: the bot
reconnects by itself, and every update is still answered, once. Connections a moment back from use are
not pinged (bot/store/db.py), so the restart reaches the bot as failed statements, not as pings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from bot.sandbox import Sandbox
from sqlalchemy import event

from tests.store.dbtools import ScratchDatabase, make_database, postgresql_url
from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import running_bot

pytestmark = pytest.mark.skipif(postgresql_url() is None, reason="needs ISPBOT_TEST_DATABASE_URL (PostgreSQL)")

CHATS = [7_910 + n for n in range(4)]
LANGUAGE = "Em qual idioma"  # what "/idioma" answers


@pytest.fixture
async def postgresql() -> AsyncIterator[ScratchDatabase]:
    url = postgresql_url()
    assert url is not None
    database = await make_database(url)
    yield database
    await database.destroy()


def server_pids(database: ScratchDatabase) -> list[int]:
    """The server process of each connection the database handle opens, as it opens them."""
    pids: list[int] = []

    def opened(dbapi_connection: Any, _record: Any) -> None:
        pids.append(dbapi_connection.driver_connection.get_server_pid())

    event.listen(database.engine.sync_engine, "connect", opened)
    return pids


async def test_every_update_is_answered_once_when_postgresql_drops_the_bots_connections(
    postgresql: ScratchDatabase, sandbox: Sandbox,
) -> None:
    pids = server_pids(postgresql)
    async with running_bot(postgresql, sandbox) as bot:
        for chat_id in CHATS:
            await bot.chat(chat_id).say("/idioma")
        dropped = list(pids)

        await postgresql.terminate_server_processes(dropped)
        later = [bot.api.push_update(tg.text_message(chat_id, "/idioma")) for _ in range(3) for chat_id in CHATS]

        def asked(chat_id: int) -> int:
            return sum(LANGUAGE in (sent.text or "") for sent in bot.api.sent(chat_id))

        await bot.api.wait_until(lambda: all(asked(chat_id) >= 4 for chat_id in CHATS), within=60)
        await bot.handled_all(later, within=30)  # and each recorded as answered
        assert {chat_id: asked(chat_id) for chat_id in CHATS} == dict.fromkeys(CHATS, 4)  # none lost, none twice
        assert set(pids) - set(dropped)  # it did reconnect
