"""A receipt read in "já paguei": its amount picks the bill and its date the payment's date, so the
person is asked nothing the receipt says; the same receipt again, another payee, an amount of no
bill and refused files (a PDF with a script) each answered plainly. On the seeded sandbox (today
10/03/2025; bills of R$ 99,90 due 26/02, R$ 102,30 today, and R$ 99,90 due 28/03)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from typing import Any

import pytest
from bench.receipt_samples import image_of, pdf_of
from bot.receipts.reading import ocr_available
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox.clock import FixedClock
from bot.sandbox.paperwork import MERCHANT_NAME, PIX_KEY
from bot.sandbox.sandbox import Sandbox
from pypdf import PdfWriter

from tests.flows.harness import Desk, make_desk, sandbox_policy
from tests.store.dbtools import ScratchDatabase

ISP_CNPJ = "12345678000190"


@pytest.fixture
async def reading_desk(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> AsyncIterator[Desk]:
    desk = make_desk(sandbox, database, clock,
                     sandbox_policy(sandbox, company="FIBRA X TELECOM LTDA", company_tax_id=ISP_CNPJ))
    yield desk
    await desk.client.aclose()


def _pix(amount: str, *, when: str = "10/03/2025 às 14:32", payee: str = "FIBRA X TELECOM LTDA",
         cnpj: str = "**.345.678/0001-**", e2e: str = "E18236120202503101432ab12CD34ef5") -> list[str]:
    return ["nubank", "Comprovante de transferência", f"Data {when}", "Valor", f"R$ {amount}", "Destino",
            f"Nome {payee}", f"CNPJ {cnpj}", "Origem", "Nome MARIA DA SILVA", "ID da transação:", e2e]


def _notifications(desk: Desk) -> list[dict[str, Any]]:
    return list(desk.sandbox.store.rows("payment_notifications"))


def _notes(desk: Desk, ticket: int) -> str:
    """The notes on an ISP ticket, as staff read them."""
    return "\n".join(row["Descricao"] for row in desk.sandbox.store.rows("occurrences")
                     if row["Atendimento_Numero"] == ticket)


async def test_a_pdf_receipt_at_the_menu_is_read_matched_and_sent_without_a_question(reading_desk: Desk) -> None:
    chat = await reading_desk.linked_chat()
    await chat.send_file("document", "comprovante.pdf", pdf_of(_pix("102,30")), mime="application/pdf")
    (notice,) = _notifications(reading_desk)
    assert notice["document_id"] != D.open_document and notice["payment_date"] == "2025-03-10"
    text = chat.text.replace("\xa0", " ")
    assert "R$ 102,30 pago em 10/03/2025 às 14:32 para FIBRA X TELECOM LTDA" in text
    assert "é o boleto de 26/02/2025" in text and f"Chamado nº {notice['ticket']}." in text
    assert "Quando você pagou" not in text and "Qual boleto" not in text and "Confere?" not in text


async def test_the_face_value_due_today_is_the_bill_not_yet_overdue(reading_desk: Desk) -> None:
    chat = await reading_desk.linked_chat()
    await chat.send_file("document", "comprovante.pdf", pdf_of(_pix("99,90")), mime="application/pdf")
    (notice,) = _notifications(reading_desk)
    assert notice["document_id"] == D.open_document and "é o boleto de 28/03/2025" in chat.text


async def test_the_same_receipt_again_is_already_received_with_the_first_ticket(reading_desk: Desk) -> None:
    chat = await reading_desk.linked_chat()
    await chat.send_file("document", "comprovante.pdf", pdf_of(_pix("102,30")), mime="application/pdf")
    (notice,) = _notifications(reading_desk)
    # the same PIX, printed again (another file: the end-to-end id tells it)
    await chat.send_file("document", "de-novo.pdf", pdf_of(_pix("102,30", when="10/03/2025 14:32")),
                         mime="application/pdf")
    assert "já foi recebido antes" in chat.text and f"no chamado nº {notice['ticket']}." in chat.text
    assert len(_notifications(reading_desk)) == 1


@pytest.fixture(params=["company set", "company not set"])
async def either_desk(request: pytest.FixtureRequest, sandbox: Sandbox, database: ScratchDatabase,
                      clock: FixedClock) -> AsyncIterator[Desk]:
    """With ISPBOT_COMPANY and its CNPJ set, and with neither: the bill's PIX code says who it pays."""
    company = {"company": "FIBRA X TELECOM LTDA", "company_tax_id": ISP_CNPJ} if request.param == "company set" else {}
    desk = make_desk(sandbox, database, clock, sandbox_policy(sandbox, **company))
    yield desk
    await desk.client.aclose()


