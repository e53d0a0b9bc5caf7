"""The terminal channel: lines become events (numbers press buttons) stored in the inbox, the processor
runs them, and the channel prints the answers as readable text; ``ispbot demo`` runs a whole scripted
chat against the in-process sandbox."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from bot.channels.console import ConsoleChannel, ConsoleChat, Identity, LocalFiles, Screen, terminal_text
from bot.channels.console.calls import Shown
from bot.runtime.demo import Demo, run_demo
from bot.runtime.processor import Processor
from bot.sandbox import DEMO_IDENTITIES
from bot.store import Database, Inbox, InboxState, Links, Role
from flows.events import Choice, Command, Contact, Incoming, Location, Media, Start, Text
from flows.replies import AskContact, AskLocation, Button, Handoff, Message, Notice, Reply, Upload
from flows.turn import Forget, Turn, Within

from tests.flows.conftest import clock, desk, sandbox  # noqa: F401
from tests.flows.harness import Desk
from tests.store.conftest import database, database_url  # noqa: F401
from tests.store.dbtools import ScratchDatabase

D = DEMO_IDENTITIES
ROOT = Path(__file__).resolve().parents[2]
MARIA = Identity(phone="+55" + D.customer_mobile, latitude=-23.5869, longitude=-46.6353)


class CannedEngine:
    """Answers every event with the same replies (and notices to other chats), in a turn of its own
    that writes the inbox's answer as the engine does, and remembers what it was sent."""

    def __init__(self, db: Database, replies: list[Reply], notices: list[Notice] | None = None) -> None:
        self.database = db
        self.replies = replies
        self.notices = notices or []
        self.received: list[Incoming] = []
        self.failures = 0  # how many turns to come fail, as a database going away would make them

    async def turn(self, incoming: Incoming, *, within: Within | None = None, forget: Forget | None = None) -> Turn:
        self.received.append(incoming)
        if self.failures:
            self.failures -= 1
            raise ConnectionError("the database went away")
        async with self.database.transaction() as session:
            assert within is not None
            answered = await within(session, self.replies, self.notices)
            if answered is not None:
                await answered.write(session)
        return Turn(self.replies)


@contextlib.asynccontextmanager
async def running(
    engine: Any, db: Database, *, max_attempts: int = 1, **options: Any,
) -> AsyncIterator[ConsoleChannel]:
    """A console over ``engine`` with a processor running, wired as ``bot.runtime.app.build_app`` does."""
    console = ConsoleChannel(**options)
    processor = Processor(engine, db, console, max_attempts=max_attempts)
    console.connect(db, processor.inbox, processor.wake, processor.progressed)
    stop = asyncio.Event()
    task = asyncio.create_task(processor.run(stop))
    try:
        yield console
    finally:
        stop.set()
        await task


@contextlib.asynccontextmanager
async def canned(
    db: Database, replies: list[Reply], notices: list[Notice] | None = None, **options: Any,
) -> AsyncIterator[tuple[ConsoleChat, CannedEngine]]:
    engine = CannedEngine(db, replies, notices)
    async with running(engine, db, **options) as console:
        yield console.chat(1, MARIA), engine


async def test_a_line_goes_through_the_inbox_and_its_answer_is_printed_before_say_returns(
    database: ScratchDatabase,  # noqa: F811
) -> None:
    out = io.StringIO()
    async with canned(database, [Message("Olá, <b>Maria</b>!")], screen=Screen(out)) as (chat, engine):
        shown = await chat.say("oi")
        assert shown == "Olá, Maria!" and out.getvalue() == "Olá, Maria!\n"  # printed by the channel's send
        assert engine.received[0].event == Text("oi") and engine.received[0].client_language == "pt-br"
        await chat.say("de novo")
        async with database.transaction() as session:
            first, second = [await Inbox().state(session, update_id) for update_id in (1, 2)]
        assert first == second == (InboxState.DONE, None)  # stored, processed once, answered
    assert out.getvalue() == "Olá, Maria!\n\nOlá, Maria!\n"


