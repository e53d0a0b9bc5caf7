"""The notices the bot writes first (``flows.notices``): a bill's reminder and overdue notice with
their buttons working, "we received your payment", an outage started; each once, never in quiet
hours, never after an opt-out, the ISP read in pages whatever the number of subscribers."""

from __future__ import annotations

from datetime import datetime, time, timedelta

import flows.notices as notices_module
import pytest
from bot.i18n import plain_text
from bot.sandbox import DEMO_IDENTITIES
from bot.store import Links, NoticeRounds, Proof, Role
from bot.store.channels import CHAT_BASES, WHATSAPP
from flows.notices import BILL_DUE, BILL_OVERDUE, OUTAGE_STARTED, PAYMENT_RECEIVED, NoticeRound, NoticeSettings
from flows.notices import RoundReport as Report
from flows.replies import Message, Notice

from tests.flows.harness import Desk

MARIA, JOAO = DEMO_IDENTITIES.customer, DEMO_IDENTITIES.blocked_customer
SETTINGS = NoticeSettings(due_days=3, overdue_days=1, quiet=(time(21), time(8)))
MONEY = "R$\u00a099,90"


def texts(notices: list[Notice]) -> list[str]:
    return [plain_text(n.reply.text) for n in notices if isinstance(n.reply, Message)]


def close_outages(desk: Desk) -> None:
    """No open failover event (the seeded one affects Maria): the bills' notices alone."""
    for event in desk.sandbox.store.rows("failover"):
        event.update(Status="C")


async def run(
    desk: Desk, at: datetime, *, dry_run: bool = False, channels: set[str] | None = None,
) -> tuple[list[Notice], Report]:
    sent: list[Notice] = []

    async def send(notices: list[Notice]) -> None:
        sent.extend(notices)

    report = await NoticeRound(desk.engine, SETTINGS).run(now=at, dry_run=dry_run, send=send, channels=channels)
    return sent, report


def before_due(desk: Desk, days: int, hour: int = 10) -> datetime:
    """``hour`` o'clock ``days`` before Maria's open bill is due (18 days after the sandbox's today)."""
    return desk.clock.now.replace(hour=hour, minute=0) + timedelta(days=18 - days)


async def test_a_reminder_goes_three_days_before_the_due_date_once_with_its_pix_a_tap_away(desk: Desk) -> None:
    close_outages(desk)
    chat = await desk.linked_chat(MARIA)
    sent, _ = await run(desk, before_due(desk, 4))
    assert sent == []  # four days before: not yet

    sent, report = await run(desk, before_due(desk, 3))
    [reminder] = sent
    assert reminder.chat_id == chat.chat_id and reminder.kind == BILL_DUE and report.sent == {BILL_DUE: 1}
    assert f"o seu boleto de {MONEY} vence em 28/03/2025" in texts(sent)[0]
    assert reminder.values == {"amount": MONEY, "due": "28/03/2025"}  # its WhatsApp template's

    # The buttons work in the conversation that follows, tapped or typed.
    chat.replies = [reminder.reply]
    await chat.tap("PIX copia e cola")
    assert f"PIX de {MONEY}" in chat.text and "000201" in chat.text
    await chat.say("boleto em pdf")
    assert chat.replies

    again, _ = await run(desk, before_due(desk, 2))  # the next rounds: told once
    assert again == []


async def test_nothing_goes_in_quiet_hours_it_waits_for_the_morning(desk: Desk) -> None:
    close_outages(desk)
    chat = await desk.linked_chat(MARIA)
    desk.sandbox.reset_calls()
    sent, report = await run(desk, before_due(desk, 3, hour=22))
    assert sent == [] and report.quiet and desk.sandbox.call_count() == 0  # nothing read at night either
    sent, _ = await run(desk, before_due(desk, 2, hour=7))
    assert sent == []
    sent, _ = await run(desk, before_due(desk, 2, hour=8))
    assert [n.chat_id for n in sent] == [chat.chat_id]  # the morning's first round: two days before, still told


