"""``ispbot demo``: chat with the bot in this terminal, as a seeded subscriber of the sandbox ISP, or
as its seeded technician (``--as technician``, or ``/technician`` during the demo).

The real path, as on Telegram: the console channel (``bot.channels.console``) stores each line in the
inbox, the processor runs it, the channel prints the answer. Two chats: the subscriber's (1) and the
technician's (2, opened with an invite for ``tecnico.joao``, after linking the subscriber's chat to
Maria, so what the technician does to her ticket shows as ``[to Maria's chat] …``). A seeded
customer's CPF or CNPJ typed there makes "share my contact" and "share my location" theirs.

Lines are read in a thread of their own: what the bot says on its own (a restarted connection, an
outage's end) is printed while the prompt waits. An empty line is ignored; ``/sair`` or Ctrl-D ends.
The sandbox runs in-process; the bot's SQLite file (``ispbot-demo.sqlite3``) and the sandbox's records
beside it keep the demo's state between runs. Example contacts (``DEMO_CONTACTS``) fill what the
environment leaves unset. Log lines go to stderr, one line each.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import httpx
from flows.events import Command, Start, Text
from flows.identity import normalise_tax_id
from flows.restarts import RestartChecks

from bot.acs import AcsSettings
from bot.channels.console import ConsoleChannel, ConsoleChat, Identity, Screen
from bot.isp import IspSettings
from bot.isp.settings import V1_PATH, V2_PATH
from bot.runtime.app import App, Settings, Terminal, build_app
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY, Sandbox
from bot.sandbox.genieacs import ACS_URL, demo_acs
from bot.settings import BotSettings
from bot.store import Database, Invites, Links, Proof, Role
from bot.store.migrate import upgrade

D = DEMO_IDENTITIES
log = logging.getLogger(__name__)
SAO_PAULO = (-23.5505, -46.6333)  # where "share my location" points when the seed has no map mark
END_OUTAGES = "/endoutage"  # the demo's own command: the sandbox's technicians fix every open outage
# The demo's own commands that choose the chat the terminal types into.
AS_TECHNICIAN = ("/technician", "/tecnico")
AS_SUBSCRIBER = ("/subscriber", "/assinante", "/abonado")
ROLES = ("subscriber", "technician")
SUBSCRIBER_CHAT, TECHNICIAN_CHAT = 1, 2
TECHNICIAN_PHONE = "+5511955550100"  # fictitious: what "share my contact" sends from the technician's phone
TECHNICIAN_NAME = "João"  # the first name on the technician's Telegram account
DATABASE = "ispbot-demo.sqlite3"  # ``ispbot demo``'s database, in the folder it runs in
NOTICES_EVERY = 2.0  # seconds between looks for what the bot tells the chats on its own
# The example ISP's ways to reach people, so the stranger's and the prospect's answers show them; each
# is used unless the environment sets it (ISPBOT_SUPPORT_PHONE...). Hours are said inside a sentence:
# in the demo's language.
DEMO_CONTACTS: dict[str, dict[str, str]] = {
    "pt_BR": {"support_hours": "seg. a sáb., das 8h às 20h"},
    "en": {"support_hours": "Mon to Sat, 8 am to 8 pm"},
    "es": {"support_hours": "lun. a sáb., de 8 a 20 h"},
}
DEMO_PHONES = {
    "support_phone": "0800 123 4567",
    "sales_phone": "(11) 4004-1234",
    "sales_address": "Rua Augusta, 1500, São Paulo · fibrasandbox.com.br",
    "address": "Rua Augusta, 1500, São Paulo",
    "website": "fibrasandbox.com.br",
}


def sandbox_file(database: Path) -> Path:
    """Where the demo keeps the sandbox's records between runs: beside its database."""
    return database.with_name(database.stem + ".sandbox.json")


def demo_settings(language: str, **given: Any) -> BotSettings:
    """The demo's settings: the environment's (the policy), ``given`` over them, and the example
    ISP's contacts where neither set them."""
    settings = BotSettings(**given)
    examples = {**DEMO_PHONES, **DEMO_CONTACTS.get(language, DEMO_CONTACTS["pt_BR"])}
    unset: dict[str, Any] = {name: value for name, value in examples.items() if name not in settings.model_fields_set}
    return BotSettings(**given, **unset) if unset else settings


