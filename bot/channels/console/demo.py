"""``ispbot demo``: chat with the bot in this terminal, as a seeded subscriber of the sandbox ISP.

Everything is real but local: the seeded sandbox runs in-process (no port is opened), the database
is a migrated SQLite file in a temporary folder that is deleted at the end, and the engine and flows
are the ones Telegram uses. The demo's own lines are in English (it is a tool for integrators); the
bot speaks the chosen language. Log lines go to stderr on one line each, without tracebacks, so a
failure reads as the bot's plain apology and a short note, never as a stack dump.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import httpx
from flows.events import Start
from flows.outages import OutageNotifier

from bot.app import App, build_app
from bot.channels.console.channel import ConsoleChannel, Identity
from bot.isp import IspSettings
from bot.isp.settings import V1_PATH, V2_PATH
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY, Sandbox
from bot.settings import BotSettings
from bot.store import Database
from bot.store.migrate import upgrade

D = DEMO_IDENTITIES
SAO_PAULO = (-23.5505, -46.6333)  # where "share my location" points when the seed has no map mark
PROMPT = "you> "
END_OUTAGES = "/endoutage"  # the demo's own command: the sandbox's technicians fix every open outage


@dataclass
class Demo:
    app: App
    channel: ConsoleChannel
    sandbox: Sandbox
    notifier: OutageNotifier

    @classmethod
    async def open(cls, folder: Path, language: str, *, bold: bool) -> Demo:
        sandbox = Sandbox.seeded()
        database = Database(f"sqlite+aiosqlite:///{folder / 'demo.sqlite3'}")
        await upgrade(database)
        # Every field that matters is given, so ISPBOT_ISP_* meant for a real ISP cannot misroute the demo.
        isp = IspSettings(
            base_url="http://127.0.0.1", key=PRODUCTION_KEY, v1_path=V1_PATH, v2_path=V2_PATH,
            timezone="America/Sao_Paulo", retries=0,
        )
        app = await build_app(
            database, isp, BotSettings(database_url=str(database.url), ticket_mode=D.telegram_mode),
            http_transport=httpx.ASGITransport(app=sandbox.app),
        )
        channel = ConsoleChannel(app.engine, _identity(sandbox), client_language=language, bold=bold)
        return cls(app, channel, sandbox, OutageNotifier(app.database, app.isp))

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
        """What the bot tells this chat on its own (an outage it watched has ended)."""
        mine = [notice.reply for notice in await self.notifier.check() if notice.chat_id == self.channel.chat_id]
        return self.channel.render(mine) if mine else ""

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
            f"{END_OUTAGES} (demo only) ends the sandbox's open outages: a chat that asked to be told hears it.",
            "An empty line, /quit or Ctrl-D ends the demo.",
        ]
        return "\n".join(lines)


def _identity(sandbox: Sandbox) -> Identity:
    home = sandbox.store.find("customers", Codigo=D.customer) or {}
    lat, lng = home.get("MapsMarkLat"), home.get("MapsMarkLng")
    if lat is None or lng is None:
        lat, lng = SAO_PAULO
    return Identity(phone=f"+55{D.customer_mobile}", latitude=float(lat), longitude=float(lng))


def _authentication(sandbox: Sandbox, contract: int) -> tuple[str, str] | None:
    row = sandbox.store.find("authentications", Contrato=contract)
    return (str(row["Usuario"]), str(row["Senha"])) if row else None


class _OneLine(logging.Formatter):
    """Log records without their tracebacks: the demo must never print a stack dump."""

    def format(self, record: logging.LogRecord) -> str:
        return f"  ({record.levelname.lower()}: {record.name}: {record.getMessage()})"


def _quiet_logging(stream: TextIO) -> None:
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_OneLine())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)


def run_demo(
    language: str = "pt_BR", *, stdin: TextIO | None = None, stdout: TextIO | None = None,
    bold: bool | None = None,
) -> int:
    """The terminal loop: read a line, show the bot's answer, until an empty line or EOF."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    bold = stdout.isatty() if bold is None else bold
    echo = not stdin.isatty()  # a scripted session prints what "you" typed, so it reads as a chat

    def show(text: str) -> None:
        print(text, file=stdout, flush=True)

    _quiet_logging(sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ispbot-demo-") as folder, asyncio.Runner() as runner:
        demo = runner.run(Demo.open(Path(folder), language, bold=bold))
        try:
            show(demo.introduction() + "\n")
            show(runner.run(demo.channel.send(Start())))
            while True:
                print("\n" + PROMPT, end="", file=stdout, flush=True)
                line = stdin.readline()
                if echo:
                    show(line.rstrip("\n"))
                if line.strip().lower() == END_OUTAGES:
                    show(demo.end_outages())
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
