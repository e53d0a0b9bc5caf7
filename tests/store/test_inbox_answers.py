"""The inbox keeps each update's answer (its Bot API calls) until Telegram accepted it, so an update is
answered once even when the process dies between processing it and sending the answer."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.store import Inbox, InboxState
from bot.store.models import InboxRow

from tests.store.dbtools import ScratchDatabase

inbox = Inbox(lease=timedelta(minutes=1))
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
RESEND = timedelta(minutes=5)


def calls(text: str, chat_id: int = 100) -> list[dict[str, Any]]:
    return [{"method": "sendMessage", "params": {"chat_id": chat_id, "text": text, "parse_mode": "HTML"}}]


async def store(database: ScratchDatabase, *updates: tuple[int, int | None], at: datetime = T0) -> None:
    async with database.transaction() as session:
        for update_id, chat_id in updates:
            assert await inbox.store(session, update_id, chat_id, {"update_id": update_id}, now=at)


async def claim_all(database: ScratchDatabase, at: datetime = T0) -> list[int]:
    async with database.transaction() as session:
        return [item.update_id for item in await inbox.claim_pending(session, 100, now=at)]


async def answer(database: ScratchDatabase, update_id: int, answer_calls: list[dict[str, Any]],
                 at: datetime = T0) -> bool:
    async with database.transaction() as session:
        return await inbox.answer(session, update_id, answer_calls, now=at, resend_after=RESEND)


async def undelivered(database: ScratchDatabase, at: datetime, limit: int = 100) -> list[int]:
    async with database.transaction() as session:
        return [item.update_id for item in await inbox.undelivered(session, limit, now=at, resend_after=RESEND)]


async def row(database: ScratchDatabase, update_id: int) -> InboxRow | None:
    async with database.session() as session:
        return await session.get(InboxRow, update_id, populate_existing=True)


async def test_an_update_is_answered_only_while_it_is_pending(database: ScratchDatabase) -> None:
    await store(database, (1, 100), (2, 200))
    assert await claim_all(database) == [1, 2]
    assert await answer(database, 1, calls("Olá"))
    # A worker whose lease ran out answers too late: its step must be rolled back, not sent twice.
    assert not await answer(database, 1, calls("Olá de novo"))
    done = await row(database, 1)
    assert done is not None
    assert done.state == InboxState.DONE.value and done.processed_at is not None and done.last_error is None
    assert done.answer == calls("Olá")
    # Neither failed updates nor unknown ones can be answered.
    async with database.transaction() as session:
        await inbox.mark_failed(session, [2], "could not be parsed")
    assert not await answer(database, 2, calls("x", 200))
    assert not await answer(database, 999, calls("x"))
    # A done update is never handed out for processing again.
    assert await claim_all(database, T0 + timedelta(hours=1)) == []


async def test_the_answer_is_kept_as_given_and_an_empty_one_is_no_answer(database: ScratchDatabase) -> None:
    given = [
        {"method": "sendMessage", "params": {"chat_id": 100, "text": "<b>R$ 1.234,56</b> — São Paulo 👋",
                                             "reply_markup": {"inline_keyboard": [[{"text": "Sim",
                                                                                     "callback_data": "y"}]]}}},
        {"method": "editMessageText", "params": {"chat_id": 100, "message_id": 7, "text": "ok"}},
    ]
    await store(database, (1, 100), (2, 100))
    await claim_all(database)
    assert await answer(database, 1, given)
    assert await answer(database, 2, [])  # an update the bot ignores: done, nothing to send
    async with database.session() as session:
        (item,) = await inbox.undelivered(session, 10, now=T0 + RESEND)
    assert item.update_id == 1 and item.answer == given and item.chat_id == 100
    ignored = await row(database, 2)
    assert ignored is not None and ignored.state == InboxState.DONE.value and ignored.answer is None


async def test_undelivered_hands_out_due_answers_in_order_and_leases_them(database: ScratchDatabase) -> None:
    await store(database, (1, 100), (2, 200), (3, 100), (4, 300), (5, None))
    await claim_all(database)
    minute = timedelta(minutes=1)
    assert await answer(database, 3, calls("c"), at=T0)
    assert await answer(database, 1, calls("a"), at=T0 + minute)
    assert await answer(database, 2, calls("b", 200), at=T0 + 2 * minute)
    assert await answer(database, 5, calls("e", 500), at=T0)
    # 4 is still being processed: it has no answer to resend.

    # Before its resend time an answer belongs to the process that is sending it.
    assert await undelivered(database, T0 + RESEND - timedelta(seconds=1)) == []
    assert await undelivered(database, T0 + RESEND) == [3, 5]
    later = T0 + RESEND + 2 * minute
    assert await undelivered(database, later, limit=1) == [1]  # oldest first
    assert await undelivered(database, later) == [2]
    # Leased: a second sweep right after finds nothing...
    assert await undelivered(database, later) == []
    # ... until the lease ends without Telegram having accepted them.
    assert await undelivered(database, T0 + 2 * RESEND) == [3, 5]
    assert await undelivered(database, later + RESEND) == [1, 2]


async def test_a_delivered_answer_is_never_sent_again(database: ScratchDatabase) -> None:
    await store(database, (1, 100), (2, 100), (3, 200))
    await claim_all(database)
    for update_id in (1, 2, 3):
        assert await answer(database, update_id, calls(f"answer {update_id}"))
    async with database.transaction() as session:
        assert await inbox.delivered(session, [1, 3]) == 2
        assert await inbox.delivered(session, []) == 0
    for update_id in (1, 3):
        delivered = await row(database, update_id)
        assert delivered is not None and delivered.answer is None and delivered.state == InboxState.DONE.value
    assert await undelivered(database, T0 + timedelta(days=1)) == [2]
    # Telegram confirms it during the sweep's resend: nothing more, ever.
    async with database.transaction() as session:
        await inbox.delivered(session, [2])
    assert await undelivered(database, T0 + timedelta(days=2)) == []


async def test_two_sweepers_never_get_the_same_answer(database: ScratchDatabase) -> None:
    await store(database, *[(update_id, 100 + update_id % 7) for update_id in range(1, 41)])
    await claim_all(database)
    for update_id in range(1, 41):
        assert await answer(database, update_id, calls(str(update_id)))

    async def sweep() -> list[int]:
        return await undelivered(database, T0 + RESEND, limit=25)

    results = await asyncio.gather(sweep(), sweep(), sweep(), return_exceptions=True)
    handed = [update_id for result in results if isinstance(result, list) for update_id in result]
    assert len(handed) == len(set(handed))  # on SQLite a loser may fail instead (the processor retries it)
    assert any(isinstance(result, list) and result for result in results)


async def test_pending_count_counts_what_waits_for_processing(database: ScratchDatabase) -> None:
    async with database.session() as session:
        assert await inbox.pending_count(session) == 0
    await store(database, (1, 100), (2, 100), (3, 200), (4, None))
    async with database.session() as session:
        assert await inbox.pending_count(session) == 4
    await claim_all(database)  # claimed (leased) updates still wait for their answer
    async with database.session() as session:
        assert await inbox.pending_count(session) == 4
    assert await answer(database, 1, calls("a"))
    async with database.transaction() as session:
        await inbox.mark_failed(session, [3], "gave up")
        await inbox.mark_retry(session, [2], T0 + timedelta(minutes=5), "ISP down")
    async with database.session() as session:
        assert await inbox.pending_count(session) == 2  # 2 (waiting for its retry) and 4


async def test_prune_forgets_only_finished_old_updates(database: ScratchDatabase) -> None:
    old, recent = T0, T0 + timedelta(days=3)
    await store(database, (1, 100), (2, 100), (3, 200), (4, 300), (5, 400), at=old)
    await store(database, (6, 100), (7, 500), at=recent)
    await claim_all(database, recent)
    assert await answer(database, 1, calls("delivered"), at=recent)
    assert await answer(database, 2, calls("not yet delivered"), at=recent)
    assert await answer(database, 3, [], at=recent)  # ignored update
    assert await answer(database, 6, calls("recent"), at=recent)
    async with database.transaction() as session:
        await inbox.delivered(session, [1, 6])
        await inbox.mark_failed(session, [4], "could not be parsed")
        # 5 and 7 are still pending (5 received long ago: its chat is stuck behind something).
        assert await inbox.prune(session, before=recent - timedelta(days=1)) == 3  # 1, 3 and 4
    async with database.session() as session:
        left = sorted((await session.execute(InboxRow.__table__.select())).scalars())
    assert left == [2, 5, 6, 7]
    # Once Telegram has 2's answer, it goes too; pending ones never do.
    async with database.transaction() as session:
        await inbox.delivered(session, [2])
        assert await inbox.prune(session, before=recent + timedelta(days=1)) == 2  # 2 and 6
    async with database.session() as session:
        left = sorted((await session.execute(InboxRow.__table__.select())).scalars())
        assert await inbox.pending_count(session) == 2
    assert left == [5, 7]
    # A pruned update that Telegram posts again would be a new one: prune only past redelivery.


async def test_a_chats_next_update_waits_until_the_answer_before_it_was_accepted(database: ScratchDatabase) -> None:
    """Another process would otherwise answer it while this answer is still held back (flood control)."""
    await store(database, (1, 100), (2, 200))
    assert await claim_all(database) == [1, 2]
    assert await answer(database, 1, calls("Olá"))
    assert await answer(database, 2, [])  # nothing to send: holds nothing back
    await store(database, (3, 100), (4, 200))
    assert await claim_all(database) == [4]  # chat 100 waits for its answer
    async with database.transaction() as session:
        await inbox.delivered(session, [1])
    assert await claim_all(database) == [3]
