"""The staff desk on Telegram: one forum topic of the staff supergroup per handed-off conversation,
the Telegram adapter of ``bot.desks.base.Desk``.

Out (``TelegramForumDesk``, called by ``bot.desks.worker`` after the turn committed): opening makes
the topic (``createForumTopic``, named with the protocol and the customer's name), posts go into it
(the person's words tagged with their name, their media copied when they wrote on Telegram; cards
and notes as they are), closing closes it. Calls go through the channel's sender, so the group's
rate limits hold for the desk too.

In (``read``, through the port): what someone writes in a topic is a staff event for the engine, which counts
it only from chats linked as staff (``ispbot invite staff``); commands are ``/assign``, ``/note``...;
a topic a staff member closes in Telegram's own screen ends the conversation, as Chatwoot's "resolve".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from flows.desk import Attachment, DeskChat, DeskPost, PostKind, StaffMember
from flows.deskwork import STAFF_LANGUAGE
from flows.events import (
    Command,
    Contact,
    Incoming,
    Location,
    Media,
    Resolved,
    StaffCommand,
    StaffEvent,
    StaffReply,
    Text,
    describe,
)

from bot.channels.telegram.render import ApiCall
from bot.channels.telegram.updates import chat_of, route_stored
from bot.desks.base import DeskRefused
from bot.i18n import Translations, plain_text
from bot.reads import Read

MAX_TOPIC_NAME = 128

Submit = Callable[[ApiCall], Awaitable["asyncio.Future[Any]"]]


class TelegramForumDesk:
    name: ClassVar[str] = "telegram"
    follows_every_chat: ClassVar[bool] = False

    def __init__(self, submit: Submit, staff_chat_id: int, translations: Translations) -> None:
        """``submit``: the channel's sender (``Sender.submit``): a future of the call's result."""
        self._submit = submit
        self.staff_chat_id = staff_chat_id
        self.translations = translations

    async def open(self, chat: DeskChat, title: str, reason: str) -> str:
        name = plain_text(title).strip() or f"#{chat.ticket_id or chat.name}"
        created = await self._call(ApiCall("createForumTopic", {"chat_id": self.staff_chat_id,
                                                                  "name": name[:MAX_TOPIC_NAME]}))
        if not isinstance(created, dict) or "message_thread_id" not in created:
            raise DeskRefused(_REFUSED["createForumTopic"])
        return str(created["message_thread_id"])

    async def post(self, ref: str | None, chat: DeskChat, post: DeskPost) -> None:
        if ref is None:
            raise DeskRefused("a forum desk posts only into a handoff's topic")
        thread = int(ref)
        if post.kind is PostKind.SUBSCRIBER:
            line = self.translations.render(STAFF_LANGUAGE, "human.from_subscriber", name=post.author or chat.name,
                                            text=post.text)
            await self._call(self._send(thread, line))
            held = post.attachment
            if held is not None and held.channel == "telegram":
                await self._call(ApiCall("copyMessage", {
                    "chat_id": self.staff_chat_id, "message_thread_id": thread, "from_chat_id": held.chat_id,
                    "message_id": held.message_id,
                }))
        elif post.kind in (PostKind.CARD, PostKind.NOTE):
            await self._call(self._send(thread, post.text))
        # STAFF and BOT: the staff wrote their reply in the topic themselves; the bot's own answers
        # are not posted to a forum desk (it follows handed-off chats only).

    async def close(self, ref: str, chat: DeskChat, *, resolved: bool) -> None:
        await self._call(ApiCall("closeForumTopic", {"chat_id": self.staff_chat_id, "message_thread_id": int(ref)}))

    async def notify(self, chat: DeskChat, text: str) -> None:
        """In the group's general topic, where the staff see what is nobody's conversation yet."""
        await self._call(ApiCall("sendMessage", {"chat_id": self.staff_chat_id, "text": text, "parse_mode": "HTML"}))

    def read(self, payload: Mapping[str, Any]) -> Read | None:
        """A stored update of the staff group as the engine's staff event (``other`` when it is none:
        outside a topic, a button, /start); None: not the staff group's (the channel reads it)."""
        if not isinstance(payload, dict) or chat_of(payload) != self.staff_chat_id:
            return None
        found = route_stored(payload, None, self.staff_chat_id)  # no bot needed: ids and words are read, not fetched
        if isinstance(found, Read):
            return found
        event = staff_event(found.incoming, found.thread_id) if found.staff else None
        if event is None:
            return Read("other")
        return Read("staff_" + type(found.incoming.event).__name__.lower(), replace(found.incoming, event=event))

    def _send(self, thread: int, text: str) -> ApiCall:
        return ApiCall("sendMessage", {
            "chat_id": self.staff_chat_id, "message_thread_id": thread, "text": text, "parse_mode": "HTML",
        })

    async def _call(self, call: ApiCall) -> Any:
        """The call's result once the sender took it: it keeps the group's rate limit and retries while
        Telegram cannot be reached (the desk worker keeps the job leased meanwhile); ``None`` back
        means Telegram refused it for good (the sender kept it as a dead letter)."""
        result = await (await self._submit(call))
        if result is None:
            raise DeskRefused(_REFUSED.get(call.method, f"Telegram refused a {call.method} in the staff group") +
                              " (Telegram's words: ispbot undelivered)")
        return result


# What to fix when Telegram refuses the desk's calls for good.
_REFUSED = {
    "createForumTopic": "Telegram did not create the forum topic: is ISPBOT_STAFF_CHAT_ID a forum supergroup, "
                        "and may the bot manage its topics (ispbot doctor)?",
    "closeForumTopic": "Telegram did not close the forum topic: may the bot manage the staff group's topics?",
}


def staff_event(incoming: Incoming, thread_id: int | None) -> StaffEvent | None:
    """What a message in a topic of the staff group is for the engine; None: nothing (outside a
    topic, a button, /start)."""
    if thread_id is None or incoming.sender_id is None:
        return None
    if isinstance(incoming.event, Resolved):  # the topic closed by hand: the conversation is over
        return incoming.event
    ref = str(thread_id)
    staff = StaffMember(name=incoming.sender_name or "", chat_id=incoming.sender_id)
    event = incoming.event
    if isinstance(event, Command):
        return StaffCommand(ref, staff, event.name, event.args)
    if isinstance(event, Text):
        return StaffReply(ref, staff, event.text)
    if isinstance(event, Media | Location | Contact):
        kind = event.kind if isinstance(event, Media) else type(event).__name__.lower()
        held = None
        if incoming.message_id is not None:
            file = event.file if isinstance(event, Media) else None
            held = Attachment("telegram", incoming.chat_id, incoming.message_id, kind, *(
                (file.ref, file.name, file.mime) if file is not None else ()))
        return StaffReply(ref, staff, describe(event), kind, held)
    return None
