"""Papers the bot makes itself as PDFs (a cancel's receipt, the yearly discharge statement): one or
two pages of plain text, a title, the issuer and the moment they were made.

The core PDF fonts write Latin-1 only: Portuguese and Spanish letters pass, anything else (an emoji in
a template) becomes "?" rather than failing the person's request. Compression is off: the papers are
small, and a reader (or a test) finds their words as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

from fpdf import FPDF


def paper(title: str, lines: Sequence[str], *, issuer: str, footer: str) -> bytes:
    """A PDF of ``title`` then ``lines`` (an empty one leaves a gap), ``issuer`` on top, ``footer`` last."""
    pdf = FPDF(format="A4")
    pdf.set_compression(False)
    pdf.set_title(_latin(title))
    pdf.set_margins(18, 18, 18)
    pdf.add_page()
    if issuer:
        pdf.set_font("Helvetica", "B", 10)
        pdf.multi_cell(0, 5, _latin(issuer), new_x="LMARGIN", new_y="NEXT", align="L")
        pdf.ln(4)
    pdf.set_font("Helvetica", "B", 14)
    pdf.multi_cell(0, 7, _latin(title), new_x="LMARGIN", new_y="NEXT", align="L")
    pdf.ln(3)
    pdf.set_font("Helvetica", "", 10)
    for line in lines:
        if line:
            pdf.multi_cell(0, 5, _latin(line), new_x="LMARGIN", new_y="NEXT", align="L")
        else:
            pdf.ln(3)
    pdf.ln(6)
    pdf.set_font("Helvetica", "I", 8)
    pdf.multi_cell(0, 4, _latin(footer), new_x="LMARGIN", new_y="NEXT", align="L")
    return bytes(pdf.output())


def _latin(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")
