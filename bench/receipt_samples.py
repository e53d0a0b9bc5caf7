"""Payment receipts drawn here, with the truth beside each: the table the receipt reader is measured on
(``bench.receipt_reading``, tests/receipts).

Ten banks' apps, each with its own labels and order (Nubank's "Destino"/"Origem", Itaú's "Para"/"De",
Bradesco's "Dados do recebedor", BB's "Pago para", Caixa's "Favorecido", Santander's "Quem recebeu",
Inter's "Recebedor", PicPay's "Para quem", Mercado Pago's "Destinatário", C6's "Beneficiário" of a
billet...), their masks of tax ids, and six renderings each: screenshots at three widths, two JPEG
qualities, a light tinted background, a dark mode, and a PDF. Made with Pillow's bundled font and
fpdf2's core font, so a fresh machine draws the same table.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from bot.receipts.fields import Receipt, end_to_end_key
from bot.sandbox.brazil import digitable_line, printed_line
from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

PAYEES = [("FIBRA X TELECOM LTDA", "12345678000190"), ("NETVALE INTERNET LTDA", "23456789000101"),
          ("CONECTA MAIS PROVEDOR", "34567890000112"), ("RAPIDA NET SERVICOS DE INTERNET", "45678901000123")]
PAYERS = ["MARIA APARECIDA DA SILVA", "JOSE CARLOS PEREIRA", "ANA PAULA SOUZA", "FRANCISCO DAS CHAGAS LIMA",
          "ANTONIA FERREIRA GOMES", "LUCAS OLIVEIRA SANTOS"]
ISPB = {"Nubank": "18236120", "Itaú": "60701190", "Bradesco": "60746948", "Banco do Brasil": "00000000",
        "Caixa": "00360305", "Santander": "90400888", "Inter": "00416968", "PicPay": "22896431",
        "Mercado Pago": "10573521", "C6": "31872495"}
BANK_CODES = {"Banco do Brasil": "001", "C6": "336"}  # the billets' issuing banks in the table
MONTHS = ["JAN", "FEV", "MAR", "ABR", "MAI", "JUN", "JUL", "AGO", "SET", "OUT", "NOV", "DEZ"]
FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVuSans.ttf")
RENDERINGS = ("png-1080", "png-720", "jpeg-70", "jpeg-40-1440", "tinted-dark", "pdf")


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    content: bytes
    pdf: bool
    truth: Receipt


def _masked_cnpj(digits: str, style: int) -> str:
    whole = f"{digits[:2]}.{digits[2:5]}.{digits[5:8]}/{digits[8:12]}-{digits[12:]}"
    return whole if style == 0 else f"**.{digits[2:5]}.{digits[5:8]}/{digits[8:12]}-**"


def _masked_truth(digits: str, style: int) -> str:
    return digits if style == 0 else "**" + digits[2:12] + "**"


def _money(value: Decimal) -> str:
    whole, cents = f"{value:.2f}".split(".")
    return f"{int(whole):,}".replace(",", ".") + "," + cents


def _e2e(bank: str, at: datetime, rng: random.Random) -> str:
    tail = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789abcdefghjkmnpqrstuvwxyz") for _ in range(11))
    return "E" + ISPB[bank] + at.strftime("%Y%m%d%H%M") + tail


def _digitable(rng: random.Random, bank: str, due: datetime, amount: Decimal) -> tuple[str, str]:
    """A billet's line as banks issue them: the bank's code, the due date's factor, the amount and a
    drawn free field, with its check digits (a line without them is no billet any bank would pay)."""
    free_field = "".join(rng.choice("0123456789") for _ in range(47))[:25]
    digits = digitable_line(BANK_CODES.get(bank, "001"), due.date(), int(amount * 100), free_field)
    return digits, printed_line(digits)


def _lines(bank: str, at: datetime, amount: Decimal, parties: tuple[tuple[str, str], str], rng: random.Random,
           ) -> tuple[list[str], Receipt]:
    """One bank's receipt as lines of text, and what a reader must find in it."""
    (name, cnpj), payer = parties
    style = rng.randrange(2)
    tax = _masked_cnpj(cnpj, style)
    money = _money(amount)
    day = at.strftime("%d/%m/%Y")
    hm = at.strftime("%H:%M")
    e2e = _e2e(bank, at, rng)
    cpf_payer = f"***.{rng.randrange(100, 999)}.{rng.randrange(100, 999)}-**"
    billet = bank in ("C6", "Banco do Brasil") and rng.random() < 0.6
    digitable, printed = _digitable(rng, bank, at + timedelta(days=3), amount)
    if billet:
        lines = {
            "C6": ["C6 BANK", "Comprovante de pagamento", "Boleto pago", f"Valor pago R$ {money}",
                   f"Data do pagamento {day} {hm}", f"Vencimento {(at + timedelta(days=3)).strftime('%d/%m/%Y')}",
                   "Beneficiário", name, f"CNPJ {tax}", "Pagador", payer, "Linha digitável", printed,
                   "Autenticação", f"A1B2.C3D4.E5F6.{rng.randrange(1000, 9999)}.7788"],
            "Banco do Brasil": ["Banco do Brasil", "Comprovante de pagamento de títulos", f"Data do pagamento: {day}",
                                f"Horário: {hm}", f"Valor do documento: R$ {money}", f"Valor cobrado: R$ {money}",
                                "Cedente", f"Nome: {name}", f"CNPJ: {tax}", "Sacado", f"Nome: {payer}",
                                "Código de barras", printed, "Autenticação SISBB",
                                f"9.F3A.1B2.C4D.{rng.randrange(100, 999)}.E5F.6A7"],
        }[bank]
        truth = Receipt(amount=amount, paid_at=at.replace(second=0), payee_name=name,
                        payee_tax_id=_masked_truth(cnpj, style),
                        payer_name=payer, bank=bank, digitable_line=digitable)
        return lines, truth
    month = MONTHS[at.month - 1]
    layouts = {
        "Nubank": ["nubank", "Comprovante de transferência",
                   f"{at.day:02d} {month} {at.year} - {at.strftime('%H:%M:%S')}",
                   "Valor", f"R$ {money}", "Tipo de transferência Pix", "Destino", f"Nome {name}", f"CNPJ {tax}",
                   "Instituição BCO DO BRASIL S.A.", "Origem", f"Nome {payer}", "Instituição NU PAGAMENTOS - IP",
                   f"CPF {cpf_payer}", "ID da transação:", e2e],
        "Itaú": ["Itaú", "Comprovante de pagamento Pix", f"valor: R$ {money}", f"data: {day} às {hm}", "Para",
                 f"nome: {name}", f"CNPJ: {tax}", "instituição: BANCO BRADESCO S.A.", "De", f"nome: {payer}",
                 "ID da transação", e2e],
        "Bradesco": ["Bradesco", "Comprovante de Transação Pix", f"Data e hora: {day} - {hm}",
                     f"Valor: R$ {money}", "Dados do recebedor", f"Nome: {name}", f"CPF/CNPJ: {tax}",
                     "Instituição: ITAU UNIBANCO S.A.", "Dados do pagador", f"Nome: {payer}",
                     f"CPF/CNPJ: {cpf_payer}", "Id. da transação:", e2e],
        "Banco do Brasil": ["Banco do Brasil", "Comprovante Pix", f"Pago em {day} {hm}", f"VALOR: R$ {money}",
                            "Pago para", name, f"CNPJ: {tax}", "Pago por", payer, "ID: ", e2e],
        "Caixa": ["CAIXA", "Comprovante de Pix enviado", f"Data/Hora: {day} {hm}", f"Valor: R$ {money}",
                  "Favorecido", f"Nome: {name}", f"CNPJ: {tax}", "Remetente", f"Nome: {payer}",
                  "Identificador da transação", e2e],
        "Santander": ["Santander", "Pix realizado", f"R$ {money}", f"{day} às {hm}", "Quem recebeu", name,
                      f"CNPJ {tax}", "Quem pagou", payer, "Código de autenticação (ID)", e2e],
        "Inter": ["banco inter", "Pix enviado", f"Valor R$ {money}", f"Data {day}", f"Horário {hm}", "Recebedor",
                  f"Nome {name}", f"CPF/CNPJ {tax}", "Pagador", f"Nome {payer}", "ID da transação", e2e],
        "PicPay": ["PicPay", "Comprovante de Pix", f"R$ {money}", f"{day} às {hm}", "Para", name, f"CNPJ: {tax}",
                   "De", payer, "ID da transação", e2e],
        "Mercado Pago": ["mercado pago", "Comprovante de transferência",
                         f"{at.day} de {month.lower()} de {at.year} às {hm}",
                         f"R$ {money}", "Destinatário", name, f"CNPJ: {tax}", "Remetente", payer,
                         "Número de identificação", e2e],
        "C6": ["C6 BANK", "Comprovante de Pix", f"Valor R$ {money}", f"Data {day} às {hm}", "Beneficiário",
               f"Nome: {name}", f"CNPJ: {tax}", "Pagador", f"Nome: {payer}", "ID da transação Pix", e2e],
    }
    truth = Receipt(amount=amount, paid_at=at.replace(second=0), payee_name=name,
                    payee_tax_id=_masked_truth(cnpj, style), payer_name=payer, bank=bank, end_to_end=e2e)
    return layouts[bank], truth