async def test_a_payee_that_is_not_the_isp_is_named_and_goes_to_a_person(either_desk: Desk) -> None:
    isp = either_desk
    chat = await isp.linked_chat()
    lines = _pix("102,30", payee="LOJA DO JOAO ME", cnpj="98.765.432/0001-10")
    await chat.send_file("document", "comprovante.pdf", pdf_of(lines), mime="application/pdf")
    assert "LOJA DO JOAO ME" in chat.text and "não é o nosso provedor" in chat.text
    assert not _notifications(isp)


async def test_an_amount_of_no_bill_names_the_closest_and_a_person_checks(reading_desk: Desk) -> None:
    chat = await reading_desk.linked_chat()
    await chat.send_file("document", "comprovante.pdf", pdf_of(_pix("100,00")), mime="application/pdf")
    assert "não bate com nenhum boleto" in chat.text and "uma pessoa da nossa equipe vai conferir" in chat.text
    (notice,) = _notifications(reading_desk)
    assert "o valor NÃO bate; conferir" in _notes(reading_desk, notice["ticket"])


async def test_a_date_in_the_future_is_said_and_the_date_asked(reading_desk: Desk) -> None:
    chat = await reading_desk.linked_chat()
    await chat.send_file("document", "comprovante.pdf", pdf_of(_pix("102,30", when="12/03/2025 10:00")),
                         mime="application/pdf")
    assert "12/03/2025" in chat.text and "essa data não serve" in chat.text and "Quando você pagou" in chat.text
    assert "uma data no futuro" in chat.text
    await chat.tap("Hoje")
    await chat.tap("Enviar")
    (notice,) = _notifications(reading_desk)
    assert notice["payment_date"] == "2025-03-10"
    assert "pago em 10/03/2025" in chat.text  # the date the person gave, not the receipt's
    notes = _notes(reading_desk, notice["ticket"])
    assert "em 12/03/2025 10:00" in notes
    assert "A data do comprovante está no FUTURO; a pessoa informou 10/03/2025" in notes


async def test_a_receipt_dated_before_the_bill_was_issued_is_said_and_noted_for_staff(reading_desk: Desk) -> None:
    # the bill due 26/02 was issued on 11/02: a payment on 05/02 cannot be its own
    chat = await reading_desk.linked_chat()
    await chat.send_file("document", "comprovante.pdf", pdf_of(_pix("102,30", when="05/02/2025 às 09:12")),
                         mime="application/pdf")
    (notice,) = _notifications(reading_desk)
    text = chat.text.replace("\xa0", " ")
    assert "é o boleto de 26/02/2025" in text and "antes de esse boleto ser emitido" in text
    assert "pode ser o comprovante de outro boleto" in text and f"Chamado nº {notice['ticket']}." in text
    assert "ANTERIOR à emissão do boleto" in _notes(reading_desk, notice["ticket"])


async def test_a_payment_after_the_bill_was_issued_raises_no_doubt(reading_desk: Desk) -> None:
    chat = await reading_desk.linked_chat()
    await chat.send_file("document", "comprovante.pdf", pdf_of(_pix("102,30", when="12/02/2025 às 09:12")),
                         mime="application/pdf")
    (notice,) = _notifications(reading_desk)
    assert "antes de esse boleto ser emitido" not in chat.text
    assert "ANTERIOR" not in _notes(reading_desk, notice["ticket"])


@pytest.mark.filterwarnings("ignore:add_js is deprecated:DeprecationWarning")
async def test_a_pdf_with_a_script_is_refused_plainly(reading_desk: Desk) -> None:
    writer = PdfWriter(clone_from=io.BytesIO(pdf_of(_pix("102,30"))))
    writer.add_js("app.alert(1);")
    out = io.BytesIO()
    writer.write(out)
    script = out.getvalue()
    chat = await reading_desk.linked_chat()
    await chat.send_file("document", "comprovante.pdf", script, mime="application/pdf")
    assert "programas embutidos" in chat.text and not _notifications(reading_desk)


@pytest.mark.skipif(not ocr_available(), reason="Tesseract with the Portuguese model is not installed here")
async def test_a_screenshot_is_read_by_ocr(reading_desk: Desk) -> None:
    screenshot = image_of(_pix("102,30"), width=1080, background=(255, 255, 255), ink=(20, 20, 20), jpeg=80)
    chat = await reading_desk.linked_chat()
    await chat.send_file("photo", "photo", screenshot)
    assert "R$\xa0102,30 pago em 10/03/2025 às 14:32" in chat.text and "é o boleto de 26/02/2025" in chat.text
    assert len(_notifications(reading_desk)) == 1


