"""The receipt reader: the drawn table of 60 receipts (ten banks, PIX and billets, screenshots, JPEGs,
dark mode, PDFs) read against the truth beside each, and the files it refuses before any work."""

from __future__ import annotations

import io
import random
from datetime import date
from decimal import Decimal

import pytest
from bench.receipt_samples import FIELDS, pdf_of, samples, wrong_fields
from bot.receipts.fields import corrected_line, end_to_end_candidates, end_to_end_key, line_holds, read_fields
from bot.receipts.matching import match_bill, payee_is
from bot.receipts.reading import MAX_PAGES, MAX_PIXELS, Refused, ocr_available, read_receipt
from bot.sandbox.brazil import digitable_line, printed_line
from fpdf import FPDF
from PIL import Image
from pypdf import PdfWriter

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
    for field in FIELDS:
        assert share[field] >= 0.95, (field, {n: w for n, w in wrong.items() if field in w})
    # every field right, the long ids included, on at least 95% of the receipts (figures in bench/RESULTS.md)
    assert sum(not w for w in wrong.values()) / len(table) >= 0.95, {n: w for n, w in wrong.items() if w}


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


def test_an_end_to_end_id_of_the_wrong_length_is_not_taken_and_a_bracket_is_a_j() -> None:
    assert read_fields("ID: E00000000202610220609E4)ww6GXBec").end_to_end == "E00000000202610220609E4Jww6GXBec"
    # a character OCR doubled: 33 characters are no id, and none is made of their first 32
    assert read_fields("ID: E60746948202611231247Qp9eZy0oPNj4").end_to_end is None
    assert end_to_end_candidates("E1823612020251399\n1432ab12CD34ef5") == []  # no 13th month


def _line(rng: random.Random) -> str:
    free_field = "".join(rng.choice("0123456789") for _ in range(25))
    return digitable_line("336", date(2026, 12, 1), rng.randrange(1000, 100000), free_field)


def test_a_digitable_line_with_a_digit_added_dropped_or_misread_is_put_right_or_left_unread() -> None:
    rng = random.Random(48)
    outcomes = {"right": 0, "unread": 0, "wrong": 0}
    for n in range(300):
        line = _line(rng)
        at = rng.randrange(47)
        slip = [line[:at] + str(rng.randrange(10)) + line[at:], line[:at] + line[at + 1:],
                line[:at] + str((int(line[at]) + 1 + rng.randrange(9)) % 10) + line[at + 1:]][n % 3]
        got = corrected_line(slip)
        outcomes["right" if got == line else "unread" if got is None else "wrong"] += 1
    # the check digits settle most slips; where two lines would hold, none is taken: staff read it
    assert outcomes["right"] >= 100 and outcomes["wrong"] <= 3, outcomes


def test_a_printed_digitable_line_is_read_with_its_check_digits_and_a_broken_one_is_not() -> None:
    line = _line(random.Random(7))
    assert line_holds(line)
    printed = printed_line(line)
    assert read_fields(f"Linha digitável\n{printed}").digitable_line == line
    assert read_fields(f"Linha digitável\n{printed[:5]}7{printed[5:]}").digitable_line in (line, None)
    broken = line[:40] + str((int(line[40]) + 1) % 10) + line[41:]
    assert not line_holds(broken)
    assert read_fields(f"Código de barras\n{printed_line(broken)}").digitable_line != broken


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


def test_the_payee_is_checked_against_the_bills_pix_code() -> None:
    nothing = {"company": "", "company_tax_id": ""}
    assert payee_is("FIBRA SANDBOX TELECOM LTDA", None, **nothing, pix_names=["FIBRA SANDBOX TELECOM"]) == "isp"
    assert payee_is("LOJA DO JOAO", None, **nothing, pix_names=["FIBRA SANDBOX TELECOM"]) == "other"
    # the key paid is the bill's: the ISP, whatever name the payer's bank printed
    key = "7d9f0335-8dcc-4054-9bf9-0dbd61d36906"
    assert payee_is("COBRANCAS DIGITAIS IP", "**999888000**", company="Fibra X", company_tax_id="12345678000190",
                    pix_keys=[key], key=key.upper()) == "isp"
    # a key that is the ISP's CNPJ checks the tax id read
    assert payee_is(None, "**345678000190", **nothing, pix_keys=["12.345.678/0001-90"]) == "isp"
    assert payee_is(None, "98765432000110", **nothing, pix_keys=["12345678000190"]) == "other"
    assert payee_is(None, "98765432000110", **nothing, pix_keys=["+5511999990000"]) == "unknown"


@pytest.mark.filterwarnings("ignore:add_js is deprecated:DeprecationWarning")
def test_a_pdf_with_a_script_is_refused_unread() -> None:
    writer = PdfWriter(clone_from=io.BytesIO(pdf_of(["Comprovante", "Valor R$ 10,00"])))
    writer.add_js("app.alert(1);")
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(Refused) as refused:
        read_receipt(out.getvalue(), pdf=True)
    assert refused.value.reason == "pdf_script"


def test_a_pdf_of_thousands_of_pages_is_refused_before_any_page_is_read() -> None:
    pdf = FPDF()
    for _ in range(3000):
        pdf.add_page()
    with pytest.raises(Refused) as refused:
        read_receipt(bytes(pdf.output()), pdf=True)
    assert refused.value.reason == "too_many_pages"
