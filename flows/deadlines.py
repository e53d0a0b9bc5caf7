"""The deadline watch: complaints, requests and contested charges recorded against a contact
(``flows.contacts``) that are close to their end.

The app runs ``DeadlineWatch.check()`` every few minutes. Each deadline within ``warn_before`` of
its end is looked at once more: one whose ticket the ISP closed is settled (answered), the others
give the staff one warning each (claimed in the database, so two bot processes never both warn),
written with its claim as a desk job (``flows.desk.StaffNotice``) when there is a staff ``desk``.
A deadline the ISP cannot be asked about now is warned about rather than missed. ``counts`` feeds
the ``ispbot_contact_deadlines`` gauge; a deadline answered another way is settled by an operator
(``ispbot contacts settle``).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from bot.i18n import DEFAULT_LANGUAGE, Translations, default_translations
from bot.isp import IspError
from bot.store import ChatStates, Contact, ContactEvent, Contacts, Database, DeskJobs
from bot.store.channels import channel_of_chat
from sqlalchemy.ext.asyncio import AsyncSession

from flows.coordinator import IspCoordinator
from flows.desk import DeskChat, StaffNotice
from flows.deskwork import new_job

log = logging.getLogger(__name__)

STAFF_LANGUAGE = DEFAULT_LANGUAGE


class DeadlineWatch:
    def __init__(
        self, database: Database, coordinator: IspCoordinator, translations: Translations | None = None, *,
        warn_before: timedelta = timedelta(hours=48), desk: bool = False,
    ) -> None:
        self.database = database
        self.coordinator = coordinator
        self.translations = translations or default_translations()
        self.warn_before = warn_before
        self.desk = desk  # a staff desk hears the warnings (else the caller logs how many there were)
        self.contacts = Contacts()

    async def check(self) -> list[str]:
        """The staff's warnings (texts) for deadlines close to their end, each given once (and queued
        for the desk, with ``desk``)."""
        now = self.coordinator.now()
        async with self.database.transaction() as session:
            closing = await self.contacts.due(session, now + self.warn_before)
        warnings: list[str] = []
        for event, contact in closing:
            if await self._answered(event, contact):
                async with self.database.transaction() as session:
                    await self.contacts.settle(session, event.id, now)
                log.info("deadline %s of contact %s settled: its ticket was closed", event.id, contact.protocol)
                continue
            if event.warned_at is not None:
                continue
            text = self._warning(event, contact, overdue=event.due_at is not None and event.due_at < now)
            async with self.database.transaction() as session:
                if not await self.contacts.warned(session, event.id, now):
                    continue  # another process warned meanwhile
                if self.desk:
                    await DeskJobs().enqueue(session, [new_job(await self._chat(session, contact), None,
                                                               StaffNotice(text))])
            warnings.append(text)
        return warnings

    async def _chat(self, session: AsyncSession, contact: Contact) -> DeskChat:
        """The contact's chat as the desk sees it: named by its customer code."""
        language = (await ChatStates().load(session, contact.chat_id)).language or DEFAULT_LANGUAGE
        name = (str(contact.customer_code) if contact.customer_code is not None
                else self.translations.render(STAFF_LANGUAGE, "human.unidentified_name"))
        return DeskChat(contact.chat_id, channel_of_chat(contact.chat_id), language, name,
                        customer_code=contact.customer_code)

    async def counts(self) -> tuple[int, int, int]:
        """Deadlines running, closing (within ``warn_before``) and overdue."""
        now = self.coordinator.now()
        async with self.database.transaction() as session:
            return await self.contacts.count_deadlines(session, now, now + self.warn_before)

    async def _answered(self, event: ContactEvent, contact: Contact) -> bool:
        """Whether the ISP closed the deadline's ticket (False when it has none, or cannot say now)."""
        if event.ticket_id is None or contact.customer_code is None:
            return False
        try:
            tickets = await self.coordinator.tickets(contact.customer_code)
        except IspError as exc:
            log.warning("could not look at the ticket of a deadline: %s", type(exc).__name__)
            return False
        ticket = next((t for t in tickets if t.Numero == event.ticket_id), None)
        return ticket is not None and ticket.Encerramento_DataHora is not None

    def _warning(self, event: ContactEvent, contact: Contact, *, overdue: bool) -> str:
        zone = self.coordinator.zone
        render = self.translations.render
        kind = render(STAFF_LANGUAGE, f"contacts.deadline_{event.deadline}")
        return render(
            STAFF_LANGUAGE, "contacts.deadline_warning", kind=kind, protocol=contact.protocol, ticket=event.ticket_id,
            reference=event.reference, customer=contact.customer_code, at=event.at.astimezone(zone),
            due=event.due_at.astimezone(zone) if event.due_at is not None else None, overdue=overdue,
        )
