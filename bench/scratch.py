"""Where a benchmark keeps its data: a throw-away database and bulk seeding of what it needs.

``scratch_database(url)`` is a SQLite file in a temporary folder when ``url`` is None, else a schema of
its own in the given PostgreSQL (``tests.store.dbtools.make_database``), dropped at the end.

The seeding writes rows with one multi-row INSERT per few thousand, in the store's own tables: the
store's repositories add one row per flush, which would make seeding 100,000 chats the benchmark.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from bot.languages import DEFAULT_LANGUAGE
from bot.sandbox import DEMO_IDENTITIES, Sandbox
from bot.store import Proof, Role, utcnow
from bot.store.db import DEFAULT_POOL_SIZE
from bot.store.models import Base, ChatRow, LinkRow
from sqlalchemy import insert
from tests.store.dbtools import ScratchDatabase, make_database

CHUNK = 5_000  # rows per INSERT: well under PostgreSQL's 32,767 bind parameters


@contextlib.asynccontextmanager
async def scratch_database(url: str | None, *, pool_size: int = DEFAULT_POOL_SIZE) -> AsyncIterator[ScratchDatabase]:
    with tempfile.TemporaryDirectory(prefix="ispbot-bench-") as folder:
        sqlite = f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}"
        database = await make_database(url or sqlite, pool_size=pool_size)
        try:
            yield database
        finally:
            await database.destroy()


async def insert_rows(database: ScratchDatabase, model: type[Base], rows: Iterable[dict[str, Any]]) -> int:
    """Insert the rows in chunks, each chunk its own transaction; how many were inserted."""
    pending: list[dict[str, Any]] = []
    count = 0
    for row in rows:
        pending.append(row)
        if len(pending) == CHUNK:
            count += await _insert(database, model, pending)
            pending = []
    if pending:
        count += await _insert(database, model, pending)
    return count


async def _insert(database: ScratchDatabase, model: type[Base], rows: list[dict[str, Any]]) -> int:
    async with database.transaction() as session:
        await session.execute(insert(model), rows)
    return len(rows)


async def link_chats(database: ScratchDatabase, customers: Sequence[tuple[int, int]]) -> int:
    """Link each (chat id, customer code) as a subscriber who proved it with the contact's phone."""
    now = utcnow()
    return await insert_rows(database, LinkRow, (
        {"chat_id": chat, "role": Role.SUBSCRIBER.value, "proof": Proof.CONTACT_PHONE.value,
         "customer_code": customer, "proved_at": now}
        for chat, customer in customers
    ))


async def park_chats(
    database: ScratchDatabase, chat_ids: Iterable[int], flow: str, step: str, data: dict[str, Any] | None = None,
    *, data_of: Callable[[int], dict[str, Any]] | None = None,
) -> int:
    """Conversation state rows: each chat waiting at ``flow``'s ``step`` (a conversation in progress),
    with ``data``, or each chat's own ``data_of(chat)``."""
    now = utcnow()
    return await insert_rows(database, ChatRow, (
        {"chat_id": chat, "role": Role.SUBSCRIBER.value, "language": DEFAULT_LANGUAGE, "flow": flow, "step": step,
         "data": data_of(chat) if data_of is not None else dict(data or {}), "version": 1, "created_at": now,
         "updated_at": now}
        for chat in chat_ids
    ))


def add_offline_customers(sandbox: Sandbox, count: int, nas: str, first_code: int) -> list[int]:
    """``count`` more customers in the sandbox ISP, copies of a seeded one, each with one PPPoE
    authentication set on ``nas`` and no session (offline: what a NAS that is down leaves); their codes."""
    model = sandbox.store.find("customers", Codigo=DEMO_IDENTITIES.customer)
    assert model is not None, "the seeded data set always has the demo customer"
    auth_model = sandbox.store.rows("authentications")[0]
    next_auth = sandbox.store.next_id("authentications", "Id")
    codes = []
    for n in range(count):
        code = first_code + n
        sandbox.store.insert("customers", {**model, "Codigo": code, "Nome": f"Assinante {code}"})
        sandbox.store.insert("authentications", {
            **auth_model, "Id": next_auth + n, "Cliente": code, "NAS": nas,
            "Usuario": f"assinante{code}", "Senha": f"senha-{code}",
        })
        codes.append(code)
    return codes


async def until(check: Callable[[], Awaitable[bool]], *, every: float, within: float) -> None:
    """Ask ``check`` every ``every`` seconds until it holds (another task writes what it reads);
    TimeoutError after ``within`` seconds."""
    async with asyncio.timeout(within):
        while True:
            if await check():
                return
            await asyncio.sleep(every)
