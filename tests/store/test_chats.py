from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

import pytest
from bot.store import ChatState, ChatStates, Inbox, InboxState, Links, Proof, Role, StaleStateError, UpdateTakenError
from bot.store.models import ChatRow, InboxRow
from sqlalchemy import select
from sqlalchemy.exc import StatementError
from sqlalchemy.ext.asyncio import AsyncSession

from tests.store.dbtools import ScratchDatabase

chats = ChatStates()
BIG_CHAT = -1001234567890123  # supergroup ids do not fit 32 bits


async def test_an_unknown_chat_loads_as_a_fresh_default(database: ScratchDatabase) -> None:
    async with database.session() as session:
        state = await chats.load(session, 42)
    assert state == ChatState(chat_id=42)
    assert state.version == 0 and state.role is Role.SUBSCRIBER and state.data == {}


async def test_save_and_load_round_trip_and_survive_a_restart(database: ScratchDatabase) -> None:
    state = ChatState(
        chat_id=BIG_CHAT, role=Role.TECHNICIAN, language="pt_BR", flow="service_order", step="gps",
        data={"order": 17, "notes": ["ação", "ok"], "nested": {"x": None, "y": 1.5}}, current_ticket=901,
    )
    async with database.transaction() as session:
        saved = await chats.save(session, state)
    assert saved.version == 1 and state.version == 0

    async with database.transaction() as session:
        loaded = await chats.load(session, BIG_CHAT)
        assert loaded == saved
        loaded.step = "photo"
        loaded.data["order"] = 18
        await chats.save(session, loaded)

    restarted = database.reopen()
    try:
        async with restarted.session() as session:
            resumed = await chats.load(session, BIG_CHAT)
    finally:
        await restarted.dispose()
    assert resumed.version == 2 and resumed.step == "photo" and resumed.data["order"] == 18
    assert resumed.data["notes"] == ["ação", "ok"] and resumed.current_ticket == 901


async def test_timestamps_come_back_aware_utc(database: ScratchDatabase) -> None:
    saved_at = datetime(2025, 1, 2, 9, 30, tzinfo=timezone(timedelta(hours=-3)))
    async with database.transaction() as session:
        await chats.save(session, ChatState(chat_id=1), now=saved_at)
    async with database.session() as session:
        row = (await session.execute(select(ChatRow))).scalar_one()
    assert row.created_at == saved_at and row.created_at.tzinfo is UTC
    assert row.updated_at.hour == 12


async def test_naive_datetimes_are_refused(database: ScratchDatabase) -> None:
    with pytest.raises(StatementError, match="naive datetime"):
        async with database.transaction() as session:
            await chats.save(session, ChatState(chat_id=1), now=datetime(2025, 1, 1))


