"""The conversation engine: one event in, the chat's replies out, its state saved in between.

Each event runs in one database transaction: load the chat's state and link, route the event
(``/start``, ``/cancelar``, the role's commands, the ``leave`` words and at rest a bare "stop" work
everywhere but at a verbatim step; a button resolves from the chat's own state only), run the step
and any flow it switched to, save the state if its version is unchanged (else run again; from its
first ISP call a turn holds the chat, ``_Hold``) and queue the messages for ``chat_messages``.

Every question is answered here, not in each flow (``Takes`` in ``flows.steps``): a typed option
chooses it (``flows.answers``); a clear request for another flow, or a file the step cannot read,
leaves the question for the menu's reading of it, said in one line; small talk is answered and the
question kept; anything else names the options and how to leave. After ``give_up_after`` misses a
person is called. An ISP failure is told plainly and nothing of the step is saved; steps read the
ISP before writing to the database and write to the ISP last. A link attempt is counted in a short
transaction of its own before the ISP is asked; a turn that ends without its answer takes it back.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
import weakref
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta

from bot.acs import AcsClient
from bot.i18n import DEFAULT_LANGUAGE, Translations, default_translations, plain_text
from bot.isp import IspApiError, IspError, IspTransportError
from bot.store import (
    ChatState,
    ChatStates,
    Contacts,
    Database,
    DeskJobs,
    Handoffs,
    Invites,
    Link,
    LinkAttempts,
    Links,
    NewMessage,
    Origin,
    OutageWatches,
    Outbox,
    Role,
    StaleStateError,
    TrustUnblocks,
    UpdateTakenError,
)
from sqlalchemy.ext.asyncio import AsyncSession

from flows import values
from flows.answers import read_choice, typed_option
from flows.chat import (
    CHOICES,
    FLOW_DATA,
    LANGUAGE_GUESSED,
    LINK_FAILED,
    MISSES,
    PROMPT,
    RECENT,
    RECENT_KEPT,
    Repositories,
)
from flows.chat_language import follow_language
from flows.contacts import CONTACT, NOT_SUBJECTS, ContactRef, quiet_since
from flows.context import Context
from flows.coordinator import IspCoordinator
from flows.deskwork import DeskHandler, DeskStores, waiting_notices
from flows.events import (
    READ_MEDIA,
    Choice,
    Command,
    Contact,
    Event,
    Incoming,
    Location,
    Media,
    Resolved,
    StaffCommand,
    StaffReply,
    Start,
    Text,
    Told,
    describe,
)
from flows.files import FileSource
from flows.flow import ASKED_BY_NOTICE, Flow
from flows.intents import BYE, SMALL_TALK, default_intents
from flows.policy import Policy
from flows.replies import AskContact, AskLocation, Document, Message, Notice, Reply, Upload
from flows.speech import prompt_reply
from flows.staff_turn import StaffTurn
from flows.steps import (
    BEGIN,
    FILES,
    MENU_FLOWS,
    TO_MENU,
    VALUES,
    WORDS,
    Answer,
    Chosen,
    StepEvent,
    Switch,
    Target,
    Unexpected,
)
from flows.turn import SAVE_ATTEMPTS, Forget, Turn, Within, follow_link, record_unsaved

log = logging.getLogger(__name__)

MENU = "menu"
LINK = "link"
JOIN = "join"  # the flow that redeems /start payloads (invites), where a role has one
HUMAN = "human"
NOTICES_OFF = "notices_off"  # where a bare "stop" at rest leads, with ``EVERY_NOTICE`` (no question asked)
EVERY_NOTICE = "every_notice"
CANCEL = ("cancelar", "cancel")  # the commands that leave any question, in every language
MAX_SWITCHES = 4  # flows switching to flows: a loop is a bug, not a conversation
# The values a request may carry for the questions that follow it (``Engine._prefill``).
REQUEST_VALUES = frozenset({values.DATE_PAST, values.DATE_AHEAD, values.PERIOD, values.YEAR, values.TAX_ID})
REQUEST = "request"  # the chat's state: the words that began its flow, for its later questions

@dataclass(frozen=True)
class RoleFlows:
    """The flows of one role, the commands (``/bills``) that begin them directly, and its menu in order."""

    flows: Mapping[str, Flow]
    commands: Mapping[str, str] = field(default_factory=dict)
    menu: tuple[str, ...] = ()
    # What a staff member's event at the desk does (``flows.staff``: the staff's role only).
    desk: DeskHandler | None = None

    @classmethod
    def of(cls, flows: Iterable[Flow], menu: Iterable[str] = (), *, desk: DeskHandler | None = None) -> RoleFlows:
        """The flows, with the commands each declares; ``menu``, the names of the menu's flows in order.
        Fails loudly on a menu entry or a ``Switch`` naming a flow the role does not have."""
        flows = list(flows)
        by_name = {flow.name: flow for flow in flows}
        commands = {command: flow.name for flow in flows for command in flow.commands}
        names = tuple(menu)
        unknown = [name for name in names if name not in by_name]
        for flow in flows:
            unknown += [f"{flow.name} -> {name}" for name in flow.steps.switches() - {MENU_FLOWS.flow, *by_name}]
        if unknown:
            raise ValueError(f"flows this role does not have: {', '.join(unknown)}")
        return cls(by_name, commands, names, desk)


class UndeclaredMove(Exception):
    """A step led where its flow's ``steps`` do not say it can (a misspelt step, a move not declared)."""


