"""Fiscal invoices: the recent ones listed, the PDF of the one picked, each item's error read."""

from __future__ import annotations

from bot.sandbox import DEMO_IDENTITIES as D
from flows.replies import Document

from tests.flows.harness import Desk


async def test_a_company_lists_its_invoices_and_gets_a_pdf(desk: Desk) -> None:
    chat = await desk.linked_chat(D.company)
    await chat.say("preciso da nota fiscal")
    assert "notas fiscais mais recentes" in chat.text
    invoices = [i for i in desk.sandbox.store.rows("fiscal_invoices") if i["customer_id"] == D.company]
    issued = max((i for i in invoices if i["status"] == "issued"), key=lambda i: (i["issue"], i["id"]))
    await chat.tap(f"Nº {issued['number']}")
    document = chat.last(Document)
    assert document.url.startswith("http") and f"nº {issued['number']}" in document.caption
    assert "notas fiscais mais recentes" in chat.text  # the list again, for another one


async def test_a_cancelled_invoice_is_said_plainly(desk: Desk) -> None:
    chat = await desk.linked_chat(D.company)
    await chat.command("notas")
    cancelled = next(i for i in desk.sandbox.store.rows("fiscal_invoices")
                     if i["customer_id"] == D.company and i["status"] == "canceled")
    if f"Nº {cancelled['number']}" not in " ".join(chat.buttons):
        cancelled["issue"] = desk.clock().date().isoformat()  # make it the newest, so it is offered
        await chat.command("notas")
    await chat.tap(f"Nº {cancelled['number']}")
    assert "não está disponível em PDF" in chat.text
    assert not [r for r in chat.replies if isinstance(r, Document)]


async def test_no_invoices_is_a_plain_answer(desk: Desk) -> None:
    with_invoices = {i["customer_id"] for i in desk.sandbox.store.rows("fiscal_invoices")}
    customer = next(c["Cliente_Codigo"] for c in desk.sandbox.store.rows("contracts")
                    if c["Cliente_Codigo"] not in with_invoices)
    chat = await desk.linked_chat(customer)
    await chat.command("notas")
    assert "Não encontrei notas fiscais emitidas para você nos últimos 180 dias" in chat.text
