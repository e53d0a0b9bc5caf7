"""``Context``: everything a step may use, and the only way it speaks.

A step says things (``say``), asks the next question (``ask``, ``ask_location``, ``ask_contact``),
moves to another flow (``switch``) or back to the menu (``to_menu``), and reads or changes what the
bot knows of the chat (its link, its current ticket, its language). The ISP is reached through
``ctx.coordinator`` (the coordinator); a write whose outcome may be unknown goes through
``ctx.write_once`` or ``ctx.write_state`` (``flows.writes``). The database session belongs to the
engine: the few store operations flows need are methods here (and ``Role`` is named here), so a flow
never imports the storage layer. What a contact came to is recorded with ``record`` (``flows.contacts``).
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from bot import metrics
from bot.acs import AcsClient
from bot.i18n import CHANNEL_NAMES, DEFAULT_LANGUAGE, LANGUAGES, Translations, pick_language, plain_text
from bot.store import KEPT_YEARS as KEPT_YEARS  # noqa: PLC0414 - re-exported: the history's legal term
from bot.store import UNIDENTIFIED as UNIDENTIFIED  # noqa: PLC0414 - re-exported for the flows, as Role
from bot.store import (
    ChatState,
    ChatStates,
    Contacts,
    ContestedBill,
    ContestedBills,
    Database,
    Handoffs,
    Inbox,
    InviteError,
    Invites,
    Link,
    LinkAttempts,
    Links,
    NoticeClaims,
    NoticeOptOuts,
    OutageWatches,
    Proof,
    Reservation,
    RestartWatches,
    TrustUnblocks,
    utcnow,
)
from bot.store import Contact as Contact  # noqa: PLC0414 - re-exported: a contact of the history
from bot.store import Role as Role  # noqa: PLC0414 - re-exported: flows name roles here, never through the store
from bot.store.channels import WHATSAPP, WHATSAPP_WINDOW, channel_of_chat
from sqlalchemy.ext.asyncio import AsyncSession

from flows.contacts import CONTACT, LINKED, UNLINKED, ContactRef, Deadline
from flows.coordinator import IspCoordinator
from flows.files import FileSource, FileUnavailable
from flows.identity import target_ref
from flows.policy import Policy
from flows.queue import Expectation, expectation
from flows.replies import (
    AskContact,
    AskLocation,
    Button,
    Document,
    Handoff,
    Message,
    Notice,
    Reply,
    RoleMenu,
    ToStaff,
    Upload,
    notice,
)
from flows.steps import Option
from flows.writes import WriteOnce, WriteState

S = TypeVar("S")  # what a state-setting write reads back

# Keys of ChatState.data: the flow's own data, the pending question and its buttons' values.
FLOW_DATA = "flow"
PROMPT = "prompt"
CHOICES = "choices"
MISSES = "misses"
RECENT = "recent"  # the person's last few messages, in words: the staff's card shows them
RECENT_KEPT = 5
TOKEN_BYTES = 6  # a button's token: 8 characters, so callback data stays far under Telegram's 64 bytes
# When this chat last recorded a failed link attempt (ISO time), or None once its failures were
# counted and there were none: a chat that never failed is not counted again on every turn. Only the
# chat's own turns record its failures (``record_link_attempt``, in the transaction that saves this),
# and clearing locks only removes failures, so the marker never hides one.
LINK_FAILED = "link_failed"
# The chat's language was guessed from its text, not set (``flows.chat_language``): kept across flows.
LANGUAGE_GUESSED = "language_guessed"


class InviteRefused(Exception):
    """An invite code that cannot be used; ``reason`` says why, for the logs (unknown, used, expired,
    revoked): the person is told one plain thing."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Repositories:
    links: Links
    attempts: LinkAttempts
    watches: OutageWatches
    unblocks: TrustUnblocks
    invites: Invites
    states: ChatStates
    handoffs: Handoffs
    contacts: Contacts = field(default_factory=Contacts)
    restarts: RestartWatches = field(default_factory=RestartWatches)
    opt_outs: NoticeOptOuts = field(default_factory=NoticeOptOuts)
    notices: NoticeClaims = field(default_factory=NoticeClaims)
    contested: ContestedBills = field(default_factory=ContestedBills)


