"""Paid bills and the yearly discharge statement: the last year's paid bills listed, the statement PDF
for the year asked naming each paid bill and the law's sentence; a year not over, one with a bill
still open, and one without paid bills get no statement."""

from __future__ import annotations

from datetime import date, timedelta

from bot.sandbox import DEMO_IDENTITIES, FixedClock, Sandbox
from flows.replies import Upload

from tests.flows.harness import Desk, make_desk, pdf_text, sandbox_policy
from tests.store.dbtools import ScratchDatabase

MARIA = DEMO_IDENTITIES.customer


def paid_in(sandbox: Sandbox, year: int) -> list[dict[str, object]]:
    return [d for d in sandbox.store.where("documents", CodigoPessoa=MARIA)
            if d.get("DataBaixa") and str(d["DataVencimento"]).startswith(str(year))]


async def test_the_last_year_s_paid_bills_are_listed(desk: Desk, clock: FixedClock) -> None:
    since = (clock.now - timedelta(days=365)).date().isoformat()
    paid = [d for d in desk.sandbox.store.where("documents", CodigoPessoa=MARIA)
            if d.get("DataBaixa") and d["DataVencimento"] >= since]
    chat = await desk.linked_chat(MARIA)
    await chat.say("quero ver meus boletos pagos")
    assert "Boletos pagos nos últimos 12 meses" in chat.text
    assert chat.text.count("pago em") == len(paid) >= 10 and "E mais" not in chat.text
    newest = max(paid, key=lambda d: d["DataVencimento"])
    assert chat.text.index(date.fromisoformat(newest["DataBaixa"]).strftime("%d/%m/%Y")) < chat.text.index("02/04/2024")
    await chat.tap("Declaração anual")
    assert "De qual ano" in chat.text


async def test_the_statement_pdf_names_every_paid_bill_of_the_year(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    company = "Fibra Sandbox Telecom Ltda, CNPJ 11.444.777/1234-56"
    desk = make_desk(sandbox, database, clock, sandbox_policy(sandbox, company=company))
    try:
        chat = await desk.linked_chat(MARIA)
        await chat.say("preciso da declaração anual de quitação")
        await chat.say("2025")
        assert "ainda não terminou" in chat.text
        await chat.tap("2024")
        statement = chat.last(Upload)
        assert statement.filename == "quitacao-2024.pdf" and statement.data.startswith(b"%PDF")
        body = pdf_text(statement.data)
        assert "Declaração anual de quitação de débitos - 2024" in body
        assert "Fibra Sandbox Telecom Ltda" in body and "Maria Aparecida da Silva" in body
        assert "52998224725" in body and "Lei 12.007/2009" in body
        assert "substitui, para a comprovação do cumprimento das obrigações do consumidor" in body
        paid = paid_in(sandbox, 2024)
        assert len(paid) >= 10 and body.count("pago em") == len(paid)
        assert all(f"Documento {d['Documento']}:" in body for d in paid)
    finally:
        await desk.client.aclose()


async def test_a_year_with_a_bill_still_open_gets_no_statement(desk: Desk) -> None:
    open_bill = desk.sandbox.store.find("documents", Sequencia=DEMO_IDENTITIES.overdue_document)
    assert open_bill is not None
    open_bill["DataVencimento"] = "2024-12-10"  # a bill of 2024 never paid
    chat = await desk.linked_chat(MARIA)
    await chat.command("quitacao")
    await chat.say("2024")
    assert "Ainda há boletos com vencimento em 2024 em aberto" in chat.text and "10/12/2024" in chat.text
    assert not any(isinstance(r, Upload) for r in chat.replies)
    await chat.say("e de 2023?")
    assert "Não encontrei boletos pagos com vencimento em 2023" in chat.text


async def test_in_spanish_the_statement_is_in_spanish(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA, language="es")
    await chat.say("necesito el certificado de libre deuda")
    await chat.say("2024")
    body = pdf_text(chat.last(Upload).data)
    assert "Declaración anual de libre deuda - 2024" in body and "Total pagado" in body
