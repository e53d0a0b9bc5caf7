"""A test channel for the engine: a seeded sandbox ISP in-process, a scratch database, and chats
that send events and record the replies, as a person would see them.

    async def test_something(desk: Desk) -> None:
        chat = await desk.linked_chat()            # Maria (DEMO_IDENTITIES.customer), already linked
        await chat.command("boleto")
        await chat.tap("Pagar")                    # the button whose label contains this text
        assert "34191" in chat.text                # everything the bot said in the last turn
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import httpx
from bot.acs import AcsSettings
from bot.i18n import plain_text
from bot.isp import IspClient, IspSettings
from bot.runtime.app import Settings, build_core
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY, FixedClock, Sandbox
from bot.sandbox.genieacs import ACS_URL
from bot.settings import BotSettings
from bot.store import Invites, Links, Proof, Role
from flows.engine import Engine
from flows.events import Choice, Command, Contact, Event, FileRef, Incoming, Location, Media, Start, Text
from flows.files import FileTooLarge, FileUnavailable
from flows.policy import Policy
from flows.replies import AskContact, AskLocation, Document, Handoff, Message, Notice, Reply, Upload
from flows.stock import StockCatalog

from tests.store.dbtools import ScratchDatabase


class FakeMonotonic:
    """The coordinator's cache clock, moved by hand (TTL expiry without sleeping)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeFiles:
    """What people sent, as a channel would fetch it (``fetched`` counts the fetches)."""

    files: dict[str, bytes] = field(default_factory=dict)
    fetched: int = 0

    async def fetch(self, ref: str, *, limit: int) -> bytes:
        if ref not in self.files:
            raise FileUnavailable(ref)
        if len(self.files[ref]) > limit:
            raise FileTooLarge(ref)
        self.fetched += 1
        return self.files[ref]


@dataclass
class Desk:
    sandbox: Sandbox
    database: ScratchDatabase
    client: IspClient
    engine: Engine
    cache_clock: FakeMonotonic
    clock: FixedClock
    next_chat: int = 500
    files: FakeFiles = field(default_factory=FakeFiles)
    notices: list[Notice] = field(default_factory=list)  # every notice of every turn, in order

    def chat(self, chat_id: int | None = None, language: str | None = "pt-br", name: str | None = None) -> TestChat:
        if chat_id is None:
            self.next_chat += 1
            chat_id = self.next_chat
        return TestChat(self, chat_id, language, name)

    async def linked_chat(
        self, customer: int = DEMO_IDENTITIES.customer, *, contract: int | None = None, language: str | None = "pt-br",
    ) -> TestChat:
        """A chat already linked to ``customer`` (as if it had proved it), at the menu."""
        chat = self.chat(language=language)
        async with self.database.transaction() as session:
            await Links().link(
                session, chat.chat_id, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE, customer_code=customer,
                contract=contract,
            )
        await chat.command("menu")
        return chat

    async def technician_chat(
        self, user: str = DEMO_IDENTITIES.technician, *, language: str | None = "pt-br", name: str | None = None,
    ) -> TestChat:
        """A chat that redeemed an invite for system user ``user`` (a technician), at their menu;
        ``name``: the first name the person's Telegram gives."""
        chat = self.chat(language=language, name=name)
        async with self.database.transaction() as session:
            issued = await Invites().create(session, Role.TECHNICIAN, user)
        await chat.start(issued.code)
        return chat

    def notices_for(self, chat_id: int) -> list[str]:
        """Plain text of what the bot told ``chat_id`` on its own (from other chats' turns)."""
        return [plain_text(n.reply.text) for n in self.notices if n.chat_id == chat_id and isinstance(n.reply, Message)]

    def expire_caches(self) -> None:
        self.cache_clock.now += 3600