async def test_someone_whose_file_does_not_go_is_offered_a_person(reading_desk: Desk) -> None:
    chat = await reading_desk.linked_chat()
    await chat.command("boleto")
    await chat.tap("28/03/2025")
    await chat.tap("Já paguei")
    await chat.tap("Hoje")
    assert "falar com uma pessoa" not in chat.text  # asked once: the file as usual
    await chat.send_file("document", "comprovante.pdf", b"%PDF-1.4", mime="application/pdf", size=50 * 1024 * 1024)
    assert "grande demais" in chat.text and any("falar com uma pessoa" in b for b in chat.buttons)
    await chat.tap("Não consigo enviar: falar com uma pessoa")
    assert "uma pessoa da nossa equipe confere o pagamento" in chat.text
    assert not _notifications(reading_desk)


async def test_a_bill_with_a_receipt_sent_is_marked_in_the_list_and_its_card(reading_desk: Desk) -> None:
    chat = await reading_desk.linked_chat()
    await chat.send_file("document", "comprovante.pdf", pdf_of(_pix("102,30")), mime="application/pdf")
    (notice,) = _notifications(reading_desk)
    await chat.command("boleto")
    listed = chat.text.replace("\xa0", " ")
    assert f"comprovante enviado em 10/03/2025, em análise (chamado nº {notice['ticket']})" in listed
    assert listed.count("comprovante enviado") == 1  # only the bill it paid
    assert "Total para hoje: R$ 202,20" in listed  # 102,30 overdue + 99,90
    await chat.tap("26/02/2025")
    assert f"Comprovante enviado em 10/03/2025, em análise (chamado nº {notice['ticket']})" in chat.text


async def test_a_receipt_at_a_bills_card_of_another_amount_is_sent_with_the_doubt_said(reading_desk: Desk) -> None:
    chat = await reading_desk.linked_chat()
    await chat.command("boleto")
    await chat.tap("28/03/2025")
    await chat.send_file("document", "comprovante.pdf", pdf_of(_pix("150,00")), mime="application/pdf")
    assert "não bate com nenhum boleto" in chat.text and "28/03/2025" in chat.text
    (notice,) = _notifications(reading_desk)
    assert notice["document_id"] == D.open_document


@pytest.fixture
async def unconfigured_desk(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> AsyncIterator[Desk]:
    """An ISP that set neither ISPBOT_COMPANY nor ISPBOT_COMPANY_TAX_ID: the bill's PIX code still says
    who it pays."""
    desk = make_desk(sandbox, database, clock, sandbox_policy(sandbox))
    yield desk
    await desk.client.aclose()


async def test_the_payee_is_checked_against_the_name_in_the_bills_own_pix_code(unconfigured_desk: Desk) -> None:
    chat = await unconfigured_desk.linked_chat()
    lines = _pix("102,30", payee=MERCHANT_NAME, cnpj="**.111.222/0001-**")
    await chat.send_file("document", "comprovante.pdf", pdf_of(lines), mime="application/pdf")
    (notice,) = _notifications(unconfigured_desk)
    assert f"para {MERCHANT_NAME}: é o boleto de 26/02/2025" in chat.text.replace("\xa0", " ")
    assert f"Recebedor: {MERCHANT_NAME} (**1112220001**), confere com o provedor." in _notes(
        unconfigured_desk, notice["ticket"])


async def test_a_payment_to_the_bills_pix_key_is_the_isps_whatever_name_the_bank_prints(reading_desk: Desk) -> None:
    # the bank prints its payment institution's name (ISPs collect through one), and the key paid
    intermediary = _pix("102,30", payee="COBRANCAS DIGITAIS IP", cnpj="**.999.888/0001-**")
    with_key = [*intermediary[:8], f"Chave Pix: {PIX_KEY}", *intermediary[8:]]
    chat = await reading_desk.linked_chat()
    await chat.send_file("document", "comprovante.pdf", pdf_of(intermediary), mime="application/pdf")
    assert "não é o nosso provedor" in chat.text and not _notifications(reading_desk)
    chat = await reading_desk.linked_chat()  # sent again from another chat of the customer's
    await chat.send_file("document", "comprovante.pdf", pdf_of(with_key), mime="application/pdf")
    assert len(_notifications(reading_desk)) == 1
    assert "para COBRANCAS DIGITAIS IP: é o boleto de 26/02/2025" in chat.text.replace("\xa0", " ")