async def test_each_button_is_numbered_in_order_across_rows(database: ScratchDatabase) -> None:  # noqa: F811
    rows = ((Button("Sim", "a"), Button("Não", "b")), (Button("Menu", "c"),))
    async with canned(database, [Message("Confirma?", rows)]) as (chat, engine):
        shown = await chat.send(Text("oi"))
        assert shown == "Confirma?\n   [1] Sim   [2] Não\n   [3] Menu"
        assert [chat.event_for(n) for n in ("1", "2", "3")] == [Choice("a"), Choice("b"), Choice("c")]
        await chat.say("2")
        assert engine.received[1].event == Choice("b")  # the press, as stored and read back from the inbox
        assert chat.event_for("4") == Text("4") and chat.event_for(D.customer_cpf) == Text(D.customer_cpf)


async def test_one_turn_is_one_message_however_many_replies(database: ScratchDatabase) -> None:  # noqa: F811
    replies: list[Reply] = [Message("Primeiro."), Message("Segundo.", ((Button("Ok", "o"),),))]
    async with running(CannedEngine(database, replies), database) as console:
        chat = console.chat(1, MARIA)
        sent: list[list[Shown]] = []
        send = console.send

        async def spy(calls: Any, *, notice: bool = False) -> Any:
            sent.append(list(calls))
            return await send(calls, notice=notice)

        console.send = spy  # type: ignore[method-assign]
        assert await chat.say("oi") == "Primeiro.\n\nSegundo.\n   [1] Ok"
    assert [[call.chat_id for call in calls] for calls in sent] == [[1]]


async def test_sharing_contact_and_location_are_numbered_choices_with_the_played_identity(
    database: ScratchDatabase,  # noqa: F811
) -> None:
    replies: list[Reply] = [AskContact("Seu número?", "📱 Compartilhar"), AskLocation("Onde?", "📍 Enviar")]
    async with canned(database, replies) as (chat, engine):
        shown = await chat.send(Start())
        assert "[1] 📱 Compartilhar" in shown and "[2] 📍 Enviar" in shown
        await chat.say("1")
        await chat.say("2")
    assert engine.received[1].event == Contact(MARIA.phone, own=True)
    assert engine.received[2].event == Location(MARIA.latitude, MARIA.longitude)


def test_lines_become_commands_start_payloads_text_or_the_end() -> None:
    chat = ConsoleChannel().chat(1, MARIA)
    assert chat.event_for("/start convite-123\n") == Start("convite-123")
    assert chat.event_for("/start") == Start(None)
    assert chat.event_for("/Boleto@MeuProvedorBot 5001") == Command("boleto", "5001")
    assert chat.event_for("  segunda via ") == Text("segunda via")
    assert chat.event_for("/ nada") == Text("/ nada")
    assert chat.event_for("\n") is None
    assert chat.event_for("/quit") is None
    assert chat.event_for("/sair") is None and chat.event_for("/salir") is None  # the banner's words


def test_telegram_html_becomes_terminal_text() -> None:
    html = 'Olá, <b>Zé &amp; Cia</b>! <a href="https://isp.example/b.pdf">boleto</a> &lt;3'
    assert terminal_text(html) == "Olá, Zé & Cia! boleto (https://isp.example/b.pdf) <3"
    assert terminal_text("<b>x</b>", bold=True) == "\033[1mx\033[0m"


def test_a_call_kept_in_the_inbox_shows_the_same_when_sent_again(tmp_path: Path) -> None:
    call = Shown(7, (
        Message("Pague", ((Button("Boleto", "b1"), Button("PIX", "p")),)), AskContact("Número?", "📱"),
        Upload("photo", b"\x89PNG\x00", "pix.png", "QR"), Handoff("asked", 70001, {"cpf": "***"}),
    ), answers=12)
    again = ConsoleChannel().decode(call.as_json())
    assert again == call


