"""``Context``: everything a step may use, and the only way it speaks.

A step gets the chat (``flows.chat.Chat``: ``ctx.chat_id``, ``ctx.language``, ``ctx.data``,
``ctx.link``, ``ctx.customer``, ``ctx.text``...; the ISP through ``ctx.coordinator``), moves to
another flow (``switch``) or back to the menu (``to_menu``), writes to the ISP under the rule of
``flows.writes`` (``write_once``, ``write_state``), and takes by name the part it needs:

- ``ctx.reply`` (``flows.speech.Replies``): saying, asking, files, notices to chats;
- ``ctx.identity`` (``flows.linking.Identity``): linking the chat, the attempts and their limits;
- ``ctx.staff`` (``flows.staffing.Staff``): handing over, relaying, telling the staff desk;
- ``ctx.records`` (``flows.records.Records``): the contact and what it came to, the history,
  the notices refused, watches, contested bills, trust unblocks, forgetting the chat.

The database session belongs to the engine: the few store operations flows need are methods of the
parts (and ``Role`` is named here), so a flow never imports the storage layer.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from bot.acs import AcsClient
from bot.i18n import Translations
from bot.store import KEPT_YEARS as KEPT_YEARS  # noqa: PLC0414 - re-exported: the history's legal term
from bot.store import UNIDENTIFIED as UNIDENTIFIED  # noqa: PLC0414 - re-exported for the flows, as Role
from bot.store import ChatState, Database, Link
from bot.store import Contact as Contact  # noqa: PLC0414 - re-exported: a contact of the history
from bot.store import Role as Role  # noqa: PLC0414 - re-exported: flows name roles here, never through the store
from sqlalchemy.ext.asyncio import AsyncSession

from flows.chat import Chat, Repositories
from flows.coordinator import IspCoordinator
from flows.files import FileSource
from flows.linking import Identity
from flows.linking import InviteRefused as InviteRefused  # noqa: PLC0414 - re-exported: a flow catches it
from flows.policy import Policy
from flows.records import Records
from flows.speech import Replies
from flows.staffing import Staff
from flows.writes import WriteOnce, WriteState

S = TypeVar("S")  # what a state-setting write reads back


class Context(Chat):
    def __init__(
        self, *, state: ChatState, link: Link | None, session: AsyncSession, repos: Repositories,
        coordinator: IspCoordinator, policy: Policy, translations: Translations, client_language: str | None,
        menu: Sequence[str] = (), message_id: int | None = None, sender_name: str | None = None,
        files: FileSource | None = None, database: Database | None = None,
        reservations: list[int] | None = None, proved_phone: str | None = None, asks_contact: bool = True,
        channel: str = "telegram", acs: AcsClient | None = None,
    ) -> None:
        super().__init__(
            state=state, link=link, coordinator=coordinator, policy=policy, translations=translations,
            client_language=client_language, menu=menu, message_id=message_id, sender_name=sender_name,
            files=files, proved_phone=proved_phone, asks_contact=asks_contact, channel=channel, acs=acs,
        )
        # The parts see the chat through a weak proxy: a strong reference back would make every turn's
        # context a cycle, its state, replies and parts left for the garbage collector, not freed at the
        # turn's end (the young generation's collections cost twice as much: bench/RESULTS.md, Overhead).
        chat = weakref.proxy(self)
        self.reply = Replies(chat, session, repos, translations)
        self.records = Records(chat, session, repos)
        self.staff = Staff(chat, session, repos, self.reply)
        self.identity = Identity(chat, session, repos, records=self.records, reply=self.reply, database=database,
                                 reservations=reservations)
        self.next_flow: str | None = None  # set by switch(): the engine begins it after this step
        self.next_data: dict[str, Any] = {}  # what switch() hands the next flow (its ``data``)

    # ---- moving ----------------------------------------------------------------------------------
    def switch(self, flow: str, **data: Any) -> None:
        """Leave this flow; the engine begins ``flow`` right after this step, ``data`` (JSON values)
        as its data."""
        self.next_flow, self.next_data = flow, data

    def to_menu(self) -> None:
        self.switch("menu")

    # ---- writing to the ISP ---------------------------------------------------------------------
    def write_once(self, key: str, *, ask: Callable[[str], None], unsure: str, wait: str | None = None) -> WriteOnce:
        """An ISP write whose outcome may be unknown, under the rule of ``flows.writes``: ``ask(unsure)``
        when a try's outcome is unknown, ``ask(wait)`` when its read-back may still be early."""
        return WriteOnce(self.data, self.coordinator.now, key, ask=ask, unsure=unsure, wait=wait)

    def write_state(
        self, *, read_back: Callable[[], Awaitable[S | None]], landed: Callable[[S], bool],
        missed: Callable[[S], None] | None = None, ask: Callable[[str], None] | None = None,
        unsure: str | None = None,
    ) -> WriteState[S]:
        """An ISP write that sets a state, under the rule of ``flows.writes``: ``read_back`` reads the
        state again after a failure, ``landed`` says whether the write set it, ``missed`` goes on when
        it did not; ``ask(unsure)`` when that read fails too (without them, failures are the engine's)."""
        return WriteState(read_back=read_back, landed=landed, missed=missed, ask=ask, unsure=unsure)
