"""Whether payment receipts are read: PDFs always (their own text), images only with Tesseract and
its Portuguese model installed (the container image has them; a wheel install may not)."""

from __future__ import annotations

from bot.doctor.report import Finding, ok, warn
from bot.receipts.reading import ocr_available
from bot.settings import BotSettings

CHECK = "receipts"


def receipt_findings(settings: BotSettings) -> list[Finding]:
    found: list[Finding] = []
    if ocr_available():
        found.append(ok(CHECK, "payment receipts are read: PDFs by their text, photos by OCR (Tesseract, Portuguese)"))
    else:
        found.append(warn(CHECK, (
            "Tesseract with its Portuguese model is not installed (Debian: apt-get install tesseract-ocr "
            "tesseract-ocr-por): PDF receipts are read, photos are sent to staff unread"
        )))
    if not settings.company_tax_id:
        found.append(warn(CHECK, (
            "ISPBOT_COMPANY_TAX_ID not set: a receipt's payee is checked only by the name in ISPBOT_COMPANY "
            "and the name and key in the bill's PIX code; set the ISP's CNPJ so a receipt paid to someone "
            "else goes to a person also when the bill has no PIX"
        )))
    return found