class Context:
    def __init__(
        self, *, state: ChatState, link: Link | None, session: AsyncSession, repos: Repositories,
        coordinator: IspCoordinator, policy: Policy, translations: Translations, client_language: str | None,
        menu: Sequence[str] = (), message_id: int | None = None, sender_name: str | None = None,
        files: FileSource | None = None, database: Database | None = None,
        reservations: list[int] | None = None, proved_phone: str | None = None, asks_contact: bool = True,
        channel: str = "telegram", acs: AcsClient | None = None,
    ) -> None:
        self.state = state
        self.link = link
        self.coordinator = coordinator
        self.policy = policy
        self._session = session
        self._repos = repos
        self.notices_held = 0  # notices of this turn WhatsApp will hold (outside its window, no template)
        self._translations = translations
        self._client_language = client_language
        self.menu = menu  # the names of the flows the menu offers, in order
        self.message_id = message_id  # the channel's reference of the message being handled
        self.sender_name = sender_name  # the name the person gave the channel (Telegram's first name), if any
        self.proved_phone = proved_phone  # the sender's own number, vouched for by the channel (WhatsApp)
        self.asks_contact = asks_contact  # the channel can ask for the person's own contact (Telegram)
        # The channel deletes the person's message of a secret once the turn used it (Telegram's
        # deleteMessage; WhatsApp cannot delete what a person sent, the terminal shows what was typed).
        self.deletes_messages = channel == "telegram"
        self.channel_name = CHANNEL_NAMES.get(channel, CHANNEL_NAMES["telegram"])  # texts' {{ channel }}
        self.replies: list[Reply] = []
        self.notices: list[Notice] = []  # messages for other chats (a subscriber told of a visit)
        self.staff_notices: list[str] = []  # words for the staff desk about this chat (``tell_staff``)
        self.next_flow: str | None = None  # set by switch(): the engine begins it after this step
        self.next_data: dict[str, Any] = {}  # what switch() hands the next flow (its ``data``)
        self._files = files
        self.acs = acs  # the ISP's ACS (GenieACS's NBI, ``bot.acs``), None when there is none
        # Where a link attempt is counted before the ISP is asked, in a transaction of its own
        # (``begin_link_attempt``), and the attempts so counted in this turn, for the engine to take
        # back if the turn ends without an answer.
        self._database = database
        self.reservations = reservations if reservations is not None else []
        self._attempt: Reservation | None = None
        self.tied: list[int] = []  # tickets this turn tied to the contact (``record``): told so in their history

    # ---- who and where ---------------------------------------------------------------------------
    @property
    def chat_id(self) -> int:
        return self.state.chat_id

    @property
    def language(self) -> str:
        return self.state.language or pick_language(self._client_language)

    @property
    def data(self) -> dict[str, Any]:
        """The current flow's own data (JSON values only); emptied when another flow begins."""
        flow_data: dict[str, Any] = self.state.data.setdefault(FLOW_DATA, {})
        return flow_data

    @property
    def system_user(self) -> str:
        """The ISP system user a technician's or staff member's chat speaks for."""
        if self.link is None or self.link.system_user is None:
            raise LookupError("this chat is not linked to a system user")
        return self.link.system_user

    @property
    def customer(self) -> int:
        """The linked customer's code (flows with ``requires_link`` always have one)."""
        if self.link is None or self.link.customer_code is None:
            raise LookupError("this chat is not linked to a customer")
        return self.link.customer_code

    # ---- speaking --------------------------------------------------------------------------------
    def text(self, key: str, /, **variables: Any) -> str:
        return self._translations.render(self.language, key, **{"channel": self.channel_name, **variables})

    def text_or(self, key: str, default: str, /, **variables: Any) -> str:
        """``text``, or ``default`` where no template ``key`` exists (a name another part recorded)."""
        return self.text(key, **variables) if self._translations.has(key) else default

    def say(self, key: str, /, **variables: Any) -> None:
        self.replies.append(Message(self.text(key, **variables)))

    def ask(self, step: str, key: str, /, options: list[Option] | None = None, *, columns: int = 1,
            **variables: Any) -> None:
        """Ask a question and wait in ``step`` for the answer (a button of ``options``, or text)."""
        choices: dict[str, Any] = {}
        buttons: list[Button] = []
        offered = list(options or [])
        randomness = secrets.token_bytes(TOKEN_BYTES * len(offered))  # one system call for them all
        for index, option in enumerate(offered):
            token = _token(randomness[index * TOKEN_BYTES : (index + 1) * TOKEN_BYTES])
            choices[token] = [option.value, self._label(option)]
            buttons.append(Button(choices[token][1], token))
        rows = tuple(tuple(buttons[i : i + columns]) for i in range(0, len(buttons), columns))
        message = Message(self.text(key, **variables), rows)
        self.replies.append(message)
        self.state.step = step
        self.state.data[CHOICES] = choices
        self.state.data[PROMPT] = {
            "kind": "message", "text": message.text, "buttons": [[[b.label, b.token] for b in row] for row in rows],
        }

    def ask_location(self, step: str, key: str, /, **variables: Any) -> None:
        reply = AskLocation(self.text(key, **variables), self.text("common.button_share_location"))
        self._wait(step, reply, {"kind": "location", "text": reply.text, "button": reply.button})

    def ask_contact(self, step: str, key: str, /, **variables: Any) -> None:
        reply = AskContact(self.text(key, **variables), self.text("common.button_share_contact"))
        self._wait(step, reply, {"kind": "contact", "text": reply.text, "button": reply.button})

    def document(self, url: str, caption_key: str, /, **variables: Any) -> None:
        self.replies.append(Document(url, self.text(caption_key, **variables)))

    def upload(self, kind: str, data: bytes, filename: str, caption_key: str, /, **variables: Any) -> None:
        """Send a file made or fetched in this turn (``kind``: "photo" or "document")."""
        self.replies.append(Upload(kind, data, filename, self.text(caption_key, **variables)))

    async def fetch_file(self, ref: str, *, limit: int) -> bytes:
        """A file the person sent (see ``flows.files``): held for one call, never stored."""
        if self._files is None:
            raise FileUnavailable("this channel cannot fetch files")
        return await self._files.fetch(ref, limit=limit)

    def handoff(self, reason: str, **summary: str) -> None:
        """Ask for a person; the staff side (when configured) opens a topic with this summary."""
        self.replies.append(Handoff(reason=reason, ticket=self.state.current_ticket, summary=summary))

    def relay(self, text: str, kind: str | None = None) -> None:
        """Pass what the person said to the staff member handling the conversation (no reply here);
        a ``kind`` of media is copied as the person sent it."""
        self.replies.append(ToStaff(text, self.message_id if kind else None, kind))

    def tell_staff(self, key: str, /, **variables: Any) -> None:
        """Tell the staff desk something about this person (a cancel, a suspension), in the staff's
        language: a desk job written with the turn (``flows.desk.StaffNotice``); nothing without a desk."""
        self.staff_notices.append(self.render_in(DEFAULT_LANGUAGE, key, **variables))

    def render_in(self, language: str, key: str, /, **variables: Any) -> str:
        """A template in a given language (the staff's, say), not the chat's."""
        return self._translations.render(language, key, **{"channel": self.channel_name, **variables})

    def wait(self, step: str) -> None:
        """Wait in ``step`` without asking anything (a person answers from now on)."""
        self.state.step = step
        self.state.data[CHOICES] = {}
        self.state.data[PROMPT] = None

    @property
    def recent(self) -> list[str]:
        """The person's last few messages, oldest first."""
        return list(self.state.data.get(RECENT, []))

    async def open_handoff(self, ticket: int) -> bool:
        """Record that the conversation (of ticket ``ticket``) waits for a person; False when it already did.
        A chat linked to no customer hands over with ``UNIDENTIFIED`` as its ticket: it has none."""
        customer = self.link.customer_code if self.link is not None else None
        _, new = await self._repos.handoffs.open(self._session, self.chat_id, ticket_id=ticket,
                                                 customer_code=UNIDENTIFIED if customer is None else customer)
        return new

    async def say_expectation(self, *, queued: bool) -> None:
        """Tell the person what to expect of the staff (``flows.queue``): outside the desk's hours, when
        it opens; open, their place in line and the wait (``queued``: in the desk's line, else a
        ticket answered from the ISP system, with no line to tell); the hours when they are known."""
        now = self.coordinator.now()
        if queued:
            expected = await expectation(self._session, self._repos.handoffs, self.policy, self.chat_id, now)
        else:
            hours = self.policy.desk_hours
            closed = hours is not None and not hours.open_at(now)
            expected = Expectation(None if hours is None else not closed, 0, 0,
                                   hours.next_opening(now) if hours is not None and closed else None)
        if queued or expected.open is not None:
            self.say("human.expect", queued=queued, **expected.said(now, self.policy.support_hours))

    async def notify_customer(self, customer: int, kind: str, key: str, /, **variables: Any) -> int:
        """Tell every chat linked to ``customer`` something (a notice of ``kind``: ``flows.replies.Notice``),
        each in its own language; how many chats will hear it now. Sent with this turn's answer (and only
        if the turn is saved). A WhatsApp chat whose person last wrote more than 24 hours ago, for a
        kind with no template there, is not counted: its notice is held until they write."""
        chats = await self._repos.links.chats_for_customer(self._session, customer)
        heard = 0
        for chat_id in chats:
            state = await self._repos.states.load(self._session, chat_id)
            language = state.language or DEFAULT_LANGUAGE
            self.notices.append(notice(self._translations, chat_id, language, kind, key, **variables))
            if await self._held(chat_id, kind):
                self.notices_held += 1
            else:
                heard += 1
        return heard

    async def _held(self, chat_id: int, kind: str) -> bool:
        """Whether WhatsApp will hold a notice of ``kind`` to this chat now (outside its window)."""
        if kind not in self.policy.held_outside_window or channel_of_chat(chat_id) != WHATSAPP:
            return False
        last = await Inbox().last_received(self._session, chat_id, channel=WHATSAPP)
        return last is None or utcnow() - last >= WHATSAPP_WINDOW

    def tell(self, kind: str, key: str, /, **variables: Any) -> None:
        """Say something to this chat as a notice of ``kind`` (a staff member's turn, not the person's)."""
        self.notices.append(notice(self._translations, self.chat_id, self.language, kind, key,
                                   **{"channel": self.channel_name, **variables}))

    # ---- the contact ----------------------------------------------------------------------------
    @property
    def contact(self) -> ContactRef | None:
        """The contact this turn belongs to (a subscriber's chat always has one; others None)."""
        return ContactRef.kept(self.state.data.get(CONTACT))

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
        at = self.coordinator.now()
        due = at + deadline.term if deadline is not None else None
        await self._repos.contacts.record(
            self._session, contact.id, subject, outcome, at=at, ticket_id=ticket, reference=reference,
            deadline=deadline.value if deadline is not None else None, due_at=due,
        )
        kept = self.state.data[CONTACT]
        if subject not in kept.setdefault("subjects", []):
            kept["subjects"].append(subject)
        if ticket is not None:
            self.tied.append(ticket)
        return due

    async def contact_history(self, years: int = KEPT_YEARS) -> list[Contact]:
        """The person's contacts of the last ``years`` years, newest first, with what each was about
        and came to: the linked customer's (whatever chat), else this chat's own."""
        since = self.coordinator.now() - timedelta(days=365 * years + years // 4 + 1)
        if self.link is not None and self.link.customer_code is not None:
            return await self._repos.contacts.history(self._session, customer_code=self.link.customer_code, since=since)
        return await self._repos.contacts.history(self._session, chat_id=self.chat_id, since=since)

    async def notice_opt_outs(self) -> set[str]:
        """The kinds of notice this chat asked not to receive (``ALL_KINDS``: every one)."""
        return await self._repos.opt_outs.of_chat(self._session, self.chat_id)

    async def opt_out_of_notices(self, kind: str) -> bool:
        """No more notices of ``kind`` (``ALL_KINDS``: none) for this chat; False when asked already."""
        return await self._repos.opt_outs.opt_out(self._session, self.chat_id, kind, self.coordinator.now())

    async def opt_in_to_notices(self, kind: str) -> int:
        """Notices of ``kind`` (``ALL_KINDS``: every kind) for this chat again; how many opt-outs ended."""
        return await self._repos.opt_outs.opt_in(self._session, self.chat_id, kind)

    async def forget_chat(self) -> None:
        """Delete what the bot holds of this chat that no rule requires keeping: its links (past ones
        too), its outage and restart watches, its notices and opt-outs, its language, the messages kept
        for the staff's card and where it stood. The contact history stays for its legal term (``KEPT_YEARS``)."""
        await self._repos.links.forget(self._session, self.chat_id)
        await self._repos.watches.forget(self._session, self.chat_id)
        await self._repos.restarts.forget(self._session, self.chat_id)
        await self._repos.opt_outs.forget(self._session, self.chat_id)
        await self._repos.notices.forget(self._session, self.chat_id)
        self.link = None
        self.state.language = None
        self.state.data.pop(LANGUAGE_GUESSED, None)
        self.state.current_ticket = None
        self.state.data[RECENT] = []
        self.data.clear()

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

    # ---- moving ----------------------------------------------------------------------------------
    def switch(self, flow: str, **data: Any) -> None:
        """Leave this flow; the engine begins ``flow`` right after this step, ``data`` (JSON values)
        as its data."""
        self.next_flow, self.next_data = flow, data

    def to_menu(self) -> None:
        self.switch("menu")

    # ---- what the bot knows of the chat ----------------------------------------------------------
    def set_language(self, language: str) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}")
        self.state.language = language
        self.state.data.pop(LANGUAGE_GUESSED, None)  # chosen: no text changes it any more

    @property
    def current_ticket(self) -> int | None:
        return self.state.current_ticket

    def set_current_ticket(self, ticket: int | None) -> None:
        """The ticket this conversation belongs to: its messages are mirrored into it from now on."""
        self.state.current_ticket = ticket

    async def link_customer(self, customer: int, proof: str, *, authentication: int | None = None,
                            contract: int | None = None) -> None:
        """Link the chat to a customer it proved to be; ``proof`` is "contact_phone" or "pppoe_password"."""
        self.link = await self._repos.links.link(
            self._session, self.chat_id, role=Role.SUBSCRIBER, proof=Proof(proof), customer_code=customer,
            authentication_id=authentication, contract=contract,
        )
        if (contact := self.contact) is not None:  # the contact so far was this customer's too
            await self._repos.contacts.identify(self._session, contact.id, customer)
            await self.record(self.state.flow or "link", LINKED)

    async def redeem_invite(self, code: str) -> tuple[Role, str]:
        """Use a single-use invite for this chat: the role and system user it was issued for.
        Raises ``InviteRefused`` (unknown, used, expired, revoked)."""
        try:
            invite = await self._repos.invites.redeem(self._session, code, self.chat_id)
        except InviteError as exc:
            raise InviteRefused(type(exc).__name__) from exc
        return invite.role, invite.system_user

    async def link_system_user(self, role: Role, system_user: str) -> None:
        """Make this chat the chat of an ISP system user (after an invite); its role changes now."""
        self.link = await self._repos.links.link(
            self._session, self.chat_id, role=role, proof=Proof.INVITE, system_user=system_user,
        )
        self.state.role = role
        self.state.current_ticket = None
        self.replies.append(RoleMenu(role.value, self.language))

    async def choose_contract(self, contract: int) -> None:
        await self._repos.links.choose_contract(self._session, self.chat_id, contract)
        self.link = await self._repos.links.active(self._session, self.chat_id)

    async def unlink(self) -> bool:
        self.link = None
        self.state.current_ticket = None
        unlinked = await self._repos.links.unlink(self._session, self.chat_id)
        if unlinked:
            await self.record(self.state.flow or "unlink", UNLINKED)
        return unlinked

    async def recent_link_failures(self) -> int:
        since = utcnow() - self.policy.link_window
        marker = self.state.data.get(LINK_FAILED, "")
        if marker is None or (marker and datetime.fromisoformat(marker) < since):
            self.state.data[LINK_FAILED] = None
            return 0  # none since they were last counted, or only older than the window
        failures = await self._repos.attempts.failures_since(self._session, self.chat_id, since)
        if failures == 0:
            self.state.data[LINK_FAILED] = None
        return failures

    def link_target(self, kind: str, value: str) -> str:
        """How the person a link attempt tries (a tax id, a PPPoE login) is named in the database."""
        return target_ref(self.policy.link_target_key, kind, value)

    async def link_locked(self, target: str | None = None) -> bool:
        """Linking is locked for this chat, or for the person ``target`` names (whatever chat tried)."""
        if await self.recent_link_failures() >= self.policy.link_max_failures:
            return True
        return target is not None and await self._target_failures(target) >= self.policy.link_target_max_failures

    async def begin_link_attempt(self, target: str | None = None) -> bool:
        """Count an attempt at proving who this chat is (at the person ``target`` names) before the
        ISP is asked, or False, counting nothing, when the chat or the target is locked.

        Counted atomically in a short transaction of its own, committed at once (not the turn's,
        which holds the chat while the ISP answers): however many chats try one person at the same
        moment, no more get through than the limit. The attempt is a failure until
        ``record_link_attempt(True)`` says otherwise; the engine takes it back if the turn fails.
        """
        at = utcnow()

        async def reserve(session: AsyncSession) -> Reservation | None:
            return await self._repos.attempts.reserve(
                session, self.chat_id, target, since=at - self.policy.link_window, at=at,
                chat_limit=self.policy.link_max_failures, target_limit=self.policy.link_target_max_failures,
            )

        if self._database is None or self._database.single_connection:
            # One connection for everything (an in-memory SQLite): a transaction of its own would be
            # this one; the statement is atomic on SQLite by itself.
            reserved = await reserve(self._session)
        else:
            async with self._database.transaction() as session:
                reserved = await reserve(session)
        if reserved is None:
            return False
        self._attempt = reserved
        self.reservations.append(reserved.id)
        self.state.data[LINK_FAILED] = at.isoformat()  # a failure until settled
        return True

    async def record_link_attempt(self, succeeded: bool, target: str | None = None) -> None:
        """How an attempt went: the one ``begin_link_attempt`` counted, or (none counted) a new one."""
        if self._attempt is not None:
            attempt, self._attempt = self._attempt, None
            await self._repos.attempts.settle(self._session, attempt.id, succeeded)
            if not succeeded:
                # The failure that reaches a limit engages a lock: counted once, when it happens.
                if attempt.chat_failures == self.policy.link_max_failures:
                    metrics.LINK_LOCKS.labels("chat").inc()
                if target is not None and attempt.target_failures == self.policy.link_target_max_failures:
                    metrics.LINK_LOCKS.labels(target.partition(":")[0]).inc()
            return
        at = utcnow()
        await self._repos.attempts.record(self._session, self.chat_id, succeeded, at=at, target=target)
        if succeeded:
            return
        self.state.data[LINK_FAILED] = at.isoformat()
        # The failure that reaches a limit engages a lock: counted once, when it happens.
        if await self.recent_link_failures() == self.policy.link_max_failures:
            metrics.LINK_LOCKS.labels("chat").inc()
        if target is not None and await self._target_failures(target) == self.policy.link_target_max_failures:
            metrics.LINK_LOCKS.labels(target.partition(":")[0]).inc()

    async def _target_failures(self, target: str) -> int:
        since = utcnow() - self.policy.link_window
        return await self._repos.attempts.target_failures_since(self._session, target, since)

    async def watch_outage(self, event_id: int) -> bool:
        return await self._repos.watches.watch(self._session, self.chat_id, event_id)

    async def watch_restart(self, sessions: Collection[str], contracts: Collection[int | None]) -> None:
        """Look for the dropped ``sessions`` (of ``contracts``) to come back, after this turn and
        outside it (``flows.restarts``): every ``restart_poll_seconds`` for ``restart_wait_seconds``;
        the chat hears the outcome then. Saved with the turn."""
        now, policy = self.coordinator.now(), self.policy
        await self._repos.restarts.watch(
            self._session, self.chat_id, self.customer, sessions=sessions, contracts=contracts, at=now,
            first_look=now + timedelta(seconds=policy.restart_poll_seconds),
            give_up_at=now + timedelta(seconds=policy.restart_wait_seconds),
        )

    async def record_contest(self, document: int, *, ticket: int | None, protocol: str | None) -> None:
        """Remember the customer contested this bill (its number), so every list marks it."""
        await self._repos.contested.record(self._session, customer_code=self.customer, document=document,
                                           chat_id=self.chat_id, ticket_id=ticket, protocol=protocol,
                                           at=self.coordinator.now())

    async def contested_bills(self, documents: Iterable[int]) -> dict[int, ContestedBill]:
        """The customer's bills among these numbers that were contested in the chat (latest contest)."""
        return await self._repos.contested.of(self._session, self.customer, documents)

    async def last_trust_unblock(self, contract: int) -> datetime | None:
        return await self._repos.unblocks.last(self._session, contract)

    async def record_trust_unblock(self, contract: int) -> None:
        await self._repos.unblocks.record(
            self._session, customer_code=self.customer, contract=contract, chat_id=self.chat_id,
        )

    # ---- internals -------------------------------------------------------------------------------
    def _label(self, option: Option) -> str:
        if option.key is not None:
            return plain_text(self.text(option.key, **option.vars))
        return option.text or ""

    def _wait(self, step: str, reply: Reply, prompt: dict[str, Any]) -> None:
        self.replies.append(reply)
        self.state.step = step
        self.state.data[CHOICES] = {}
        self.state.data[PROMPT] = prompt


def prompt_reply(prompt: dict[str, Any] | None) -> Reply | None:
    """The stored question, to ask again after a misunderstanding or an error."""
    if not prompt:
        return None
    kind = prompt.get("kind")
    if kind == "location":
        return AskLocation(prompt["text"], prompt["button"])
    if kind == "contact":
        return AskContact(prompt["text"], prompt["button"])
    rows = tuple(tuple(Button(label, token) for label, token in row) for row in prompt.get("buttons", []))
    return Message(prompt["text"], rows)


def _token(randomness: bytes) -> str:
    """A button's token from its random bytes, as ``secrets.token_urlsafe`` writes them."""
    return base64.urlsafe_b64encode(randomness).rstrip(b"=").decode("ascii")
