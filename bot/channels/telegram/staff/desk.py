"""The staff desk: one forum topic per handed-off conversation in the staff supergroup.

Subscriber side (called inside the subscriber's turn, so what it sends rides in that turn's answer):
a ``Handoff`` reply makes sure the conversation's topic exists (``createForumTopic``, named with the
protocol and the customer's name; reused while the handoff is open) and posts the card; each
``ToStaff`` reply is relayed into the topic, tagged with the subscriber's name (media are copied).

Staff side (``handle``, for updates in the group's topics): only chats linked as staff (through
``ispbot invite staff``) count; anybody else in the group is ignored. A message is relayed to the
subscriber tagged with the staff member's name and mirrored as origin A (attendant: their system
user) unless the person has no ticket (not linked); commands act on the ticket (``commands.py``).

Everything the desk sends is returned as Bot API calls for the caller to store with the update's
answer (sent once, re-sent after a crash); only ``createForumTopic`` is called at once, since the
topic's id is needed now. A crash right after it leaves an empty topic behind, never a lost handoff.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from flows.coordinator import IspCoordinator
from flows.events import Command, Contact, Incoming, Location, Media, Text, describe
from flows.policy import Policy
from flows.replies import Handoff, Reply, ToStaff
from sqlalchemy.ext.asyncio import AsyncSession

from bot.channels.telegram import raw
from bot.channels.telegram.render import ApiCall
from bot.channels.telegram.staff.commands import CommandContext, run_command
from bot.channels.telegram.staff.topic import Staff, Topic
from bot.i18n import DEFAULT_LANGUAGE, Translations, plain_text
from bot.store import ChatStates, Handoffs, Links, NewMessage, Origin, Outbox, Role, StaffHandoff
from telegram import Bot

log = logging.getLogger(__name__)

STAFF_LANGUAGE = DEFAULT_LANGUAGE
MAX_TOPIC_NAME = 128


class StaffDesk:
    def __init__(
        self, bot: Bot, coordinator: IspCoordinator, staff_chat_id: int, policy: Policy, translations: Translations,
    ) -> None:
        self.bot = bot
        self.coordinator = coordinator
        self.staff_chat_id = staff_chat_id
        self.policy = policy
        self.translations = translations
        self.handoffs = Handoffs()
        self.links = Links()
        self.states = ChatStates()
        self.outbox = Outbox()

    def text(self, key: str, /, **variables: object) -> str:
        return self.translations.render(STAFF_LANGUAGE, key, **variables)

    # ---- the subscriber's side -------------------------------------------------------------------
    async def calls_for(
        self, session: AsyncSession, incoming: Incoming, replies: Sequence[Reply],
    ) -> list[ApiCall]:
        """The staff-side calls of a subscriber's turn: a new handoff's topic and card, relays."""
        wanted = [reply for reply in replies if isinstance(reply, Handoff | ToStaff)]
        if not wanted:
            return []
        case = await self.handoffs.of_chat(session, incoming.chat_id)
        if case is None:
            return []
        calls: list[ApiCall] = []
        title = next((r.summary.get("title", "") for r in wanted if isinstance(r, Handoff)), "")
        topic = await self.topic(session, case, title)
        anonymous = str(case.customer_code) if case.identified else self.text("human.unidentified_name")
        name = incoming.sender_name or anonymous
        for reply in wanted:
            if isinstance(reply, Handoff) and reply.summary.get("card"):
                calls.append(topic.send(reply.summary["card"]))
            elif isinstance(reply, ToStaff):
                calls += self._relay_in(topic, incoming.chat_id, name, reply)
        return calls

    async def topic(self, session: AsyncSession, case: StaffHandoff, title: str = "") -> Topic:
        """The handoff's topic, created now if it has none yet."""
        if case.topic_id is not None:
            return Topic(self.staff_chat_id, case.topic_id)
        name = plain_text(title).strip() or f"#{case.ticket_id}"
        created = await raw.call(self.bot, "createForumTopic", {
            "chat_id": self.staff_chat_id, "name": name[:MAX_TOPIC_NAME],
        })
        thread_id = int(created["message_thread_id"])
        await self.handoffs.set_topic(session, case.id, thread_id)
        return Topic(self.staff_chat_id, thread_id)

    def _relay_in(self, topic: Topic, chat_id: int, name: str, said: ToStaff) -> list[ApiCall]:
        line = topic.send(self.text("human.from_subscriber", name=name, text=said.text))
        if said.message_id is None:
            return [line]
        copy = ApiCall("copyMessage", {
            "chat_id": topic.chat_id, "message_thread_id": topic.thread_id, "from_chat_id": chat_id,
            "message_id": said.message_id,
        })
        return [line, copy]

    # ---- the staff's side ------------------------------------------------------------------------
    async def handle(self, session: AsyncSession, incoming: Incoming, thread_id: int | None) -> list[ApiCall]:
        """A message in a topic of the staff group: relayed, or a command; ignored from non-staff."""
        if thread_id is None or incoming.sender_id is None:
            return []
        member = await self.links.active(session, incoming.sender_id)
        if member is None or member.role is not Role.STAFF or member.system_user is None:
            return []  # the group may hold others: only linked staff members act through it
        case = await self.handoffs.of_topic(session, thread_id)
        if case is None:
            return []
        topic = Topic(self.staff_chat_id, thread_id)
        staff = Staff(member.system_user, incoming.sender_name or member.system_user)
        if isinstance(incoming.event, Command):
            return await run_command(CommandContext(self, session, case, topic, staff), incoming.event)
        return await self._relay_out(session, case, staff, incoming)

    async def _relay_out(
        self, session: AsyncSession, case: StaffHandoff, staff: Staff, incoming: Incoming,
    ) -> list[ApiCall]:
        event = incoming.event
        if not isinstance(event, Text | Media | Location | Contact):
            return []
        said = event.text if isinstance(event, Text) else describe(event)
        language = await self.language_of(session, case.chat_id)
        line = self.translations.render(language, "human.from_staff", name=staff.name, text=said)
        calls = [ApiCall("sendMessage", {"chat_id": case.chat_id, "text": line, "parse_mode": "HTML"})]
        if not isinstance(event, Text) and incoming.message_id is not None:
            calls.append(ApiCall("copyMessage", {
                "chat_id": case.chat_id, "from_chat_id": self.staff_chat_id, "message_id": incoming.message_id,
            }))
        await self.mirror(session, case, said, Origin.ATTENDANT, staff.system_user)
        await self.handoffs.answered(session, case.id)
        return calls

    # ---- the queue ------------------------------------------------------------------------------------
    async def waiting_calls(
        self, session: AsyncSession, now: datetime, wait: timedelta, minutes_each: int,
    ) -> list[ApiCall]:
        """Tell each subscriber nobody answered for ``wait`` (once) their place and the expected wait."""
        calls: list[ApiCall] = []
        for ahead, case in enumerate(await self.handoffs.unanswered(session)):
            if case.waiting_told_at is not None or now - case.opened_at < wait:
                continue
            if not await self.handoffs.told_waiting(session, case.id, now):
                continue  # another process told them meanwhile
            language = await self.language_of(session, case.chat_id)
            text = self.translations.render(language, "human.waiting", ahead=ahead, minutes=minutes_each * (ahead + 1))
            calls.append(ApiCall("sendMessage", {"chat_id": case.chat_id, "text": text, "parse_mode": "HTML"}))
        return calls

    # ---- shared with the commands ------------------------------------------------------------------
    async def language_of(self, session: AsyncSession, chat_id: int) -> str:
        return (await self.states.load(session, chat_id)).language or DEFAULT_LANGUAGE

    async def mirror(self, session: AsyncSession, case: StaffHandoff, content: str, origin: Origin,
                     attendant: str) -> None:
        if not case.identified:
            return  # a person linked to no customer has no ticket: nothing of it goes to the ISP
        await self.outbox.enqueue(session, [NewMessage(
            ticket_id=case.ticket_id, customer=case.customer_code, record=datetime.now(UTC), attendant=attendant,
            content=content, origin=origin,
        )])

    async def hand_back(self, session: AsyncSession, case: StaffHandoff, *, ticket_closed: bool) -> None:
        """End the handoff: the subscriber's next message is the bot's again."""
        await self.handoffs.close(session, case.id)
        state, _ = await self.states.load_locked(session, case.chat_id)
        state.flow = state.step = None
        if ticket_closed:
            state.current_ticket = None
        await self.states.save(session, state)