async def test_a_line_the_bot_cannot_process_is_said_so_not_waited_on_forever(
    database: ScratchDatabase,  # noqa: F811
) -> None:
    async with canned(database, [Message("ok")]) as (chat, engine):
        engine.failures = 1
        shown = await asyncio.wait_for(chat.say("oi"), 30)
        assert shown is not None and "desistiu" in shown
        assert await chat.say("oi") == "ok"  # the chat goes on


async def test_a_line_that_failed_once_is_said_to_be_tried_again_and_then_answered(
    database: ScratchDatabase,  # noqa: F811
) -> None:
    engine = CannedEngine(database, [Message("ok")])
    engine.failures = 1  # the database is back before the processor's next try
    async with running(engine, database, max_attempts=2) as console:
        shown = await asyncio.wait_for(console.chat(1, MARIA).say("oi"), 30)
    assert shown == "ok" and len(engine.received) == 2
    assert "tentar de novo" in console.screen.take()  # the person was told, before the answer came


# ---- the demo: the technician, what other chats are told, the languages ------------------------------
async def test_messages_to_other_chats_are_shown_marked_with_the_chat_and_their_buttons_unnumbered(
    database: ScratchDatabase,  # noqa: F811
) -> None:
    told = Message("🚗 O técnico está a caminho.", ((Button("Avaliar", "t"),),))
    engine = CannedEngine(database, [Message("Feito.", ((Button("Menu", "m"),),))],
                          [Notice(7, told), Notice(8, Message("Oi"))])
    async with running(engine, database, chat_names={7: "Maria's chat"}, language="en") as console:
        maria = console.chat(7, MARIA)
        technician = console.chat(2, MARIA)
        shown = await technician.send(Text("a caminho"))
    assert shown == "Feito.\n   [1] Menu\n\n   [to Maria's chat] 🚗 O técnico está a caminho.\n      [Avaliar]" + (
        "\n\n   [to chat 8] Oi"
    )
    assert [choice.label for choice in technician.choices] == ["Menu"]
    assert maria.choices == []  # Maria's button is not the technician's, nor pressed by typing in her chat
    assert technician.shown == shown


@pytest.fixture
async def demo(tmp_path: Path) -> AsyncIterator[Demo]:
    demo = await Demo.open(tmp_path, "pt_BR", bold=False)
    yield demo
    await demo.close()


async def press(chat: ConsoleChat, label: str) -> str:
    """Type the number of the button whose label contains ``label``."""
    number = next((i for i, action in enumerate(chat.choices, 1) if label in action.label), None)
    assert number is not None, f"no {label!r} among {[a.label for a in chat.choices]}"
    shown = await chat.say(str(number))
    assert shown is not None
    return shown


async def link_by_tax_id(demo: Demo, tax_id: str) -> str:
    await demo.say(next(str(i) for i, a in enumerate(demo.chat.choices, 1) if "CPF" in a.label))
    typed = await demo.say(tax_id)
    assert typed is not None
    shared = await demo.say(next(str(i) for i, a in enumerate(demo.chat.choices, 1) if isinstance(a.event, Contact)))
    assert shared is not None
    return typed + "\n" + shared


async def test_typing_1_presses_the_first_menu_button(demo: Demo) -> None:
    await demo.chat.send(Start())
    await link_by_tax_id(demo, D.customer_cpf)
    shown = await demo.say("/menu")
    assert shown is not None and D.customer_name in shown
    first = demo.chat.choices[0]
    assert f"[1] {first.label}" in shown and isinstance(first.event, Choice)
    bills = await demo.say("1")
    assert bills is not None and "Qual boleto você quer?" in bills  # "🧾 Segunda via", pressed by its number


