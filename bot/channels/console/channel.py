"""``ConsoleChannel``: the terminal as a channel like Telegram's. A typed line is stored in the inbox;
the runtime's processor claims it, runs the engine and hands the answer back (``answer``, ``send``),
and the channel "sends" it by printing it on its ``Screen``; ``ConsoleChat.say`` returns once the
line's answer was printed. The composition root (``bot.runtime.app``) connects it.

``ConsoleChat`` is the person's own client in one chat (the demo has two): what a line means (a
number presses a button of the chat's last answer; "share my contact" and "share my location" send
the played ``Identity``'s phone and a position at its address), and what it last showed. What a turn
tells other chats is printed after the answer, marked with the chat (``[to Maria's chat] …``, in the
terminal's language), its buttons listed, not numbered.

Files: what the bot sends as a file is saved in ``downloads`` (a new temporary folder unless given)
and its path printed. ``/file <path>`` sends a file of this machine as a photo or a PDF; ``LocalFiles``
lets the engine read it. A bare ``/file``, or a path that names no file, is answered by the terminal
itself (``local_answer``) and never reaches the bot.
"""

from __future__ import annotations

import asyncio
import mimetypes
import tempfile
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from flows.events import Choice, Command, Contact, Event, FileRef, Incoming, Location, Media, Start, Text
from flows.files import FileTooLarge, FileUnavailable
from flows.replies import AskContact, AskLocation, Document, Handoff, Message, Notice, Reply, Upload
from sqlalchemy.ext.asyncio import AsyncSession

from bot.channels.console.calls import Shown, incoming_of, shows, update_payload
from bot.channels.console.terminal import Screen, terminal_text
from bot.i18n import Translations, default_translations, pick_language
from bot.reads import Read
from bot.store import Database, Inbox, InboxState
from bot.store.models import TELEGRAM

QUIT = ("/quit", "/exit", "/sair", "/salir")
SEND_FILE = "/file"
# Seconds between looks at a line's update while no answer came and the processor finished nothing
# (its progress wakes the look at once): a line whose processing failed is said so, not waited on forever.
LOOK_EVERY = 5.0


class LocalFiles:
    """Files named with ``/file``: the ``ref`` is a path on this machine."""

    async def fetch(self, ref: str, *, limit: int) -> bytes:
        return await asyncio.to_thread(self._read, Path(ref), limit)

    @staticmethod
    def _read(path: Path, limit: int) -> bytes:
        try:
            if path.stat().st_size > limit:
                raise FileTooLarge(str(path))
            return path.read_bytes()
        except OSError as exc:
            raise FileUnavailable(str(path)) from exc


def file_path(argument: str) -> Path:
    """The file ``/file`` names: quotes around it dropped, ``~`` expanded."""
    return Path(argument.strip().strip("'\"")).expanduser()


