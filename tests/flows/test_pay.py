"""Paying from the chat: PIX copy-and-paste (checked), the QR code, the bill as a PDF, and "I have
paid" with the receipt, on the seeded sandbox, including every answer variant of the third document."""

from __future__ import annotations

import hashlib
import io
from typing import Any

import pytest
import segno
from bot.isp.pix import parse_br_code
from bot.sandbox import DEMO_IDENTITIES as D
from flows.events import Choice, FileRef, Media, describe
from flows.replies import Message, Upload

from tests.flows.harness import Desk, TestChat

RECEIPT = b"%PDF-1.4\n% comprovante PIX\n%%EOF\n"


async def _bill(desk: Desk, due: str = "28/03/2025", customer: int = D.customer) -> TestChat:
    chat = await desk.linked_chat(customer)
    await chat.command("boleto")
    await chat.tap(due)
    return chat


def _code_in(chat: TestChat) -> str:
    texts = [r.text for r in chat.replies if isinstance(r, Message) and "<code>000201" in r.text]
    assert texts, chat.text
    return texts[0].split("<code>")[1].split("</code>")[0]


def _notifications(desk: Desk) -> list[dict[str, Any]]:
    return list(desk.sandbox.store.rows("payment_notifications"))


# ---- PIX, QR, PDF ----------------------------------------------------------------------------------------
async def test_pix_copy_and_paste_is_a_checked_code_alone_in_a_copy_block(desk: Desk) -> None:
    chat = await _bill(desk)
    await chat.tap("PIX copia e cola")
    code = _code_in(chat)
    parsed = parse_br_code(code)
    assert parsed is not None and parsed.code == code
    assert "📄 Boleto em PDF" in chat.buttons  # the bill's other actions stay offered


@pytest.mark.parametrize("variant", [{"pix_key": "emv"}, {"pix_key": "pix_copia_cola"}, {"pix_whitespace": True},
                                     {"success_error_code": "0"}, {"numbers_as_text": True}])
async def test_pix_reads_in_every_variant(desk: Desk, variant: dict[str, Any]) -> None:
    desk.sandbox.variants.set(**variant)
    chat = await _bill(desk)
    await chat.tap("PIX copia e cola")
    assert parse_br_code(_code_in(chat)) is not None


async def test_a_bill_whose_bank_has_no_pix_says_so_and_points_to_the_line(desk: Desk) -> None:
    chat = await desk.linked_chat(D.company)
    await chat.command("boleto")
    tokens = [b.token for r in chat.replies if isinstance(r, Message) for row in r.buttons for b in row]
    answers = []
    for token in tokens:
        await chat.command("boleto")
        listing = [b.token for r in chat.replies if isinstance(r, Message) for row in r.buttons for b in row]
        await chat.send(Choice(listing[tokens.index(token)]))
        await chat.tap("PIX copia e cola")
        answers.append("não tem PIX" in chat.text)
        if answers[-1]:
            assert "linha digitável" in chat.text and "000201" not in chat.text
            await chat.tap("QR code")
            assert "não tem PIX" in chat.text and not [r for r in chat.replies if isinstance(r, Upload)]
    assert True in answers and False in answers  # the bank without PIX, and the others with it

