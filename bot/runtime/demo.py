"""``ispbot demo``: chat with the bot in this terminal, as a seeded subscriber of the sandbox ISP, or
as its seeded technician (``--as technician``, or ``/technician`` during the demo).

The demo holds two chats: the subscriber's (chat 1) and the technician's (chat 2, made the way a
real technician's is: an invite for the sandbox's ``tecnico.joao`` is issued and redeemed with
``/start <code>``). Before the technician's chat opens, the subscriber's chat is linked to Maria
(when it is not linked yet), so what the technician does to her ticket reaches her, and the demo
shows it as ``[to Maria's chat] …``. ``/subscriber`` and ``/technician`` switch between the chats.

Everything is real but local: the seeded sandbox runs in-process (no port is opened), the database
is a migrated SQLite file in a temporary folder that is deleted at the end, and the engine and flows
are the ones Telegram uses. The demo's own lines are in English (it is a tool for integrators); the
bot speaks the chosen language. Log lines go to stderr on one line each, without tracebacks, so a
failure reads as the bot's plain apology and a short note, never as a stack dump.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

import httpx
from flows.events import Command, Start

from bot.channels.console.channel import ConsoleChannel, Identity, LocalFiles
from bot.isp import IspSettings
from bot.isp.settings import V1_PATH, V2_PATH
from bot.runtime.app import App, Settings, build_app
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY, Sandbox
from bot.settings import BotSettings
from bot.store import Database, Invites, Links, Proof, Role
from bot.store.migrate import upgrade

D = DEMO_IDENTITIES
SAO_PAULO = (-23.5505, -46.6333)  # where "share my location" points when the seed has no map mark
PROMPT = "you> "
END_OUTAGES = "/endoutage"  # the demo's own command: the sandbox's technicians fix every open outage
# The demo's own commands that choose the chat the terminal types into.
AS_TECHNICIAN = ("/technician", "/tecnico")
AS_SUBSCRIBER = ("/subscriber", "/assinante")
ROLES = ("subscriber", "technician")
SUBSCRIBER_CHAT, TECHNICIAN_CHAT = 1, 2
TECHNICIAN_PHONE = "+5511955550100"  # fictitious: what "share my contact" sends from the technician's phone
TECHNICIAN_NAME = "João"  # the first name on the technician's Telegram account


@dataclass
class Demo:
    app: App
    channel: ConsoleChannel  # the chat the terminal types into now
    sandbox: Sandbox
    subscriber: ConsoleChannel
    technician: ConsoleChannel | None = None

    @classmethod
    async def open(cls, folder: Path, language: str, *, bold: bool) -> Demo:
        sandbox = Sandbox.seeded()
        database = Database(f"sqlite+aiosqlite:///{folder / 'demo.sqlite3'}")
        await upgrade(database)
        # Every field that matters is given, so ISPBOT_ISP_* meant for a real ISP cannot misroute the demo.
        isp_settings = IspSettings(
            base_url="http://127.0.0.1", key=PRODUCTION_KEY, v1_path=V1_PATH, v2_path=V2_PATH,
            timezone="America/Sao_Paulo", retries=0,
        )
        stock = folder / "stock.yaml"  # the sandbox's products and locations, as an operator would list them
        sandbox.write_stock_file(stock)
        settings = BotSettings(database_url=str(database.url), ticket_mode=D.telegram_mode, stock_file=stock)
        app = await build_app(
            Settings(isp_settings, settings), database=database, http_transport=httpx.ASGITransport(app=sandbox.app),
            files=LocalFiles(),  # "/file <path>" sends a receipt from this machine
        )
        names = {SUBSCRIBER_CHAT: "the subscriber's chat", TECHNICIAN_CHAT: f"{D.technician}'s chat"}
        channel = ConsoleChannel(
            app.engine, _identity(sandbox), chat_id=SUBSCRIBER_CHAT, client_language=language, bold=bold,
            chat_names=names,
        )
        return cls(app, channel, sandbox, subscriber=channel)

    @property
    def prompt(self) -> str:
        return f"you ({D.technician})> " if self.channel is self.technician else PROMPT

    async def command(self, line: str) -> str | None:
        """The demo's own commands (not the bot's): what to show, or None for a line meant for the bot."""
        word = line.strip().lower()
        if word == END_OUTAGES:
            return self.end_outages()
        if word in AS_TECHNICIAN:
            return await self.play_technician()
        if word in AS_SUBSCRIBER:
            return self.play_subscriber()
        return None

    async def play_technician(self) -> str:
        """Type into the technician's chat, opening it the first time with an invite, as in production."""
        if self.technician is not None:
            self.channel = self.technician
            return f"   (demo: back in {D.technician}'s chat; /subscriber switches)\n\n{self.technician.shown}"
        note = await self._link_maria()
        subscriber = self.subscriber
        technician = ConsoleChannel(
            self.app.engine, replace(subscriber.identity, phone=TECHNICIAN_PHONE, name=TECHNICIAN_NAME),
            chat_id=TECHNICIAN_CHAT,
            client_language=subscriber.client_language, bold=subscriber.bold, chat_names=subscriber.chat_names,
        )
        async with self.app.database.transaction() as session:
            issued = await Invites().create(session, Role.TECHNICIAN, D.technician)
        self.technician = self.channel = technician
        lines = [
            f"   (demo: you are now {D.technician}, a technician, in a second chat. The demo issued an invite,"
            f" as `ispbot invite technician {D.technician}` does, and opened its link: /start <code>.",
            f"    Ticket {D.ticket} of {D.customer_name} is assigned to you. /subscriber switches chats.)",
        ]
        if note:
            lines.append(note)
        return "\n".join(lines) + "\n\n" + await technician.send(Start(issued.code))

    def play_subscriber(self) -> str:
        self.channel = self.subscriber
        shown = self.subscriber.shown
        return "   (demo: back in the subscriber's chat; /technician switches)" + (f"\n\n{shown}" if shown else "")

    async def _link_maria(self) -> str:
        """Link the subscriber's chat to Maria unless it is linked already: her ticket's news reach it."""
        async with self.app.database.transaction() as session:
            link = await Links().active(session, SUBSCRIBER_CHAT)
            if link is None:
                await Links().link(
                    session, SUBSCRIBER_CHAT, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE, customer_code=D.customer,
                )
        if link is not None:
            if link.customer_code == D.customer:
                self.subscriber.chat_names[SUBSCRIBER_CHAT] = f"{_first_name(D.customer_name)}'s chat"
            return ""
        self.subscriber.chat_names[SUBSCRIBER_CHAT] = f"{_first_name(D.customer_name)}'s chat"
        await self.subscriber.send(Command("menu"))  # her chat as she would see it, in the demo's language
        return f"    (The subscriber's chat was linked to {D.customer_name}, so you see what she is told.)"

    async def close(self) -> None:
        await self.app.aclose()
        await self.app.database.dispose()

    def end_outages(self) -> str:
        now = self.sandbox.clock()
        for row in self.sandbox.store.rows("failover"):
            if row.get("Status") == "O":
                row.update(Status="C", UpTime=now.strftime("%Y-%m-%d %H:%M:%S"), Solution="Resolvido (demo)")
        return "   (sandbox: every open outage has ended)"

    async def notices(self) -> str:
        """What the bot tells the demo's chats on its own (an outage one of them watched has ended)."""
        ours = (SUBSCRIBER_CHAT, TECHNICIAN_CHAT)
        return self.channel.render_notices([n for n in await self.app.notifier.check() if n.chat_id in ours])

    def introduction(self) -> str:
        joao = _authentication(self.sandbox, D.blocked_contract)
        lines = [
            "ispbot demo: you are a subscriber chatting with the bot; the ISP is the seeded sandbox.",
            "Identities to try:",
            f"  • {D.customer_name}: CPF {D.customer_cpf}, mobile {D.customer_mobile}"
            " (\"share my contact\" sends this number as yours)",
            f"  • the same customer by PPPoE: login {D.pppoe_login}, password {D.pppoe_password}",
        ]
        if joao is not None:
            lines.append(
                f"  • a blocked customer (contract {D.blocked_contract}): CPF {D.blocked_customer_cpf}, "
                f"PPPoE {joao[0]} / {joao[1]}"
            )
        lines += [
            "Type a number to press a button, /commands as in Telegram (/menu, /help, /cancel), or any text.",
            f"  • the technician {D.technician}, with ticket {D.ticket} of {_first_name(D.customer_name)} in the"
            f" agenda: {AS_TECHNICIAN[0]} (demo only) opens their chat with an invite, {AS_SUBSCRIBER[0]} comes back;"
            " what the bot tells the subscriber shows as [to Maria's chat] (`ispbot demo --as technician`"
            " starts there)",
            f"{END_OUTAGES} (demo only) ends the sandbox's open outages: a chat that asked to be told hears it.",
            "/file <path> sends a file of this machine as a photo or PDF (a payment receipt for \"I have paid\");"
            " the QR codes and PDFs the bot sends are saved to a temporary folder and their paths printed.",
            "An empty line, /quit or Ctrl-D ends the demo.",
        ]
        return "\n".join(lines)


