"""Bills contested in the chat (``flows/subscriber/contest.py``): each list and card of bills marks
them with the date and protocol. Kept for the contact history's term (``KEPT_YEARS``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import ContestedBillRow
from bot.store.sql import execute_rowcount
from bot.store.types import utcnow


@dataclass(frozen=True, slots=True)
class ContestedBill:
    document: int
    at: datetime
    ticket: int | None  # the ticket it was recorded on, what the person is told
    protocol: str | None  # that ticket's protocol in the ISP system, for staff


class ContestedBills:
    async def record(
        self, session: AsyncSession, *, customer_code: int, document: int, chat_id: int, ticket_id: int | None,
        protocol: str | None, at: datetime | None = None,
    ) -> None:
        session.add(ContestedBillRow(customer_code=customer_code, document=document, chat_id=chat_id,
                                     ticket_id=ticket_id, protocol=protocol, at=at or utcnow()))
        await session.flush()

    async def of(self, session: AsyncSession, customer_code: int, documents: Iterable[int]) -> dict[int, ContestedBill]:
        """The latest contest of each of these bills of the customer that was contested."""
        wanted = sorted(set(documents))
        if not wanted:
            return {}
        statement = (select(ContestedBillRow.document, ContestedBillRow.at, ContestedBillRow.ticket_id,
                            ContestedBillRow.protocol)
                     .where(ContestedBillRow.customer_code == customer_code, ContestedBillRow.document.in_(wanted))
                     .order_by(ContestedBillRow.at))
        return {row.document: ContestedBill(row.document, row.at, row.ticket_id, row.protocol)
                for row in await session.execute(statement)}

    async def purge(self, session: AsyncSession, before: datetime) -> int:
        """Drop contests recorded before ``before`` (past the contact history's term); how many."""
        return await execute_rowcount(session, delete(ContestedBillRow).where(ContestedBillRow.at < before))