@dataclass
class Demo:
    app: App
    terminal: Terminal
    sandbox: Sandbox
    subscriber: ConsoleChat
    chat: ConsoleChat  # the chat the terminal types into now
    technician: ConsoleChat | None = None
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    processing: asyncio.Task[None] | None = None
    database_file: Path | None = None
    # One thing at a time on the screen: a typed line's turn, or the notices the bot sends on its own.
    busy: asyncio.Lock = field(default_factory=asyncio.Lock)

    @classmethod
    async def open(
        cls, folder: Path, language: str, *, bold: bool, stdout: TextIO | None = None,
        database_file: Path | None = None,
    ) -> Demo:
        """The demo in ``folder``, its processor running; what it shows is printed to ``stdout`` (None:
        only kept, for ``say`` to return). ``database_file``: the bot's database (``folder``'s
        ``demo.sqlite3`` when None), the sandbox's records beside it from the last run, if kept."""
        database_file = database_file or folder / "demo.sqlite3"
        kept = sandbox_file(database_file)
        sandbox = Sandbox.from_file(kept) if kept.is_file() else Sandbox.seeded()
        database = Database(f"sqlite+aiosqlite:///{database_file}")
        await upgrade(database)
        # Every field that matters is given, so ISPBOT_ISP_* meant for a real ISP cannot misroute the demo.
        isp_settings = IspSettings(
            base_url="http://127.0.0.1", key=PRODUCTION_KEY, v1_path=V1_PATH, v2_path=V2_PATH,
            timezone="America/Sao_Paulo", retries=0,
        )
        stock = folder / "stock.yaml"  # the sandbox's products and locations, as an operator would list them
        sandbox.write_stock_file(stock)
        settings = demo_settings(
            language, database_url=str(database.url), ticket_mode=D.telegram_mode, stock_file=stock,
            isp_user=D.bot_user, company=D.isp_name, cancel_reversal_reason=D.cancel_reversal_reason,
            cancel_fine_account=D.cancel_fine_account,
            cancel_fine_history=D.cancel_fine_history,  # the sandbox's ids: cancelling in the chat works
        )
        console = ConsoleChannel(Screen(stdout), language=language, bold=bold)
        # The ISP's ACS, a fake GenieACS NBI in-process with an ONU for each contract's equipment: the
        # Wi-Fi, the fiber signal and a restart can be tried. ISPBOT_ACS_* meant for a real one are ignored.
        acs_settings = AcsSettings(_env_file=None, url=ACS_URL, username=None, password=None, timeout=10)
        logins = {int(a["Cliente"]): str(a["Usuario"]) for a in reversed(sandbox.store.rows("authentications"))}
        app = await build_app(
            Settings(isp_settings, settings, acs_settings=acs_settings), database=database,
            http_transport=httpx.ASGITransport(app=sandbox.app), console=console,
            acs_transport=demo_acs(sandbox.store.rows("equipment"), logins),
        )
        assert app.terminal is not None  # noqa: S101 - built with a console
        console.chat_names.update({
            SUBSCRIBER_CHAT: console.text("demo.subscriber_chat"),
            TECHNICIAN_CHAT: console.text("demo.chat_of", name=D.technician),
        })
        subscriber = console.chat(SUBSCRIBER_CHAT, _identity(sandbox))
        demo = cls(app, app.terminal, sandbox, subscriber, subscriber, database_file=database_file)
        demo.processing = asyncio.create_task(app.terminal.processor.run(demo.stop), name="processor")
        return demo

    @property
    def console(self) -> ConsoleChannel:
        return self.terminal.channel

    @property
    def screen(self) -> Screen:
        return self.console.screen

    async def say(self, line: str) -> str | None:
        """Handle a typed line: the demo's own command, the terminal's answer, or the bot's (with a
        note when a typed tax id changed who "share my contact" speaks for). What it showed; None
        when the person is done."""
        self.screen.take()
        if not line.strip():
            return ""  # an empty line (a stray Enter) is ignored: nothing is sent, nothing ends
        if await self._command(line):
            return self.screen.take()
        chat = self.chat
        if chat.local_answer(line) is not None:
            await chat.say(line)
            return self.screen.take()
        event = chat.event_for(line)
        if event is None:
            return None
        played = await self.play_customer_of(event.text) if isinstance(event, Text) else None
        await chat.send(event)
        if played:
            self.screen.write(f"   {played}")
        return self.screen.take()

    async def play_customer_of(self, text: str) -> str | None:
        """When ``text`` is a seeded customer's tax id typed in the unlinked subscriber's chat, play
        that customer from now on (their mobile, their address); the note saying so, if it changed."""
        tax_id = normalise_tax_id(text)
        if tax_id is None or self.chat is not self.subscriber:
            return None
        customer = next((c for c in self.sandbox.store.rows("customers")
                         if str(c.get("CNPJ_CNPF")) == tax_id and c.get("TelCelular")), None)
        if customer is None:
            return None
        async with self.app.database.transaction() as session:
            if await Links().active(session, SUBSCRIBER_CHAT) is not None:
                return None  # a tax id typed in a linked chat (a ticket's text) changes nobody
        played = _identity_of(customer)
        if played.phone == self.subscriber.identity.phone:
            return None
        self.subscriber.identity = played
        return self.text("demo.playing", name=str(customer["Nome"]), mobile=str(customer["TelCelular"]))

    def text(self, key: str, /, **variables: object) -> str:
        """One of the demo's own sentences, in the chosen language, as terminal text."""
        return self.console.text(key, **variables)

    def note(self, key: str, /, **variables: object) -> str:
        """A demo note: indented, as apart from what the bot says."""
        return "   " + self.text(key, **variables).replace("\n", "\n    ")

    @property
    def prompt(self) -> str:
        if self.chat is self.technician:
            return self.text("demo.prompt_as", technician=D.technician) + " "
        return self.text("demo.prompt") + " "

    async def command(self, line: str) -> str | None:
        """The demo's own commands (not the bot's): what they showed, or None for a line meant for the bot."""
        self.screen.take()
        return self.screen.take() if await self._command(line) else None

    async def _command(self, line: str) -> bool:
        word = line.strip().lower()
        if word == END_OUTAGES:
            self.end_outages()
        elif word in AS_TECHNICIAN:
            await self._play_technician()
        elif word in AS_SUBSCRIBER:
            self.play_subscriber()
        else:
            return False
        return True

    async def play_technician(self) -> str:
        """Type into the technician's chat, opening it the first time with an invite, as in production;
        what that showed."""
        self.screen.take()
        await self._play_technician()
        return self.screen.take()

    async def _play_technician(self) -> None:
        if self.technician is not None:
            self._switch(self.technician)
            self.screen.write(self.note("demo.back_to_technician", technician=D.technician))
            if self.technician.shown:
                self.screen.write(self.technician.shown)
            return
        note = await self._link_maria()
        subscriber = self.subscriber
        technician = self.console.chat(
            TECHNICIAN_CHAT, replace(subscriber.identity, phone=TECHNICIAN_PHONE, name=TECHNICIAN_NAME),
            client_language=subscriber.client_language,
        )
        async with self.app.database.transaction() as session:
            joined = await Links().active(session, TECHNICIAN_CHAT)
            issued = None if joined is not None else await Invites().create(session, Role.TECHNICIAN, D.technician)
        self.technician = technician
        self._switch(technician)
        if issued is None:  # joined in an earlier run of the demo (its database kept): the chat as it was
            self.screen.write(self.note("demo.back_to_technician", technician=D.technician))
            await technician.send(Command("menu"))
            return
        opened = self.note("demo.technician_opened", technician=D.technician, ticket=D.ticket, customer=D.customer_name)
        self.screen.write("\n".join([opened, note]) if note else opened)
        await technician.send(Start(issued.code))

    def play_subscriber(self) -> None:
        self._switch(self.subscriber)
        self.screen.write(self.note("demo.back_to_subscriber"))
        if self.subscriber.shown:
            self.screen.write(self.subscriber.shown)

    def _switch(self, chat: ConsoleChat) -> None:
        self.chat = chat
        self.console.current = chat.chat_id

    async def _link_maria(self) -> str:
        """Link the subscriber's chat to Maria unless it is linked already: her ticket's news reach it."""
        async with self.app.database.transaction() as session:
            link = await Links().active(session, SUBSCRIBER_CHAT)
            if link is None:
                await Links().link(
                    session, SUBSCRIBER_CHAT, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE, customer_code=D.customer,
                )
        names = self.console.chat_names
        if link is not None:
            linked = self.sandbox.store.find("customers", Codigo=link.customer_code) if link.customer_code else None
            if linked is not None:  # whoever was linked (the blocked customer, a company): named after them
                names[SUBSCRIBER_CHAT] = self.text("demo.chat_of", name=_first_name(str(linked["Nome"])))
            return ""
        names[SUBSCRIBER_CHAT] = self.text("demo.chat_of", name=_first_name(D.customer_name))
        # Her chat as she would see it, in the demo's language: not on the screen, which shows the technician's.
        await self.subscriber.send(Command("menu"), quiet=True)
        return " " + self.note("demo.customer_linked", customer=D.customer_name)

    async def close(self) -> None:
        """Stop the processor (the chat in hand finishes, unprinted), then close what the demo opened."""
        self.screen.mute()
        self.stop.set()
        self.terminal.processor.wake()  # out of its wait for work, to see the stop now
        if self.processing is not None:
            await self.processing
        await self.app.aclose()
        await self.app.database.dispose()
        if self.database_file is not None:  # the sandbox's records too, for the next run to go on with
            kept, writing = sandbox_file(self.database_file), sandbox_file(self.database_file).with_suffix(".tmp")
            self.sandbox.save(writing)
            writing.replace(kept)  # whole or not at all: a demo stopped while saving keeps the last run's

    def end_outages(self) -> None:
        now = self.sandbox.clock()
        for row in self.sandbox.store.rows("failover"):
            if row.get("Status") == "O":
                row.update(Status="C", UpTime=now.strftime("%Y-%m-%d %H:%M:%S"), Solution="Resolvido (demo)")
        self.app.coordinator.forget_outages()  # as the bot does when it sees an outage end: not said again
        self.screen.write(self.note("demo.outages_ended"))

    async def notices(self) -> str:
        """What the bot tells the demo's chats on its own (an outage one of them watched has ended, a
        restarted connection is back), sent through the processor as housekeeping sends them; what
        that showed."""
        self.screen.take()
        ours = (SUBSCRIBER_CHAT, TECHNICIAN_CHAT)
        told = [*await self.app.notifier.check(), *await RestartChecks(self.app.engine).check()]
        await self.terminal.processor.send_notices([n for n in told if n.chat_id in ours])
        return self.screen.take()

    def introduction(self) -> str:
        """The banner, in the chosen language: who can be played, and the demo's own commands."""
        people = [
            self._person(code, kind, contract)
            for code, kind, contract in (
                (D.customer, "customer", D.contract), (D.blocked_customer, "blocked", D.blocked_contract),
                (D.company, "company", D.company_contracts[0]), (D.alnum_company, "alnum", D.alnum_company_contract),
            )
        ]
        return self.text(
            "demo.intro", people=[p for p in people if p], technician=D.technician, ticket=D.ticket,
            first_name=_first_name(D.customer_name),
        )

    def _person(self, code: int, kind: str, contract: int) -> dict[str, str] | None:
        customer = self.sandbox.store.find("customers", Codigo=code)
        if customer is None:  # an operator's own fixture may lack the seeded identities
            return None
        login, password = _authentication(self.sandbox, contract) or ("", "")
        tax_id = str(customer["CNPJ_CNPF"])
        return {
            "name": str(customer["Nome"]), "kind": kind, "tax_label": "CPF" if len(tax_id) == 11 else "CNPJ",
            "tax_id": tax_id, "mobile": str(customer.get("TelCelular") or ""), "login": login, "password": password,
        }