async def test_the_demos_acs_changes_the_wifi_reads_the_signal_and_restarts_the_router(demo: Demo) -> None:
    assert "trocar a senha do wifi" in demo.introduction()
    await demo.chat.send(Start())
    await link_by_tax_id(demo, D.customer_cpf)
    await demo.say("trocar a senha do wifi")
    await press(demo.chat, "Senha do Wi-Fi")
    await demo.say("Jardim#2026")
    applied = await demo.say("Jardim#2026")
    assert applied is not None and "a nova senha está aplicada no roteador (2 redes Wi-Fi)" in applied
    chosen = await demo.say("como está meu sinal")
    assert chosen is not None and "Huawei" in chosen
    signal = await press(demo.chat, "Sinal da fibra")
    assert "Sinal da fibra agora:" in signal and " dBm — " in signal
    await press(demo.chat, "Reiniciar roteador")
    restarted = await press(demo.chat, "Sim")
    assert "O roteador está reiniciando" in restarted


async def test_the_demo_opens_the_technicians_chat_with_an_invite_and_links_marias(demo: Demo) -> None:
    intro = demo.introduction()
    assert D.technician in intro and "/tecnico" in intro and "--as technician" in intro  # pt_BR's own words
    assert demo.prompt == "você> "
    shown = await demo.command("/technician")
    assert shown is not None and demo.technician is not None and demo.chat is demo.technician
    assert "Olá, João!" in shown and "Chamado em mãos" in shown  # the technician's menu, numbered
    assert f"vinculado a {D.customer_name}, para você ver o que ela recebe" in shown  # the demo's language
    assert "Contrato 5001" not in shown  # Maria's chat got its menu, off the screen
    assert demo.prompt == f"você ({D.technician})> "
    async with demo.app.database.transaction() as session:
        technician = await Links().active(session, demo.technician.chat_id)
        maria = await Links().active(session, demo.subscriber.chat_id)
    assert technician is not None and technician.role is Role.TECHNICIAN and technician.system_user == D.technician
    assert maria is not None and maria.customer_code == D.customer

    back = await demo.command("/assinante")
    assert back is not None and demo.chat is demo.subscriber and D.customer_name in back  # her menu
    again = await demo.command("/tecnico")
    assert again is not None and "Chamado em mãos" in again and demo.chat is demo.technician
    assert await demo.command("/menu") is None  # the bot's commands go to the bot


async def test_in_the_demo_the_subscriber_is_seen_being_told_the_technician_is_on_the_way(demo: Demo) -> None:
    await demo.play_technician()
    technician = demo.chat
    await press(technician, "Agenda")
    await press(technician, f"#{D.ticket}")
    await press(technician, "Status")
    shown = await press(technician, "caminho")
    told = shown.split("[para o chat de Maria] ", 1)
    assert len(told) == 2, shown
    assert f"#{D.ticket}" in told[0] and "a caminho" in told[1]  # the technician's answer, then what Maria hears
    assert demo.chat is technician and not any("Avaliar" in a.label for a in technician.choices)


