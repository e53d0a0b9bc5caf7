"""The running processes, announced by a heartbeat, and the work of those whose heartbeat stopped.

Each ``ispbot run`` keeps a row in ``processes`` fresh (``beat``, every second or so) and stamps the
inbox rows it holds with its id (``inbox.owner``): the updates it claimed and the answers it has not
seen Telegram accept. A process whose heartbeat is older than ``stale`` is gone (killed, its machine
lost): ``take_over`` makes its rows due at once, its claimed updates to be claimed again and its
unsent answers to be sent again, and forgets it; any live process does it, one that just started too.
Without this, that work would wait for its lease (minutes) to run out.

A live process keeps its work: it beats well within ``stale``. One that could not beat for a while
(the database was unreachable) may be judged gone meanwhile; its claims then are another's, and
``Inbox.answer`` refuses its late answers (each update is still processed once). The caller must not
judge others until it has itself been beating again for ``stale`` (see ``Heartbeat``), so that
after an outage of the database every process had its chance to beat first.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.enums import InboxState
from bot.store.models import InboxRow, ProcessRow
from bot.store.sql import execute_rowcount

DEFAULT_STALE = timedelta(seconds=5)

# The rows a process holds: its claimed updates and its answers not yet accepted by Telegram.
_HELD = or_(InboxRow.state == InboxState.PENDING.value, InboxRow.answer.is_not(None))


class Processes:
    def __init__(self, me: str, stale: timedelta = DEFAULT_STALE) -> None:
        self.me = me
        self.stale = stale

    async def beat(self, session: AsyncSession, now: datetime) -> None:
        """This process is alive (announced on the first beat, and again if it was judged gone)."""
        refreshed = update(ProcessRow).where(ProcessRow.id == self.me).values(heartbeat_at=now)
        if await execute_rowcount(session, refreshed) == 0:
            session.add(ProcessRow(id=self.me, started_at=now, heartbeat_at=now))
            await session.flush()

    async def take_over(self, session: AsyncSession, now: datetime) -> int:
        """Free the work of every process whose heartbeat stopped; how many inbox rows."""
        gone = list((await session.execute(
            select(ProcessRow.id).where(ProcessRow.heartbeat_at < now - self.stale, ProcessRow.id != self.me)
        )).scalars())
        if not gone:
            return 0
        await execute_rowcount(session, delete(ProcessRow).where(ProcessRow.id.in_(gone)))
        return await self._free(session, gone, now)

    async def leave(self, session: AsyncSession, now: datetime) -> int:
        """This process stops: what it still holds is free for the others now; how many rows."""
        await execute_rowcount(session, delete(ProcessRow).where(ProcessRow.id == self.me))
        return await self._free(session, [self.me], now)

    async def alive(self, session: AsyncSession, now: datetime) -> list[str]:
        """The processes whose heartbeat is fresh."""
        statement = select(ProcessRow.id).where(ProcessRow.heartbeat_at >= now - self.stale).order_by(ProcessRow.id)
        return list((await session.execute(statement)).scalars())

    @staticmethod
    async def _free(session: AsyncSession, owners: list[str], now: datetime) -> int:
        statement = (
            update(InboxRow).where(InboxRow.owner.in_(owners), _HELD).values(available_at=now, owner=None)
        )
        return await execute_rowcount(session, statement)
