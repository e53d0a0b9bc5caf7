"""The staff desk's part of the engine's turns (``flows.desk``): the jobs a subscriber's turn writes
for the desk (a handoff opens a conversation and posts its card, the person's words are relayed;
a desk that follows every chat gets all of it), what a staff member's event may do to the
subscriber's chat (``DeskWork``, handed to the staff's handler, ``flows.staff.desk``), and the
queue's "your place in line" notices. Jobs are written in the turn's transaction; the desk is
called only after it committed (``bot.desks.worker``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from bot.i18n import DEFAULT_LANGUAGE, Translations
from bot.store import (
    ChatState,
    ChatStates,
    DeskJobKind,
    DeskJobs,
    Handoffs,
    Link,
    NewDeskJob,
    NewMessage,
    Origin,
    Outbox,
    StaffHandoff,
)
from sqlalchemy.ext.asyncio import AsyncSession

from flows.context import Context
from flows.desk import (
    Attachment,
    CloseConversation,
    DeskChat,
    DeskJob,
    DeskPost,
    OpenConversation,
    PostKind,
    PostMessage,
    StaffMember,
    job_payload,
)
from flows.events import StaffEvent
from flows.policy import Policy
from flows.queue import open_now, pace_minutes
from flows.replies import Handoff, Message, Notice, Reply, ToStaff, notice

STAFF_LANGUAGE = DEFAULT_LANGUAGE  # what the bot says to the staff, whatever the subscriber speaks
SHOWN = ("tax_id",)  # what of a handoff's summary a desk may show beside the conversation


@dataclass(frozen=True, slots=True)
class DeskStores:
    handoffs: Handoffs
    jobs: DeskJobs
    outbox: Outbox
    states: ChatStates


def desk_chat(
    translations: Translations, chat_id: int, *, channel: str, language: str, handoff: StaffHandoff | None,
    link: Link | None, name: str | None = None,
) -> DeskChat:
    """The chat as a desk job tells it: the name staff see is the person's own on their channel, else
    their customer code, else "not identified"."""
    identified = handoff.identified if handoff is not None else link is not None and link.customer_code is not None
    customer = handoff.customer_code if handoff is not None else link.customer_code if link is not None else None
    if not name:
        name = str(customer) if identified else translations.render(STAFF_LANGUAGE, "human.unidentified_name")
    return DeskChat(
        chat_id=chat_id, channel=channel, language=language, name=name,
        ticket_id=handoff.ticket_id if handoff is not None and handoff.identified else None,
        customer_code=customer if identified else None, contract=link.contract if link is not None else None,
    )


def new_job(chat: DeskChat, handoff: StaffHandoff | None, job: DeskJob) -> NewDeskJob:
    kind, payload = job_payload(chat, job)
    return NewDeskJob(chat.chat_id, handoff.id if handoff is not None else None, DeskJobKind(kind), payload)


def turn_jobs(
    chat: DeskChat, handoff: StaffHandoff | None, said: str, replies: Sequence[Reply], *, follows_every_chat: bool,
    file: Attachment | None = None,
) -> list[NewDeskJob]:
    """The desk jobs of a subscriber's turn, in order: a ``Handoff`` opens the conversation and posts
    its card; a ``ToStaff`` relays the person's words (a medium as its message, to copy). A desk that
    follows every chat also gets the person's words and the bot's answers of every other turn.
    ``file``: the photo or document the person sent this turn, for a desk that attaches files."""
    jobs: list[DeskJob] = []
    relayed = any(isinstance(reply, ToStaff) for reply in replies)
    if follows_every_chat and not relayed and said:
        jobs.append(PostMessage(DeskPost(PostKind.SUBSCRIBER, said, chat.name, file)))
    for reply in replies:
        if isinstance(reply, Handoff) and handoff is not None:
            shown = tuple((key, value) for key, value in reply.summary.items() if key in SHOWN and value)
            chat = replace(chat, attributes=chat.attributes + shown)
            jobs.append(OpenConversation(reply.summary.get("title", ""), reply.reason))
            if reply.summary.get("card"):
                jobs.append(PostMessage(DeskPost(PostKind.CARD, reply.summary["card"])))
        elif isinstance(reply, ToStaff) and handoff is not None:
            held = file if reply.kind is not None else None
            if held is None and reply.kind is not None and reply.message_id is not None:
                held = Attachment(chat.channel, chat.chat_id, reply.message_id, reply.kind)
            jobs.append(PostMessage(DeskPost(PostKind.SUBSCRIBER, reply.text, chat.name, held)))
        elif follows_every_chat and isinstance(reply, Message):
            jobs.append(PostMessage(DeskPost(PostKind.BOT, reply.text)))
    return [new_job(chat, handoff, job) for job in jobs]


class DeskWork:
    """What a staff member's event may do, for the staff's handler: who acts (``staff``, and the ISP
    user they act as), the handoff it is about, private posts to the staff (``note``), the ticket's
    history (``mirror_*``) and handing the chat back to the bot. The subscriber hears what the
    handler says through its ``Context`` (sent to their own channel as notices)."""

    def __init__(
        self, session: AsyncSession, stores: DeskStores, translations: Translations, *, handoff: StaffHandoff,
        staff: StaffMember, system_user: str, chat: DeskChat,
    ) -> None:
        self._session = session
        self._stores = stores
        self._translations = translations
        self.handoff = handoff
        self.staff = staff
        self.system_user = system_user
        self.chat = chat
        self.jobs: list[NewDeskJob] = []

    @property
    def identified(self) -> bool:
        """Whether the person is a linked customer with a ticket (else nothing reaches the ISP)."""
        return self.handoff.identified

    @property
    def ticket_id(self) -> int:
        return self.handoff.ticket_id

    @property
    def customer_code(self) -> int:
        return self.handoff.customer_code

    def text(self, key: str, /, **variables: object) -> str:
        return self._translations.render(STAFF_LANGUAGE, key, **variables)

    def note(self, key: str, /, **variables: object) -> None:
        """Say something to the staff in the conversation, privately: never relayed to the person."""
        self._job(PostMessage(DeskPost(PostKind.NOTE, self.text(key, **variables))))

    def bot_said(self, texts: Sequence[str]) -> None:
        """What the bot told the person in this event (handing the chat back), shown as the bot's
        messages before the conversation is closed (desks that follow every chat)."""
        posts = [new_job(self.chat, self.handoff, PostMessage(DeskPost(PostKind.BOT, text))) for text in texts]
        at = next((n for n, job in enumerate(self.jobs) if job.kind is DeskJobKind.CLOSE), len(self.jobs))
        self.jobs[at:at] = posts

    def posted_reply(self, text: str) -> None:
        """Show a staff member's reply as the person got it (desks that do not show it by themselves)."""
        self._job(PostMessage(DeskPost(PostKind.STAFF, text, self.staff.name)))

    async def answered(self) -> None:
        """A staff member spoke to the person: they are no longer waiting in line."""
        await self._stores.handoffs.answered(self._session, self.handoff.id)

    async def mirror_staff(self, content: str) -> None:
        await self._mirror(content, Origin.ATTENDANT)

    async def mirror_system(self, content: str) -> None:
        await self._mirror(content, Origin.SYSTEM)

    async def hand_back(self, state: ChatState, *, resolved: bool) -> None:
        """End the handoff: the person's next message is the bot's again; the desk closes the
        conversation (``resolved``: its ticket was finished, which ends the chat's ticket too)."""
        await self._stores.handoffs.close(self._session, self.handoff.id)
        state.flow = state.step = None
        if resolved:
            state.current_ticket = None
        self._job(CloseConversation(resolved))

    async def write_jobs(self) -> bool:
        """Queue the desk jobs this event made; whether there were any."""
        if self.jobs:
            await self._stores.jobs.enqueue(self._session, self.jobs)
        return bool(self.jobs)

    def _job(self, job: DeskJob) -> None:
        self.jobs.append(new_job(self.chat, self.handoff, job))

    async def _mirror(self, content: str, origin: Origin) -> None:
        if not self.identified:
            return  # a person linked to no customer has no ticket: nothing of it goes to the ISP
        await self._stores.outbox.enqueue(self._session, [NewMessage(
            ticket_id=self.ticket_id, customer=self.customer_code, record=datetime.now(UTC),
            attendant=self.system_user, content=content, origin=origin,
        )])


