"""The statements a turn runs on the driver itself (``bot.store.driver``): in the session's transaction
(undone with it, after what the session wrote), through SQLite's write gate, and storing what
SQLAlchemy itself would."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from bot.store import ChatState, ChatStates, Inbox
from bot.store.driver import Direct
from bot.store.models import ChatRow
from sqlalchemy import bindparam, insert, select, text

from tests.store.dbtools import ScratchDatabase

chats = ChatStates()


async def saved(database: ScratchDatabase, chat_id: int, **fields: object) -> ChatState:
    async with database.transaction() as session:
        return await chats.save(session, ChatState(chat_id=chat_id, **fields))  # type: ignore[arg-type]


async def test_a_turn_undone_undoes_its_driver_statements(database: ScratchDatabase) -> None:
    first = await saved(database, 1, flow="menu")
    with pytest.raises(RuntimeError):
        async with database.transaction() as session:
            state, _ = await chats.load_locked(session, 1)
            state.flow = "bills"
            await chats.save(session, state)  # an UPDATE on the driver
            raise RuntimeError("the turn failed after saving")
    async with database.session() as session:
        kept, _ = await chats.load_locked(session, 1)
    assert (kept.flow, kept.version) == ("menu", first.version)


async def test_what_the_driver_stores_reads_back_as_sqlalchemy_reads_it(database: ScratchDatabase) -> None:
    data = {"said": "não tenho internet 👍", "nested": [{"n": 0, "ok": True, "none": None}], "x": 1.5}
    state = await saved(database, 7, flow="menu", language="pt_BR")
    async with database.transaction() as session:
        loaded, link = await chats.load_locked(session, 7)  # the driver's read
        loaded.data, loaded.step = data, "ask"
        await chats.save(session, loaded)  # the driver's write
    async with database.session() as session:
        row = (await session.execute(select(ChatRow).where(ChatRow.chat_id == 7))).scalar_one()
        again, _ = await chats.load_locked(session, 7)
    assert link is None
    assert (row.data, row.step, row.version, row.language) == (data, "ask", state.version + 1, "pt_BR")
    assert row.updated_at.tzinfo is not None
    assert (again.data, again.step, again.version) == (data, "ask", state.version + 1)


async def test_an_answer_on_the_driver_marks_the_update_once(database: ScratchDatabase) -> None:
    inbox = Inbox(owner="me")
    async with database.transaction() as session:
        await inbox.store(session, 1, 5, {"update_id": 1})
    async with database.transaction() as session:
        assert await inbox.answer(session, 1, [{"method": "sendMessage", "params": {"text": "oi\x00"}}])
        assert not await inbox.answer(session, 1, [])  # done already: another worker's answer loses
    async with database.transaction() as session:
        waiting = await inbox.undelivered(session, 10, resend_after=timedelta(0))
    assert waiting == []  # this process still beats: its own answers are left to it


async def test_a_second_writer_on_the_driver_waits_at_the_write_gate(
    database: ScratchDatabase, database_url: str,
) -> None:
    if not database_url.startswith("sqlite"):
        pytest.skip("SQLite's single writer")
    await saved(database, 1, flow="menu")
    await saved(database, 2, flow="menu")
    first_wrote, let_first_commit = asyncio.Event(), asyncio.Event()

    async def write(chat_id: int, flow: str, *, hold: bool) -> None:
        async with database.transaction() as session:
            if not hold:  # without the gate SQLite would refuse at once: no busy wait to hide in
                await session.execute(text("PRAGMA busy_timeout=0"))
            state, _ = await chats.load_locked(session, chat_id)
            state.flow = flow
            await chats.save(session, state)
            if hold:
                first_wrote.set()
                await let_first_commit.wait()

    holder = asyncio.create_task(write(1, "bills", hold=True))
    await first_wrote.wait()
    waiter = asyncio.create_task(write(2, "pay", hold=False))
    done, _ = await asyncio.wait({waiter}, timeout=0.3)
    assert not done, "the second writer should wait for the first, not fail"
    let_first_commit.set()
    await asyncio.gather(holder, waiter)
    async with database.session() as session:
        assert [(await chats.load(session, n)).flow for n in (1, 2)] == ["bills", "pay"]


async def test_a_statement_whose_defaults_sqlalchemy_would_compute_is_refused(database: ScratchDatabase) -> None:
    """A column default is computed by SQLAlchemy's execution context, which the driver path skips:
    such a statement must name every value, or it would store NULLs."""
    statement = Direct(insert(ChatRow.metadata.tables[ChatRow.__tablename__]))
    async with database.transaction() as session:
        with pytest.raises(ValueError, match="defaults"):
            await statement.rowcount(session, {"chat_id": 9})


async def test_a_value_the_statement_has_no_place_for_is_refused(database: ScratchDatabase) -> None:
    """A statement with a SET of its own (the turn's save) would drop a value it does not name: a
    column added to what is saved but not to the statement must fail loudly, not be lost."""
    chats_table = ChatRow.metadata.tables[ChatRow.__tablename__]
    statement = Direct(select(chats_table.c.version).where(chats_table.c.chat_id == bindparam("b_chat_id")))
    async with database.transaction() as session:
        with pytest.raises(ValueError, match="does not take: \\['step'\\]"):
            await statement.rows(session, {"b_chat_id": 9, "step": "menu"})