async def test_a_malformed_code_from_the_isp_is_never_shown(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    chat = await _bill(desk)

    async def broken(_: int) -> str:
        return "00020126580014br.gov.bcb.pix5802BR6304FFFF"

    monkeypatch.setattr(desk.engine.coordinator, "pix_code", broken)
    await chat.tap("PIX copia e cola")
    assert "não tem PIX" in chat.text and "000201" not in chat.text


async def test_the_qr_code_is_sent_as_a_photo_and_reads_back_as_the_pix_code(desk: Desk) -> None:
    chat = await _bill(desk)
    await chat.tap("PIX copia e cola")
    code = _code_in(chat)
    await chat.tap("QR code")
    photo = chat.last(Upload)
    assert photo.kind == "photo" and photo.data.startswith(b"\x89PNG")
    assert "QR code PIX" in chat.text
    assert code  # the image is the ISP's; drawing it here is tested below


async def test_without_an_isp_image_the_qr_is_drawn_from_the_checked_code(desk: Desk,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    chat = await _bill(desk)

    async def none(_: int) -> None:
        return None

    monkeypatch.setattr(desk.engine.coordinator, "pix_image", none)
    await chat.tap("QR code")
    photo = chat.last(Upload)
    expected = io.BytesIO()
    segno.make(_pix_of(desk), error="m", micro=False).save(expected, kind="png", scale=8, border=4)
    assert photo.data == expected.getvalue()


def _pix_of(desk: Desk) -> str:
    answer = desk.sandbox.v2("get_pix_copia_cola", {"banking_billet_id": D.open_document})
    code = answer["result"]
    assert isinstance(code, str)
    return code.strip()


@pytest.mark.parametrize("variant", [{}, {"base64_key": "pdf_base64", "data_prefix": True},
                                     {"base64_key": "base64", "link_key": "url"}])
async def test_the_bill_pdf_is_sent_as_a_document(desk: Desk, variant: dict[str, Any]) -> None:
    desk.sandbox.variants.set(**variant)
    chat = await _bill(desk)
    await chat.tap("PDF")
    pdf = chat.last(Upload)
    assert pdf.kind == "document" and pdf.data.startswith(b"%PDF") and pdf.filename == "boleto-2025-03-28.pdf"


async def test_the_pdf_is_fetched_again_each_time_it_is_asked(desk: Desk) -> None:
    chat = await _bill(desk)
    await chat.tap("PDF")
    await chat.tap("PDF")
    assert chat.last(Upload).data.startswith(b"%PDF")
    assert desk.sandbox.call_count("get_banking_billet") == 2  # never kept: its link lasts minutes


async def test_an_overdue_bill_shows_the_amount_due_today(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    assert "hoje:" in chat.text  # the overdue bill's amount with interest and fine
    await chat.tap("vencido")
    assert "hoje:" in chat.text


# ---- "I have paid" ----------------------------------------------------------------------------------------
async def test_i_have_paid_from_a_bill_sends_the_receipt_and_tells_the_ticket(desk: Desk) -> None:
    chat = await _bill(desk)
    await chat.tap("Já paguei")
    assert "Quando você pagou" in chat.text
    await chat.tap("Hoje")
    assert "comprovante" in chat.text
    await chat.send_file("document", "comprovante.pdf", RECEIPT, mime="application/pdf")
    assert "10/03/2025" in chat.text and "comprovante.pdf" in chat.text
    await chat.tap("Enviar")
    (notice,) = _notifications(desk)
    assert notice["document_id"] == D.open_document and notice["payment_date"] == "2025-03-10"
    assert notice["file_sha256"] == hashlib.sha256(RECEIPT).hexdigest()
    # The ticket by its own number, labelled a ticket: "protocolo" is the contact's alone.
    assert f"Chamado nº {notice['ticket']}" in chat.text and _isp_protocol(desk, notice) not in chat.text


async def test_a_second_i_have_paid_says_when_the_receipt_was_sent_and_its_ticket(desk: Desk) -> None:
    chat = await _bill(desk)
    await chat.tap("Já paguei")
    await chat.tap("Ontem")
    await chat.send_file("photo", "comprovante.jpg", b"\xff\xd8\xff jpeg")
    await chat.tap("Enviar")
    (notice,) = _notifications(desk)
    chat = await _bill(desk)
    await chat.tap("Já paguei")
    assert "já foi informado em 10/03/2025" in chat.text and f"chamado nº {notice['ticket']}" in chat.text
    assert "não é preciso mandar de novo" in chat.text and "Quando você pagou" not in chat.text
    await chat.say("paguei")  # in words, from the menu: the other bill is asked, this one is still listed
    assert "Qual boleto você pagou" in chat.text
    await chat.tap("28/03/2025")
    assert "já foi informado" in chat.text
    assert len(_notifications(desk)) == 1


def _told_elsewhere(desk: Desk) -> None:
    """A notice of the open bill the ISP holds without a ticket the bot can find (told by phone)."""
    desk.sandbox.store.insert("payment_notifications", {
        "id": None, "document_id": D.open_document, "customer_id": D.customer, "payment_date": "2025-03-09",
        "file_name": "comprovante.pdf", "file_size": 1, "file_sha256": "", "ticket": None, "received": "",
    }, "id")


async def test_a_notice_the_isp_refuses_as_already_told_is_explained_plainly(desk: Desk) -> None:
    _told_elsewhere(desk)
    chat = await _bill(desk)
    await chat.tap("Já paguei")
    await chat.tap("Ontem")
    await chat.send_file("photo", "comprovante.jpg", b"\xff\xd8\xff jpeg")
    await chat.tap("Enviar")
    assert "já foi informado" in chat.text and "Não é preciso mandar de novo" in chat.text
    assert len(_notifications(desk)) == 1


async def test_a_receipt_sent_at_the_menu_starts_i_have_paid(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.send_file("photo", "photo", b"\xff\xd8\xff jpeg")
    assert "Qual boleto você pagou" in chat.text
    await chat.tap("28/03/2025")
    await chat.say("09/03")
    assert "Pago em 09/03/2025" in chat.text  # the receipt was already given: straight to the confirmation
    await chat.tap("Enviar")
    (notice,) = _notifications(desk)
    assert notice["payment_date"] == "2025-03-09" and notice["document_id"] == D.open_document


async def test_the_receipt_sent_at_the_bills_card_is_that_bills_receipt(desk: Desk) -> None:
    chat = await _bill(desk)  # the commonest sequence: take the PIX, pay in the bank's app, send the screenshot
    await chat.tap("PIX copia e cola")
    await chat.send_file("photo", "photo", b"\xff\xd8\xff jpeg")
    assert "Recebi o comprovante" in chat.text and "28/03/2025" in chat.text and "Quando você pagou" in chat.text
    assert "Qual boleto" not in chat.text and "Toque no botão" not in chat.text
    await chat.tap("Hoje")
    assert "Confere?" in chat.text and "comprovante.jpg" in chat.text  # the receipt is not asked again
    await chat.tap("Enviar")
    (notice,) = _notifications(desk)
    assert notice["document_id"] == D.open_document and f"Chamado nº {notice['ticket']}" in chat.text


async def test_a_receipt_sent_at_the_bill_list_asks_only_which_bill(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.send_file("document", "comprovante.pdf", RECEIPT, mime="application/pdf")
    assert "Recebi o comprovante" in chat.text and "Qual boleto você pagou" in chat.text
    assert chat.buttons[0].endswith("26/02/2025")  # oldest first here too
    await chat.tap("28/03/2025")
    await chat.tap("Ontem")
    await chat.tap("Enviar")
    (notice,) = _notifications(desk)
    assert notice["payment_date"] == "2025-03-09" and notice["file_sha256"] == hashlib.sha256(RECEIPT).hexdigest()


async def test_i_have_paid_typed_at_the_bill_list_asks_which_bill(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.say("já paguei")
    assert "Qual boleto você pagou" in chat.text and "Toque no botão" not in chat.text


async def test_a_receipt_sent_at_the_confirmation_replaces_the_first(desk: Desk) -> None:
    chat = await _bill(desk)
    await chat.tap("Já paguei")
    await chat.tap("Hoje")
    await chat.send_file("photo", "photo", b"\xff\xd8\xff the wrong screenshot")
    await chat.send_file("document", "comprovante.pdf", RECEIPT, mime="application/pdf")
    assert "Confere?" in chat.text and "comprovante.pdf" in chat.text
    await chat.tap("Enviar")
    (notice,) = _notifications(desk)
    assert notice["file_sha256"] == hashlib.sha256(RECEIPT).hexdigest()


async def test_a_receipt_sent_while_the_bill_is_asked_is_kept(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.say("já paguei")
    await chat.send_file("photo", "photo", b"\xff\xd8\xff jpeg")
    assert "Recebi o comprovante" in chat.text and "Qual boleto você pagou" in chat.text
    await chat.tap("28/03/2025")
    await chat.tap("Hoje")
    assert "Confere?" in chat.text


@pytest.mark.parametrize("words", ["paguei", "já paguei", "comprovante"])
async def test_words_lead_to_i_have_paid(desk: Desk, words: str) -> None:
    chat = await desk.linked_chat()
    await chat.say(words)
    assert "Qual boleto você pagou" in chat.text


async def test_a_receipt_sent_before_the_date_is_kept(desk: Desk) -> None:
    chat = await _bill(desk)
    await chat.tap("Já paguei")
    await chat.send_file("document", "comprovante.pdf", RECEIPT, mime="application/pdf")
    assert "Recebi o comprovante" in chat.text and "Quando você pagou" in chat.text
    await chat.tap("Ontem")
    assert "Pago em 09/03/2025" in chat.text and "comprovante.pdf" in chat.text


async def test_dates_in_the_future_or_unreadable_are_refused_and_asked_again(desk: Desk) -> None:
    chat = await _bill(desk)
    await chat.tap("Já paguei")
    await chat.say("amanhã talvez")
    assert "Não entendi a data" in chat.text and "Quando você pagou" in chat.text
    await chat.say("15/03/2025")
    assert "últimos 90 dias" in chat.text


async def test_an_oversized_receipt_gets_a_clear_message_and_nothing_is_sent(desk: Desk) -> None:
    chat = await _bill(desk)
    await chat.tap("Já paguei")
    await chat.tap("Hoje")
    await chat.send_file("document", "extrato.pdf", RECEIPT, mime="application/pdf", size=30 * 1024 * 1024)
    assert "grande demais" in chat.text and "5 MB" in chat.text
    await chat.send_media("sticker")  # what the bot reads, and the receipt asked for again
    assert "Não consigo ler figurinhas" in chat.text and "comprovante: uma foto ou o PDF" in chat.text
    assert _notifications(desk) == [] and desk.files.fetched == 0


async def test_the_isp_down_at_the_send_asks_again_and_nothing_is_sent_twice(desk: Desk) -> None:
    chat = await _bill(desk)
    await chat.tap("Já paguei")
    await chat.tap("Hoje")
    await chat.send_file("document", "comprovante.pdf", RECEIPT, mime="application/pdf")
    desk.sandbox.faults.fail_next(operation="send_payment_notification")
    await chat.tap("Enviar")
    assert "Confere?" in chat.text  # the question again
    assert _notifications(desk) == []
    await chat.tap("Enviar")
    assert len(_notifications(desk)) == 1 and "Chamado nº" in chat.text


async def test_a_blocked_subscriber_is_offered_the_unblock_after_telling_the_payment(desk: Desk) -> None:
    chat = await desk.linked_chat(D.blocked_customer)
    await chat.say("paguei")
    if "Qual boleto" in chat.text:
        await chat.tap(chat.buttons[0].split(" · ")[1])
    await chat.tap("Hoje")
    await chat.send_file("document", "comprovante.pdf", RECEIPT, mime="application/pdf")
    await chat.tap("Enviar")
    assert "Chamado nº" in chat.text and f"contrato {D.blocked_contract} está bloqueado" in chat.text
    await chat.tap("Desbloquear em confiança")
    assert "desbloque" in chat.text.casefold()


def test_a_receipt_is_described_by_its_name_never_its_content() -> None:
    event = Media("document", "", FileRef("file-1", "comprovante.pdf", len(RECEIPT), "application/pdf"))
    assert describe(event) == "[document] comprovante.pdf"


VARIANTS: list[dict[str, Any]] = [
    {"success_error_code": 0}, {"success_error_code": "0"}, {"link_key": "link", "base64_key": "pdf_base64"},
    {"link_key": "url", "base64_key": "base64"}, {"pix_key": "copia_cola"}, {"pix_key": "payload"},
    {"data_prefix": True}, {"pix_whitespace": True}, {"numbers_as_text": True}, {"text_as_numbers": True},
    {"single_object": True},
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}={v[k]}" for k in v))
async def test_the_whole_money_loop_in_every_answer_variant(desk: Desk, variant: dict[str, Any]) -> None:
    desk.sandbox.variants.set(**variant)
    chat = await _bill(desk)
    await chat.tap("PIX copia e cola")
    assert parse_br_code(_code_in(chat)) is not None
    await chat.tap("QR code")
    assert chat.last(Upload).data.startswith(b"\x89PNG")
    await chat.tap("PDF")
    assert chat.last(Upload).data.startswith(b"%PDF")
    await chat.tap("Já paguei")
    await chat.tap("Hoje")
    await chat.send_file("document", "comprovante.pdf", RECEIPT, mime="application/pdf")
    await chat.tap("Enviar")
    (notice,) = _notifications(desk)
    assert f"Chamado nº {notice['ticket']}" in chat.text


@pytest.mark.parametrize("failure", ["", [], {}])
async def test_refusals_read_the_same_whatever_their_result(desk: Desk, failure: Any) -> None:
    desk.sandbox.variants.set(failure_result=failure)
    _told_elsewhere(desk)
    chat = await _bill(desk)
    await chat.tap("Já paguei")
    await chat.tap("Hoje")
    await chat.send_file("photo", "photo", b"\xff\xd8\xff jpeg")
    await chat.tap("Enviar")
    assert "já foi informado" in chat.text and len(_notifications(desk)) == 1


def _isp_protocol(desk: Desk, notice: dict[str, Any]) -> str:
    """The ISP's own protocol of the ticket it opened for a payment notice (never told as a protocol)."""
    tickets = desk.sandbox.v1("ConsultaAtendimentos", {"Filtro": f"CodigoCliente = {D.customer}"})["result"]
    return str(next(t["Protocolo"] for t in tickets if int(t["Numero"]) == notice["ticket"]))


async def test_i_have_paid_an_overdue_bill_names_it_with_the_amounts_its_card_shows(desk: Desk) -> None:
    unpaid = desk.sandbox.v2("get_unpaid_document", {"customer_id": D.customer})["result"]
    overdue = next(d for d in unpaid if d["value_up"] != d["value_init"])
    today = f"hoje: R$\u00a0{overdue['value_up']:.2f}".replace(".", ",")
    due = "/".join(reversed(str(overdue["due_date"])[:10].split("-")))
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.tap(due)
    assert today in chat.text  # the card
    await chat.tap("Já paguei")
    assert today in chat.text and "Quando você pagou" in chat.text
    await chat.tap("Ontem")
    await chat.send_file("photo", "comprovante.jpg", b"\xff\xd8\xff jpeg")
    assert today in chat.text and "Confere?" in chat.text
    await chat.tap("Enviar")
    assert today in chat.text and "Recebemos seu comprovante" in chat.text
    await chat.say("já paguei")  # again, in words: the bills are asked for, this one is still open
    await chat.tap(due)
    assert "já foi informado" in chat.text and today in chat.text
