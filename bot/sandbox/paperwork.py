"""What the finance group hands out besides JSON: the PIX BR Code, its QR code as a PNG, and PDFs.

The BR Code is the EMV merchant-presented payload the Brazilian central bank specifies: tag-length-value
fields, ``000201`` first, the PIX account (GUI ``br.gov.bcb.pix`` and the ISP's key) in tag 26, the
amount in tag 54, the document's txid in tag 62, and CRC16-CCITT (poly 0x1021, init 0xFFFF) of
everything before it in tag 63. The PDFs are real, small, one page (``fpdf2``); the QR code is drawn
into the bill as squares, so no imaging library is needed. All of it is deterministic: the same
document and amount make the same bytes.
"""

from __future__ import annotations

import functools
import io
import unicodedata
from collections.abc import Sequence

import segno
from fpdf import FPDF

#: The sandbox ISP as its bank registers it for PIX (name up to 25 characters, city up to 15).
MERCHANT_NAME = "FIBRA SANDBOX TELECOM"
MERCHANT_CITY = "SAO PAULO"
PIX_KEY = "7d9f0335-8dcc-4054-9bf9-0dbd61d36906"  # a random ("EVP") key, as banks hand out


def crc16(payload: str) -> str:
    """CRC16-CCITT-FALSE of the payload's bytes, as four upper-case hex digits."""
    crc = 0xFFFF
    for byte in payload.encode("utf-8"):
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return f"{crc:04X}"


def _field(tag: str, value: str) -> str:
    if len(value) > 99:
        raise ValueError(f"EMV field {tag} longer than 99 characters")
    return f"{tag}{len(value):02d}{value}"


def _plain(text: str, limit: int) -> str:
    """Upper-case ASCII, as banks print merchant names and cities in a BR Code."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return ascii_text.upper()[:limit]


def pix_code(amount: float, txid: str) -> str:
    """The PIX copy-and-paste code of one bill: ``amount`` in reais, ``txid`` up to 25 letters/digits."""
    account = _field("00", "br.gov.bcb.pix") + _field("01", PIX_KEY)
    body = (
        _field("00", "01")
        + _field("01", "12")  # a code for this bill only
        + _field("26", account)
        + _field("52", "0000")
        + _field("53", "986")
        + _field("54", f"{amount:.2f}")
        + _field("58", "BR")
        + _field("59", _plain(MERCHANT_NAME, 25))
        + _field("60", _plain(MERCHANT_CITY, 15))
        + _field("62", _field("05", txid[:25]))
        + "6304"
    )
    return body + crc16(body)


@functools.lru_cache(maxsize=64)
def qr_png(payload: str) -> bytes:
    """The QR code of ``payload`` as a PNG (error correction M, as banks print PIX codes)."""
    out = io.BytesIO()
    segno.make_qr(payload, error="m").save(out, kind="png", scale=6, border=4)
    return out.getvalue()


def _money(amount: float) -> str:
    whole, cents = f"{amount:,.2f}".split(".")
    return f"R$ {whole.replace(',', '.')},{cents}"


def _page(title: str) -> FPDF:
    pdf = FPDF(format="A4")
    pdf.set_creator(MERCHANT_NAME)
    pdf.set_title(title)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 8, MERCHANT_NAME, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 11)
    pdf.cell(0, 7, title, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    return pdf


def _lines(pdf: FPDF, rows: Sequence[tuple[str, str]]) -> None:
    for label, value in rows:
        pdf.set_font("Helvetica", "B", 10)
        pdf.cell(55, 6, label)
        pdf.set_font("Helvetica", "", 10)
        pdf.multi_cell(0, 6, value, new_x="LMARGIN", new_y="NEXT")


def _draw_qr(pdf: FPDF, payload: str, x: float, y: float, size: float) -> None:
    matrix = segno.make_qr(payload, error="m").matrix
    module = size / len(matrix)
    for row, line in enumerate(matrix):
        for column, dark in enumerate(line):
            if dark:
                pdf.rect(x + column * module, y + row * module, module, module, style="F")


def bill_pdf(
    *,
    customer: str,
    document: int,
    due_date: str,
    amounts: Sequence[tuple[str, float]],
    digitable_line: str,
    pix: str | None,
) -> bytes:
    """A bank slip: who pays, which document, the amounts, the digitable line and the PIX code if any."""
    pdf = _page(f"Boleto - documento {document}")
    rows = [("Pagador", customer), ("Documento", str(document)), ("Vencimento", due_date)]
    rows += [(label, _money(value)) for label, value in amounts]
    rows.append(("Linha digitável", digitable_line))
    _lines(pdf, rows)
    if pix is not None:
        pdf.ln(4)
        pdf.set_font("Helvetica", "B", 10)
        pdf.cell(0, 6, "Pague com PIX", new_x="LMARGIN", new_y="NEXT")
        _draw_qr(pdf, pix, pdf.get_x(), pdf.get_y(), 40)
        pdf.set_y(pdf.get_y() + 42)
        pdf.set_font("Courier", "", 7)
        pdf.multi_cell(0, 4, pix, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def invoice_pdf(*, title: str, rows: Sequence[tuple[str, str]], items: Sequence[tuple[str, float]]) -> bytes:
    """A fiscal or service invoice: its header rows and one line per item with its net value."""
    pdf = _page(title)
    _lines(pdf, rows)
    pdf.ln(3)
    _lines(pdf, [(description, _money(value)) for description, value in items])
    return bytes(pdf.output())
