"""Ids of channels whose own ids are not Telegram's numbers (WhatsApp's phone numbers, its user ids,
its ``wamid`` message ids): each gets an internal chat id and, per update, an inbox ``update_id``.

Telegram's ids fit in 52 bits, so every other channel's ids start at ``1 << 53``: a channel's
chats in a range of their own (which channel a chat is on is read from its id, no query), and the
updates of all of them above ``UPDATE_BASE`` (the inbox's ``channel`` column says whose). An update
is kept once by its channel's id for it (``channel_updates``): a redelivery gets no new inbox row.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.models import TELEGRAM, ChannelChatRow, ChannelUpdateRow, MessageStatusRow
from bot.store.sql import core_execute, dialect_name, execute_rowcount

WHATSAPP = "whatsapp"
SPAN = 1 << 50  # chats per channel
# The first internal chat id of each channel; Telegram's are its own (below 2**52, negative for groups).
CHAT_BASES = {WHATSAPP: 1 << 53}
UPDATE_BASE = 1 << 53


def channel_of_chat(chat_id: int) -> str:
    """Which channel a chat is on, from its id alone."""
    for channel, base in CHAT_BASES.items():
        if base <= chat_id < base + SPAN:
            return channel
    return TELEGRAM


# WhatsApp's customer service window: since the person last wrote, plain messages go; after, only
# approved templates.
WHATSAPP_WINDOW = timedelta(hours=24)
_chats = ChannelChatRow.metadata.tables[ChannelChatRow.__tablename__]
_updates = ChannelUpdateRow.metadata.tables[ChannelUpdateRow.__tablename__]
_statuses = MessageStatusRow.metadata.tables[MessageStatusRow.__tablename__]
_NEW_CHATS = {
    "postgresql": postgresql.insert(_chats).on_conflict_do_nothing(),
    "sqlite": sqlite.insert(_chats).on_conflict_do_nothing(),
}
_NEW_UPDATES = {
    "postgresql": postgresql.insert(_updates).on_conflict_do_nothing().returning(_updates.c.id, _updates.c.external_id),
    "sqlite": sqlite.insert(_updates).on_conflict_do_nothing().returning(_updates.c.id, _updates.c.external_id),
}


class ChannelIds:
    async def chat_ids(
        self, session: AsyncSession, channel: str, external_ids: Collection[str], now: datetime,
    ) -> dict[str, int]:
        """The internal chat id of each of the channel's own ids, allocated for those seen first now
        (two statements for a whole batch)."""
        if not external_ids:
            return {}
        rows = [{"channel": channel, "external_id": e, "created_at": now} for e in sorted(set(external_ids))]
        await session.execute(_NEW_CHATS[dialect_name(session)], rows)
        statement = select(_chats.c.external_id, func.coalesce(_chats.c.alias_of, _chats.c.id)).where(
            _chats.c.channel == channel, _chats.c.external_id.in_(sorted(set(external_ids))),
        )
        base = CHAT_BASES[channel]
        found: list[Any] = list((await core_execute(session, statement)).all())
        return {str(row[0]): base + int(row[1]) for row in found}

    async def join(
        self, session: AsyncSession, channel: str, pairs: Collection[tuple[str, str]], now: datetime,
    ) -> None:
        """Each pair names one person by two ids (a WhatsApp number and user id): the id seen later
        becomes an alias of the chat of the one seen first, so the person keeps one chat whichever
        id comes next. Pairs already joined cost one read."""
        wanted = sorted({id_ for pair in pairs for id_ in pair if pair[0] != pair[1]})
        if not wanted:
            return
        rows = [{"channel": channel, "external_id": e, "created_at": now} for e in wanted]
        await session.execute(_NEW_CHATS[dialect_name(session)], rows)
        statement = select(_chats.c.external_id, _chats.c.id, _chats.c.alias_of).where(
            _chats.c.channel == channel, _chats.c.external_id.in_(wanted),
        )
        rows_found: list[Any] = list((await core_execute(session, statement)).all())
        found: dict[str, tuple[int, int | None]] = {str(row[0]): (int(row[1]), row[2]) for row in rows_found}
        for first, second in pairs:
            if first not in found or second not in found:
                continue
            (one, one_alias), (other, other_alias) = found[first], found[second]
            chat_one, chat_other = one_alias or one, other_alias or other
            if chat_one == chat_other:
                continue
            keep, alias = (chat_one, other) if chat_one < chat_other else (chat_other, one)
            await session.execute(update(_chats).where(_chats.c.id == alias).values(alias_of=keep))
            found = {key: ((row_id, keep) if row_id == alias else (row_id, of)) for key, (row_id, of) in found.items()}

    async def external_id(self, session: AsyncSession, chat_id: int) -> str | None:
        """The channel's own id of an internal chat id (None: not one of theirs)."""
        channel = channel_of_chat(chat_id)
        if channel == TELEGRAM:
            return None
        statement = select(_chats.c.external_id).where(
            _chats.c.id == chat_id - CHAT_BASES[channel], _chats.c.channel == channel,
        )
        return (await core_execute(session, statement)).scalar_one_or_none()

    async def new_updates(
        self, session: AsyncSession, channel: str, external_ids: Iterable[str], now: datetime,
    ) -> dict[str, int]:
        """The inbox ``update_id`` of each of these updates not seen before (in the order given: the
        ids grow with it); those seen already are left out."""
        ordered = list(dict.fromkeys(external_ids))
        if not ordered:
            return {}
        rows = [{"channel": channel, "external_id": e, "received_at": now} for e in ordered]
        result = await session.execute(_NEW_UPDATES[dialect_name(session)], rows)
        return {str(row[1]): UPDATE_BASE + int(row[0]) for row in result.all()}

    async def prune_updates(self, session: AsyncSession, before: datetime) -> int:
        """Forget ids of updates received before ``before`` (past every redelivery of theirs)."""
        return await execute_rowcount(session, delete(_updates).where(_updates.c.received_at < before))

    async def record_status(
        self, session: AsyncSession, channel: str, external_id: str, *, chat_id: int | None, status: str,
        at: datetime, error: str | None = None,
    ) -> None:
        """Keep the latest status of a message the bot sent (a later one replaces an earlier)."""
        values = {"chat_id": chat_id, "status": status, "at": at, "error": error[:200] if error else None}
        dialect = postgresql if dialect_name(session) == "postgresql" else sqlite
        statement = dialect.insert(_statuses).values(channel=channel, external_id=external_id, **values)
        await session.execute(statement.on_conflict_do_update(index_elements=["channel", "external_id"], set_=values))

    async def status(self, session: AsyncSession, channel: str, external_id: str) -> tuple[str, str | None] | None:
        """The status kept for a message, and its error."""
        statement = select(_statuses.c.status, _statuses.c.error).where(
            _statuses.c.channel == channel, _statuses.c.external_id == external_id,
        )
        row: Any = (await core_execute(session, statement)).first()
        return None if row is None else (str(row[0]), row[1])
