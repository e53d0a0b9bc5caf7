"""Bills: the open documents, oldest due first, and the digitable line of the chosen one."""

from __future__ import annotations

from datetime import date
from typing import Any

from bot.i18n import LANGUAGES, default_translations
from bot.sandbox import DEMO_IDENTITIES, PRODUCTION_KEY
from bot.sandbox.seed import document_record
from flows.replies import Message

from tests.flows.harness import Desk

MARIA = DEMO_IDENTITIES.customer


def _open_documents(desk: Desk, customer: int) -> list[dict[str, Any]]:
    return [d for d in desk.sandbox.store.where("documents", CodigoPessoa=customer) if not d.get("DataBaixa")]


def _line(desk: Desk, customer: int, document: int, updated: bool) -> str:
    answer = desk.sandbox.v1("ConsultaLinhaDigitavelBoleto", {"DadosLinhaDigitavelEntrada": {
        "CliFor": customer, "Documento": document, "BoletoAtualizado": "S" if updated else "N",
    }}, key=PRODUCTION_KEY)
    return str(answer["result"][0]["LinhaDigitavel"])


async def test_open_bills_are_listed_oldest_due_first_with_value_and_due_date(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.tap("Segunda via")
    assert "boletos em aberto" in chat.text
    assert chat.buttons == ["R$\u00a099,90 · 26/02/2025 (vencido)", "R$\u00a099,90 · 28/03/2025"]
    listing = chat.text
    assert listing.index("venceu em 26/02/2025") < listing.index("vence em 28/03/2025")


async def test_choosing_an_open_bill_sends_its_digitable_line_to_copy(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.tap("28/03/2025")
    expected = _line(desk, MARIA, 100002, updated=False)
    assert expected in chat.text
    assert any(f"<code>{expected}</code>" in r.text for r in chat.replies if isinstance(r, Message))
    assert "vencido" not in chat.text
    assert chat.buttons == ["💠 PIX copia e cola", "🔳 QR code PIX", "📄 Boleto em PDF", "✅ Já paguei",
                            "⚖️ Contestar cobrança", "🧾 Outros boletos", "🏠 Menu"]


async def test_an_overdue_bill_says_so_and_the_updated_line_is_offered_and_sent(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.tap("vencido")
    original = _line(desk, MARIA, 100001, updated=False)
    assert original in chat.text
    assert "já venceu" in chat.text
    await chat.tap("Atualizar vencimento")
    updated = _line(desk, MARIA, 100001, updated=True)
    assert updated != original
    assert updated in chat.text
    assert "atualizado para 10/03/2025" in chat.text


async def test_a_customer_with_nothing_open_gets_a_friendly_answer(desk: Desk) -> None:
    codes = [c["Cliente_Codigo"] for c in desk.sandbox.store.rows("contracts")]
    customer = next(code for code in codes if code > MARIA and not _open_documents(desk, code))
    chat = await desk.linked_chat(customer)
    await chat.command("boleto")
    assert "não tem nenhum boleto em aberto" in chat.text
    assert "Como posso ajudar" in chat.text


async def test_a_bill_paid_in_between_is_said_plainly_and_the_list_refreshed(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    paid = next(d for d in _open_documents(desk, MARIA) if d["Documento"] == 100002)
    paid["DataBaixa"] = "2025-03-10"
    await chat.tap("28/03/2025")
    assert "não está mais em aberto" in chat.text
    assert chat.buttons == ["R$\u00a099,90 · 26/02/2025 (vencido)"]


async def test_isp_down_while_listing_is_told_plainly_and_the_chat_stays_where_it_was(desk: Desk) -> None:
    chat = await desk.linked_chat()
    desk.expire_caches()
    desk.sandbox.faults.go_down()
    await chat.tap("Segunda via")
    assert "fora do ar" in chat.text
    assert "Como posso ajudar" in chat.text  # the question it was at, asked again
    desk.sandbox.faults.come_back()
    await chat.tap("Segunda via")
    assert chat.buttons == ["R$\u00a099,90 · 26/02/2025 (vencido)", "R$\u00a099,90 · 28/03/2025"]


async def test_isp_down_when_a_bill_is_chosen_keeps_the_list_for_the_next_tap(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    desk.sandbox.faults.go_down()
    await chat.tap("28/03/2025")
    assert "fora do ar" in chat.text
    desk.sandbox.faults.come_back()
    await chat.tap("28/03/2025")
    assert _line(desk, MARIA, 100002, updated=False) in chat.text


async def test_text_at_the_list_is_answered_and_the_list_asked_again(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.say("quero o de dezembro")  # no bill of December: the list again, nothing guessed
    assert "Toque no botão do boleto" in chat.text
    assert len(chat.buttons) == 2


async def test_a_bill_is_pointed_at_by_its_month(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.say("quero o de março")
    assert "Boleto de R$\xa099,90, vencimento 28/03/2025" in chat.text


async def test_english_speaker_gets_the_list_in_english(desk: Desk) -> None:
    chat = await desk.linked_chat(language="en")
    await chat.command("bills")
    assert "These are your open bills" in chat.text
    assert "R$\u00a099.90" in chat.text


def test_every_bills_template_renders_in_every_language_with_its_samples() -> None:
    translations = default_translations()
    samples = translations.samples()
    keys = {k for k in translations.keys("pt_BR") if k.startswith("bills.")}
    for language in LANGUAGES:
        assert {k for k in translations.keys(language) if k.startswith("bills.")} == keys
        for key in keys:
            assert translations.render(language, key, **samples.get(key, {}))


async def test_at_most_six_bills_are_offered_and_the_rest_are_counted(desk: Desk) -> None:
    maria = desk.sandbox.store.find("customers", Codigo=MARIA)
    for month in range(1, 8):  # seven more unpaid months of 2024
        desk.sandbox.store.insert("documents", document_record(
            400000 + month, maria, [DEMO_IDENTITIES.contract], date(2024, month, 10), 99.90, paid_on=None,
        ))
    chat = await desk.linked_chat()
    await chat.command("boleto")
    assert len(chat.buttons) == 6
    assert chat.buttons[0] == "R$\u00a099,90 · 10/01/2024 (vencido)"  # the oldest first, the newest counted
    assert "28/03/2025" not in chat.buttons[-1]
    assert "há mais 3" in chat.text and "mais antigo" in chat.text


def _due_today(desk: Desk, document: int) -> str:
    """The amount due today of a bill, as the ISP's finance group says it, written as a Brazilian reads it."""
    unpaid = desk.sandbox.v2("get_unpaid_document", {"customer_id": MARIA})["result"]
    value = next(d["value_up"] for d in unpaid if int(d["document_number"]) == document)
    return f"R$\u00a0{value:.2f}".replace(".", ",")


async def test_an_overdue_bill_has_one_amount_on_its_card_its_pix_and_its_updated_line(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.tap("vencido")
    today = _due_today(desk, 100001)
    assert today != "R$\u00a099,90" and f"hoje: {today}" in chat.text
    await chat.tap("PIX copia e cola")
    assert f"PIX de {today}" in chat.text
    await chat.tap("Atualizar vencimento")
    assert f"valor de {today}" in chat.text and "próxima fatura" not in chat.text


async def test_a_line_that_leaves_interest_for_later_says_so_plainly(desk: Desk, monkeypatch: Any) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.tap("vencido")
    original = _line(desk, MARIA, 100001, updated=False)  # carries the original amount

    async def the_original(*_: Any, **__: Any) -> str:
        return original

    monkeypatch.setattr(desk.engine.coordinator, "digitable_line", the_original)
    await chat.tap("Atualizar vencimento")
    assert "valor de R$\u00a099,90 (menos que o valor de hoje: a diferença de juros e multa pode vir" in chat.text


async def test_already_due_is_asked_once_and_not_after_the_update(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.tap("vencido")
    assert chat.text.count("já venceu") == 1
    await chat.tap("PDF")
    assert "já venceu" not in chat.text and "📅 Atualizar vencimento" in chat.buttons
    await chat.tap("Atualizar vencimento")
    assert "já venceu" not in chat.text and "📅 Atualizar vencimento" not in chat.buttons
    await chat.tap("Outros boletos")
    await chat.tap("vencido")
    assert "já venceu" in chat.text  # another card: asked again, once


async def test_typing_a_buttons_name_or_i_have_paid_at_the_card_does_it(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.tap("28/03/2025")
    await chat.say("pix")
    assert any("<code>000201" in r.text for r in chat.replies if isinstance(r, Message)), chat.text
    assert "Toque no botão" not in chat.text
    await chat.say("PDF")
    assert "📄 Boleto de R$\u00a099,90" in chat.text
    await chat.say("qual é a cor do céu")
    assert "escreva o que quer, por exemplo pix ou já paguei" in chat.text
    await chat.say("já paguei")
    assert "Quando você pagou" in chat.text and "28/03/2025" in chat.text


async def test_english_typed_paid_at_the_card_goes_to_i_have_paid(desk: Desk) -> None:
    chat = await desk.linked_chat(language="en")
    await chat.command("bills")
    await chat.tap("3/28/2025")
    await chat.say("I have paid")
    assert "When did you pay" in chat.text


async def test_a_way_to_pay_typed_at_the_list_asks_only_which_bill_then_is_done(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.say("pix")
    assert "Para qual boleto é o 💠 PIX copia e cola?" in chat.text and "Toque no botão" not in chat.text
    await chat.tap("vencido")
    assert any("<code>000201" in r.text for r in chat.replies if isinstance(r, Message)), chat.text
    assert _line(desk, MARIA, 100001, updated=False) not in chat.text  # the PIX asked for, not the line
    assert "💠 PIX copia e cola" in chat.buttons


async def test_a_way_to_pay_typed_with_one_bill_open_is_done_at_once(desk: Desk) -> None:
    for document in _open_documents(desk, MARIA)[1:]:
        document["DataBaixa"] = "2025-03-10"
    chat = await desk.linked_chat(language="es")
    await chat.command("factura")
    await chat.say("pdf")
    assert "📄" in chat.text and "¿Para qué factura" not in chat.text, chat.text