@dataclass
class TestChat:
    __test__ = False  # a helper for tests, not a test class for pytest to collect

    desk: Desk
    chat_id: int
    language: str | None
    name: str | None = None  # the person's first name, as Telegram gives it
    replies: list[Reply] = field(default_factory=list)  # of the last turn
    history: list[Reply] = field(default_factory=list)  # of every turn

    async def send(self, event: Event) -> list[Reply]:
        async def keep_notices(_: Any, __: list[Reply], notices: list[Notice]) -> None:
            self.desk.notices.extend(notices)

        incoming = Incoming(self.chat_id, event, client_language=self.language, sender_name=self.name)
        self.replies = await self.desk.engine.handle(incoming, within=keep_notices)
        # Every event is answered, except a live location's later positions where no step wants one.
        assert self.replies or (isinstance(event, Location) and event.live), f"no reply to {event!r}"
        self.history.extend(self.replies)
        return self.replies

    async def start(self, payload: str | None = None) -> list[Reply]:
        return await self.send(Start(payload))

    async def command(self, name: str, args: str = "") -> list[Reply]:
        return await self.send(Command(name, args))

    async def say(self, text: str) -> list[Reply]:
        return await self.send(Text(text))

    async def tap(self, label: str) -> list[Reply]:
        """Press the button of the last question whose label contains ``label``."""
        return await self.send(Choice(self.button(label)))

    async def share_contact(self, phone: str, own: bool = True) -> list[Reply]:
        return await self.send(Contact(phone, own))

    async def share_location(self, latitude: float, longitude: float, live: bool = False) -> list[Reply]:
        return await self.send(Location(latitude, longitude, live))

    async def send_media(self, kind: str, caption: str = "") -> list[Reply]:
        return await self.send(Media(kind, caption))

    async def send_file(self, kind: str, name: str, content: bytes, *, mime: str | None = None,
                        size: int | None = None, caption: str = "") -> list[Reply]:
        """A photo or document the channel can fetch later (``size``: what the channel says it is)."""
        ref = f"file-{len(self.desk.files.files) + 1}"
        self.desk.files.files[ref] = content
        known = len(content) if size is None else size
        return await self.send(Media(kind, caption, FileRef(ref, name, known, mime)))

    # ---- what the person sees ---------------------------------------------------------------------
    @property
    def text(self) -> str:
        """Everything the bot said in the last turn, as plain text."""
        return "\n".join(_reply_text(reply) for reply in self.replies)

    @property
    def buttons(self) -> list[str]:
        """Labels of the buttons of the last turn's questions."""
        return [b.label for reply in self.replies if isinstance(reply, Message) for row in reply.buttons for b in row]

    def button(self, label: str) -> str:
        for reply in reversed(self.replies):
            if isinstance(reply, Message):
                for row in reply.buttons:
                    for button in row:
                        if label.casefold() in button.label.casefold():
                            return button.token
        raise AssertionError(f"no button with {label!r} among {self.buttons}")

    def last(self, kind: type[Any]) -> Any:
        found = [reply for reply in self.replies if isinstance(reply, kind)]
        assert found, f"no {kind.__name__} among {self.replies}"
        return found[-1]

    @property
    def handoffs(self) -> list[Handoff]:
        return [reply for reply in self.replies if isinstance(reply, Handoff)]


def _reply_text(reply: Reply) -> str:
    match reply:
        case Message(text=text) | AskContact(text=text) | AskLocation(text=text):
            return plain_text(text)
        case Document(url=url, caption=caption):
            return f"{plain_text(caption)} {url}"
        case Upload(kind=kind, filename=name, caption=caption):
            return f"[{kind}: {name}] {plain_text(caption)}"
        case Handoff(reason=reason):
            return f"[handoff: {reason}]"
    return ""


class LoseAnswers(httpx.AsyncBaseTransport):
    """Passes every call to the sandbox, then loses the answer of the next ``times`` calls of ``operation``
    (the write landed; the phone never heard back)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, operation: str, times: int = 1) -> None:
        self.inner, self.operation, self.times = inner, operation, times
        self.then: Callable[[], object] = lambda: None  # what else goes wrong once the answer is lost

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if self.times and f'"{self.operation}"'.encode() in request.content:
            self.times -= 1
            await response.aread()
            self.then()
            raise httpx.ReadTimeout("the answer was lost", request=request)
        return response


def make_desk(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock, policy: Policy | None = None, *,
    http_transport: httpx.AsyncBaseTransport | None = None, acs: httpx.AsyncBaseTransport | None = None,
    acs_timeout: float = 4.0,
) -> Desk:
    """The engine as the composition root builds it (``bot.runtime.app.build_core``), over the sandbox
    (``http_transport``: another way to it, one that loses answers, say); ``acs``: the ISP has an ACS,
    this (a fake GenieACS NBI) answering for it, ``acs_timeout`` its ``ISPBOT_ACS_TIMEOUT``."""
    isp_settings = IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY, retries=0)
    cache_clock = FakeMonotonic()
    files = FakeFiles()

    acs_settings = AcsSettings(_env_file=None, url=ACS_URL, timeout=acs_timeout) if acs is not None else None
    app = build_core(
        Settings(isp_settings, BotSettings(_env_file=None), acs_settings=acs_settings),  # type: ignore[call-arg]
        database, http_transport=http_transport or httpx.ASGITransport(app=sandbox.app), wall_clock=clock,
        cache_clock=cache_clock, policy=policy or sandbox_policy(sandbox), files=files, acs_transport=acs,
    )
    return Desk(sandbox, database, app.client, app.engine, cache_clock, clock, files=files)


@contextlib.asynccontextmanager
async def losing_answers(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock, operation: str,
) -> AsyncIterator[Desk]:
    """A desk whose first answer to ``operation`` is lost on its way back (``LoseAnswers``)."""
    desk = make_desk(sandbox, database, clock,
                     http_transport=LoseAnswers(httpx.ASGITransport(app=sandbox.app), operation))
    try:
        yield desk
    finally:
        await desk.client.aclose()


def sandbox_policy(sandbox: Sandbox, **changes: Any) -> Policy:
    """The policy ``make_desk`` runs with by default (the sandbox's stock), with ``changes``."""
    return replace(Policy(stock=StockCatalog.from_mapping(sandbox.stock_catalog())), **changes)


def pdf_text(data: bytes) -> str:
    """The words of a PDF the bot made (uncompressed, core fonts), its wrapped lines joined by spaces."""
    import re  # noqa: PLC0415 - only the papers' tests read PDFs

    assert data.startswith(b"%PDF"), "not a PDF"
    shown = re.findall(rb"\((.*?)\) Tj", data)
    return " ".join(part.decode("latin-1").replace("\\(", "(").replace("\\)", ")") for part in shown)