def file_event(argument: str) -> Event:
    """What sending the file at ``argument`` is: a photo for an image, a document otherwise."""
    path = file_path(argument)
    mime = mimetypes.guess_type(path.name)[0]
    size = path.stat().st_size if path.is_file() else None
    kind = "photo" if mime in ("image/jpeg", "image/png") else "document"
    return Media(kind, "", FileRef(str(path.resolve()), path.name, size, mime))


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the person at the terminal plays: what sharing the contact or the location sends."""

    phone: str
    latitude: float
    longitude: float
    name: str | None = None  # the first name a Telegram account would give


@dataclass(frozen=True, slots=True)
class Action:
    label: str
    event: Event


class ConsoleChat:
    """One chat of the terminal, as the person's client shows it."""

    def __init__(self, console: ConsoleChannel, chat_id: int, identity: Identity, client_language: str | None) -> None:
        self.console = console
        self.chat_id = chat_id
        self.identity = identity
        self.client_language = client_language
        self.choices: list[Action] = []  # what typing 1, 2, ... does now
        self.shown = ""  # the last turn as it was shown (with what went to other chats)

    def local_answer(self, line: str) -> str | None:
        """The terminal's own answer to a line that must not reach the bot (a bare ``/file``, or one
        naming no file); None for a line meant for the bot."""
        word, _, argument = line.strip().partition(" ")
        if word.lower() != SEND_FILE:
            return None
        if not argument.strip():
            return self.console.text("demo.file_usage")
        path = file_path(argument)
        if not path.exists():
            return self.console.text("demo.file_missing", path=str(path))
        if not path.is_file():
            return self.console.text("demo.file_not_a_file", path=str(path))
        return None

    def event_for(self, line: str) -> Event | None:
        """The event a typed line means; None when the person is done (empty line, /quit)."""
        text = line.strip()
        if not text or text.lower() in QUIT:
            return None
        if text.isdecimal() and 1 <= int(text) <= len(self.choices):
            return self.choices[int(text) - 1].event
        if text.lower().startswith(SEND_FILE + " "):
            return file_event(text[len(SEND_FILE):])
        if text.startswith("/") and len(text) > 1 and not text[1].isspace():
            word, _, args = text[1:].partition(" ")
            name = word.split("@")[0].lower()  # "/menu@MyIspBot", as Telegram groups send it
            if name == "start":
                return Start(args.strip() or None)
            return Command(name, args.strip())
        return Text(text)

    async def send(self, event: Event, *, quiet: bool = False) -> str:
        """Send the event to the bot; what its answer showed, once printed (``quiet``: not printed,
        a chat the person is not looking at)."""
        incoming = Incoming(self.chat_id, event, client_language=self.client_language, sender_name=self.identity.name)
        return await self.console.submit(incoming, quiet=quiet)

    async def say(self, line: str) -> str | None:
        """What typing ``line`` shows: the terminal's own answer, or the bot's; None when the person is done."""
        local = self.console.show_local(self.local_answer(line))
        if local is not None:
            return local
        event = self.event_for(line)
        return None if event is None else await self.send(event)

    def actions(self, replies: Sequence[Reply]) -> list[Action]:
        choices: list[Action] = []
        for reply in replies:
            match reply:
                case Message(buttons=rows):
                    choices += [Action(b.label, Choice(b.token)) for row in rows for b in row]
                case AskContact(button=label):
                    choices.append(Action(label, Contact(self.identity.phone, own=True)))
                case AskLocation(button=label):
                    choices.append(Action(label, Location(self.identity.latitude, self.identity.longitude)))
        return choices


