"""``Replies`` (``ctx.reply``): what a turn says, to this chat and as notices to others.

A step says things (``say``), sends a file (``document``, ``upload``), and asks the next question
(``ask``, ``ask_location``, ``ask_contact``; ``wait`` without asking), which is where the chat waits
for the answer. Notices go to chats outside this turn's answer: this chat's, from a staff member's
turn (``tell``), or every chat of a customer (``notify_customer``: a technician's visit). The engine
reads ``replies`` and ``notices`` once the step is over.
"""

from __future__ import annotations

import base64
import secrets
from typing import Any

from bot.i18n import DEFAULT_LANGUAGE, Translations, plain_text
from bot.store import Inbox, utcnow
from bot.store.channels import WHATSAPP, WHATSAPP_WINDOW, channel_of_chat
from sqlalchemy.ext.asyncio import AsyncSession

from flows.chat import CHOICES, PROMPT, Chat, Repositories
from flows.replies import AskContact, AskLocation, Button, Document, Message, Notice, Reply, Upload, notice
from flows.steps import Option

TOKEN_BYTES = 6  # a button's token: 8 characters, so callback data stays far under Telegram's 64 bytes


class Replies:
    def __init__(self, chat: Chat, session: AsyncSession, repos: Repositories, translations: Translations) -> None:
        self._chat = chat
        self._session = session
        self._repos = repos
        self._translations = translations
        self.replies: list[Reply] = []  # this turn's answer to the chat, in order
        self.notices: list[Notice] = []  # messages for chats outside this turn's answer
        self.notices_held = 0  # notices of this turn WhatsApp will hold (outside its window, no template)

    # ---- to this chat ----------------------------------------------------------------------------
    def say(self, key: str, /, **variables: Any) -> None:
        self.replies.append(Message(self._chat.text(key, **variables)))

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
        message = Message(self._chat.text(key, **variables), rows)
        self.replies.append(message)
        self._waits(step, choices, {
            "kind": "message", "text": message.text, "buttons": [[[b.label, b.token] for b in row] for row in rows],
        })

    def ask_location(self, step: str, key: str, /, **variables: Any) -> None:
        reply = AskLocation(self._chat.text(key, **variables), self._chat.text("common.button_share_location"))
        self._wait(step, reply, {"kind": "location", "text": reply.text, "button": reply.button})

    def ask_contact(self, step: str, key: str, /, **variables: Any) -> None:
        reply = AskContact(self._chat.text(key, **variables), self._chat.text("common.button_share_contact"))
        self._wait(step, reply, {"kind": "contact", "text": reply.text, "button": reply.button})

    def wait(self, step: str) -> None:
        """Wait in ``step`` without asking anything (a person answers from now on)."""
        self._waits(step, {}, None)

    def document(self, url: str, caption_key: str, /, **variables: Any) -> None:
        self.replies.append(Document(url, self._chat.text(caption_key, **variables)))

    def upload(self, kind: str, data: bytes, filename: str, caption_key: str, /, **variables: Any) -> None:
        """Send a file made or fetched in this turn (``kind``: "photo" or "document")."""
        self.replies.append(Upload(kind, data, filename, self._chat.text(caption_key, **variables)))

    # ---- notices ---------------------------------------------------------------------------------
    def tell(self, kind: str, key: str, /, **variables: Any) -> None:
        """Say something to this chat as a notice of ``kind`` (a staff member's turn, not the person's)."""
        chat = self._chat
        self.notices.append(notice(self._translations, chat.chat_id, chat.language, kind, key,
                                   **{"channel": chat.channel_name, **variables}))

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

    # ---- internals -------------------------------------------------------------------------------
    async def _held(self, chat_id: int, kind: str) -> bool:
        """Whether WhatsApp will hold a notice of ``kind`` to this chat now (outside its window)."""
        if kind not in self._chat.policy.held_outside_window or channel_of_chat(chat_id) != WHATSAPP:
            return False
        last = await Inbox().last_received(self._session, chat_id, channel=WHATSAPP)
        return last is None or utcnow() - last >= WHATSAPP_WINDOW

    def _label(self, option: Option) -> str:
        if option.key is not None:
            return plain_text(self._chat.text(option.key, **option.vars))
        return option.text or ""

    def _wait(self, step: str, reply: Reply, prompt: dict[str, Any]) -> None:
        self.replies.append(reply)
        self._waits(step, {}, prompt)

    def _waits(self, step: str, choices: dict[str, Any], prompt: dict[str, Any] | None) -> None:
        """The chat waits in ``step``: for one of ``choices`` (its buttons' values), for ``prompt``'s answer."""
        state = self._chat.state
        state.step = step
        state.data[CHOICES] = choices
        state.data[PROMPT] = prompt


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