# What ``flows.staff`` does with a staff member's event (``RoleFlows.desk``); the ``Context`` is
# the subscriber's chat's, so what it says goes to the person.
DeskHandler = Callable[[Context, DeskWork, StaffEvent], Awaitable[None]]


async def waiting_notices(
    session: AsyncSession, stores: DeskStores, translations: Translations, *, now: datetime, wait: timedelta,
    policy: Policy,
) -> list[Notice]:
    """Tell each subscriber nobody answered for ``wait`` (once) their place and the expected wait, at
    the desk's own pace (``flows.queue``); outside the desk's hours nobody is told (they heard when
    it opens as they asked)."""
    if not open_now(policy.desk_hours, now):
        return []
    minutes_each = await pace_minutes(session, stores.handoffs, policy, now)
    notices: list[Notice] = []
    for ahead, case in enumerate(await stores.handoffs.unanswered(session)):
        if case.waiting_told_at is not None or now - case.opened_at < wait:
            continue
        if not await stores.handoffs.told_waiting(session, case.id, now):
            continue  # another process told them meanwhile
        language = (await stores.states.load(session, case.chat_id)).language or DEFAULT_LANGUAGE
        notices.append(notice(translations, case.chat_id, language, "queue_position", "human.waiting", ahead=ahead,
                              minutes=minutes_each * (ahead + 1)))
    return notices