def _identity(sandbox: Sandbox) -> Identity:
    home = sandbox.store.find("customers", Codigo=D.customer) or {"TelCelular": D.customer_mobile}
    return _identity_of(home)


def _identity_of(customer: dict[str, object]) -> Identity:
    """Who plays ``customer``: their mobile (as Telegram shares it) and a position at their address."""
    lat, lng = customer.get("MapsMarkLat"), customer.get("MapsMarkLng")
    if lat is None or lng is None:
        lat, lng = SAO_PAULO
    phone = "".join(ch for ch in str(customer.get("TelCelular") or "") if ch.isdecimal())
    return Identity(phone=f"+55{phone}", latitude=float(str(lat)), longitude=float(str(lng)))


def _first_name(name: str) -> str:
    return (name.split(maxsplit=1) or [name])[0]


def _authentication(sandbox: Sandbox, contract: int) -> tuple[str, str] | None:
    row = sandbox.store.find("authentications", Contrato=contract)
    return (str(row["Usuario"]), str(row["Senha"])) if row else None


class _OneLine(logging.Formatter):
    """Log records without their tracebacks: the demo must never print a stack dump."""

    def format(self, record: logging.LogRecord) -> str:
        return f"  ({record.levelname.lower()}: {record.name}: {record.getMessage()})"


