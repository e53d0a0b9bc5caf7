"""The Chatwoot desk (``bot.desks.base.Desk``): a contact and a conversation per subscriber chat in an
API-channel inbox, every message of the chat in it, in order. While the bot serves, the conversation
is ``pending`` (the bot's, out of the agents' open list); a handoff makes it ``open``, assigns the
settings' team and the card follows as a private note; ``close`` resolves it, or hands it back
``pending``. The subscriber's words are incoming messages, the bot's outgoing ones, the card, the
bot's word to the staff and its notices about the person (``notify``) private notes. Chatwoot
reopens a resolved conversation as ``open`` when an incoming message lands in it, so before a
subscriber's words reach a conversation that is not pending the desk sets it back to ``pending``.

What agents do comes back through the webhook (``intake``) and ``read`` turns it into the engine's
staff events: a public reply (``StaffReply``), a command in a private note (``StaffCommand``), a
conversation resolved (``Resolved``). The status changes the desk made itself come back too: those
it remembers setting (``ECHO_WITHIN``) are dropped, so its own "resolved" never closes a newer
handoff. Which conversation is a chat's is remembered here for a while (``REMEMBER``) and otherwise
found in Chatwoot by the contact's identifier: the desk keeps nothing in the database.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from flows.desk import Attachment, DeskChat, DeskPost, PostKind, StaffMember
from flows.events import Incoming, Resolved, StaffCommand, StaffReply
from flows.files import FileSource, FileTooLarge, FileUnavailable

from bot.desks.base import DeskRefused, DeskUnavailable
from bot.desks.chatwoot.client import ChatwootClient, ChatwootError, ChatwootGone, File
from bot.desks.chatwoot.intake import from_payload
from bot.desks.chatwoot.webhook import CHAT_ATTRIBUTE, Command, Reply, StatusChange
from bot.i18n import plain_text
from bot.reads import Read

log = logging.getLogger(__name__)

REMEMBER = 60.0  # seconds a chat's conversation and its status are trusted without asking Chatwoot
ECHO_WITHIN = 300.0  # seconds within which a status change the desk made is known for its own
REMEMBERED = 10_000  # chats remembered at most
PRIVATE = frozenset({PostKind.CARD, PostKind.NOTE})
ATTACHMENT_LIMIT = 40 << 20  # Chatwoot's own limit on an attachment (MAXIMUM_FILE_UPLOAD_SIZE's default)


@dataclass
class _Known:
    conversation_id: int
    status: str
    at: float


class ChatwootDesk:
    name: ClassVar[str] = "chatwoot"
    follows_every_chat: ClassVar[bool] = True

    def __init__(self, client: ChatwootClient, *, team_id: int | None = None, agents: Mapping[int, str] | None = None,
                 clock: Callable[[], float] = time.monotonic, files: FileSource | None = None) -> None:
        self.client = client
        self.files = files  # where the subscriber's photos and documents are fetched (their channel)
        self.team_id = team_id
        self.agents = dict(agents or {})  # agent id -> the ISP user they act as (others: the operator's)
        self.clock = clock
        self._known: OrderedDict[int, _Known] = OrderedDict()
        self._made: OrderedDict[tuple[int, str], float] = OrderedDict()  # (conversation, status) -> when set
        self.own_id: int | None = None  # the Chatwoot user the bot acts as (its messages are echoes)
        self._unsure: dict[tuple[int, str, str], str] = {}  # posts that failed: (chat, kind, text) -> key

    # ---- the port ----------------------------------------------------------------------------------------
    async def open(self, chat: DeskChat, title: str, reason: str) -> str:
        async with _carried():
            await self._learn_self()
            try:
                return await self._open(chat, title, reason)
            except ChatwootGone:  # the conversation remembered was deleted in Chatwoot: a new one
                self._forget(chat.chat_id)
                return await self._open(chat, title, reason)

    async def _open(self, chat: DeskChat, title: str, reason: str) -> str:
        known = await self._conversation(chat, status="open", refresh=True)
        await self.client.set_attributes(known.conversation_id, {  # all of them: Chatwoot replaces the set
            **conversation_attributes(chat), "handoff": title, "handoff_reason": reason,
            **({"ticket": chat.ticket_id} if chat.ticket_id else {}),
        })
        if known.status != "open":
            await self._set_status(chat, known, "open")
        if self.team_id is not None:
            await self.client.assign_team(known.conversation_id, self.team_id)
        return str(known.conversation_id)

    async def post(self, ref: str | None, chat: DeskChat, post: DeskPost) -> None:
        text = plain_text(post.text).strip() or "…"
        if post.kind is PostKind.STAFF and post.author:
            text = f"{post.author}: {text}"
        # The same post again (its job tried again after a failure) keeps its key: what an earlier
        # try may have landed is looked for first, so a retried job does not post twice.
        unsure = (chat.chat_id, post.kind.value, text)
        again = unsure in self._unsure
        key = self._unsure.setdefault(unsure, uuid.uuid4().hex)
        while len(self._unsure) > REMEMBERED:  # those set aside for good are never tried again
            del self._unsure[next(iter(self._unsure))]
        files = await self._files(post)
        content = _caption(text, post.attachment) if files and post.attachment is not None else text
        async with _carried():
            await self._learn_self()
            if ref is not None:
                known = self._remember(chat.chat_id, int(ref), "open")
                await self._post(known, content, key, post.kind, again, files=files)
            else:
                try:  # the bot's chat: its conversation stays the bot's
                    await self._post(await self._bots(chat, post.kind), content, key, post.kind, again, files=files)
                except ChatwootGone:  # deleted in Chatwoot meanwhile: the chat gets a new one
                    self._forget(chat.chat_id)
                    await self._post(await self._bots(chat, post.kind), content, key, post.kind, again, files=files)
        self._unsure.pop(unsure, None)

    async def _files(self, post: DeskPost) -> list[File]:
        """The subscriber's photo or document, fetched from their channel to be attached; none when it
        is gone or too large (the text names it). A channel that cannot answer now: tried again later."""
        held = post.attachment
        if post.kind is not PostKind.SUBSCRIBER or held is None or held.file is None or self.files is None:
            return []
        if held.kind not in ("photo", "document"):
            return []
        try:
            data = await self.files.fetch(held.file, limit=ATTACHMENT_LIMIT)
        except (FileUnavailable, FileTooLarge) as exc:
            log.info("chatwoot: a subscriber's %s is posted without its file (%s)", held.kind, type(exc).__name__)
            return []
        except Exception as exc:  # the channel's own outage: the job is tried again
            what = f"the subscriber's {held.kind} could not be fetched now ({type(exc).__name__})"
            raise DeskUnavailable(what) from None
        name = held.name or ("photo.jpg" if held.kind == "photo" else "document")
        mime = held.mime or ("image/jpeg" if held.kind == "photo" else "application/octet-stream")
        return [File(name, data, mime)]

    async def notify(self, chat: DeskChat, text: str) -> None:
        """A private note in the person's conversation (the one they have, or a new ``pending`` one),
        its status left alone: news about a person belongs with their history, not in an agent's queue."""
        await self.post(None, chat, DeskPost(PostKind.NOTE, text))

    async def close(self, ref: str, chat: DeskChat, *, resolved: bool) -> None:
        async with _carried():
            await self._learn_self()
            status = "resolved" if resolved else "pending"
            current = await self.client.conversation(int(ref))  # often resolved in Chatwoot already
            known = self._remember(chat.chat_id, current.id, current.status)
            if current.status != status:  # else no webhook comes back: no echo to wait for
                await self._set_status(chat, known, status)

    # ---- what agents did -----------------------------------------------------------------------------------
    def read(self, payload: Mapping[str, Any]) -> Read | None:
        """A stored webhook event as the engine's staff event (None: not this desk's payload)."""
        event = from_payload(payload)
        if event is None:
            return None
        ref = str(event.conversation_id)
        if isinstance(event, Reply | Command) and self.own_id is not None and event.agent_id == self.own_id:
            return Read("staff_echo")  # the bot's own post (its source_id lost on the way)
        if isinstance(event, StatusChange) and self._echo(event):
            return Read("staff_echo")
        match event:
            case Reply(chat_id=chat_id, text=text, agent=agent, agent_id=agent_id, kind=kind, url=url):
                reply = StaffReply(ref, self._member(agent, agent_id), text, kind=kind, url=url)
                return Read("staff_text", Incoming(chat_id, reply, sender_name=agent))
            case Command(chat_id=chat_id, name=name, args=args, agent=agent, agent_id=agent_id):
                command = StaffCommand(ref, self._member(agent, agent_id), name, args)
                return Read("staff_command", Incoming(chat_id, command))
            case StatusChange(chat_id=chat_id, status="resolved"):
                self._forget(chat_id)
                return Read("staff_resolved", Incoming(chat_id, Resolved(ref, StaffMember(""))))
            case StatusChange(chat_id=chat_id):
                self._forget(chat_id)
        return Read("staff_status")  # opened, pending or snoozed by an agent: nothing for the bot

    def _member(self, name: str, agent_id: int) -> StaffMember:
        """The agent as the engine counts them: acting as their own ISP user where the settings name one."""
        return StaffMember(name, system_user=self.agents.get(agent_id))

    # ---- a chat's conversation ---------------------------------------------------------------------------
    async def _bots(self, chat: DeskChat, kind: PostKind) -> _Known:
        """The conversation of a chat the bot serves, ``pending`` before the person's words land in it."""
        known = await self._conversation(chat, status="pending")
        if kind is PostKind.SUBSCRIBER and known.status != "pending":
            await self._set_status(chat, known, "pending")
        return known

    async def _post(self, known: _Known, text: str, key: str, kind: PostKind, again: bool, *,
                    files: list[File] | None = None) -> None:
        await self.client.post(known.conversation_id, text, key=key, incoming=kind is PostKind.SUBSCRIBER,
                               private=kind in PRIVATE, again=again, files=files or ())

    async def _conversation(self, chat: DeskChat, *, status: str, refresh: bool = False) -> _Known:
        """The chat's conversation (made with ``status`` when it has none), and its status as known;
        ``refresh``: bring the contact's name and attributes up to date even so (a handoff's tell more)."""
        known = self._known.get(chat.chat_id)
        if known is not None and self.clock() - known.at < REMEMBER and not refresh:
            return known
        contact = await self.client.contact(identifier(chat), chat.name or str(chat.chat_id), contact_attributes(chat))
        if known is not None and self.clock() - known.at < REMEMBER:
            return known
        found = await self.client.open_conversation(contact, status=status, attributes=conversation_attributes(chat))
        return self._remember(chat.chat_id, found.id, found.status)

    async def _set_status(self, chat: DeskChat, known: _Known, status: str) -> None:
        self._made[(known.conversation_id, status)] = self.clock()  # before: its webhook may come first
        self._made.move_to_end((known.conversation_id, status))
        while len(self._made) > REMEMBERED:
            self._made.popitem(last=False)
        await self.client.set_status(known.conversation_id, status)
        self._remember(chat.chat_id, known.conversation_id, status)

    def _echo(self, event: StatusChange) -> bool:
        """Whether this status change is one the desk made (each is known once)."""
        made = self._made.pop((event.conversation_id, event.status), None)
        return made is not None and self.clock() - made < ECHO_WITHIN

    async def _learn_self(self) -> None:
        if self.own_id is None:
            self.own_id = int((await self.client.profile())["id"])

    def _remember(self, chat_id: int, conversation_id: int, status: str) -> _Known:
        known = self._known.get(chat_id)
        if known is None or known.conversation_id != conversation_id:
            known = _Known(conversation_id, status, self.clock())
        elif status != known.status:
            known.status, known.at = status, self.clock()
        self._known[chat_id] = known
        self._known.move_to_end(chat_id)
        while len(self._known) > REMEMBERED:
            self._known.popitem(last=False)
        return known

    def _forget(self, chat_id: int) -> None:
        """Its status changed in Chatwoot: ask next time."""
        self._known.pop(chat_id, None)


