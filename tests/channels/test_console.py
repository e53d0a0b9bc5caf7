"""The terminal channel: lines become events (numbers press buttons), replies become readable text,
and ``ispbot demo`` runs a whole scripted chat against the in-process sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bot.channels.console import ConsoleChannel, Identity, terminal_text
from bot.sandbox import DEMO_IDENTITIES
from flows.events import Choice, Command, Contact, Incoming, Location, Start, Text
from flows.replies import AskContact, AskLocation, Button, Message, Reply

from tests.flows.conftest import clock, desk, sandbox  # noqa: F401
from tests.flows.harness import Desk
from tests.store.conftest import database, database_url  # noqa: F401

D = DEMO_IDENTITIES
MARIA = Identity(phone="+55" + D.customer_mobile, latitude=-23.5869, longitude=-46.6353)


class CannedEngine:
    """Answers every event with the same replies and remembers what it was sent."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.received: list[Incoming] = []

    async def handle(self, incoming: Incoming) -> list[Reply]:
        self.received.append(incoming)
        return self.replies


async def test_typing_1_presses_the_first_menu_button(desk: Desk) -> None:  # noqa: F811
    chat = await desk.linked_chat()
    channel = ConsoleChannel(desk.engine, MARIA, chat_id=chat.chat_id)
    shown = await channel.send(Command("menu"))
    first = channel.choices[0]
    assert f"[1] {first.label}" in shown
    assert D.customer_name in shown
    assert channel.event_for("1") == first.event
    assert isinstance(first.event, Choice)
    assert channel.event_for(str(len(channel.choices) + 1)) == Text(str(len(channel.choices) + 1))
    assert channel.event_for(D.customer_cpf) == Text(D.customer_cpf)  # a CPF is text, not button 52998224725


async def test_each_button_is_numbered_in_order_across_rows() -> None:
    rows = ((Button("Sim", "a"), Button("Não", "b")), (Button("Menu", "c"),))
    channel = ConsoleChannel(CannedEngine([Message("Confirma?", rows)]), MARIA)  # type: ignore[arg-type]
    shown = await channel.send(Text("oi"))
    assert shown == "Confirma?\n   [1] Sim   [2] Não\n   [3] Menu"
    assert [channel.event_for(n) for n in ("1", "2", "3")] == [Choice("a"), Choice("b"), Choice("c")]


async def test_sharing_contact_and_location_are_numbered_choices_with_the_played_identity() -> None:
    engine = CannedEngine([AskContact("Seu número?", "📱 Compartilhar"), AskLocation("Onde?", "📍 Enviar")])
    channel = ConsoleChannel(engine, MARIA)  # type: ignore[arg-type]
    shown = await channel.send(Start())
    assert "[1] 📱 Compartilhar" in shown and "[2] 📍 Enviar" in shown
    await channel.say("1")
    await channel.say("2")
    assert engine.received[1].event == Contact(MARIA.phone, own=True)
    assert engine.received[2].event == Location(MARIA.latitude, MARIA.longitude)


def test_lines_become_commands_start_payloads_text_or_the_end() -> None:
    channel = ConsoleChannel(CannedEngine([]), MARIA)  # type: ignore[arg-type]
    assert channel.event_for("/start convite-123\n") == Start("convite-123")
    assert channel.event_for("/start") == Start(None)
    assert channel.event_for("/Boleto@MeuProvedorBot 5001") == Command("boleto", "5001")
    assert channel.event_for("  segunda via ") == Text("segunda via")
    assert channel.event_for("/ nada") == Text("/ nada")
    assert channel.event_for("\n") is None
    assert channel.event_for("/quit") is None


def test_telegram_html_becomes_terminal_text() -> None:
    html = 'Olá, <b>Zé &amp; Cia</b>! <a href="https://isp.example/b.pdf">boleto</a> &lt;3'
    assert terminal_text(html) == "Olá, Zé & Cia! boleto (https://isp.example/b.pdf) <3"
    assert terminal_text("<b>x</b>", bold=True) == "\033[1mx\033[0m"


async def test_share_my_contact_links_the_played_subscriber(desk: Desk) -> None:  # noqa: F811
    channel = ConsoleChannel(desk.engine, MARIA, chat_id=9001)
    await channel.send(Start())
    by_tax_id = next(i for i, a in enumerate(channel.choices, 1) if "CPF" in a.label)
    await channel.say(str(by_tax_id))
    await channel.say(D.customer_cpf)
    share = next(i for i, a in enumerate(channel.choices, 1) if isinstance(a.event, Contact))
    shown = await channel.say(str(share))
    assert shown is not None and D.customer_name in shown


def test_ispbot_demo_runs_a_scripted_chat_and_exits_cleanly(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ISPBOT_")}
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "demo"], input="/menu\n\n", capture_output=True, text=True,
        cwd=tmp_path, env=env, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert D.customer_cpf in done.stdout and D.pppoe_login in done.stdout  # the identities to try
    assert "Olá" in done.stdout  # the bot's greeting, in Portuguese by default
    assert "[1]" in done.stdout  # with numbered buttons
    assert "Traceback" not in done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == []  # the demo's database lived in a temporary folder