class Engine:
    # Tests raise ``UndeclaredMove``; a running bot logs it and carries on as the flow said.
    strict_steps = False

    def __init__(
        self, database: Database, coordinator: IspCoordinator, flows: Mapping[Role, RoleFlows], *,
        policy: Policy | None = None, translations: Translations | None = None, files: FileSource | None = None,
        acs: AcsClient | None = None,
    ) -> None:
        self.database = database
        self.acs = acs  # the ACS's NBI (``bot.acs``); None: no ACS, its flows are off the menu
        self.coordinator = coordinator
        self.flows = flows
        self.files = files  # set by a channel that can fetch what people send (a receipt)
        self.policy = policy or Policy()
        self.translations = translations or default_translations()
        self.states = ChatStates()
        self.repos = Repositories(
            Links(), LinkAttempts(), OutageWatches(), TrustUnblocks(), Invites(), self.states, Handoffs(), Contacts(),
        )
        self.outbox = Outbox()
        self.desk_stores = DeskStores(self.repos.handoffs, DeskJobs(), self.outbox, self.states)
        # Called after a turn that wrote desk jobs committed (the desk worker looks at once).
        self.on_desk_jobs: Callable[[], None] | None = None
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._menus: dict[tuple[Role, bool], Sequence[str]] = {}  # ``_menu``'s, made once (a turn asks thrice)

    async def handle(self, incoming: Incoming, *, within: Within | None = None) -> list[Reply]:
        """Run one event for its chat; the replies to send, in order (``turn`` says more)."""
        return (await self.turn(incoming, within=within)).replies

    async def turn(self, incoming: Incoming, *, within: Within | None = None, forget: Forget | None = None) -> Turn:
        """Run one event for its chat. Never raises for a person's input.

        ``within`` (see ``Within``) runs in the turn's transaction; if it raises ``UpdateTakenError``
        the turn is undone and the error propagates (the update was handled elsewhere). ``forget``
        (see ``Forget``) runs there too, first, when the event was a secret.
        """
        if isinstance(incoming.event, StaffReply | StaffCommand | Resolved):
            await self._staff().run(incoming, within)
            return Turn([])
        lock = self._locks.get(incoming.chat_id)
        if lock is None:
            lock = self._locks[incoming.chat_id] = asyncio.Lock()
        async with lock:
            for _ in range(SAVE_ATTEMPTS):
                try:
                    return await self._turn(incoming, within, forget)
                except StaleStateError:
                    log.info("chat state changed under a turn; running it again")
                except (UpdateTakenError, UndeclaredMove):
                    raise
                except IspError as exc:
                    return await self._failed_turn(incoming, exc, within, forget)
                except Exception as exc:
                    # Where it failed, not what it said: an exception's message can carry a person's
                    # words (a validation error quotes its input), and those never reach the logs.
                    frames = "".join(traceback.format_tb(exc.__traceback__))
                    log.error("a step failed: %s\n%s", type(exc).__name__, frames)
                    return await self._failed_turn(incoming, None, within, forget)
            log.warning("gave up on a turn after %d conflicting saves", SAVE_ATTEMPTS)
            replies: list[Reply] = [Message(self.translations.render("pt_BR", "common.try_again"))]
            if within is not None:
                async with self.database.transaction() as session:
                    loaded = await self.states.load(session, incoming.chat_id)
                    secret = self._secret(loaded, incoming.event)
                    if secret and forget is not None:  # asked again, yet what was typed is gone all the same
                        await forget(session, secret, self._deletes(loaded))
                    await record_unsaved(session, within, replies)
            return Turn(replies)

    # ---- one turn --------------------------------------------------------------------------------
    async def _turn(self, incoming: Incoming, within: Within | None, forget: Forget | None) -> Turn:
        # Link attempts this turn counted in transactions of their own, committed before the ISP was
        # asked, so that simultaneous guesses from many chats see each other. A turn that ends without
        # its answer (the ISP failed, the save lost a race, a bug) takes them back: nobody learnt
        # anything from them, and a turn run again counts its attempt again.
        reservations: list[int] = []
        try:
            return await self._run_turn(incoming, within, forget, reservations)
        except Exception:
            if reservations:
                await self._release(reservations)
            raise

    async def _release(self, reservations: list[int]) -> None:
        try:
            async with self.database.transaction() as session:
                await self.repos.attempts.release(session, reservations)
        except Exception as exc:  # the turn's own failure is the one to report; these stay counted
            log.warning(
                "could not take back %d link attempts of a failed turn: %s", len(reservations), type(exc).__name__,
            )

    async def _run_turn(
        self, incoming: Incoming, within: Within | None, forget: Forget | None, reservations: list[int],
    ) -> Turn:
        async with self.database.transaction() as session:
            state, link = await self.states.load_for_turn(session, incoming.chat_id)
            hold = _Hold(self.states, session, state.chat_id, state.version)
            with self.coordinator.before_calls(hold):
                follow_link(state, link)
                # Set from the client's code, else guessed from the text (kept in the chat's state as
                # ``flows.chat_language`` says: set and guessed languages are told apart there).
                follow_language(state, incoming.event, incoming.client_language)
                secret = self._secret(state, incoming.event)
                deletes = bool(secret) and self._deletes(state)  # asked only where there is a secret to forget
                said = "" if secret else _said(state, incoming.event)
                if _worth_recalling(link, incoming.event) and not secret:
                    state.data[RECENT] = [*state.data.get(RECENT, []), said[:500]][-RECENT_KEPT:]
                opened = await self._contact(session, state, link, incoming.event)
                before = state.snapshot()
                acs = self.acs.for_turn() if self.acs is not None else None  # one deadline for the turn
                ctx = self._context(state, link, session, incoming, reservations, acs=acs)
                try:
                    await self._route(ctx, incoming.event)
                    state.data[MISSES] = 0
                except Unexpected as miss:
                    if LINK_FAILED in state.data:  # a failure the step recorded stays recorded
                        before.data[LINK_FAILED] = state.data[LINK_FAILED]
                    ctx = self._context(before, link, session, incoming, reservations, acs=acs)
                    if _is_live_update(incoming.event):
                        # A live location keeps sending positions; where no step wants one, stay quiet.
                        if secret and forget is not None:
                            await forget(session, secret, deletes)
                        await record_unsaved(session, within, [])
                        return Turn.at([], ctx.state)
                    await self._misunderstood(ctx, miss, incoming.event)
                self._announce(ctx, opened)
                await self._mirror(session, ctx, said, ctx.reply.replies)
                await self._tie(session, ctx)
                desk_jobs = await self._staff().jobs(session, ctx, incoming, said)
                if secret and forget is not None:
                    await forget(session, secret, deletes)
                answered = await within(session, ctx.reply.replies, ctx.reply.notices) if within is not None else None
                ctx.state.version = hold.version
                await self.states.save(session, ctx.state, answered=answered)
        if desk_jobs:
            self._desk_jobs_written()
        return Turn.at(ctx.reply.replies, ctx.state)

    async def _failed_turn(
        self, incoming: Incoming, error: IspError | None, within: Within | None, forget: Forget | None,
    ) -> Turn:
        """Nothing of the step was kept: say why in plain words and ask the last question again."""
        async with self.database.transaction() as session:
            state = await self.states.load(session, incoming.chat_id)
            link = await self.repos.links.active(session, incoming.chat_id)
            follow_link(state, link)
            secret = self._secret(state, incoming.event)
            if secret and forget is not None:  # a password the ISP could not check is gone all the same
                await forget(session, secret, self._deletes(state))
            opened = await self._contact(session, state, link, incoming.event)
            ctx = self._context(state, link, session, incoming)
            if isinstance(error, IspTransportError):
                ctx.reply.say("common.isp_unavailable")
            elif isinstance(error, IspApiError):
                log.warning("ISP refused %s: code %s", error.operation, error.code)
                ctx.reply.say("common.isp_refused")
            else:
                ctx.reply.say("common.internal_error")
            again = prompt_reply(state.data.get(PROMPT))
            if again is not None:
                ctx.reply.replies.append(again)
            self._announce(ctx, opened)
            await self._mirror(session, ctx, "" if secret else _said(state, incoming.event), ctx.reply.replies)
            if opened is None:
                await record_unsaved(session, within, ctx.reply.replies)
            else:  # nothing of the step is kept, but the contact it opened is
                answered = await within(session, ctx.reply.replies, []) if within is not None else None
                try:
                    await self.states.save(session, state, answered=answered)
                except StaleStateError:  # another turn saved the chat meanwhile: it holds its own contact
                    if answered is not None:
                        await answered.write(session)
            return Turn.at(ctx.reply.replies, ctx.state)

    def _secret(self, state: ChatState, event: Event) -> list[str]:
        """What of ``event`` must be forgotten once its turn used it: the words typed (or the number
        shared) at a step that forgets them (``Flow.forgets``: a password, a tax id); [] otherwise."""
        flow = self.flows[state.role].flows.get(state.flow or "")
        if flow is None or not flow.forgets(state.step):
            return []
        match event:
            case Text(text=text) if text.strip():
                return [text]
            case Contact(phone=phone) if phone:
                return [phone]
        return []

    def _deletes(self, state: ChatState) -> bool:
        """Whether the chat waits at a question that takes a secret (its message deleted where it can be)."""
        flow = self.flows[state.role].flows.get(state.flow or "")
        return flow is not None and flow.secret_at(state.step)

    def _context(
        self, state: ChatState, link: Link | None, session: AsyncSession, incoming: Incoming,
        reservations: list[int] | None = None, *, acs: AcsClient | None = None,
    ) -> Context:
        """The turn's context; ``acs``: the turn's view of the ACS (``AcsClient.for_turn``), made here
        when the turn does not share one between its contexts."""
        if acs is None and self.acs is not None:
            acs = self.acs.for_turn()
        return Context(
            state=state, link=link, session=session, repos=self.repos, coordinator=self.coordinator,
            policy=self.policy, translations=self.translations, client_language=incoming.client_language,
            menu=self._menu(state.role), message_id=incoming.message_id, sender_name=incoming.sender_name,
            files=self.files, database=self.database, reservations=reservations,
            proved_phone=incoming.proved_phone, asks_contact=incoming.asks_contact, channel=incoming.channel,
            acs=acs,
        )

    def _menu(self, role: Role) -> Sequence[str]:
        """The role's menu, without the flows that need an ACS when there is none."""
        key = (role, self.acs is not None)
        menu = self._menus.get(key)
        if menu is None:
            flows = self.flows[role]
            menu = self._menus[key] = flows.menu if self.acs is not None else tuple(
                name for name in flows.menu if not flows.flows[name].needs_acs)
        return menu

    # ---- the contact -----------------------------------------------------------------------------
    async def _contact(self, session: AsyncSession, state: ChatState, link: Link | None, event: Event,
                       ) -> ContactRef | None:
        """Keep the chat's contact going, or open one after a quiet spell (a subscriber's message,
        not while a person of the staff holds the conversation): the contact opened, if one was."""
        if state.role is not Role.SUBSCRIBER or _is_live_update(event) or isinstance(event, Told):
            return None  # the bot's own news (``Told``) is no message of the person's: no contact of its own
        now = self.coordinator.now()
        kept = state.data.get(CONTACT)
        opened = None
        if quiet_since(kept, now, self.policy.contact_quiet) and not self._with_person(state):
            customer = link.customer_code if link is not None else None
            contact = await self.repos.contacts.begin(
                session, state.chat_id, day=f"{now:%Y%m%d}", customer_code=customer, at=now,
            )
            kept = {"id": contact.id, "protocol": contact.protocol, "started": now.isoformat(), "subjects": []}
            opened = ContactRef(contact.id, contact.protocol, now)
        if isinstance(kept, dict):
            state.data[CONTACT] = {**kept, "last": now.timestamp()}
        return opened

    def _with_person(self, state: ChatState) -> bool:
        """Whether a person of the staff holds the conversation (the chat waits at a verbatim step)."""
        flow = self.flows[state.role].flows.get(state.flow or "")
        return flow is not None and state.step in flow.verbatim_steps

    async def _subject(self, ctx: Context, name: str) -> None:
        """Record flow ``name`` as a subject of the contact, the first time the contact uses it."""
        kept = ctx.state.data.get(CONTACT)
        if name in NOT_SUBJECTS or not isinstance(kept, dict) or "id" not in kept:
            return
        subjects = kept.setdefault("subjects", [])
        if name not in subjects:
            subjects.append(name)
            await ctx.records.record(name, None)

    def _announce(self, ctx: Context, opened: ContactRef | None) -> None:
        """A new contact's protocol, date and time, ahead of the turn's first answer."""
        if opened is not None and ctx.reply.replies:
            line = ctx.text("contacts.opened", protocol=opened.protocol, at=opened.started)
            ctx.reply.replies.insert(0, Message(line))

    async def _tie(self, session: AsyncSession, ctx: Context) -> None:
        """A ticket opened in a contact says so in its history in the ISP system (``chat_messages``):
        the contact's protocol, in the staff's language."""
        contact, link = ctx.records.contact, ctx.link
        if not ctx.records.tied or contact is None or link is None or link.customer_code is None:
            return
        text = plain_text(ctx.render_in(DEFAULT_LANGUAGE, "contacts.tied", protocol=contact.protocol,
                                        at=contact.started))
        now = datetime.now(UTC)
        await self.outbox.enqueue(session, [
            NewMessage(ticket_id=ticket, customer=link.customer_code, record=now, attendant=self.policy.isp_user,
                       content=text, origin=Origin.SYSTEM)
            for ticket in dict.fromkeys(ctx.records.tied)
        ])

    # ---- routing ---------------------------------------------------------------------------------
    async def _route(self, ctx: Context, event: Event) -> None:
        role = self.flows[ctx.state.role]
        match event:
            case Start(payload=payload) if payload and JOIN in role.flows:
                await self._begin(ctx, JOIN, {"payload": payload})
            case Start():
                await self._begin(ctx, MENU)
            case Command(name=name) if name in CANCEL:
                await self._leave(ctx, role)
            case Text(text=text) if self._stops_notices(ctx, role, text):
                await self._begin(ctx, NOTICES_OFF, {EVERY_NOTICE: True})
            case Text(text=text) if self._free(ctx, role) and default_intents().leaves(ctx.language, text):
                await self._leave(ctx, role)
            case Command(name=name) if name in role.commands:
                await self._begin(ctx, role.commands[name])
            case Command():
                raise Unexpected("common.unknown_command")
            case Told(flow=name) if name in role.flows:
                await self._told(ctx, role, role.flows[name], event)
            case Told():
                return  # news for a flow the chat's role no longer has (it took another): nothing to say
            case _:
                request = await self._step(ctx, role, event)
                await self._follow(ctx, request)
                pending = ctx.state.data.get(REQUEST)
                if request is None and isinstance(pending, dict):  # a question asked later in the flow
                    await self._prefill(ctx, str(pending["text"]), set(pending["used"]))
                return
        await self._follow(ctx)

    async def _follow(self, ctx: Context, request: str | None = None) -> None:
        """Begin the flows the turn switched to, in turn; the menu if it ended without a question.
        ``request``: the words that asked for them, whose values answer their questions (``_prefill``)."""
        used: set[str] = set()
        for _ in range(MAX_SWITCHES):
            if ctx.next_flow is None:
                break
            target, data, ctx.next_flow, ctx.next_data = ctx.next_flow, ctx.next_data, None, {}
            await self._begin(ctx, target, data)
            if request is not None:
                await self._prefill(ctx, request, used)
        if ctx.state.flow is None or ctx.state.step is None:
            await self._begin(ctx, MENU)  # a flow that ended without a question leaves the menu ready

    async def _prefill(self, ctx: Context, request: str, used: set[str]) -> None:
        """A request that carries its values ("suspender por três meses") answers the questions that
        take them, each kind once, now or when the flow asks them later, and their prompts are not
        shown; a value the step refuses (too short a suspension) is said, with the question. Only
        kinds a request can carry: never a yes ("quero cancelar" confirms nothing), a count or a login."""
        role = self.flows[ctx.state.role]
        for _ in range(MAX_SWITCHES):
            flow = role.flows.get(ctx.state.flow or "")
            origin = ctx.state.step
            if flow is None or origin is None or ctx.next_flow is not None:
                return
            answer = self._answer(ctx, flow, origin, request, only=REQUEST_VALUES - used)
            if answer is None:
                if ctx.link is not None and REQUEST_VALUES - used:
                    # Kept for the flow's later questions ("paguei ontem": the bill first, then the day);
                    # a new flow starts without it. Before a link the words may be proof: never kept.
                    ctx.state.data[REQUEST] = {"text": request[: values.LIMIT], "used": sorted(used)}
                return
            used.add(answer.kind)
            before, said = ctx.state.snapshot(), len(ctx.reply.replies)
            asked = prompt_reply(before.data.get(PROMPT))
            try:
                await getattr(flow, origin)(ctx, answer)
            except Unexpected as miss:
                ctx.state, ctx.next_flow, ctx.next_data = before, None, {}
                ctx.state.data.pop(REQUEST, None)  # said once: the person answers the question now
                del ctx.reply.replies[said:]
                if miss.hint and said and ctx.reply.replies[said - 1] == asked:
                    ctx.reply.replies.insert(said - 1, Message(ctx.text(miss.hint, **miss.variables)))
                return
            if said and ctx.reply.replies[said - 1] == asked:
                del ctx.reply.replies[said - 1]  # answered already: the question need not be shown
            self._check_move(role, flow, origin, ctx)

    async def _leave(self, ctx: Context, role: RoleFlows) -> None:
        """Back to the menu; said to cancel what was under way, if anything was."""
        flow = role.flows.get(ctx.state.flow or "")
        if flow is not None and not flow.rests_at(ctx.state.step):
            ctx.reply.say("common.cancelled")
        await self._begin(ctx, MENU)

    def _stops_notices(self, ctx: Context, role: RoleFlows, text: str) -> bool:
        """Whether the text is a bare "stop" said at rest (no question open), or at a notice's own question
        (a bill's reminder), by a linked chat: it is about the notices the bot writes first, and stops
        every kind. At any other question it leaves the question."""
        flow = role.flows.get(ctx.state.flow or "")
        at_rest = self._free(ctx, role) and (flow is None or flow.rests_at(ctx.state.step))
        return ((at_rest or bool(ctx.data.get(ASKED_BY_NOTICE))) and ctx.link is not None and NOTICES_OFF in role.flows
                and default_intents().stops(ctx.language, text))

    def _free(self, ctx: Context, role: RoleFlows) -> bool:
        """Whether the chat's words are the bot's to read (not passed on as they are to a person)."""
        flow = role.flows.get(ctx.state.flow or "")
        return flow is None or ctx.state.step not in flow.verbatim_steps

    async def _step(self, ctx: Context, role: RoleFlows, event: Event) -> str | None:
        """Run the chat's step with the event; the text, when it was read as a request (at the menu,
        or leaving a question for it), whose values may answer the questions that follow."""
        flow = role.flows.get(ctx.state.flow or "")
        step = getattr(flow, ctx.state.step or "", None) if flow is not None else None
        if flow is None or step is None:
            return await self._between_flows(ctx, role, event)
        origin = ctx.state.step or ""
        request = event.text if isinstance(event, Text) and flow.name == MENU else None
        if isinstance(event, Text) and self._free(ctx, role):
            numbered = _typed_choice(ctx, event.text, numbers=True, strict=False)
            if (answer := self._answer(ctx, flow, origin, event.text)) is not None:
                # Words that say the value the question takes are its answer, whatever else they resemble
                # ("dia 2" at a start date is the 2nd, not the second button).
                await self._step_or_number(ctx, role, flow, answer, numbered)
                return None
            words = any(t.what == WORDS.what for t in flow.steps.takes(origin))
            # A subscriber's option may be pointed at ("o primeiro", "o de outubro", "o de 102,30"), but
            # not at the menu nor by a request ("segunda via do boleto" is no second button); a
            # technician's steps read their own days ("sexta" is a Friday there, not the sixth).
            pointed = (flow.name != MENU and not words and ctx.state.role is Role.SUBSCRIBER
                       and not self._asks_elsewhere(ctx, flow, event.text))
            typed = _typed_choice(ctx, event.text, numbers=False, strict=words, pointed=pointed,
                                  today=self.coordinator.now().date())
            if typed is not None and flow.name == MENU and self._asks_another(ctx, event.text, typed):
                typed = None  # the menu's intents read it: "quero cancelar meu contrato" is no "Contratos"
            elif typed is not None and self._in_passing(ctx, event.text, typed):
                typed = None  # "preciso cancelar a netflix" at "Posso abrir?" is no "Cancelar": asked again
            if typed is not None:
                event = typed
            elif (asked := self._request(ctx, role, flow, event.text)) and role.flows[asked].aside:
                await self._aside(ctx, role.flows[asked])
                return None
            elif asked and await self._hand_over(ctx, role, flow, event):
                return event.text
            elif numbered is not None:
                # A number may be the answer itself (a quantity, an id): the step reads it first.
                await self._step_or_number(ctx, role, flow, event, numbered)
                return None
        if not self._may_hand_over_file(ctx, role, flow, event):
            await step(ctx, self._resolve(ctx, event))
            self._check_move(role, flow, origin, ctx)
            return request
        before, said = ctx.state.snapshot(), len(ctx.reply.replies)
        try:
            await step(ctx, event)
        except Unexpected:
            # A photo or document this question cannot read (a receipt sent mid-ticket): the menu
            # knows what it is. Nothing the step began is kept.
            ctx.state, ctx.next_flow, ctx.next_data = before, None, {}
            del ctx.reply.replies[said:]
            if not await self._hand_over(ctx, role, flow, event):
                raise
            return None
        self._check_move(role, flow, origin, ctx)
        return None

    async def _aside(self, ctx: Context, aside: Flow) -> None:
        """What a flow that only tells says (the ISP's phone asked mid-question), then the question again:
        nothing of where the chat stood changes."""
        before, said = ctx.state.snapshot(), len(ctx.reply.replies)
        await aside.begin(ctx)
        ctx.state, ctx.next_flow, ctx.next_data = before, None, {}
        ctx.reply.replies[said:] = [Message(r.text) if isinstance(r, Message) else r for r in ctx.reply.replies[said:]]
        again = prompt_reply(before.data.get(PROMPT))
        if again is not None:
            ctx.reply.replies.append(again)

    def _answer(self, ctx: Context, flow: Flow, step: str, text: str,
                only: Collection[str] = VALUES) -> Answer | None:
        """The value ``text`` plainly says for the question of ``step``, of a kind it takes (``flows.values``).
        Not a clear request for another flow ("quero falar com um atendente" is no yes)."""
        kinds = [kind for kind in flow.steps.kinds(step) if kind in only]
        if not kinds or self._asks_elsewhere(ctx, flow, text):
            return None
        today = self.coordinator.now().date()
        for kind in kinds:
            value = values.read(kind, text, ctx.language, today)
            if value is not None:
                return Answer(value, text, kind)
        return None

    async def _told(self, ctx: Context, role: RoleFlows, flow: Flow, event: Told) -> None:
        """The bot's own news for a step (``Told``): where the chat rests, or is in that flow still, the
        step speaks and may ask its question; elsewhere (a bill half chosen, a person of the staff on
        it) only its words are said, without buttons, and the chat stays where it was."""
        current = role.flows.get(ctx.state.flow or "")
        free = current is None or current is flow or (current.rests_at(ctx.state.step) and self._free(ctx, role))
        step = getattr(flow, event.step)
        if free:
            if current is not flow:
                self._enter(ctx, flow.name, None)
            await step(ctx, event)
            self._check_move(role, flow, event.step, ctx)
            return
        before, said = ctx.state.snapshot(), len(ctx.reply.replies)
        await step(ctx, event)
        ctx.state, ctx.next_flow, ctx.next_data = before, None, {}
        ctx.reply.replies[said:] = [Message(r.text) if isinstance(r, Message) else r for r in ctx.reply.replies[said:]]

    async def _step_or_number(self, ctx: Context, role: RoleFlows, flow: Flow, event: Text | Answer,
                              numbered: Choice | None) -> None:
        """The step reads typed words (a number, a value); what it cannot use chooses the option shown
        with that number, if the words are one."""
        origin, before, said = ctx.state.step or "", ctx.state.snapshot(), len(ctx.reply.replies)
        step = getattr(flow, origin)
        try:
            await step(ctx, event)
        except Unexpected:
            if numbered is None:
                raise
            ctx.state, ctx.next_flow, ctx.next_data = before, None, {}
            del ctx.reply.replies[said:]
            await step(ctx, self._resolve(ctx, numbered))
        self._check_move(role, flow, origin, ctx)

    def _asks_elsewhere(self, ctx: Context, flow: Flow, text: str) -> bool:
        """Whether ``text`` plainly asks for a flow other than ``flow`` (small talk asks for none)."""
        name = default_intents().plainly(ctx.language, text)
        return name is not None and name not in SMALL_TALK and name != flow.name

    def _asks_another(self, ctx: Context, text: str, typed: Choice) -> bool:
        """Whether words that only hold a menu button's label among others plainly ask for another flow."""
        if _typed_choice(ctx, text, numbers=False, strict=True) is not None:
            return False  # the label itself, or its start: the button
        name = default_intents().plainly(ctx.language, text)
        chosen = ctx.state.data.get(CHOICES, {}).get(typed.token, [None])[0]
        return name is not None and name not in SMALL_TALK and name != chosen

    def _in_passing(self, ctx: Context, text: str, typed: Choice) -> bool:
        """Whether a subscriber's words name a question's option only in passing, the rest about
        something we do not do (``Intents.in_passing``); the option itself, or its start, is the button."""
        if ctx.state.role is not Role.SUBSCRIBER or _typed_choice(ctx, text, numbers=False, strict=True) is not None:
            return False
        return default_intents().in_passing(ctx.language, text, _label(ctx.state, typed.token) or "")

    def _request(self, ctx: Context, role: RoleFlows, flow: Flow, text: str) -> str | None:
        """The flow a typed text plainly asks for instead of answering the question, if it may leave it."""
        if flow.name == MENU or MENU not in role.flows:
            return None  # the menu reads requests itself; a role without one has nowhere to go
        name = default_intents().plainly(ctx.language, text)
        if name is None or name == flow.name or name not in role.flows:
            return None
        if not all(takes.lets_go(name) for takes in flow.steps.takes(ctx.state.step or "")):
            return None  # typed words are this question's answer ("internet lenta" describes a ticket)
        if ctx.link is None and role.flows[name].requires_link:
            return None  # linking comes first: its own questions say how to reach a person
        return name

    def _may_hand_over_file(self, ctx: Context, role: RoleFlows, flow: Flow, event: Event) -> bool:
        """Whether a photo or document the step refuses may go to the menu's reading (a receipt): not
        where the question takes files (``FILES``: a router's photo at a ticket is the ticket's)."""
        return (isinstance(event, Media) and event.file is not None and event.kind in ("photo", "document")
                and flow.name != MENU and MENU in role.flows and ctx.link is not None
                and not any(t.what == FILES.what for t in flow.steps.takes(ctx.state.step or "")))

    async def _between_flows(self, ctx: Context, role: RoleFlows, event: Event) -> str | None:
        """A chat waiting in no step: a new chat gets the greeting (or the menu); a linked one's words
        (handed back by the staff, or after a goodbye) what they ask, as at the menu (``_step``'s
        request then), and words the menu cannot use its "not understood", as there."""
        if isinstance(event, Choice):
            raise Unexpected("common.button_expired")
        if isinstance(event, Media) and event.kind not in READ_MEDIA:
            ctx.reply.say("common.unreadable", kind=event.kind)  # what was sent is not lost on the person
        if isinstance(event, Text) and ctx.link is not None and MENU in role.flows:
            miss = await self._at_menu(ctx, role, event)
            if miss is not None:
                raise miss
            return event.text
        await self._begin(ctx, MENU)
        return None

    async def _at_menu(self, ctx: Context, role: RoleFlows, event: Event) -> Unexpected | None:
        """The menu's question reads the event as if it had been sent there (words of a chat the staff
        just handed back, or a request leaving a question); its miss, and nothing changed, when the
        menu cannot use it."""
        menu = role.flows.get(MENU)
        if menu is None:
            return Unexpected("common.not_understood")
        front = next(t for t in menu.steps[BEGIN] if isinstance(t, str))  # the menu's one question
        left, said = ctx.state.snapshot(), len(ctx.reply.replies)
        self._enter(ctx, MENU, None)
        ctx.state.step = front
        try:
            await getattr(menu, front)(ctx, event)
        except Unexpected as miss:
            ctx.state, ctx.next_flow, ctx.next_data = left, None, {}
            del ctx.reply.replies[said:]
            return miss
        self._check_move(role, menu, front, ctx)
        return None

    async def _hand_over(self, ctx: Context, role: RoleFlows, flow: Flow, event: Event) -> bool:
        """Leave the question for what the person asked: one line says so (nothing was under way in a
        resting flow), and the menu's question reads the event as if it had been sent there, so free
        text and receipts mean the same everywhere. False, and the question kept, when the menu
        cannot use it either."""
        left, said = ctx.state.snapshot(), len(ctx.reply.replies)
        resting = flow.rests_at(ctx.state.step)
        if await self._at_menu(ctx, role, event) is not None:
            return False
        if ctx.next_flow == flow.name:  # the menu would send it where it is: the step's own answer stands
            ctx.state, ctx.next_flow, ctx.next_data = left, None, {}
            del ctx.reply.replies[said:]
            return False
        if not resting:
            ctx.reply.replies.insert(said, Message(ctx.text("common.left_question")))
        if ctx.next_flow != HUMAN:
            # Another matter: none of it goes into the ticket the chat was on ("quero cancelar" after
            # a slowness ticket). A person asked for is asked about that ticket, so it stays.
            ctx.set_current_ticket(None)
        return True

    def _resolve(self, ctx: Context, event: Event) -> StepEvent:
        if not isinstance(event, Choice):
            return event
        chosen = ctx.state.data.get(CHOICES, {}).get(event.token)
        if chosen is None:  # an old question's button, or a token that was never this chat's
            raise Unexpected("common.button_expired")
        value, label = chosen
        return Chosen(value, label, event.typed)

    async def _begin(self, ctx: Context, name: str, data: dict[str, object] | None = None) -> None:
        role = self.flows[ctx.state.role]
        flow = role.flows[name]
        asked = name  # the contact's subject: what was asked for, not the linking it must pass first
        if flow.requires_link and ctx.link is None and LINK in role.flows:
            name, flow = LINK, role.flows[LINK]
        self._enter(ctx, name, data)
        await self._subject(ctx, asked)
        await flow.begin(ctx)
        self._check_move(role, flow, BEGIN, ctx)

    def _enter(self, ctx: Context, name: str, data: dict[str, object] | None) -> None:
        """The chat is in flow ``name`` now, with ``data`` as its own: what other flows kept is gone."""
        ctx.menu = self._menu(ctx.state.role)  # the role may have changed in this turn (an invite redeemed)
        ctx.state.flow, ctx.state.step = name, None
        misses = ctx.state.data.get(MISSES, 0)
        recent = ctx.state.data.get(RECENT, [])
        kept = {key: ctx.state.data[key] for key in (LINK_FAILED, CONTACT, LANGUAGE_GUESSED) if key in ctx.state.data}
        ctx.state.data = {
            FLOW_DATA: dict(data or {}), PROMPT: None, CHOICES: {}, MISSES: misses, RECENT: recent, **kept,
        }

    def _check_move(self, role: RoleFlows, flow: Flow, origin: str, ctx: Context) -> None:
        """Whether the step ``origin`` of ``flow`` just led where the flow's ``steps`` say it can."""
        target: Target
        if ctx.next_flow is not None:
            target = Switch(ctx.next_flow)
        elif ctx.state.step is None:
            target = TO_MENU  # ended without a question: the engine begins the menu
        else:
            target = ctx.state.step
        if flow.steps.leads(origin, target, role.menu):
            return
        problem = f"flow {flow.name!r}: step {origin!r} led to {target!r}, which its steps do not declare"
        if self.strict_steps:
            raise UndeclaredMove(problem)
        log.error("%s", problem)

    async def _misunderstood(self, ctx: Context, miss: Unexpected, event: Event) -> None:
        role = self.flows[ctx.state.role]
        again = prompt_reply(ctx.state.data.get(PROMPT))
        talk = default_intents().plainly(ctx.language, event.text) if isinstance(event, Text) else None
        if (talk in SMALL_TALK and again is not None and isinstance(event, Text)
                and default_intents().only_asks(ctx.language, event.text, talk)):
            if talk == BYE and MENU in role.flows:
                # "valeu, tchau" at a question ends the conversation: a goodbye, the question not asked
                # again (nothing of it was done), and the chat waits in no step, read as at the menu.
                ctx.reply.say("menu.bye")
                self._enter(ctx, MENU, None)
                return
            # "bom dia" at a question: a kind word back and the question again, not "I didn't get that".
            ctx.reply.say(f"common.small_talk_{talk}")
            ctx.reply.replies.append(again)
            return
        misses = int(ctx.state.data.get(MISSES, 0)) + 1
        ctx.state.data[MISSES] = misses
        if isinstance(event, Media) and event.kind not in READ_MEDIA:
            # A voice note, a sticker, a message the channel cannot read: what the bot reads instead.
            ctx.reply.say("common.unreadable", kind=event.kind)
        else:
            ctx.reply.say(miss.hint or "common.not_understood", **miss.variables)
        if misses >= self.policy.give_up_after and HUMAN in role.flows:
            # Linked or not: someone not identified reaches the desk as such, or is told the ISP's phone.
            ctx.state.data[MISSES] = 0
            ctx.reply.say("common.handing_over", person=ctx.link is not None or self.policy.staff_desk)
            await self._begin(ctx, HUMAN, {"reason": "misunderstood"})
            await self._follow(ctx)  # no desk: the ticket's follow-up, or the link's question again
            return
        if again is None:
            await self._begin(ctx, MENU)
        else:
            self._ways_out(ctx, role)
            ctx.reply.replies.append(again)

    def _ways_out(self, ctx: Context, role: RoleFlows) -> None:
        """One line under a misunderstanding: the options that may be typed, and how to leave."""
        prompt = ctx.state.data.get(PROMPT) or {}
        labels = [label for row in prompt.get("buttons", []) for label, _ in row]
        flow = role.flows.get(ctx.state.flow or "")
        resting = flow is None or flow.rests_at(ctx.state.step)
        if labels:
            ctx.reply.say("common.type_an_option", options=labels, leave=not resting)
        elif prompt and not resting:
            ctx.reply.say("common.how_to_leave")

    # ---- the staff desk --------------------------------------------------------------------------
    def _staff(self) -> StaffTurn:
        """The staff desk's part of the turns (``flows.staff_turn``), with the engine as it is now."""
        staff_role = self.flows.get(Role.STAFF)
        return StaffTurn(
            self.database, self.repos, self.desk_stores, self.translations, self.policy,
            handler=staff_role.desk if staff_role is not None else None, context=self._context, begin=self._begin,
            wrote_jobs=self._desk_jobs_written,
        )

    def _desk_jobs_written(self) -> None:
        if self.on_desk_jobs is not None:
            self.on_desk_jobs()

    async def waiting_notices(self, now: datetime, wait: timedelta, minutes_each: int) -> list[Notice]:
        """The handoff queue's "your place in line" messages due now (each told once)."""
        if not self.policy.staff_desk:
            return []
        async with self.database.transaction() as session:
            # ``minutes_each``: the operator's wait per person, where the desk's own pace is not known yet.
            policy = replace(self.policy, handoff_minutes_each=minutes_each)
            return await waiting_notices(session, self.desk_stores, self.translations,
                                         now=now.astimezone(self.coordinator.zone), wait=wait, policy=policy)

    # ---- the mirror ------------------------------------------------------------------------------
    async def _mirror(self, session: AsyncSession, ctx: Context, said: str, replies: list[Reply]) -> None:
        """Queue this turn's messages for the ticket's history (``chat_messages``), if it has a ticket."""
        ticket, link = ctx.state.current_ticket, ctx.link
        if ticket is None or link is None or link.customer_code is None or ctx.state.role is not Role.SUBSCRIBER:
            return
        now = datetime.now(UTC)

        def entry(content: str, origin: Origin) -> NewMessage:
            return NewMessage(
                ticket_id=ticket, customer=link.customer_code or 0, record=now, attendant=self.policy.isp_user,
                content=content, origin=origin,
            )

        messages = [entry(said, Origin.CUSTOMER)] if said else []  # the bot's own news: no words of the person
        messages += [entry(text, Origin.SYSTEM) for text in map(_reply_text, replies) if text]
        await self.outbox.enqueue(session, messages)