def _caption(text: str, held: Attachment) -> str:
    """The words of a post whose file is attached: its caption, without the "[photo] name" that
    describes the file where it could not be attached (``flows.events.describe``)."""
    words = text.removeprefix(f"[{held.kind}]").strip()
    if held.name:
        words = words.removeprefix(held.name).strip()
    return "" if words == "…" else words


def identifier(chat: DeskChat) -> str:
    """The contact's identifier, unique in the account: the chat's channel and id."""
    return f"ispbot:{chat.channel or 'telegram'}:{chat.chat_id}"


def conversation_attributes(chat: DeskChat) -> dict[str, Any]:
    """What names the bot's chat on the conversation (its webhooks carry it back)."""
    return {CHAT_ATTRIBUTE: chat.chat_id, "channel": chat.channel}


def contact_attributes(chat: DeskChat) -> dict[str, Any]:
    """What agents see beside the conversation: contract, customer code, channel and the chat's
    attributes (the tax id arrives masked), under keys Chatwoot accepts."""
    found: dict[str, Any] = {"channel": chat.channel}
    if chat.contract is not None:
        found["contract"] = chat.contract
    if chat.customer_code is not None:
        found["customer_code"] = chat.customer_code
    for label, value in chat.attributes:
        key = re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")
        if key:
            found[key] = value
    return found


@contextlib.asynccontextmanager
async def _carried() -> AsyncIterator[None]:
    """The port's two failures from the client's: for later, or refused for good."""
    try:
        yield
    except ChatwootError as exc:
        raise (DeskUnavailable if exc.later else DeskRefused)(str(exc)) from None
