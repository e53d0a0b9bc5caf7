"""Conversation state per chat, saved with an optimistic version check."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.store.driver import Direct, begun
from bot.store.enums import Role
from bot.store.errors import StaleStateError, UpdateTakenError
from bot.store.inbox import ANSWER, Answered
from bot.store.links import Link, Links, link_in, with_active_link
from bot.store.models import ChatRow
from bot.store.sql import core_execute, dialect_name, insert_ignore
from bot.store.types import utcnow


@dataclass(slots=True)
class ChatState:
    """Where one chat stands. ``version`` 0 means never saved; each save adds one."""

    chat_id: int
    role: Role = Role.SUBSCRIBER
    language: str | None = None
    flow: str | None = None
    step: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    version: int = 0
    current_ticket: int | None = None
    handoff_topic: int | None = None

    def snapshot(self) -> ChatState:
        """An independent copy, to go back to if a turn's step is undone. ``data`` is stored as JSON,
        so copying its dicts and lists is all ``copy.deepcopy`` would do, at a fraction of its cost
        (it runs on every turn)."""
        return replace(self, data=_json_copy(self.data))


def _json_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_copy(item) for item in value]
    return value  # str, int, float, bool, None: immutable


def _from_row(row: ChatRow | Row[Any]) -> ChatState:
    return ChatState(
        chat_id=row.chat_id, role=Role(row.role), language=row.language, flow=row.flow, step=row.step,
        data=dict(row.data), version=row.version, current_ticket=row.current_ticket,
        handoff_topic=row.handoff_topic,
    )


_SAVED_COLUMNS = (
    "role", "language", "flow", "step", "data", "current_ticket", "handoff_topic", "updated_at", "version",
)


def _columns(state: ChatState, now: datetime) -> dict[str, Any]:
    return {
        "role": state.role.value, "language": state.language, "flow": state.flow, "step": state.step,
        "data": state.data, "current_ticket": state.current_ticket, "handoff_topic": state.handoff_topic,
        "updated_at": now,
    }


# Every turn loads and saves its chat: statements built once (Core, no ORM identity map) cost about
# half as much per call as building and compiling them each time.
_chats = ChatRow.metadata.tables[ChatRow.__tablename__]
_LOAD = select(_chats).where(_chats.c.chat_id == bindparam("b_chat_id"))
_LOAD_LINKED = with_active_link(select(_chats), _chats.c.chat_id).where(_chats.c.chat_id == bindparam("b_chat_id"))
_LOAD_LINKED_LOCKED = _LOAD_LINKED.with_for_update(of=_chats)
_SAVE = update(_chats).where(
    _chats.c.chat_id == bindparam("b_chat_id"), _chats.c.version == bindparam("b_version"),
).values({name: bindparam(name) for name in _SAVED_COLUMNS})
# The save and the update's answer (``Answered``) in one statement, for PostgreSQL: how many rows
# each touched, so a stale state and an update taken meanwhile are told apart as when run one by one.
_saved = _SAVE.returning(_chats.c.chat_id).cte("saved")
_answered = ANSWER.returning(ANSWER.table.c.update_id).cte("answered")
_saved_rows = select(func.count()).select_from(_saved).scalar_subquery()
_answered_rows = select(func.count()).select_from(_answered).scalar_subquery()
_SAVE_AND_ANSWER = select(_saved_rows.label("saved"), _answered_rows.label("answered"))
# The same, run on its own (no transaction open): all or nothing. When either touched no row, the
# division by zero fails the statement whole, so neither is written; the counting statement, in a
# transaction, then says which it was.
_SAVE_AND_ANSWER_WHOLE = select((_saved_rows // (_saved_rows * _answered_rows)).label("saved"))
_DIVISION_BY_ZERO = "22012"
_HOLD = select(_chats.c.version).where(_chats.c.chat_id == bindparam("b_chat_id")).with_for_update()
# What a turn runs on the driver itself (``bot.store.driver``).
_TURN_LOAD = {True: Direct(_LOAD_LINKED_LOCKED), False: Direct(_LOAD_LINKED)}
_TURN_LOAD_ALONE = Direct(_LOAD_LINKED, alone=True)
_TURN_HOLD = Direct(_HOLD)
_TURN_SAVE = Direct(_SAVE)
_TURN_SAVE_AND_ANSWER = Direct(_SAVE_AND_ANSWER)
_TURN_SAVE_AND_ANSWER_WHOLE = Direct(_SAVE_AND_ANSWER_WHOLE, alone=True)


class ChatStates:
    async def load(self, session: AsyncSession, chat_id: int) -> ChatState:
        """The saved state, or a fresh default (version 0) for a chat never seen."""
        row = (await core_execute(session, _LOAD, {"b_chat_id": chat_id})).one_or_none()
        return ChatState(chat_id=chat_id) if row is None else _from_row(row)

    async def save(
        self, session: AsyncSession, state: ChatState, now: datetime | None = None, *, answered: Answered | None = None,
    ) -> ChatState:
        """Write ``state`` if nobody saved this chat since it was loaded; return it with its new version.
        ``answered``: the update this turn answered, written with it (one statement on PostgreSQL).

        Raises StaleStateError when another writer won (also when two first saves race): the caller
        rolls back, reloads and runs the step again; UpdateTakenError when the update is not pending
        any more.
        """
        now = now or utcnow()
        if state.version == 0:
            values = {"chat_id": state.chat_id, "version": 1, "created_at": now, **_columns(state, now)}
            if not await insert_ignore(session, ChatRow, values):
                raise StaleStateError(state.chat_id, state.version)
        else:
            values = {"b_chat_id": state.chat_id, "b_version": state.version, "version": state.version + 1}
            values.update(_columns(state, now))
            if answered is not None and dialect_name(session) == "postgresql":
                if not await begun(session) and await _saved_whole(session, {**values, **answered.values}):
                    return replace(state, version=state.version + 1)
                [counts] = await _TURN_SAVE_AND_ANSWER.rows(session, {**values, **answered.values})
                if counts.saved != 1:
                    raise StaleStateError(state.chat_id, state.version)
                if counts.answered != 1:
                    raise UpdateTakenError(answered.update_id)
                return replace(state, version=state.version + 1)
            if await _TURN_SAVE.rowcount(session, values) != 1:
                raise StaleStateError(state.chat_id, state.version)
        if answered is not None:
            await answered.write(session)
        return replace(state, version=state.version + 1)

    async def load_locked(self, session: AsyncSession, chat_id: int) -> tuple[ChatState, Link | None]:
        """``load`` and the chat's active link (one statement), holding the chat against other bot
        processes until the transaction ends.

        PostgreSQL: the row is read ``FOR UPDATE``, after creating the default row if the chat is new
        (there is nothing to lock otherwise; it then loads as version 1). SQLite: a plain read, as it
        lets one writer at a time in anyway, and the version check catches what slips between a read
        and that write.
        """
        locking = dialect_name(session) == "postgresql"
        statement = _TURN_LOAD[locking]
        row = _one_or_none(await statement.rows(session, {"b_chat_id": chat_id}))
        if row is None and locking:  # a new chat: its default row first
            await _insert_default(session, chat_id)
            row = _one_or_none(await statement.rows(session, {"b_chat_id": chat_id}))
            assert row is not None  # noqa: S101 - inserted (or there already) in this transaction
        return await _state_and_link(session, chat_id, row)

    async def load_for_turn(self, session: AsyncSession, chat_id: int) -> tuple[ChatState, Link | None]:
        """``load`` and the chat's active link (one statement), for a turn that holds the chat only
        once it needs to (``hold``): before its first ISP call. PostgreSQL: read on its own, outside
        a transaction, so that a turn which only answers (most do) costs two statements, this read and
        its save, instead of four (BEGIN, the locked read, the save, COMMIT); what another process
        saved meanwhile is caught by the save's version check, and the turn runs again. SQLite: as
        ``load_locked``.
        """
        if dialect_name(session) != "postgresql":
            return await self.load_locked(session, chat_id)
        row = _one_or_none(await _TURN_LOAD_ALONE.rows(session, {"b_chat_id": chat_id}))
        return await _state_and_link(session, chat_id, row)

    async def hold(self, session: AsyncSession, chat_id: int, version: int) -> int:
        """Hold the chat against other bot processes until the transaction ends, if it is still at
        ``version`` (StaleStateError otherwise); the version to save over. PostgreSQL only (SQLite
        lets one writer in at a time): a chat never saved gets its default row first, as version 1.
        """
        if dialect_name(session) != "postgresql":
            return version
        if version == 0:
            await _insert_default(session, chat_id)
            version = 1
        row = _one_or_none(await _TURN_HOLD.rows(session, {"b_chat_id": chat_id}))
        if row is None or row.version != version:
            raise StaleStateError(chat_id, version)
        return version


async def _insert_default(session: AsyncSession, chat_id: int) -> None:
    """A chat never saved gets its default row, as version 1, to be locked (there is none otherwise)."""
    now = utcnow()
    await insert_ignore(
        session, ChatRow, {"chat_id": chat_id, "version": 1, "created_at": now, **_columns(ChatState(chat_id), now)},
    )


async def _state_and_link(session: AsyncSession, chat_id: int, row: Any) -> tuple[ChatState, Link | None]:
    if row is None:  # a chat never saved: linked only if an invite tool linked it first
        return ChatState(chat_id=chat_id), await Links().active(session, chat_id)
    return _from_row(row), link_in(row)


async def _saved_whole(session: AsyncSession, values: dict[str, Any]) -> bool:
    """The save and the answer on their own, both or neither: False when either touched no row."""
    try:
        await _TURN_SAVE_AND_ANSWER_WHOLE.rows(session, values)
    except Exception as error:
        if getattr(error, "sqlstate", None) != _DIVISION_BY_ZERO:
            raise
        return False
    return True


def _one_or_none(rows: list[Any]) -> Any:
    if len(rows) > 1:
        raise ValueError(f"one chat row expected, {len(rows)} found")
    return rows[0] if rows else None
