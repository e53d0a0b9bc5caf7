"""``ConsoleChannel``: a line typed in a terminal becomes an event, the engine's replies become text.

No terminal here (the demo loop in ``demo.py`` reads and prints), so tests drive it with strings.
Buttons of the last turn are numbered; "share my contact" and "share my location" are numbered
choices too, and send the played identity's own phone (``own=True``) and a position at its address.

What a turn sends to other chats (a subscriber told that the technician is on the way) is shown
after the answer, each message marked with the chat it went to (``[to Maria's chat] …``, in the
chat's language), from ``chat_names`` or the chat's id; its buttons are listed, not numbered.

Files: what the bot sends as a file (a PIX QR code, a bill's PDF) is saved in ``downloads`` (a new
temporary folder unless given) and its path printed. ``/file <path>`` sends a file from this machine
as the person would send a photo or a PDF (a payment receipt); ``LocalFiles`` lets the engine read it.
The path is checked when the line is typed: a bare ``/file``, or a path that names no file, is
answered by the channel itself (``local_answer``, in the chat's language) and never reaches the bot.
"""

from __future__ import annotations

import asyncio
import mimetypes
import tempfile
from collections.abc import MutableMapping
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from flows.engine import Engine
from flows.events import Choice, Command, Contact, Event, FileRef, Incoming, Location, Media, Start, Text
from flows.files import FileTooLarge, FileUnavailable
from flows.replies import AskContact, AskLocation, Document, Handoff, Message, Notice, Reply, Upload

from bot.i18n import default_translations, pick_language

BOLD, RESET = "\033[1m", "\033[0m"
QUIT = ("/quit", "/exit", "/sair", "/salir")
SEND_FILE = "/file"


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


class ConsoleChannel:
    def __init__(
        self, engine: Engine, identity: Identity, *, chat_id: int = 1, client_language: str | None = "pt-br",
        bold: bool = False, chat_names: MutableMapping[int, str] | None = None, downloads: Path | None = None,
    ) -> None:
        self.engine = engine
        self.identity = identity
        self.chat_id = chat_id
        self.client_language = client_language
        self.bold = bold
        self.chat_names: MutableMapping[int, str] = {} if chat_names is None else chat_names
        self.choices: list[Action] = []  # what typing 1, 2, ... does now
        self.shown = ""  # the last turn as it was shown (with what went to other chats)
        self.downloads = downloads

    def local_answer(self, line: str) -> str | None:
        """The channel's own answer to a line that must not reach the bot (a bare ``/file``, or one
        naming no file), in the chat's language; None for a line meant for the bot."""
        word, _, argument = line.strip().partition(" ")
        if word.lower() != SEND_FILE:
            return None
        if not argument.strip():
            return self.text("demo.file_usage")
        path = file_path(argument)
        if not path.exists():
            return self.text("demo.file_missing", path=str(path))
        if not path.is_file():
            return self.text("demo.file_not_a_file", path=str(path))
        return None

    def text(self, key: str, /, **variables: Any) -> str:
        """One of the terminal's own sentences (``locales/*/demo.yaml``) in the chat's language."""
        language = pick_language(self.client_language)
        return terminal_text(default_translations().render(language, key, **variables), bold=self.bold)

    def event_for(self, line: str) -> Event | None:
        """The event a typed line means; None when the person is done (empty line, /quit)."""
        text = line.strip()
        if not text or text.lower() in QUIT:
            return None
        if text.isdigit() and 1 <= int(text) <= len(self.choices):
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

    async def send(self, event: Event) -> str:
        """Hand the event to the engine; what the bot answered, then what it sent to other chats."""
        elsewhere: list[Notice] = []

        async def keep_notices(_: Any, __: list[Reply], notices: list[Notice]) -> None:
            elsewhere.extend(notices)

        incoming = Incoming(self.chat_id, event, client_language=self.client_language, sender_name=self.identity.name)
        replies = await self.engine.handle(incoming, within=keep_notices)
        self.choices = self._choices(replies)
        self.shown = "\n\n".join(part for part in (self.render(replies), self.render_notices(elsewhere)) if part)
        return self.shown

    async def say(self, line: str) -> str | None:
        """What typing ``line`` shows: the channel's own answer, or the bot's; None when the person is done."""
        local = self.local_answer(line)
        if local is not None:
            return local
        event = self.event_for(line)
        return None if event is None else await self.send(event)

    def chat_name(self, chat_id: int) -> str:
        return self.chat_names.get(chat_id, f"chat {chat_id}")

    def render_notices(self, notices: list[Notice]) -> str:
        """Messages the bot sent on its own; those for other chats are marked with the chat."""
        blocks: list[str] = []
        for notice in notices:
            text = self.render([notice.reply], numbered=False)
            if text and notice.chat_id != self.chat_id:
                text = f"   {self.text('demo.to_chat', chat=self.chat_name(notice.chat_id))} " + text.replace(
                    "\n", "\n   ")
            if text:
                blocks.append(text)
        return "\n\n".join(blocks)

    def render(self, replies: list[Reply], *, numbered: bool = True) -> str:
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
                    blocks.append(f"{terminal_text(caption, bold=self.bold)}\n   📎 saved to {self.save(name, data)}")
                case Handoff(reason=reason):
                    blocks.append(f"   (handed over to the support staff: {reason})")
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

    def _choices(self, replies: list[Reply]) -> list[Action]:
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


class _Terminal(HTMLParser):
    """Telegram's HTML subset as terminal text: bold as ANSI bold (or plain), links with their address."""

    def __init__(self, bold: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.bold = bold
        self.parts: list[str] = []
        self._href: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("b", "strong") and self.bold:
            self.parts.append(BOLD)
        elif tag == "a":
            self._href.append(dict(attrs).get("href"))
        elif tag == "br":
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("b", "strong") and self.bold:
            self.parts.append(RESET)
        elif tag == "a" and self._href:
            href = self._href.pop()
            if href:
                self.parts.append(f" ({href})")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def terminal_text(markup: str, *, bold: bool = False) -> str:
    parser = _Terminal(bold)
    parser.feed(markup)
    parser.close()
    return "".join(parser.parts)
