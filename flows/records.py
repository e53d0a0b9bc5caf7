"""``Records`` (``ctx.records``): what the bot keeps of a person beyond the turn.

The contact this turn belongs to and what each subject came to (``record``, ``flows.contacts``), the
history of contacts (``history``), the notices the chat refused, the outages and restarts it waits
to hear about (``flows.outages``, ``flows.restarts``), the bills it contested, the trust unblocks
used, and forgetting the chat (``forget_chat``: what no rule requires keeping). Saved with the turn.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import datetime, timedelta

from bot.store import KEPT_YEARS, Contact, ContestedBill
from sqlalchemy.ext.asyncio import AsyncSession

from flows.chat import LANGUAGE_GUESSED, RECENT, Chat, Repositories
from flows.contacts import CONTACT, ContactRef, Deadline


class Records:
    def __init__(self, chat: Chat, session: AsyncSession, repos: Repositories) -> None:
        self._chat = chat
        self._session = session
        self._repos = repos
        self.tied: list[int] = []  # tickets this turn tied to the contact (``record``): told so in their history

    # ---- the contact ----------------------------------------------------------------------------
    @property
    def contact(self) -> ContactRef | None:
        """The contact this turn belongs to (a subscriber's chat always has one; others None)."""
        return ContactRef.kept(self._chat.state.data.get(CONTACT))

    async def record(
        self, subject: str, outcome: str | None, /, *, ticket: int | None = None, reference: str | None = None,
        deadline: Deadline | None = None,
    ) -> datetime | None:
        """Record against the contact what ``subject`` (a flow's name) came to: ``outcome`` (a word of
        ``flows.contacts``, or the flow's own, with its ``contacts.outcome_<word>`` text; None: only that
        the subject came up, as the engine records each flow a contact uses), the ``ticket``
        opened (tied to the contact), a ``reference`` staff search by (the ticket's protocol), and the
        ``deadline`` of what was not settled at once. Saved with the turn; when the deadline runs out
        (None without one, or outside a contact)."""
        contact = self.contact
        if contact is None:
            return None
        at = self._chat.coordinator.now()
        due = at + deadline.term if deadline is not None else None
        await self._repos.contacts.record(
            self._session, contact.id, subject, outcome, at=at, ticket_id=ticket, reference=reference,
            deadline=deadline.value if deadline is not None else None, due_at=due,
        )
        kept = self._chat.state.data[CONTACT]
        if subject not in kept.setdefault("subjects", []):
            kept["subjects"].append(subject)
        if ticket is not None:
            self.tied.append(ticket)
        return due

    async def identify(self, customer: int) -> None:
        """The contact so far, of a chat now linked to ``customer``, was this customer's too."""
        if (contact := self.contact) is not None:
            await self._repos.contacts.identify(self._session, contact.id, customer)

    async def history(self, years: int = KEPT_YEARS) -> list[Contact]:
        """The person's contacts of the last ``years`` years, newest first, with what each was about
        and came to: the linked customer's (whatever chat), else this chat's own."""
        chat = self._chat
        since = chat.coordinator.now() - timedelta(days=365 * years + years // 4 + 1)
        if chat.link is not None and chat.link.customer_code is not None:
            return await self._repos.contacts.history(self._session, customer_code=chat.link.customer_code, since=since)
        return await self._repos.contacts.history(self._session, chat_id=chat.chat_id, since=since)

    # ---- notices refused -------------------------------------------------------------------------
    async def opt_outs(self) -> set[str]:
        """The kinds of notice this chat asked not to receive (``ALL_KINDS``: every one)."""
        return await self._repos.opt_outs.of_chat(self._session, self._chat.chat_id)

    async def opt_out(self, kind: str) -> bool:
        """No more notices of ``kind`` (``ALL_KINDS``: none) for this chat; False when asked already."""
        return await self._repos.opt_outs.opt_out(self._session, self._chat.chat_id, kind, self._chat.coordinator.now())

    async def opt_in(self, kind: str) -> int:
        """Notices of ``kind`` (``ALL_KINDS``: every kind) for this chat again; how many opt-outs ended."""
        return await self._repos.opt_outs.opt_in(self._session, self._chat.chat_id, kind)

    # ---- watches ---------------------------------------------------------------------------------
    async def watch_outage(self, event_id: int) -> bool:
        return await self._repos.watches.watch(self._session, self._chat.chat_id, event_id)

    async def watch_restart(self, sessions: Collection[str], contracts: Collection[int | None]) -> None:
        """Look for the dropped ``sessions`` (of ``contracts``) to come back, after this turn and
        outside it (``flows.restarts``): every ``restart_poll_seconds`` for ``restart_wait_seconds``;
        the chat hears the outcome then. Saved with the turn."""
        chat = self._chat
        now, policy = chat.coordinator.now(), chat.policy
        await self._repos.restarts.watch(
            self._session, chat.chat_id, chat.customer, sessions=sessions, contracts=contracts, at=now,
            first_look=now + timedelta(seconds=policy.restart_poll_seconds),
            give_up_at=now + timedelta(seconds=policy.restart_wait_seconds),
        )

    # ---- bills contested, trust unblocks ---------------------------------------------------------
    async def record_contest(self, document: int, *, ticket: int | None, protocol: str | None) -> None:
        """Remember the customer contested this bill (its number), so every list marks it."""
        chat = self._chat
        await self._repos.contested.record(self._session, customer_code=chat.customer, document=document,
                                           chat_id=chat.chat_id, ticket_id=ticket, protocol=protocol,
                                           at=chat.coordinator.now())

    async def contested_bills(self, documents: Iterable[int]) -> dict[int, ContestedBill]:
        """The customer's bills among these numbers that were contested in the chat (latest contest)."""
        return await self._repos.contested.of(self._session, self._chat.customer, documents)

    async def last_trust_unblock(self, contract: int) -> datetime | None:
        return await self._repos.unblocks.last(self._session, contract)

    async def record_trust_unblock(self, contract: int) -> None:
        await self._repos.unblocks.record(
            self._session, customer_code=self._chat.customer, contract=contract, chat_id=self._chat.chat_id,
        )

    # ---- forgetting ------------------------------------------------------------------------------
    async def forget_chat(self) -> None:
        """Delete what the bot holds of this chat that no rule requires keeping: its links (past ones
        too), its outage and restart watches, its notices and opt-outs, its language, the messages kept
        for the staff's card and where it stood. The contact history stays for its legal term (``KEPT_YEARS``)."""
        chat, session, repos = self._chat, self._session, self._repos
        await repos.links.forget(session, chat.chat_id)
        await repos.watches.forget(session, chat.chat_id)
        await repos.restarts.forget(session, chat.chat_id)
        await repos.opt_outs.forget(session, chat.chat_id)
        await repos.notices.forget(session, chat.chat_id)
        chat.link = None
        chat.state.language = None
        chat.state.data.pop(LANGUAGE_GUESSED, None)
        chat.state.current_ticket = None
        chat.state.data[RECENT] = []
        chat.data.clear()
