"""The terminal channel: lines become events (numbers press buttons), replies become readable text,
and ``ispbot demo`` runs a whole scripted chat against the in-process sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot.channels.console import ConsoleChannel, Identity, terminal_text
from bot.channels.console.channel import LocalFiles
from bot.runtime.demo import Demo
from bot.sandbox import DEMO_IDENTITIES
from bot.store import Links, Role
from flows.engine import Within
from flows.events import Choice, Command, Contact, Incoming, Location, Media, Start, Text
from flows.replies import AskContact, AskLocation, Button, Message, Notice, Reply, Upload

from tests.flows.conftest import clock, desk, sandbox  # noqa: F401
from tests.flows.harness import Desk
from tests.store.conftest import database, database_url  # noqa: F401

D = DEMO_IDENTITIES
MARIA = Identity(phone="+55" + D.customer_mobile, latitude=-23.5869, longitude=-46.6353)


class CannedEngine:
    """Answers every event with the same replies (and notices to other chats) and remembers what it was sent."""

    def __init__(self, replies: list[Reply], notices: list[Notice] | None = None) -> None:
        self.replies = replies
        self.notices = notices or []
        self.received: list[Incoming] = []

    async def handle(self, incoming: Incoming, *, within: Within | None = None) -> list[Reply]:
        self.received.append(incoming)
        if within is not None:
            await within(None, self.replies, self.notices)  # type: ignore[arg-type]  # no database here
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
    assert channel.event_for("/sair") is None and channel.event_for("/salir") is None  # the banner's words


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


# ---- the technician in the demo, and what other chats are told ---------------------------------------
async def test_messages_to_other_chats_are_shown_marked_with_the_chat_and_their_buttons_unnumbered() -> None:
    told = Message("🚗 O técnico está a caminho.", ((Button("Avaliar", "t"),),))
    engine = CannedEngine([Message("Feito.", ((Button("Menu", "m"),),))], [Notice(7, told), Notice(8, Message("Oi"))])
    channel = ConsoleChannel(engine, MARIA, chat_id=2, chat_names={7: "Maria's chat"},  # type: ignore[arg-type]
                             client_language="en")
    shown = await channel.send(Text("a caminho"))
    assert shown == "Feito.\n   [1] Menu\n\n   [to Maria's chat] 🚗 O técnico está a caminho.\n      [Avaliar]" + (
        "\n\n   [to chat 8] Oi"
    )
    assert [choice.label for choice in channel.choices] == ["Menu"]  # Maria's button is not the technician's
    assert channel.shown == shown


@pytest.fixture
async def demo(tmp_path: Path) -> AsyncIterator[Demo]:
    demo = await Demo.open(tmp_path, "pt_BR", bold=False)
    yield demo
    await demo.close()


async def press(channel: ConsoleChannel, label: str) -> str:
    """Type the number of the button whose label contains ``label``."""
    number = next((i for i, action in enumerate(channel.choices, 1) if label in action.label), None)
    assert number is not None, f"no {label!r} among {[a.label for a in channel.choices]}"
    shown = await channel.say(str(number))
    assert shown is not None
    return shown


async def test_the_demo_opens_the_technicians_chat_with_an_invite_and_links_marias(demo: Demo) -> None:
    intro = demo.introduction()
    assert D.technician in intro and "/tecnico" in intro and "--as technician" in intro  # pt_BR's own words
    shown = await demo.command("/technician")
    assert shown is not None and demo.technician is not None and demo.channel is demo.technician
    assert "Olá, João!" in shown and "Chamado em mãos" in shown  # the technician's menu, numbered
    assert f"vinculado a {D.customer_name}, para você ver o que ela recebe" in shown  # the demo's language
    assert demo.prompt == f"you ({D.technician})> "
    async with demo.app.database.transaction() as session:
        technician = await Links().active(session, demo.technician.chat_id)
        maria = await Links().active(session, demo.subscriber.chat_id)
    assert technician is not None and technician.role is Role.TECHNICIAN and technician.system_user == D.technician
    assert maria is not None and maria.customer_code == D.customer

    back = await demo.command("/assinante")
    assert back is not None and demo.channel is demo.subscriber and D.customer_name in back  # her menu
    again = await demo.command("/tecnico")
    assert again is not None and "Chamado em mãos" in again and demo.channel is demo.technician
    assert await demo.command("/menu") is None  # the bot's commands go to the bot


async def test_in_the_demo_the_subscriber_is_seen_being_told_the_technician_is_on_the_way(demo: Demo) -> None:
    await demo.play_technician()
    technician = demo.channel
    await press(technician, "Agenda")
    await press(technician, f"#{D.ticket}")
    await press(technician, "Status")
    shown = await press(technician, "caminho")
    told = shown.split("[para o chat de Maria] ", 1)
    assert len(told) == 2, shown
    assert f"#{D.ticket}" in told[0] and "a caminho" in told[1]  # the technician's answer, then what Maria hears
    assert demo.channel is technician and not any("Avaliar" in a.label for a in technician.choices)


def test_ispbot_demo_as_technician_starts_in_the_technicians_chat(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ISPBOT_")}
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "demo", "--as", "technician", "--language", "en"],
        input="/subscriber\n\n", capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"you are now {D.technician}" in done.stdout
    assert "Hello, João!" in done.stdout  # the technician's menu, in the chosen language
    assert f"you ({D.technician})> /subscriber" in done.stdout and D.customer_name in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert list(tmp_path.iterdir()) == []


async def test_files_the_bot_sends_are_saved_and_their_paths_printed(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n qr"
    channel = ConsoleChannel(CannedEngine([Upload("photo", png, "pix.png", "QR code PIX")]), MARIA,  # type: ignore[arg-type]
                             downloads=tmp_path)
    first = await channel.send(Text("qr"))
    second = await channel.send(Text("qr"))
    assert f"saved to {tmp_path / 'pix.png'}" in first and f"saved to {tmp_path / 'pix-2.png'}" in second
    assert (tmp_path / "pix.png").read_bytes() == png


async def test_a_receipt_is_sent_by_naming_a_file(desk: Desk, tmp_path: Path) -> None:  # noqa: F811
    receipt = tmp_path / "comprovante.pdf"
    receipt.write_bytes(b"%PDF-1.4 receipt")
    chat = await desk.linked_chat()
    desk.engine.files = LocalFiles()
    channel = ConsoleChannel(desk.engine, MARIA, chat_id=chat.chat_id)
    event = channel.event_for(f"/file {receipt}")
    assert isinstance(event, Media) and event.kind == "document" and event.file is not None
    assert event.file.name == "comprovante.pdf" and event.file.size == len(b"%PDF-1.4 receipt")
    shown = await channel.send(event)
    assert "Qual boleto você pagou" in shown
    await channel.say(str(next(i for i, c in enumerate(channel.choices, 1) if "28/03/2025" in c.label)))
    await channel.say("1")  # today
    shown = await channel.say("1") or ""  # send
    assert "Protocolo" in shown
    (notice,) = desk.sandbox.store.rows("payment_notifications")
    assert notice["file_name"] == "comprovante.pdf" and notice["file_size"] == len(b"%PDF-1.4 receipt")


# ---- playing any seeded customer, /file, the banner in the chosen language ---------------------------
async def test_the_banner_speaks_the_chosen_language_and_lists_who_can_be_played(tmp_path: Path) -> None:
    for language, cancel, words in (("pt_BR", "/cancelar", "contrato bloqueado"), ("en", "/cancel", "blocked contract"),
                                    ("es", "/cancelar", "contrato bloqueado")):
        (tmp_path / language).mkdir()
        demo = await Demo.open(tmp_path / language, language, bold=False)
        try:
            intro = demo.introduction()
        finally:
            await demo.close()
        assert f"{cancel})" in intro and words in intro, language
        for shown in (D.customer_cpf, D.blocked_customer_cpf, "11991234567", D.company_cnpj, "11998887766",
                      D.alnum_company_cnpj, D.pppoe_login):
            assert shown in intro, (language, shown)
        assert "<" not in intro.replace("/file <", "")  # terminal text, not markup
    assert "/cancel)" not in intro and "/cancel " not in intro  # es: the language's own command


async def link_by_tax_id(demo: Demo, tax_id: str) -> str:
    await demo.say(next(str(i) for i, a in enumerate(demo.channel.choices, 1) if "CPF" in a.label))
    typed = await demo.say(tax_id)
    assert typed is not None
    shared = await demo.say(next(str(i) for i, a in enumerate(demo.channel.choices, 1) if isinstance(a.event, Contact)))
    assert shared is not None
    return typed + "\n" + shared


async def test_the_blocked_customer_is_linked_by_tax_id_with_their_own_phone(demo: Demo) -> None:
    await demo.channel.send(Start())
    shown = await link_by_tax_id(demo, D.blocked_customer_cpf)
    assert "João Pereira Santos, 11991234567" in shown  # the demo says whose phone is shared now
    assert "cadastro confirmado" in shown and "João Pereira Santos" in shown
    async with demo.app.database.transaction() as session:
        link = await Links().active(session, demo.subscriber.chat_id)
    assert link is not None and link.customer_code == D.blocked_customer


async def test_the_company_is_linked_by_cnpj_and_asks_for_a_fiscal_invoice(demo: Demo) -> None:
    await demo.channel.send(Start())
    shown = await link_by_tax_id(demo, "11.444.777/0001-61")
    assert "Padaria Pão Quente Ltda" in shown and "mais de um contrato" in shown
    await press(demo.channel, str(D.company_contracts[0]))
    invoices = await demo.say("nota fiscal")
    assert invoices is not None and "notas fiscais" in invoices and "Nº" in invoices


async def test_a_tax_id_typed_in_a_linked_chat_changes_nobody(demo: Demo) -> None:
    await demo.channel.send(Start())
    await link_by_tax_id(demo, D.customer_cpf)  # Maria: already who is played, so nothing is said
    phone = demo.subscriber.identity.phone
    shown = await demo.say(D.blocked_customer_cpf)
    assert shown is not None and "11991234567" not in shown and demo.subscriber.identity.phone == phone


async def test_file_alone_explains_itself_and_a_missing_path_is_refused_at_once(tmp_path: Path) -> None:
    engine = CannedEngine([Message("ok")])
    channel = ConsoleChannel(engine, MARIA)  # type: ignore[arg-type]
    usage = await channel.say("/file")
    assert usage is not None and "/file <caminho>" in usage and "conheço" not in usage
    missing = await channel.say(f"/file {tmp_path / 'nao-existe.pdf'}")
    assert missing is not None and "não existe o arquivo" in missing and "nao-existe.pdf" in missing
    folder = await channel.say(f"/file {tmp_path}")
    assert folder is not None and "pasta" in folder
    assert engine.received == []  # none of them reached the bot
    english = ConsoleChannel(engine, MARIA, client_language="en")  # type: ignore[arg-type]
    assert "there is no file" in (await english.say("/file ~/no-such-receipt.pdf") or "")
    receipt = tmp_path / "comprovante.pdf"
    receipt.write_bytes(b"%PDF-1.4")
    assert await channel.say(f"/file '{receipt}'") == "ok" and isinstance(engine.received[0].event, Media)


async def test_in_spanish_what_another_chat_is_told_is_marked_in_spanish(tmp_path: Path) -> None:
    demo = await Demo.open(tmp_path, "es", bold=False)
    try:
        opened = await demo.command("/tecnico")
        assert opened is not None and "ahora eres tecnico.joao" in opened and "vinculado a" in opened
        await press(demo.channel, "Agenda")
        await press(demo.channel, f"#{D.ticket}")
        await press(demo.channel, "Estado")
        shown = await press(demo.channel, "camino")
        assert "[al chat de Maria] " in shown and "[to " not in shown
        back = await demo.command("/abonado")
        assert back is not None and "de vuelta en el chat del abonado" in back
    finally:
        await demo.close()
