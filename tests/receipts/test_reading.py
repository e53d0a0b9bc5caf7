"""The receipt reader: the drawn table of 60 receipts (ten banks, PIX and billets, screenshots, JPEGs,
dark mode, PDFs) read against the truth beside each, and the files it refuses before any work."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from bench.receipt_samples import FIELDS, pdf_of, samples, wrong_fields
from bot.receipts.fields import end_to_end_key, read_fields
from bot.receipts.matching import match_bill, payee_is
from bot.receipts.reading import MAX_PAGES, MAX_PIXELS, Refused, ocr_available, read_receipt
from fpdf import FPDF
from PIL import Image

needs_ocr = pytest.mark.skipif(not ocr_available(), reason="Tesseract with the Portuguese model is not installed")


def test_every_pdf_of_the_table_is_read_whole() -> None:
    pdfs = [s for s in samples() if s.pdf]
    assert len(pdfs) == 10
    for sample in pdfs:
        assert wrong_fields(read_receipt(sample.content, pdf=True).receipt, sample.truth) == [], sample.name


@needs_ocr
def test_the_table_of_sixty_is_read_right() -> None:
    table = samples(60)
    read = {s.name: read_receipt(s.content, pdf=s.pdf).receipt for s in table}
    wrong = {s.name: wrong_fields(read[s.name], s.truth) for s in table}
    share = {f: sum(f not in w for w in wrong.values()) / len(table) for f in FIELDS}
    # what picks the bill and checks the payee: on every receipt but at most 3 of 60
    for field in ("amount", "paid_at", "payee_name", "payee_tax_id", "payer_name", "bank"):
        assert share[field] >= 0.95, (field, {n: w for n, w in wrong.items() if field in w})
    # the long ids (figures in bench/RESULTS.md): most, not all, read by OCR
    assert sum(not w for w in wrong.values()) / len(table) >= 0.8, wrong


def test_a_decompression_bomb_is_refused_before_it_is_decoded() -> None:
    bomb = io.BytesIO()
    Image.new("1", (9000, 9000)).save(bomb, format="PNG")  # a few KB, 81 megapixels once decoded
    assert MAX_PIXELS < 9000 * 9000
    with pytest.raises(Refused) as refused:
        read_receipt(bomb.getvalue(), pdf=False) if ocr_available() else _image_only(bomb.getvalue())
    assert refused.value.reason == "too_many_pixels"


def _image_only(content: bytes) -> None:
    from bot.receipts.reading import image_text  # noqa: PLC0415 - without Tesseract the reader skips images

    image_text(content)


def test_a_pdf_of_many_pages_is_refused() -> None:
    pdf = FPDF()
    for _ in range(MAX_PAGES + 1):
        pdf.add_page()
    with pytest.raises(Refused) as refused:
        read_receipt(bytes(pdf.output()), pdf=True)
    assert refused.value.reason == "too_many_pages"


def test_a_file_over_the_limit_is_refused_unread() -> None:
    with pytest.raises(Refused) as refused:
        read_receipt(b"\0" * (21 * 1024 * 1024), pdf=False)
    assert refused.value.reason == "too_large"


def test_what_is_no_receipt_reads_as_nothing_and_keeps_its_fingerprint() -> None:
    reading = read_receipt(b"\xff\xd8\xff not a jpeg", pdf=False)
    assert reading.receipt.amount is None and reading.receipt.missing == ("amount", "date")
    assert len(reading.fingerprint) == 64
    assert read_receipt(pdf_of(["Bom dia!", "Segue a foto"]), pdf=True).receipt.is_receipt is False


def test_a_due_date_and_an_original_value_are_not_the_payment() -> None:
    read = read_fields("Boleto pago\nVencimento 05/03/2025\nValor do documento R$ 99,90\nJuros R$ 2,40\n"
                       "Valor pago R$ 102,30\nData do pagamento 10/03/2025 09:15")
    assert read.amount == Decimal("102.30") and read.paid_at is not None and read.paid_at.day == 10


def test_an_end_to_end_id_wrapped_and_misread_is_the_same_key() -> None:
    printed = "ID da transação\nE1823612020250310\n1432ab12CD34ef5"
    read = read_fields(printed).end_to_end
    assert read == "E18236120202503101432ab12CD34ef5"
    assert end_to_end_key("E18236120202503101432abI2CD34ef5") == end_to_end_key(read)


def test_the_amount_due_today_is_matched_before_the_face_value() -> None:
    bills = [{"id": 1, "value": "99.90", "value_up": "102.30"}, {"id": 2, "value": "99.90", "value_up": None}]
    assert match_bill(Decimal("99.90"), bills)[0] == bills[1]
    assert match_bill(Decimal("102.31"), bills)[0] == bills[0]
    assert match_bill(Decimal("150.00"), bills) == (None, bills[0])  # the nearest, 102,30 due today


def test_the_payee_is_checked_by_masked_cnpj_then_by_name() -> None:
    own = {"company": "Fibra X Telecom Ltda", "company_tax_id": "12345678000190"}
    assert payee_is("FIBRA X", "**345678000190", **own) == "isp"
    assert payee_is("LOJA DO JOAO", "98765432000110", **own) == "other"
    assert payee_is("FIBRA X TELECOM", None, **own) == "isp"
    assert payee_is(None, None, **own) == "unknown"