class _Hold:
    """A turn's chat, held (``ChatStates.hold``) before the turn's first ISP call: what the ISP is
    asked to do for a chat is asked by one turn at a time across processes, and never by a turn that
    would then lose its save and run again. A turn that calls nobody is not held: its save's version
    check is enough, and it runs again if another saved first."""

    def __init__(self, states: ChatStates, session: AsyncSession, chat_id: int, version: int) -> None:
        self._states = states
        self._session = session
        self._chat_id = chat_id
        self.version = version  # the one to save over: 1 once a chat never saved got its row here
        self._held = False
        self._holding: asyncio.Lock | None = None

    async def __call__(self) -> None:
        if self._held:
            return
        if self._holding is None:
            self._holding = asyncio.Lock()
        async with self._holding:  # calls made at once (gathered) wait for the one hold
            if not self._held:
                self.version = await self._states.hold(self._session, self._chat_id, self.version)
                self._held = True


def _worth_recalling(link: Link | None, event: Event) -> bool:
    """Whether the staff's card may show this message later. Only a linked subscriber's: before the
    link, what a person types is proof of identity (a tax id, a PPPoE password), never shown again."""
    if link is None or link.role is not Role.SUBSCRIBER:
        return False
    return not isinstance(event, Choice | Start | Told) and not _is_live_update(event)