class ConsoleChannel:
    """The adapter (``bot.channels.base.Channel``) and the terminal's chats; ``screen`` is where it prints."""

    name = "console"  # the inbox's ``channel`` of its updates
    serves = TELEGRAM  # its chats are Telegram-like ids: the processor sends their notices here
    sends_at_once = 32  # as the other channels' senders; it prints each at once anyway

    def __init__(
        self, screen: Screen | None = None, *, language: str | None = "pt-br", bold: bool = False,
        chat_names: MutableMapping[int, str] | None = None, downloads: Path | None = None,
        translations: Translations | None = None,
    ) -> None:
        self.screen = screen or Screen()
        self.language = language
        self.bold = bold
        self.chat_names: MutableMapping[int, str] = {} if chat_names is None else chat_names
        self.downloads = downloads
        self.translations = translations or default_translations()
        self.files = LocalFiles()  # the engine reads what "/file <path>" sent with it
        self.chats: dict[int, ConsoleChat] = {}
        self.current: int | None = None  # the chat the person types into: what goes elsewhere is marked
        self._database: Database | None = None
        self._inbox: Inbox | None = None
        self._on_stored: Callable[[], None] = lambda: None
        self._progressed: Callable[[float], Awaitable[None]] | None = None
        self._last_update = 0
        self._waiting: dict[int, asyncio.Future[str]] = {}  # update id: its answer as shown
        self._quiet: set[int] = set()

    def chat(self, chat_id: int, identity: Identity, *, client_language: str | None = None) -> ConsoleChat:
        """Open a chat of the terminal (the first one opened is the one typed into)."""
        chat = self.chats[chat_id] = ConsoleChat(self, chat_id, identity, client_language or self.language)
        if self.current is None:
            self.current = chat_id
        return chat

    def connect(
        self, database: Database, inbox: Inbox, on_stored: Callable[[], None],
        progressed: Callable[[float], Awaitable[None]],
    ) -> None:
        """Where typed lines go: the runtime's inbox, then ``on_stored``; ``progressed(within)`` waits
        for the runtime to finish some update."""
        self._database, self._inbox, self._on_stored, self._progressed = database, inbox, on_stored, progressed

    def text(self, key: str, /, **variables: Any) -> str:
        """One of the terminal's own sentences (``locales/*/demo.yaml``) in its language."""
        language = pick_language(self.language)
        return terminal_text(self.translations.render(language, key, **variables), bold=self.bold)

    def show_local(self, text: str | None) -> str | None:
        """Print the terminal's own answer to a line (None: there is none); returns it."""
        if text is not None:
            self.screen.write(text)
        return text

    # ---- a typed line into the inbox, and its answer back ----------------------------------------
    async def submit(self, incoming: Incoming, *, quiet: bool = False) -> str:
        """Store the line's update, wake the processor and wait until its answer was printed; that answer."""
        if self._database is None or self._inbox is None:
            raise RuntimeError("the console is not connected to a runtime (bot.runtime.app.build_app connects it)")
        if not quiet:
            self.current = incoming.chat_id
        loop = asyncio.get_running_loop()
        while True:
            self._last_update += 1
            update_id = self._last_update
            answer = self._waiting[update_id] = loop.create_future()  # before the processor can see it
            if quiet:
                self._quiet.add(update_id)
            try:
                async with self._database.transaction() as session:
                    stored = await self._inbox.store(session, update_id, incoming.chat_id,
                                                     update_payload(update_id, incoming), channel=self.name)
            except BaseException:
                self._forget(update_id)
                raise
            if stored:
                break
            self._forget(update_id)  # an id the inbox holds already (a database used before): the next
        self._on_stored()
        try:
            return await self._answer(update_id, answer)
        finally:
            self._forget(update_id)

    def _forget(self, update_id: int) -> None:
        self._waiting.pop(update_id, None)
        self._quiet.discard(update_id)

    async def _answer(self, update_id: int, answer: asyncio.Future[str]) -> str:
        """The answer once printed; or, should the processor set the update aside, a note saying so."""
        assert self._database is not None and self._inbox is not None and self._progressed is not None  # noqa: S101
        told = seen_done = False
        while True:
            progress = asyncio.ensure_future(self._progressed(LOOK_EVERY))
            try:
                await asyncio.wait((answer, progress), return_when=asyncio.FIRST_COMPLETED)
            finally:
                progress.cancel()
            if answer.done():
                return answer.result()
            async with self._database.transaction() as session:
                state = await self._inbox.state(session, update_id)
            if state is None or state[0] is InboxState.DONE:
                if seen_done:  # answered, yet not here (another process took it): nothing to show
                    return ""
                seen_done = True  # answered: being printed
                continue
            if state[0] is InboxState.FAILED:
                return self.show_local(self.text("demo.not_answered")) or ""
            if state[1] is not None and not told:  # put back after a failure: tried again soon
                told = True
                self.screen.write(self.text("demo.retrying"))

    # ---- bot.channels.base.Channel ---------------------------------------------------------------
    def read(self, payload: dict[str, Any]) -> Read:
        try:
            incoming = incoming_of(payload)
        except Exception as exc:  # not what ``submit`` stored: this update only
            return Read("unparseable", failed="could not be read", error=exc)
        return Read(type(incoming.event).__name__.lower(), incoming)

    async def answer(
        self, session: AsyncSession, read: Read, replies: list[Reply], notices: list[Notice],
    ) -> list[Shown]:
        assert read.incoming is not None  # noqa: S101 - only what was read is answered
        incoming = read.incoming
        turn = Shown(incoming.chat_id, tuple(r for r in replies if shows(r)), answers=incoming.message_id)
        return [turn, *(call for notice in notices for call in self.render_notice(notice))]

    async def answer_own(self, session: AsyncSession, read: Read) -> list[Shown]:
        """Never asked: the terminal has no staff group (``read`` never says ``own``)."""
        return []

    def forget(self, read: Read) -> list[Shown]:
        """A line typed stays on the terminal's screen: only what the bot kept is removed."""
        return []

    def render_notice(self, notice: Notice) -> list[Shown]:
        return [Shown(notice.chat_id, (notice.reply,))] if shows(notice.reply) else []

    def decode(self, kept: dict[str, Any]) -> Shown:
        return Shown.from_json(kept)

    async def send(self, calls: Sequence[Shown], *, notice: bool = False) -> list[asyncio.Future[Any]]:
        """Print the calls (one turn's, or notices) as one block; nothing is queued, so every future
        is done on return."""
        blocks, answered, turn_chat = [], None, None
        for call in calls:
            if call.answers is not None:
                answered, turn_chat = call.answers, self.chats.get(call.chat_id)
            text = self.render_call(call)
            if text:
                blocks.append(text)
        shown = "\n\n".join(blocks)
        if turn_chat is not None:
            turn_chat.shown = shown
        if shown and answered not in self._quiet:
            self.screen.write(shown)
        waiting = self._waiting.get(answered) if answered is not None else None
        if waiting is not None and not waiting.done():
            waiting.set_result(shown)
        done: list[asyncio.Future[Any]] = []
        for _ in calls:
            future = asyncio.get_running_loop().create_future()
            future.set_result(None)
            done.append(future)
        return done

    async def drain(self, within: float) -> None:
        """Nothing waits: ``send`` prints at once."""

    async def waiting_calls(
        self, session: AsyncSession, now: datetime, wait: timedelta, minutes_each: int,
    ) -> list[Shown]:
        """None: the terminal has no live staff desk."""
        return []

    # ---- the terminal's rendering ----------------------------------------------------------------
    def chat_name(self, chat_id: int) -> str:
        return self.chat_names.get(chat_id, f"chat {chat_id}")

    def render_call(self, call: Shown) -> str:
        """A turn's answer with its buttons numbered (and they become its chat's choices), and so a
        notice to the chat typed into that has buttons (a restarted connection not back: "open a
        ticket"); anything else with them listed, marked with its chat when that is not the one typed into."""
        chat = self.chats.get(call.chat_id)
        if call.answers is not None or (call.chat_id == self.current and chat is not None
                                        and chat.actions(call.replies)):
            if chat is not None:
                chat.choices = chat.actions(call.replies)
            return self.render(call.replies)
        text = self.render(call.replies, numbered=False)
        if text and call.chat_id != self.current:
            text = f"   {self.text('demo.to_chat', chat=self.chat_name(call.chat_id))} " + text.replace("\n", "\n   ")
        return text

    def render_notices(self, notices: Sequence[Notice]) -> str:
        """Messages the bot sent on its own, as ``send`` prints them."""
        calls = [call for notice in notices for call in self.render_notice(notice)]
        return "\n\n".join(text for text in map(self.render_call, calls) if text)

    def render(self, replies: Sequence[Reply], *, numbered: bool = True) -> str:
        blocks: list[str] = []
        number = 0

        def mark(label: str) -> str:
            nonlocal number
            number += 1
            return f"[{number}] {label}" if numbered else f"[{label}]"

        for reply in replies:
            match reply:
                case Message(text=text, buttons=rows):
                    lines = [terminal_text(text, bold=self.bold)]
                    lines += ["   " + "   ".join(mark(button.label) for button in row) for row in rows]
                    blocks.append("\n".join(lines))
                case AskContact(text=text, button=label) | AskLocation(text=text, button=label):
                    blocks.append(f"{terminal_text(text, bold=self.bold)}\n   {mark(label)}")
                case Document(url=url, caption=caption):
                    blocks.append(f"{terminal_text(caption, bold=self.bold)}\n   📎 {url}")
                case Upload(filename=name, data=data, caption=caption):
                    saved = self.text("demo.saved_to", path=str(self.save(name, data)))
                    blocks.append(f"{terminal_text(caption, bold=self.bold)}\n   📎 {saved}")
                case Handoff(reason=reason):
                    blocks.append("   " + self.text("demo.handed_over", reason=reason))
        return "\n\n".join(blocks)

    def save(self, name: str, data: bytes) -> Path:
        """Keep a file the bot sent where the person can open it; its path."""
        if self.downloads is None:
            self.downloads = Path(tempfile.mkdtemp(prefix="ispbot-demo-files-"))
        path = self.downloads / name
        counter = 1
        while path.exists():
            counter += 1
            path = self.downloads / f"{Path(name).stem}-{counter}{Path(name).suffix}"
        path.write_bytes(data)
        return path
