"""Notices the bot writes first (``flows.notices``): each claimed once, the opt-outs, the rounds.

A notice is claimed (``NoticeClaims.claim``) in the transaction of the turn that says it: an INSERT
of (kind, subject, chat) that does nothing when the row exists, as the inbox takes an update once.
Two rounds, two processes or a round after a restart therefore never tell a chat the same thing twice.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.enums import Role
from bot.store.models import ChatRow, LinkRow, NoticeOptOutRow, NoticeRoundRow, NoticeSentRow
from bot.store.sql import execute_rowcount, insert_ignore

ALL_KINDS = "all"  # an opt-out of every kind
_Key = TypeVar("_Key", int, str)
IN_LIST = 1000  # values in one statement's IN list (SQLite and asyncpg bound a statement's parameters)


class NoticeClaims:
    async def claim(
        self, session: AsyncSession, *, kind: str, subject: str, chat_id: int, customer_code: int, at: datetime,
    ) -> bool:
        """Take the notice for the chat; False when it was taken already (told, or being told)."""
        values = {"kind": kind, "subject": subject, "chat_id": chat_id, "customer_code": customer_code, "at": at}
        return await insert_ignore(session, NoticeSentRow, values)

    async def claimed(self, session: AsyncSession, kind: str, subjects: Collection[str]) -> set[tuple[str, int]]:
        """The (subject, chat) pairs of ``kind`` among ``subjects`` already claimed (one statement per
        ``IN_LIST`` subjects: a round's are as many as the bills due, past a database's bound on
        parameters)."""
        found: set[tuple[str, int]] = set()
        for some in _in_lists(subjects):
            statement = select(NoticeSentRow.subject, NoticeSentRow.chat_id).where(
                NoticeSentRow.kind == kind, NoticeSentRow.subject.in_(some))
            found |= {(row.subject, row.chat_id) for row in await session.execute(statement)}
        return found

    async def forget(self, session: AsyncSession, chat_id: int) -> int:
        """Drop what the chat was told (the person asked their data deleted); how many."""
        return await execute_rowcount(session, delete(NoticeSentRow).where(NoticeSentRow.chat_id == chat_id))


class NoticeOptOuts:
    async def opt_out(self, session: AsyncSession, chat_id: int, kind: str, at: datetime) -> bool:
        """The chat no longer receives ``kind`` (``ALL_KINDS``: any); False when it had asked already."""
        return await insert_ignore(session, NoticeOptOutRow, {"chat_id": chat_id, "kind": kind, "at": at})

    async def opt_in(self, session: AsyncSession, chat_id: int, kind: str) -> int:
        """The chat receives ``kind`` again (``ALL_KINDS``: every kind, whatever it had left); how many
        opt-outs ended."""
        statement = delete(NoticeOptOutRow).where(NoticeOptOutRow.chat_id == chat_id)
        if kind != ALL_KINDS:
            statement = statement.where(NoticeOptOutRow.kind.in_([kind, ALL_KINDS]))
        return await execute_rowcount(session, statement)

    async def of_chat(self, session: AsyncSession, chat_id: int) -> set[str]:
        statement = select(NoticeOptOutRow.kind).where(NoticeOptOutRow.chat_id == chat_id)
        return set((await session.execute(statement)).scalars())

    async def of_chats(self, session: AsyncSession, chat_ids: Collection[int]) -> dict[int, set[str]]:
        """Each chat's opt-outs, for the chats that have any (one statement per ``IN_LIST`` chats)."""
        found: dict[int, set[str]] = {}
        for some in _in_lists(chat_ids):
            statement = select(NoticeOptOutRow.chat_id, NoticeOptOutRow.kind).where(NoticeOptOutRow.chat_id.in_(some))
            for row in await session.execute(statement):
                found.setdefault(row.chat_id, set()).add(row.kind)
        return found

    async def forget(self, session: AsyncSession, chat_id: int) -> int:
        return await execute_rowcount(session, delete(NoticeOptOutRow).where(NoticeOptOutRow.chat_id == chat_id))


def _in_lists(values: Collection[_Key]) -> list[list[_Key]]:
    """The values, sorted, as IN lists of ``IN_LIST`` at most."""
    ordered = sorted(values)
    return [ordered[start:start + IN_LIST] for start in range(0, len(ordered), IN_LIST)]


def opted_out(kinds: Collection[str], kind: str) -> bool:
    """Whether a chat with these opt-outs refused ``kind``."""
    return kind in kinds or ALL_KINDS in kinds


@dataclass(frozen=True, slots=True)
class NoticeRound:
    id: int
    as_of: datetime
    started_at: datetime
    finished_at: datetime | None
    sent: int
    held: int
    refused: int
    isp_calls: int
    details: dict[str, Any]


class NoticeRounds:
    async def start(self, session: AsyncSession, as_of: datetime, at: datetime, *, dry_run: bool) -> int:
        row = NoticeRoundRow(as_of=as_of, started_at=at, sent=0, held=0, refused=0, isp_calls=0,
                             details={"dry_run": dry_run})
        session.add(row)
        await session.flush()
        return row.id

    async def finish(
        self, session: AsyncSession, round_id: int, at: datetime, *, sent: int, held: int, refused: int,
        isp_calls: int, details: dict[str, Any],
    ) -> None:
        statement = update(NoticeRoundRow).where(NoticeRoundRow.id == round_id).values(
            finished_at=at, sent=sent, held=held, refused=refused, isp_calls=isp_calls, details=details)
        await execute_rowcount(session, statement)

    async def last(self, session: AsyncSession, count: int = 10) -> list[NoticeRound]:
        statement = select(NoticeRoundRow).order_by(NoticeRoundRow.id.desc()).limit(count)
        return [
            NoticeRound(r.id, r.as_of, r.started_at, r.finished_at, r.sent, r.held, r.refused, r.isp_calls,
                        dict(r.details or {}))
            for r in (await session.execute(statement)).scalars()
        ]


async def linked_subscribers(session: AsyncSession) -> list[tuple[int, int, str | None]]:
    """(chat, customer code, chosen language) of every chat linked to a customer as a subscriber."""
    statement = (
        select(LinkRow.chat_id, LinkRow.customer_code, ChatRow.language)
        .join(ChatRow, ChatRow.chat_id == LinkRow.chat_id, isouter=True)
        .where(LinkRow.unlinked_at.is_(None), LinkRow.role == Role.SUBSCRIBER.value, LinkRow.customer_code.is_not(None))
        .order_by(LinkRow.id)
    )
    return [(row.chat_id, row.customer_code, row.language) for row in await session.execute(statement)]
