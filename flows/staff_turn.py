"""``StaffTurn``: a staff member's event at the desk, run for the subscriber's chat it is about.

The engine hands it every ``StaffEvent`` (``flows.events``: ``StaffReply``, ``StaffCommand``,
``Resolved``) and the desk jobs of a subscriber's turn. A staff event runs in a transaction of its
own, the subscriber's chat held: the staff's handler (``flows.staff.desk``) acts through a
``DeskWork``; what it says reaches the person on their own channel as notices, what it posts to the
desk becomes desk jobs (``flows.deskwork``), carried out after commit. Events of people who are not
staff, or about no open handoff, are recorded unanswered, but for a reply in a chat the bot serves,
which takes it over (``_take_over``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from bot.i18n import Translations
from bot.isp import IspApiError, IspTransportError
from bot.store import ChatState, Database, Link, Role, StaleStateError
from bot.store.channels import channel_of_chat
from sqlalchemy.ext.asyncio import AsyncSession

from flows.chat import Repositories
from flows.context import Context
from flows.desk import Attachment, DeskPost, PostKind, PostMessage, StaffMember, StaffNotice
from flows.deskwork import STAFF_LANGUAGE, DeskHandler, DeskStores, DeskWork, desk_chat, new_job, turn_jobs
from flows.events import Incoming, Media, Resolved, StaffCommand, StaffReply
from flows.policy import Policy
from flows.replies import Handoff, Message, Notice, ToStaff
from flows.turn import SAVE_ATTEMPTS, Within, follow_link, record_unsaved

log = logging.getLogger(__name__)

HUMAN = "human"  # the flow a staff member's reply takes a served chat over into

# The engine's own ways to a chat's turn, for the staff's events: the chat's context, and beginning
# one of its flows (``Engine._context``, ``Engine._begin``).
MakeContext = Callable[[ChatState, Link | None, AsyncSession, Incoming], Context]
BeginFlow = Callable[[Context, str, dict[str, object]], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class StaffTurn:
    database: Database
    repos: Repositories
    stores: DeskStores
    translations: Translations
    policy: Policy
    handler: DeskHandler | None  # what the staff's role does with an event (``RoleFlows.desk``)
    context: MakeContext
    begin: BeginFlow
    wrote_jobs: Callable[[], None]  # tells the desk worker to look (after commit)

    async def run(self, incoming: Incoming, within: Within | None) -> None:
        """A staff member's event at the desk, run for the subscriber's chat it is about: what the
        staff's handler (``flows.staff``) says goes to the person as notices (on their channel), what
        it posts to the desk becomes desk jobs. Events of people who are not staff, or about no open
        handoff, are recorded unanswered, but for a reply in a chat the bot serves (``_take_over``)."""
        for _ in range(SAVE_ATTEMPTS):
            try:
                async with self.database.transaction() as session:
                    jobs = await self._run(session, incoming, within)
                if jobs:
                    self.wrote_jobs()
                return
            except StaleStateError:
                log.info("chat state changed under a staff event; running it again")
        raise RuntimeError("the subscriber's chat kept changing under a staff event")

    async def jobs(self, session: AsyncSession, ctx: Context, incoming: Incoming, said: str) -> bool:
        """Queue what the staff desk must do after this subscriber's turn (``flows.deskwork``)."""
        policy = self.policy
        if not policy.staff_desk or ctx.state.role is not Role.SUBSCRIBER:
            return False
        # A desk that follows every chat gets a linked subscriber's: before the link, what a person types
        # is proof of identity (a tax id, a PPPoE password), never shown (as ``Engine``'s ``_worth_recalling``).
        follows = policy.desk_follows_every_chat and ctx.link is not None and ctx.link.role is Role.SUBSCRIBER
        asks_staff = any(isinstance(r, Handoff | ToStaff) for r in ctx.reply.replies)
        if not follows and not ctx.staff.notices and not asks_staff:
            return False
        handoff = await self.repos.handoffs.of_chat(session, ctx.chat_id)
        chat = desk_chat(self.translations, ctx.chat_id, channel=incoming.channel, language=ctx.language,
                         handoff=handoff, link=ctx.link, name=incoming.sender_name)
        event, file = incoming.event, None
        if isinstance(event, Media) and event.file is not None:  # a desk that attaches files fetches it
            file = Attachment(incoming.channel, incoming.chat_id, incoming.message_id or 0, event.kind,
                              event.file.ref, event.file.name, event.file.mime)
        jobs = turn_jobs(chat, handoff, said, ctx.reply.replies, follows_every_chat=follows, file=file)
        jobs += [new_job(chat, handoff, StaffNotice(text)) for text in ctx.staff.notices]
        if jobs:
            await self.stores.jobs.enqueue(session, jobs)
        return bool(jobs)

    async def _run(self, session: AsyncSession, incoming: Incoming, within: Within | None) -> bool:
        event = incoming.event
        assert isinstance(event, StaffReply | StaffCommand | Resolved)  # noqa: S101 - ``Engine.turn`` routed it here
        handoff = await self.repos.handoffs.of_desk_ref(session, event.ref)
        if handoff is None and self.policy.desk_follows_every_chat:
            # One conversation per chat: the chat's handoff, also while its conversation is being opened.
            handoff = await self.repos.handoffs.of_chat(session, incoming.chat_id)
        user = await self._staff_user(session, event.staff)
        took = False
        if self.handler is not None and handoff is None and user is not None and isinstance(event, StaffReply):
            took = await self._take_over(session, incoming, event)
            handoff = await self.repos.handoffs.of_chat(session, incoming.chat_id) if took else None
        if self.handler is None or handoff is None or user is None:
            await record_unsaved(session, within, [])
            return took
        state, link = await self.stores.states.load_locked(session, handoff.chat_id)
        follow_link(state, link)
        ctx = self.context(state, link, session, Incoming(handoff.chat_id, event))
        chat = desk_chat(self.translations, handoff.chat_id, channel="", language=ctx.language, handoff=handoff,
                         link=link)
        staff = event.staff if event.staff.name else replace(event.staff, name=user)
        work = DeskWork(session, self.stores, self.translations, handoff=handoff, staff=staff, system_user=user,
                        chat=chat)
        try:
            await self.handler(ctx, work, event)
        except IspTransportError as failed:  # the staff hear it at the desk; the subscriber hears nothing
            work.note("staff.isp_unsure" if failed.outcome_unknown else "staff.isp_unavailable", ticket=work.ticket_id)
        except IspApiError as refused:
            work.note("staff.isp_refused", reason=refused.description or str(refused.code))
        if self.policy.desk_follows_every_chat:  # the conversation shows what the bot told the person
            work.bot_said([notice.reply.text for notice in ctx.reply.notices
                           if notice.kind != "staff_answer" and isinstance(notice.reply, Message)])
        wrote = await work.write_jobs()
        # What the staff member said (``ctx.reply.tell``), then what came with it (a photo, a file).
        notices = ctx.reply.notices + [Notice(handoff.chat_id, reply, "staff_answer", language=ctx.language)
                                       for reply in ctx.reply.replies]
        answered = await within(session, [], notices) if within is not None else None
        await self.stores.states.save(session, ctx.state, answered=answered)
        return wrote or took

    async def _take_over(self, session: AsyncSession, incoming: Incoming, event: StaffReply) -> bool:
        """A staff member answers in the conversation of a chat the bot serves (a desk that follows every
        linked subscriber's chat): they take it over, as if the person had asked for them (``human``
        with ``taken_over``: its ticket, the conversation opened with the card; the person is not told
        "a person is coming", the reply itself comes next). Whether it wrote desk jobs: the handoff's,
        or the staff's word that its ticket could not be opened (nothing changes for the person).
        Nothing for a chat that is not such a chat."""
        chat_id = incoming.chat_id
        if not self.policy.desk_follows_every_chat:
            return False
        state, link = await self.stores.states.load_locked(session, chat_id)
        if state.role is not Role.SUBSCRIBER or link is None or link.customer_code is None:
            return False
        follow_link(state, link)
        taken = Incoming(chat_id, event, channel=incoming.channel or channel_of_chat(chat_id))
        ctx = self.context(state, link, session, taken)
        await self.begin(ctx, HUMAN, {"taken_over": event.staff.name})
        handoff = await self.repos.handoffs.of_chat(session, chat_id)
        if handoff is None:  # no ticket: the state is not saved; the agent hears why
            chat = desk_chat(self.translations, chat_id, channel=taken.channel, language=ctx.language,
                             handoff=None, link=link)
            note = DeskPost(PostKind.NOTE, self.translations.render(STAFF_LANGUAGE, "staff.take_over_failed"))
            await self.stores.jobs.enqueue(session, [new_job(chat, None, PostMessage(note))])
            return True
        await self.jobs(session, ctx, taken, said="")  # the desk opens the conversation: its ref then
        await self.stores.states.save(session, ctx.state)
        return True

    async def _staff_user(self, session: AsyncSession, staff: StaffMember) -> str | None:
        """The ISP user a staff member acts as; None for someone the bot does not count as staff."""
        if staff.chat_id is None:
            return staff.system_user or self.policy.isp_user
        member = await self.repos.links.active(session, staff.chat_id)
        if member is None or member.role is not Role.STAFF or member.system_user is None:
            return None  # the desk may hold others: only linked staff members act through it
        return member.system_user