async def test_an_opt_out_in_words_is_honoured_per_kind_and_undone_in_words(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.say("parar avisos")
    assert "Quais avisos você não quer mais receber?" in chat.text
    await chat.say("lembretes de boleto")  # typed, not tapped
    assert "não vou mais enviar lembretes nem avisos de atraso de boleto" in chat.text
    sent, report = await run(desk, before_due(desk, 3))
    assert report.refused == {BILL_DUE: 1}
    assert [n.kind for n in sent] == [OUTAGE_STARTED]  # the other kinds still go

    await chat.say("quero receber avisos de novo")
    assert "Hoje você não recebe: 🧾 Lembretes e atrasos de boleto" in chat.text
    await chat.tap("Todos os avisos")
    assert "você volta a receber todos os avisos" in chat.text
    sent, _ = await run(desk, before_due(desk, 2))
    assert [n.kind for n in sent] == [BILL_DUE]


async def test_an_opt_out_of_all_holds_every_kind_and_is_shown_in_my_data(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.command("pararavisos")
    await chat.tap("Todos os avisos")
    sent, report = await run(desk, before_due(desk, 3))
    assert sent == [] and report.refused == {BILL_DUE: 1, OUTAGE_STARTED: 1}
    await chat.command("meusdados")
    refused = "🧾 Lembretes e atrasos de boleto, ✅ Pagamentos recebidos, ⚠️ Falhas na rede"
    assert f"Avisos: você não recebe {refused}" in chat.text


async def test_a_bare_stop_at_the_menu_stops_every_notice_and_says_how_to_come_back(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    for word in ("stop", "parar", "Pare"):
        await chat.say(word)
        assert "não vou mais enviar avisos por aqui" in chat.text and "escreva receber avisos" in chat.text
        assert "cancelei" not in chat.text  # nothing was open to cancel
        sent, report = await run(desk, before_due(desk, 3))
        assert sent == [] and report.refused == {BILL_DUE: 1, OUTAGE_STARTED: 1}
        await chat.command("meusdados")
        assert "Avisos: você não recebe 🧾 Lembretes e atrasos de boleto, ✅ Pagamentos recebidos" in chat.text
        await chat.say("receber avisos")
        await chat.tap("Todos os avisos")
        assert "você volta a receber todos os avisos" in chat.text


async def test_a_stop_in_answer_to_a_reminder_stops_the_notices(desk: Desk) -> None:
    # The reminder's buttons are a question, but one the bot asked first: "STOP" there is about the notices.
    close_outages(desk)
    chat = await desk.linked_chat(MARIA)
    [reminder], _ = await run(desk, before_due(desk, 3))
    chat.replies = [reminder.reply]
    await chat.say("STOP")
    assert "não vou mais enviar avisos por aqui" in chat.text and "cancelei" not in chat.text
    sent, report = await run(desk, before_due(desk, 1) - timedelta(days=1) + timedelta(days=3))  # overdue now
    assert sent == [] and report.refused


async def test_a_bare_stop_at_an_open_question_leaves_the_question_and_the_notices_still_go(desk: Desk) -> None:
    close_outages(desk)
    chat = await desk.linked_chat(MARIA)
    await chat.say("segunda via")
    assert chat.buttons  # the open bills: a question
    await chat.say("stop")
    assert "Tudo bem, cancelei." in chat.text and "não vou mais enviar avisos" not in chat.text
    sent, report = await run(desk, before_due(desk, 3))
    assert [n.kind for n in sent] == [BILL_DUE] and not report.refused


async def test_an_overdue_bill_of_a_blocked_contract_says_the_amount_today_and_what_unblocks_it(desk: Desk) -> None:
    close_outages(desk)
    chat = await desk.linked_chat(JOAO)
    today = desk.clock.now.date()
    [bill, *_] = [d for d in desk.sandbox.store.rows("documents")
                  if d["CodigoPessoa"] == JOAO and not d["DataBaixa"]]
    bill["DataVencimento"] = (today - timedelta(days=1)).isoformat()
    sent, report = await run(desk, desk.clock.now)
    [overdue] = [n for n in sent if n.kind == BILL_OVERDUE]
    [text] = texts([overdue])
    assert overdue.chat_id == chat.chat_id and report.sent[BILL_OVERDUE] == len(texts(sent))
    assert "está em aberto: hoje são R$" in text
    assert f"O contrato {DEMO_IDENTITIES.blocked_contract} está bloqueado: o pagamento desbloqueia" in text
    assert "/contratos" in text


async def test_a_payment_settled_in_the_isp_is_told_once(desk: Desk) -> None:
    close_outages(desk)
    chat = await desk.linked_chat(MARIA)
    bill = desk.sandbox.store.find("documents", Sequencia=DEMO_IDENTITIES.open_document)
    assert bill is not None
    bill.update(DataBaixa=desk.clock.now.date().isoformat(), Motivo="PAGTO", HistoricoBaixa="Pagamento",
                FormaPagto="N", ValorBaixado=99.90)
    sent, _ = await run(desk, desk.clock.now)
    [paid] = [n for n in sent if n.kind == PAYMENT_RECEIVED]
    assert paid.chat_id == chat.chat_id
    assert f"Recebemos o seu pagamento de {MONEY}, do boleto com vencimento em 28/03/2025" in texts([paid])[0]
    again, _ = await run(desk, desk.clock.now + timedelta(hours=1))
    assert [n for n in again if n.kind == PAYMENT_RECEIVED] == []


async def test_an_open_outage_is_told_once_and_its_end_will_be_too(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    sent, _ = await run(desk, desk.clock.now)
    [outage] = [n for n in sent if n.kind == OUTAGE_STARTED]
    assert outage.chat_id == chat.chat_id
    assert "Identificamos uma falha na nossa rede que afeta a sua conexão" in texts([outage])[0]
    assert "eu te aviso por aqui" in texts([outage])[0]
    again, _ = await run(desk, desk.clock.now + timedelta(minutes=15))
    assert [n for n in again if n.kind == OUTAGE_STARTED] == []
    await chat.command("conexao")
    await chat.tap("🔔")
    assert "já está na lista" in chat.text  # the notice put the person on the list to hear it ended


async def test_a_dry_run_says_who_would_get_what_and_claims_nothing(desk: Desk) -> None:
    close_outages(desk)
    chat = await desk.linked_chat(MARIA)
    sent, report = await run(desk, before_due(desk, 3), dry_run=True)
    assert sent == [] and [(p.kind, p.chat_id) for p in report.planned] == [(BILL_DUE, chat.chat_id)]
    assert report.sent == {BILL_DUE: 1}
    sent, _ = await run(desk, before_due(desk, 3))
    assert [n.kind for n in sent] == [BILL_DUE]  # the dry run took nothing


async def test_the_isp_is_read_in_pages_not_once_per_subscriber(desk: Desk) -> None:
    close_outages(desk)
    customers = [c["Codigo"] for c in desk.sandbox.store.rows("customers")][:40]
    for customer in customers:
        await desk.linked_chat(customer)
    desk.sandbox.reset_calls()
    _, report = await run(desk, before_due(desk, 3))
    reads = {name: desk.sandbox.call_count(name) for name in (
        "ConsultaDocumentosAbertos", "ConsultaDocumentosBaixados", "FailOverEvents")}
    assert reads == {"ConsultaDocumentosAbertos": 1, "ConsultaDocumentosBaixados": 1, "FailOverEvents": 1}
    # Only the overdue bills' amounts due today are read per customer: none for a reminder.
    assert desk.sandbox.call_count("get_unpaid_document") == report.isp_calls["get_unpaid_document"]
    assert report.isp_calls.total() == desk.sandbox.call_count()


async def test_each_round_is_recorded_for_the_status(desk: Desk) -> None:
    close_outages(desk)
    await desk.linked_chat(MARIA)
    await run(desk, before_due(desk, 3, hour=23))
    await run(desk, before_due(desk, 2))
    async with desk.database.transaction() as session:
        latest, quiet = await NoticeRounds().last(session, 2)
    assert (latest.sent, latest.held, latest.refused) == (1, 0, 0) and latest.finished_at is not None
    assert quiet.details["quiet"] is True and quiet.sent == 0


async def test_a_chat_on_a_channel_this_process_does_not_run_is_held_for_one_that_does(desk: Desk) -> None:
    close_outages(desk)
    whatsapp_chat = CHAT_BASES[WHATSAPP] + 7
    async with desk.database.transaction() as session:
        await Links().link(session, whatsapp_chat, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE,
                           customer_code=MARIA)
    sent, report = await run(desk, before_due(desk, 3), channels={"telegram"})
    assert sent == [] and report.held == {BILL_DUE: 1}
    sent, _ = await run(desk, before_due(desk, 3), channels={"telegram", WHATSAPP})
    assert [n.chat_id for n in sent] == [whatsapp_chat]  # not claimed by the process that held it


async def test_the_first_page_of_customers_is_told_before_the_next_page_is_read(
        desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notices_module, "PAGE", 1)  # a page of one customer
    monkeypatch.setattr(notices_module, "SEND_BATCH", 1)
    close_outages(desk)
    await desk.linked_chat(MARIA)  # the lowest code: the first page, with a bill due in three days
    await desk.linked_chat(JOAO)
    desk.sandbox.reset_calls()
    read_when_told: list[int] = []

    async def send(notices: list[Notice]) -> None:
        read_when_told.append(desk.sandbox.call_count("ConsultaDocumentosAbertos"))

    await NoticeRound(desk.engine, SETTINGS).run(now=before_due(desk, 3), send=send)
    assert read_when_told == [1]  # Maria's reminder went with one page read of two