def _typed_choice(ctx: Context, text: str, *, numbers: bool, strict: bool, pointed: bool = False,
                  today: date | None = None) -> Choice | None:
    """The button of the question waiting that a typed text names (by its number: ``numbers``; only
    plainly: ``strict``; or points at, ``pointed``: ``flows.answers.read_choice``), as if pressed."""
    buttons = [token for row in (ctx.state.data.get(PROMPT) or {}).get("buttons", []) for _, token in row]
    labels = [label for row in (ctx.state.data.get(PROMPT) or {}).get("buttons", []) for label, _ in row]
    if pointed and labels:
        index = read_choice(text, labels, ctx.language, today)
    else:
        index = typed_option(text, labels, numbers=numbers, strict=strict)
    return Choice(buttons[index], typed=text) if index is not None else None


def _is_live_update(event: Event) -> bool:
    return isinstance(event, Location) and event.live


def _said(state: ChatState, event: Event) -> str:
    """What the person did, in words, for the mirror (a button is named by its label)."""
    label = _label(state, event.token) if isinstance(event, Choice) else None
    return f"[{label}]" if label is not None else describe(event)


def _label(state: ChatState, token: str) -> str | None:
    """The label of the question's button ``token`` stands for, if the question shows it."""
    rows = (state.data.get(PROMPT) or {}).get("buttons", [])
    return next((label for row in rows for label, each in row if each == token), None)


def _reply_text(reply: Reply) -> str:
    match reply:
        case Message(text=text) | AskLocation(text=text) | AskContact(text=text):
            return plain_text(text)
        case Document(url=url, caption=caption):
            return f"{plain_text(caption)} {url}".strip()
        case Upload(kind=kind, filename=name, caption=caption):
            return f"[{kind}] {name} {plain_text(caption)}".strip()  # what was sent, never its bytes
    return ""