def image_of(lines: list[str], *, width: int, background: tuple[int, int, int], ink: tuple[int, int, int],
           jpeg: int | None) -> bytes:

    size = max(16, width // 30)
    font, bold = _font(size), _font(int(size * 1.3))
    step = int(size * 1.9)
    image = Image.new("RGB", (width, step * (len(lines) + 4)), background)
    draw = ImageDraw.Draw(image)
    margin = width // 14
    for index, line in enumerate(lines):
        face = bold if index < 2 else font
        text = line
        # a long id wraps on a narrow screen, as the apps do
        while draw.textlength(text, font=face) > width - 2 * margin and len(text) > 10:
            text = text[:-1]
        draw.text((margin, step * (index + 1)), text, fill=ink, font=face)
        if text != line:
            lines.insert(index + 1, line[len(text):])
    buffer = io.BytesIO()
    if jpeg is None:
        image.save(buffer, format="PNG")
    else:
        image.save(buffer, format="JPEG", quality=jpeg)
    return buffer.getvalue()


def _font(size: int) -> Any:
    """DejaVu Sans where it is installed (CI installs it with Tesseract: Pillow's bundled font has no
    accented letters, and a receipt in Portuguese has many), else Pillow's own."""
    for path in FONTS:
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def pdf_of(lines: list[str]) -> bytes:
    pdf = FPDF(format=(148, 210))
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for line in lines:
        pdf.cell(0, 7, line.encode("latin-1", "replace").decode("latin-1"), new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def samples(count: int = 60, seed: int = 48) -> list[Sample]:
    """``count`` receipts: the ten banks in turn, each in the renderings in turn."""
    rng = random.Random(seed)
    banks = list(ISPB)
    out: list[Sample] = []
    start = datetime(2026, 11, 28, 14, 32, 17)
    for index in range(count):
        bank = banks[index % len(banks)]
        rendering = RENDERINGS[(index // len(banks)) % len(RENDERINGS)]
        at = start - timedelta(days=rng.randrange(0, 40), minutes=rng.randrange(0, 600))
        amount = Decimal(rng.choice([79.9, 99.9, 102.3, 119.9, 149.9, 1234.56, 89.0])).quantize(Decimal("0.01"))
        lines, truth = _lines(bank, at, amount, (PAYEES[index % len(PAYEES)], PAYERS[index % len(PAYERS)]), rng)
        if rendering == "pdf":
            content, pdf = pdf_of(lines), True
        else:
            width, jpeg, background, ink = {
                "png-1080": (1080, None, (255, 255, 255), (20, 20, 20)),
                "png-720": (720, None, (250, 250, 250), (40, 40, 40)),
                "jpeg-70": (1080, 70, (255, 255, 255), (30, 30, 30)),
                "jpeg-40-1440": (1440, 40, (245, 246, 248), (20, 20, 20)),
                "tinted-dark": (1080, None, (28, 28, 36), (235, 235, 235)) if index % 2 else
                               (1080, None, (238, 244, 236), (25, 60, 30)),
            }[rendering]
            content, pdf = image_of(list(lines), width=width, background=background, ink=ink, jpeg=jpeg), False
        out.append(Sample(f"{index:02d}-{bank}-{rendering}", content, pdf, truth))
    return out


FIELDS = ("amount", "paid_at", "payee_name", "payee_tax_id", "payer_name", "bank", "end_to_end", "digitable_line")


def wrong_fields(read: Receipt, truth: Receipt) -> list[str]:
    """The fields of ``truth`` that ``read`` got wrong (a field the truth leaves None is not scored)."""
    return [name for name in FIELDS if getattr(truth, name) is not None and not _same(name, read, truth)]


def _same(name: str, read: Receipt, truth: Receipt) -> bool:
    got, expected = getattr(read, name), getattr(truth, name)
    if name == "end_to_end" and got is not None:  # as the duplicate check compares it (see RESULTS.md)
        return bool(end_to_end_key(got) == end_to_end_key(expected))
    return bool(got == expected)
