"""Open handoffs: telling a waiting subscriber their place in line happens once, whichever of several
bot processes looks first."""

from __future__ import annotations

from bot.store import Handoffs

from tests.store.dbtools import ScratchDatabase


async def test_a_subscriber_is_told_their_place_once_though_two_processes_saw_them_waiting(
    database: ScratchDatabase,
) -> None:
    handoffs = Handoffs()
    async with database.transaction() as session:
        case, new = await handoffs.open(session, 8401, ticket_id=70001, customer_code=1001)
    assert new
    # Both processes read the queue before either told anyone...
    for _ in range(2):
        async with database.transaction() as session:
            assert [c.id for c in await handoffs.unanswered(session)] == [case.id]
    # ... and only the first to mark the case gets to tell them.
    async with database.transaction() as session:
        assert await handoffs.told_waiting(session, case.id)
    async with database.transaction() as session:
        assert not await handoffs.told_waiting(session, case.id)