@contextlib.contextmanager
def _quiet_logging(stream: TextIO) -> Iterator[None]:
    """One-line warnings to ``stream`` while the demo runs; the caller's logging as it was after
    (the demo also runs inside other programs: the tests, a notebook)."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_OneLine())
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    try:
        yield
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)


class _Lines:
    """The terminal's lines, read in a thread of their own (a daemon: a prompt waiting for a line never
    holds the process up), so the bot goes on while the person types. None once the input ended."""

    def __init__(self, stdin: TextIO) -> None:
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def read() -> None:
            try:
                while line := stdin.readline():
                    loop.call_soon_threadsafe(self._queue.put_nowait, line)
            except (OSError, ValueError, RuntimeError):  # closed under it, or the loop ended first
                pass
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._queue.put_nowait, None)

        threading.Thread(target=read, name="demo-stdin", daemon=True).start()

    async def next(self) -> str | None:
        return await self._queue.get()


async def _watch_notices(demo: Demo, every: float) -> None:
    """What the bot tells the chats on its own, printed as it comes, while the prompt waits."""
    while True:
        await asyncio.sleep(every)
        async with demo.busy:
            try:
                await demo.notices()
            except Exception as exc:  # the next look tries again; the demo goes on
                log.warning("demo: could not look for notices: %s", type(exc).__name__)
            demo.screen.reprompt()


async def _converse(demo: Demo, stdin: TextIO, *, echo: bool, role: str, notices_every: float) -> None:
    """The demo's conversation: the first answer, then a line at a time until ``/sair`` or the end of
    the input; empty lines ignored."""
    async with demo.busy:
        demo.screen.write(demo.introduction())
        if demo.database_file is not None:
            demo.screen.write(demo.note("demo.kept_in", path=str(demo.database_file)))
        if role == "technician":
            await demo.play_technician()
        else:
            await demo.chat.send(Start())
    lines = _Lines(stdin)
    watching = asyncio.create_task(_watch_notices(demo, notices_every), name="demo-notices")
    try:
        while True:
            demo.screen.prompt(demo.prompt)
            line = await lines.next()
            if line is None:  # Ctrl-D, or the end of piped lines
                demo.screen.prompted()
                print(file=demo.screen.stream or sys.stdout, flush=True)  # off the prompt's line
                return
            async with demo.busy:
                if echo:
                    print(line.rstrip("\n"), file=demo.screen.stream, flush=True)
                demo.screen.prompted()
                if await demo.say(line) is None:
                    return
                await demo.notices()
    finally:
        watching.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watching


def run_demo(
    language: str = "pt_BR", *, stdin: TextIO | None = None, stdout: TextIO | None = None,
    bold: bool | None = None, role: str = "subscriber", database: Path | None = None, fresh: bool = False,
    notices_every: float = NOTICES_EVERY,
) -> int:
    """The terminal loop: read a line, show the bot's answer, until ``/sair`` or EOF (an empty line
    is ignored); what the bot says on its own is printed as it comes. ``role`` "technician" starts in
    the technician's chat (as ``/technician`` would). ``database``: the SQLite file that keeps the
    demo's state between runs (None: a temporary one, gone at the end); ``fresh``: start it over."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    bold = stdout.isatty() if bold is None else bold
    echo = not stdin.isatty()  # a scripted session prints what "you" typed, so it reads as a chat
    if database is not None:
        database = database.expanduser().resolve()
        if fresh:
            for kept in (database, sandbox_file(database)):
                kept.unlink(missing_ok=True)

    with _quiet_logging(sys.stderr), tempfile.TemporaryDirectory(prefix="ispbot-demo-") as folder, \
            asyncio.Runner() as runner:
        demo = runner.run(Demo.open(Path(folder), language, bold=bold, stdout=stdout, database_file=database))
        bye = demo.text("demo.bye")
        try:
            runner.run(_converse(demo, stdin, echo=echo, role=role, notices_every=notices_every))
        except KeyboardInterrupt:
            print("", file=stdout, flush=True)
        finally:
            runner.run(demo.close())
    print(bye, file=stdout, flush=True)
    return 0