async def test_the_loser_of_a_save_race_gets_stale_state(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        await chats.save(session, ChatState(chat_id=7, flow="start"))

    async with database.session() as first, database.session() as second:
        mine, theirs = await chats.load(first, 7), await chats.load(second, 7)
        assert mine.version == theirs.version == 1
        mine.step, theirs.step = "mine", "theirs"
        await chats.save(first, mine)
        await first.commit()
        with pytest.raises(StaleStateError) as caught:
            await chats.save(second, theirs)
        await second.rollback()
    assert caught.value.chat_id == 7 and caught.value.expected_version == 1

    async with database.session() as session:
        final = await chats.load(session, 7)
    assert final.step == "mine" and final.version == 2


async def saved_chat_and_pending_update(database: ScratchDatabase, chat_id: int, update_id: int) -> ChatState:
    async with database.transaction() as session:
        await Inbox().store(session, update_id, chat_id, {"update_id": update_id})
        return await chats.save(session, ChatState(chat_id=chat_id, flow="start"))


async def inbox_row(database: ScratchDatabase, update_id: int) -> InboxRow:
    async with database.session() as session:
        row = await session.get(InboxRow, update_id, populate_existing=True)
    assert row is not None
    return row


async def test_a_turn_saves_its_chat_and_marks_its_update_answered_together(database: ScratchDatabase) -> None:
    state = await saved_chat_and_pending_update(database, 11, 501)
    call = {"method": "sendMessage", "params": {"chat_id": 11, "text": "oi"}}
    async with database.transaction() as session:
        state.step = "asked"
        saved = await chats.save(session, state, answered=Inbox().answered(501, [call]))
    assert saved.version == 2
    async with database.session() as session:
        assert (await chats.load(session, 11)).step == "asked"
    row = await inbox_row(database, 501)
    assert row.state == InboxState.DONE.value and row.answer == [call]


# A turn that wrote nothing else saves on its own, outside a transaction (PostgreSQL): both ways are
# all or nothing.
ALONE_OR_IN_A_TRANSACTION = pytest.mark.parametrize("alone", [True, False], ids=["alone", "in-a-transaction"])


async def _begin_unless(alone: bool, session: AsyncSession, chat_id: int) -> None:
    if not alone:
        await chats.load(session, chat_id)  # a statement before the save: the transaction has begun


@ALONE_OR_IN_A_TRANSACTION
async def test_an_update_answered_elsewhere_undoes_the_save_with_it(database: ScratchDatabase, alone: bool) -> None:
    state = await saved_chat_and_pending_update(database, 12, 502)
    async with database.transaction() as session:
        assert await Inbox().answer(session, 502, [])  # another process's lease, say
    with pytest.raises(UpdateTakenError) as caught:
        async with database.transaction() as session:
            await _begin_unless(alone, session, 12)
            state.step = "asked"
            await chats.save(session, state, answered=Inbox().answered(502, [{"method": "sendMessage"}]))
    assert caught.value.update_id == 502
    async with database.session() as session:
        assert (await chats.load(session, 12)).version == 1
    assert (await inbox_row(database, 502)).answer is None


@ALONE_OR_IN_A_TRANSACTION
async def test_a_stale_state_is_told_apart_from_a_taken_update_and_leaves_the_update_pending(
    database: ScratchDatabase, alone: bool,
) -> None:
    state = await saved_chat_and_pending_update(database, 13, 503)
    async with database.transaction() as session:
        await chats.save(session, await chats.load(session, 13))  # another turn saved it meanwhile
    with pytest.raises(StaleStateError):
        async with database.transaction() as session:
            await _begin_unless(alone, session, 13)
            await chats.save(session, state, answered=Inbox().answered(503, []))
    assert (await inbox_row(database, 503)).state == InboxState.PENDING.value


@pytest.mark.parametrize("existing", [True, False], ids=["update", "first-insert"])
async def test_concurrent_saves_exactly_one_wins(database: ScratchDatabase, existing: bool) -> None:
    if existing:
        async with database.transaction() as session:
            await chats.save(session, ChatState(chat_id=8))
    both_loaded = asyncio.Barrier(2)

    async def step(name: str) -> str:
        try:
            async with database.transaction() as session:
                state = await chats.load(session, 8)
                await both_loaded.wait()
                state.step = name
                await chats.save(session, state)
        except StaleStateError:
            return "stale"
        return "saved"

    outcomes = sorted(await asyncio.gather(step("a"), step("b")))
    assert outcomes == ["saved", "stale"]
    async with database.session() as session:
        final = await chats.load(session, 8)
    assert final.version == (2 if existing else 1) and final.step in {"a", "b"}


async def test_a_locked_load_brings_the_chats_active_link_along(database: ScratchDatabase) -> None:
    links = Links()
    async with database.transaction() as session:
        # Linked before the chat was ever saved (an invite tool can do that): the link is found.
        first = await links.link(session, 31, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE, customer_code=700)
        state, link = await chats.load_locked(session, 31)
        assert link == first and state.chat_id == 31
        await chats.save(session, state)
        await chats.save(session, ChatState(chat_id=32))  # another chat, never linked
    async with database.transaction() as session:
        # Linked again: only the active link comes, once, beside the saved state.
        second = await links.link(session, 31, role=Role.SUBSCRIBER, proof=Proof.PPPOE_PASSWORD, customer_code=701)
        state, link = await chats.load_locked(session, 31)
        assert link == second and state.version >= 1
        assert (await chats.load_locked(session, 32))[1] is None
        await links.unlink(session, 31)
        assert (await chats.load_locked(session, 31))[1] is None


async def test_lock_serialises_a_chat_on_postgresql(database: ScratchDatabase) -> None:
    order: list[str] = []
    first_locked = asyncio.Event()
    release = asyncio.Event()

    async def first() -> None:
        async with database.transaction() as session:
            state, _ = await chats.load_locked(session, 9)
            first_locked.set()
            await release.wait()
            state.step = "first"
            await chats.save(session, state)
            order.append("first saved")

    async def second() -> None:
        await first_locked.wait()
        async with database.transaction() as session:
            state, _ = await chats.load_locked(session, 9)
            order.append("second locked")
            if database.dialect == "postgresql":
                assert state.step == "first"  # it waited, so it sees the first step's result

    tasks = asyncio.gather(first(), second())
    await asyncio.sleep(0.3)
    if database.dialect == "postgresql":
        assert order == []  # the second is still waiting for the row lock
    release.set()
    await tasks
    if database.dialect == "postgresql":
        assert order == ["first saved", "second locked"]


async def test_a_turn_reads_its_chat_without_holding_it_and_holds_it_when_asked(database: ScratchDatabase) -> None:
    """``load_for_turn`` takes no lock (a turn that only answers is not held); ``hold`` takes it, as
    ``load_locked`` would, but only while the chat is as that turn read it."""
    async with database.transaction() as session:
        await chats.save(session, ChatState(chat_id=21, flow="menu"))
    held = asyncio.Event()
    release = asyncio.Event()

    async def turn() -> None:
        async with database.transaction() as session:
            state, _ = await chats.load_for_turn(session, 21)
            async with database.transaction() as other:  # another process locks it at once: not held
                assert (await chats.load_locked(other, 21))[0].version == 1
            assert await chats.hold(session, 21, state.version) == 1
            held.set()
            await release.wait()
            state.step = "held"
            await chats.save(session, state)

    async def other_process() -> str | None:
        await held.wait()
        async with database.transaction() as session:
            return (await chats.load_locked(session, 21))[0].step

    both = asyncio.gather(turn(), other_process())
    await asyncio.sleep(0.3)
    release.set()
    _, seen = await both
    if database.dialect == "postgresql":
        assert seen == "held"  # it waited for the held turn to end


async def test_holding_a_chat_saved_since_it_was_read_is_a_stale_state(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        await chats.save(session, ChatState(chat_id=22, flow="menu"))
    async with database.transaction() as session:
        state, _ = await chats.load_for_turn(session, 22)
        async with database.transaction() as other:
            await chats.save(other, await chats.load(other, 22))
        if database.dialect == "postgresql":
            with pytest.raises(StaleStateError):
                await chats.hold(session, 22, state.version)


async def test_holding_a_chat_never_saved_gives_it_its_first_row(database: ScratchDatabase) -> None:
    async with database.transaction() as session:
        state, link = await chats.load_for_turn(session, 23)
        assert (state.version, link) == (0, None)
        version = await chats.hold(session, 23, 0)
        state.flow, state.version = "menu", version
        await chats.save(session, state)
    async with database.session() as session:
        assert (await chats.load(session, 23)).flow == "menu"


async def test_a_nul_or_a_lone_surrogate_in_what_a_person_typed_is_kept_as_a_replacement_character(
    database: ScratchDatabase,
) -> None:
    """PostgreSQL's JSONB refuses both: saved as U+FFFD, the chat's turn goes on (alike on SQLite)."""
    state = ChatState(chat_id=77, flow="menu", data={"recent": ["a\x00b", "½\udefd"], "k\ud800": "v"})
    async with database.transaction() as session:
        await chats.save(session, state)
    async with database.session() as session:
        loaded = await chats.load(session, 77)
    assert loaded.data == {"recent": ["a\ufffdb", "½\ufffd"], "k\ufffd": "v"}


def test_a_snapshot_keeps_the_state_a_failed_step_goes_back_to() -> None:
    state = ChatState(chat_id=7, flow="bills", step="pick", data={
        "choices": {"t1": [1, "Contrato 1"]}, "recent": ["oi"], "flow_data": {"nested": {"x": [1, 2]}},
    })
    before = state.snapshot()
    state.step = "done"
    state.data["choices"]["t2"] = [2, "Contrato 2"]
    state.data["recent"].append("segunda via")
    state.data["flow_data"]["nested"]["x"].append(3)
    assert before == ChatState(chat_id=7, flow="bills", step="pick", data={
        "choices": {"t1": [1, "Contrato 1"]}, "recent": ["oi"], "flow_data": {"nested": {"x": [1, 2]}},
    })