def _identity(sandbox: Sandbox) -> Identity:
    home = sandbox.store.find("customers", Codigo=D.customer) or {}
    lat, lng = home.get("MapsMarkLat"), home.get("MapsMarkLng")
    if lat is None or lng is None:
        lat, lng = SAO_PAULO
    return Identity(phone=f"+55{D.customer_mobile}", latitude=float(lat), longitude=float(lng))


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


def run_demo(
    language: str = "pt_BR", *, stdin: TextIO | None = None, stdout: TextIO | None = None,
    bold: bool | None = None, role: str = "subscriber",
) -> int:
    """The terminal loop: read a line, show the bot's answer, until an empty line or EOF.
    ``role`` "technician" starts in the technician's chat (as ``/technician`` would)."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    bold = stdout.isatty() if bold is None else bold
    echo = not stdin.isatty()  # a scripted session prints what "you" typed, so it reads as a chat

    def show(text: str) -> None:
        print(text, file=stdout, flush=True)

    with _quiet_logging(sys.stderr), tempfile.TemporaryDirectory(prefix="ispbot-demo-") as folder, \
            asyncio.Runner() as runner:
        demo = runner.run(Demo.open(Path(folder), language, bold=bold))
        try:
            show(demo.introduction() + "\n")
            if role == "technician":
                show(runner.run(demo.play_technician()))
            else:
                show(runner.run(demo.channel.send(Start())))
            while True:
                print("\n" + demo.prompt, end="", file=stdout, flush=True)
                line = stdin.readline()
                if echo:
                    show(line.rstrip("\n"))
                own = runner.run(demo.command(line))
                if own is not None:
                    show(own)
                else:
                    event = demo.channel.event_for(line)
                    if event is None:
                        break
                    show(runner.run(demo.channel.send(event)))
                notices = runner.run(demo.notices())
                if notices:
                    show("\n" + notices)
        except KeyboardInterrupt:
            show("")
        finally:
            runner.run(demo.close())
    show("Bye.")
    return 0