def scripted(tmp_path: Path, *args: str, lines: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ISPBOT_")}
    env["PYTHONPATH"] = str(ROOT)  # this checkout's code, whatever is installed
    return subprocess.run(  # noqa: S603 - this interpreter running our own command
        [sys.executable, "-m", "bot.cli", "demo", *args], input=lines, capture_output=True, text=True,
        cwd=tmp_path, env=env, timeout=120, check=False,
    )


def test_ispbot_demo_runs_a_scripted_chat_and_exits_cleanly(tmp_path: Path) -> None:
    done = scripted(tmp_path, lines="/menu\n\n")
    assert done.returncode == 0, done.stderr
    assert D.customer_cpf in done.stdout and D.pppoe_login in done.stdout  # the identities to try
    assert "Olá" in done.stdout  # the bot's greeting, in Portuguese by default
    assert "[1]" in done.stdout  # with numbered buttons
    # Each line's answer comes before the next prompt, and the prompt speaks the chosen language.
    answered = done.stdout.split("\nvocê> /menu\n", 1)
    assert len(answered) == 2 and "Olá" in answered[1].split("\nvocê> ", 1)[0], done.stdout
    assert done.stdout.rstrip().endswith("Tchau.")
    assert "you>" not in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    # What the demo keeps, where it said it would: its database and the sandbox's records, nothing else.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ispbot-demo.sandbox.json", "ispbot-demo.sqlite3"]
    assert f"guardada em {tmp_path / 'ispbot-demo.sqlite3'}" in done.stdout


def test_ispbot_demo_as_technician_starts_in_the_technicians_chat(tmp_path: Path) -> None:
    done = scripted(tmp_path, "--as", "technician", "--language", "en", lines="/subscriber\n\n")
    assert done.returncode == 0, done.stderr
    assert f"you are now {D.technician}" in done.stdout
    assert "Hello, João!" in done.stdout  # the technician's menu, in the chosen language
    assert f"you ({D.technician})> /subscriber" in done.stdout and D.customer_name in done.stdout
    assert done.stdout.rstrip().endswith("Bye.")
    assert "Traceback" not in done.stdout + done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ispbot-demo.sandbox.json", "ispbot-demo.sqlite3"]


def test_the_demo_loop_in_spanish_prompts_and_says_goodbye_in_spanish() -> None:
    out = io.StringIO()
    assert run_demo("es", stdin=io.StringIO("/menu\n\n"), stdout=out, bold=False) == 0
    shown = out.getvalue()
    assert "\ntú> /menu\n" in shown and shown.rstrip().endswith("Adiós.") and "you>" not in shown


async def test_files_the_bot_sends_are_saved_and_their_paths_printed(
    database: ScratchDatabase, tmp_path: Path,  # noqa: F811
) -> None:
    png = b"\x89PNG\r\n\x1a\n qr"
    async with canned(database, [Upload("photo", png, "pix.png", "QR code PIX")], downloads=tmp_path) as (chat, _):
        first = await chat.send(Text("qr"))
        second = await chat.send(Text("qr"))
    assert f"salvo em {tmp_path / 'pix.png'}" in first and f"salvo em {tmp_path / 'pix-2.png'}" in second
    assert (tmp_path / "pix.png").read_bytes() == png


async def test_a_receipt_is_sent_by_naming_a_file(desk: Desk, tmp_path: Path) -> None:  # noqa: F811
    receipt = tmp_path / "comprovante.pdf"
    receipt.write_bytes(b"%PDF-1.4 receipt")
    linked = await desk.linked_chat()
    desk.engine.files = LocalFiles()
    async with running(desk.engine, desk.database) as console:
        chat = console.chat(linked.chat_id, MARIA)
        event = chat.event_for(f"/file {receipt}")
        assert isinstance(event, Media) and event.kind == "document" and event.file is not None
        assert event.file.name == "comprovante.pdf" and event.file.size == len(b"%PDF-1.4 receipt")
        shown = await chat.send(event)
        assert "Qual boleto você pagou" in shown
        await chat.say(str(next(i for i, c in enumerate(chat.choices, 1) if "28/03/2025" in c.label)))
        await chat.say("1")  # today
        shown = await chat.say("1") or ""  # send
    assert "Chamado nº" in shown
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


async def test_share_my_contact_links_the_played_subscriber(demo: Demo) -> None:
    await demo.chat.send(Start())
    shown = await link_by_tax_id(demo, D.customer_cpf)
    assert D.customer_name in shown


async def test_the_blocked_customer_is_linked_by_tax_id_with_their_own_phone(demo: Demo) -> None:
    await demo.chat.send(Start())
    shown = await link_by_tax_id(demo, D.blocked_customer_cpf)
    assert "João Pereira Santos, 11991234567" in shown  # the demo says whose phone is shared now
    assert "cadastro confirmado" in shown and "João Pereira Santos" in shown
    async with demo.app.database.transaction() as session:
        link = await Links().active(session, demo.subscriber.chat_id)
    assert link is not None and link.customer_code == D.blocked_customer


async def test_the_company_is_linked_by_cnpj_and_asks_for_a_fiscal_invoice(demo: Demo) -> None:
    await demo.chat.send(Start())
    shown = await link_by_tax_id(demo, "11.444.777/0001-61")
    assert "Padaria Pão Quente Ltda" in shown and "mais de um contrato" in shown
    await press(demo.chat, str(D.company_contracts[0]))
    invoices = await demo.say("nota fiscal")
    assert invoices is not None and "notas fiscais" in invoices and "Nº" in invoices


async def test_a_tax_id_typed_in_a_linked_chat_changes_nobody(demo: Demo) -> None:
    await demo.chat.send(Start())
    await link_by_tax_id(demo, D.customer_cpf)  # Maria: already who is played, so nothing is said
    phone = demo.subscriber.identity.phone
    shown = await demo.say(D.blocked_customer_cpf)
    assert shown is not None and "11991234567" not in shown and demo.subscriber.identity.phone == phone


async def test_file_alone_explains_itself_and_a_missing_path_is_refused_at_once(
    database: ScratchDatabase, tmp_path: Path,  # noqa: F811
) -> None:
    async with canned(database, [Message("ok")]) as (chat, engine):
        usage = await chat.say("/file")
        assert usage is not None and "/file <caminho>" in usage and "conheço" not in usage
        missing = await chat.say(f"/file {tmp_path / 'nao-existe.pdf'}")
        assert missing is not None and "não existe o arquivo" in missing and "nao-existe.pdf" in missing
        folder = await chat.say(f"/file {tmp_path}")
        assert folder is not None and "pasta" in folder
        assert engine.received == []  # none of them reached the bot
        english = ConsoleChannel(language="en").chat(1, MARIA)
        assert "there is no file" in (await english.say("/file ~/no-such-receipt.pdf") or "")
        receipt = tmp_path / "comprovante.pdf"
        receipt.write_bytes(b"%PDF-1.4")
        assert await chat.say(f"/file '{receipt}'") == "ok" and isinstance(engine.received[0].event, Media)


async def test_in_spanish_what_another_chat_is_told_is_marked_in_spanish(tmp_path: Path) -> None:
    demo = await Demo.open(tmp_path, "es", bold=False)
    try:
        assert demo.prompt == "tú> "
        opened = await demo.command("/tecnico")
        assert opened is not None and "ahora eres tecnico.joao" in opened and "vinculado a" in opened
        await press(demo.chat, "Agenda")
        await press(demo.chat, f"#{D.ticket}")
        await press(demo.chat, "Estado")
        shown = await press(demo.chat, "camino")
        assert "[al chat de Maria] " in shown and "[to " not in shown
        back = await demo.command("/abonado")
        assert back is not None and "de vuelta en el chat del abonado" in back
    finally:
        await demo.close()


async def test_a_restarted_connection_is_told_back_between_lines_as_the_bot_would_on_telegram(demo: Demo) -> None:
    await demo.chat.send(Start())
    await link_by_tax_id(demo, D.customer_cpf)
    await demo.say("/endoutage")  # Maria's area has an outage in the seed: a restart would not help
    demo.sandbox.settings.redial_seconds = 1.0  # the router dials in again at once, not after 20 s
    await demo.say("reiniciar minha conexão")
    shown = await press(demo.chat, "Sim, reiniciar")
    assert "te aviso aqui" in shown and "já voltou" not in shown  # answered at once; the check comes later
    told = ""
    async with asyncio.timeout(30):
        while "já voltou" not in told:
            await asyncio.sleep(0.5)
            told += await demo.notices()
    assert "Reiniciei a sua conexão" in told
