"""Which customer, authentication or system user a chat proved to be."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, Select, and_, bindparam, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.enums import Proof, Role
from bot.store.models import LinkRow
from bot.store.sql import execute_rowcount
from bot.store.types import utcnow


@dataclass(frozen=True, slots=True)
class Link:
    id: int
    chat_id: int
    role: Role
    customer_code: int | None
    authentication_id: int | None
    contract: int | None
    system_user: str | None
    proof: Proof
    proved_at: datetime


def _from_row(row: LinkRow | Row[Any], prefix: str = "") -> Link:
    def value(name: str) -> Any:
        return getattr(row, prefix + name)

    return Link(
        id=value("id"), chat_id=value("chat_id"), role=Role(value("role")), customer_code=value("customer_code"),
        authentication_id=value("authentication_id"), contract=value("contract"),
        system_user=value("system_user"), proof=Proof(value("proof")), proved_at=value("proved_at"),
    )


_active = LinkRow.unlinked_at.is_(None)
_links = LinkRow.metadata.tables[LinkRow.__tablename__]
_ACTIVE = select(_links).where(_links.c.chat_id == bindparam("b_chat_id"), _active)
_PREFIX = "link_"


def with_active_link(statement: Select[Any], chat_id: ColumnElement[int]) -> Select[Any]:
    """``statement`` with the active link of the chat ``chat_id`` beside each row (an outer join, its
    columns named ``link_…``): a turn reads its chat and its link in one statement. ``link_in`` reads it."""
    labels = [column.label(_PREFIX + column.name) for column in _links.c]
    return statement.add_columns(*labels).outerjoin(_links, and_(_links.c.chat_id == chat_id, _active))


def link_in(row: Row[Any]) -> Link | None:
    """The link a ``with_active_link`` row carries; None for a chat not linked."""
    return None if getattr(row, _PREFIX + "id") is None else _from_row(row, _PREFIX)


class Links:
    async def active(self, session: AsyncSession, chat_id: int) -> Link | None:
        row = (await session.execute(_ACTIVE, {"b_chat_id": chat_id})).one_or_none()
        return None if row is None else _from_row(row)

    async def link(
        self, session: AsyncSession, chat_id: int, *, role: Role, proof: Proof,
        customer_code: int | None = None, authentication_id: int | None = None, contract: int | None = None,
        system_user: str | None = None, at: datetime | None = None,
    ) -> Link:
        """Link the chat, replacing its previous active link (a chat speaks for one identity at a time)."""
        if customer_code is None and authentication_id is None and system_user is None:
            raise ValueError("a link needs a customer code, an authentication id or a system user")
        at = at or utcnow()
        await self.unlink(session, chat_id, at)
        row = LinkRow(
            chat_id=chat_id, role=role.value, proof=proof.value, customer_code=customer_code,
            authentication_id=authentication_id, contract=contract, system_user=system_user, proved_at=at,
        )
        session.add(row)
        await session.flush()
        return _from_row(row)

    async def choose_contract(self, session: AsyncSession, chat_id: int, contract: int | None) -> bool:
        statement = update(LinkRow).where(LinkRow.chat_id == chat_id, _active).values(contract=contract)
        return await execute_rowcount(session, statement) == 1

    async def unlink(self, session: AsyncSession, chat_id: int, at: datetime | None = None) -> bool:
        """End the chat's active link (kept, stamped, for the audit trail); False if it had none."""
        statement = update(LinkRow).where(LinkRow.chat_id == chat_id, _active)
        statement = statement.values(unlinked_at=at or utcnow())
        return await execute_rowcount(session, statement) > 0

    async def forget(self, session: AsyncSession, chat_id: int) -> int:
        """Delete every link the chat had, active or ended (the person asked their data deleted); how many."""
        return await execute_rowcount(session, delete(LinkRow).where(LinkRow.chat_id == chat_id))

    async def of_customer(self, session: AsyncSession, customer_code: int) -> list[tuple[Link, datetime | None]]:
        """Every link to the customer, ended ones too (with when they ended), oldest first."""
        statement = select(LinkRow).where(LinkRow.customer_code == customer_code).order_by(LinkRow.id)
        return [(_from_row(row), row.unlinked_at) for row in (await session.execute(statement)).scalars()]

    async def chats_for_customer(self, session: AsyncSession, customer_code: int) -> list[int]:
        """The chats to notify about this customer (an outage, a ticket update), oldest link first."""
        statement = select(LinkRow.chat_id).where(LinkRow.customer_code == customer_code, _active)
        statement = statement.order_by(LinkRow.id)
        return list((await session.execute(statement)).scalars())

    async def count(self, session: AsyncSession, role: Role | None = None) -> int:
        statement = select(func.count()).select_from(LinkRow).where(_active)
        if role is not None:
            statement = statement.where(LinkRow.role == role.value)
        return (await session.execute(statement)).scalar_one()
