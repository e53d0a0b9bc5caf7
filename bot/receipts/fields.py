"""The fields of a payment receipt's text, as Brazilian banks' apps print them (PIX and billets).

Each bank labels the same things its own way ("Destino", "Para", "Quem recebeu", "Recebedor",
"Favorecido", "Beneficiário"...), and OCR adds its own noise (``R$`` read ``RS``, ``0`` read ``O`` in
an id), so the reading is by sections: the text is cut at the headers of the payee's and the payer's
parts, and each part's name and tax id are read inside it. A field not found is None: the flow asks
only for what is missing.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal

BANKS = {  # how the apps name themselves on a receipt -> the name staff read
    "nubank": "Nubank", "nu pagamentos": "Nubank", "itau": "Itaú", "itaú": "Itaú", "bradesco": "Bradesco",
    "banco do brasil": "Banco do Brasil", "bb.com": "Banco do Brasil", "caixa": "Caixa",
    "santander": "Santander", "banco inter": "Inter", "inter&co": "Inter", "picpay": "PicPay",
    "mercado pago": "Mercado Pago", "mercadopago": "Mercado Pago", "c6 bank": "C6", "banco c6": "C6",
    "sicoob": "Sicoob", "sicredi": "Sicredi", "banrisul": "Banrisul", "original": "Original",
    "pagbank": "PagBank", "pagseguro": "PagBank", "neon": "Neon", "next": "Next",
}
MONTHS = {"jan": 1, "fev": 2, "mar": 3, "abr": 4, "mai": 5, "jun": 6, "jul": 7, "ago": 8, "set": 9, "out": 10,
          "nov": 11, "dez": 12}

_PAYEE = re.compile(
    r"^(destino|para|quem recebeu|recebedor|favorecido|benefici[aá]rio|destinat[aá]rio|dados do recebedor"
    r"|dados de quem recebeu|conta de destino|pago para|enviado para|transferido para|cedente)\b", re.IGNORECASE)
_PAYER = re.compile(
    r"^(origem|de|quem pagou|quem enviou|pagador|dados do pagador|dados de quem pagou|conta de origem|remetente"
    r"|pago por|enviado por|debitado de|sacado)\b", re.IGNORECASE)
_OTHER = re.compile(  # headers that end a payee's or payer's part
    r"^(dados da transa[cç][aã]o|detalhes|informa[cç][oõ]es adicionais|id da transa[cç][aã]o|autentica[cç][aã]o"
    r"|c[oó]digo de barras|linha digit[aá]vel|mensagem|descri[cç][aã]o|identificador|e2e|end.to.end)",
    re.IGNORECASE)
_NAME_LABEL = re.compile(r"^(nome|raz[aã]o social|nome fantasia|titular)\s*[:\-]?\s*", re.IGNORECASE)
_LABEL_VALUE = re.compile(r"^[A-Za-zÀ-ÿ/ .]{2,30}\s*:\s*")
_INSTITUTION = re.compile(r"^(institui[cç][aã]o|banco|chave)\b", re.IGNORECASE)
_KEY = re.compile(r"^chave(?: pix)?\s*[:\-]?\s*(.*)$", re.IGNORECASE)

_AMOUNT = re.compile(r"(?:R\s?[\$S5](?![a-z])\s*)?(\d{1,3}(?:[.\s]\d{3})*,\d{2}|\d+,\d{2})(?!\d)")
_MONEY_LINE = re.compile(r"valor|total|pago|quantia|montante|R\s?[\$S5]\s*\d", re.IGNORECASE)
_NOT_PAID = re.compile(r"tarifa|desconto|juros|multa|saldo|limite|documento|original|cashback", re.IGNORECASE)
_DATE_NUM = re.compile(r"(?<!\d)(\d{2})[/.\-](\d{2})[/.\-](\d{4}|\d{2})(?!\d)")
_DATE_WORDS = re.compile(r"(?<!\d)(\d{1,2})\s*(?:de\s+)?([a-zç]{3})[a-zç]*\.?\s*(?:de\s+)?(\d{4})", re.IGNORECASE)
_TIME = re.compile(r"(?<!\d)([01]\d|2[0-3])\s?[:h]\s?([0-5]\d)(?::([0-5]\d))?(?!\d)")
_NOT_PAID_DATE = re.compile(r"venc|emiss|agendad|previs|nascimento", re.IGNORECASE)
_D = r"[\d*•xX+#]"  # a digit, or a mask as printed or as OCR reads "*"
_CNPJ = re.compile(rf"(?<![\d*])({_D}{{2}}[.,]?{_D}{{3}}[.,]?{_D}{{3}}\s?/\s?{_D}{{4}}-?{_D}{{2}})(?![\d*])")
_CPF = re.compile(rf"(?<![\d*/])({_D}{{3}}[.,]{_D}{{3}}[.,]{_D}{{3}}-{_D}{{2}})(?![\d*])")
_E2E = re.compile(r"E[0-9OoIlSB]{20}[A-Za-z0-9]{11}")
_E2E_START = re.compile(r"E[0-9OoIlSB]{4}")
_BRACKET_J = str.maketrans({"]": "J", ")": "J"})  # OCR reads a J's descender as a bracket
_DIGITABLE = re.compile(r"(?<!\d)((?:\d[\d.\s]{45,60}\d))(?!\d)")
_AUTH = re.compile(r"autentica[cç][aã]o[^:\n]*[:\-]?\s*\n?\s*([A-Z0-9][A-Z0-9.\-\s]{9,})", re.IGNORECASE)
_DIGIT_LOOKALIKES = str.maketrans({"O": "0", "o": "0", "I": "1", "l": "1", "S": "5", "B": "8"})
_LINE_LOOKALIKES = str.maketrans({"O": "0", "o": "0", "I": "1", "l": "1", "|": "1", "S": "5", "B": "8"})
# a group of a digitable line, OCR's letters for digits in it
_DIGIT_RUN = re.compile(r"(?<![A-Za-z])(?=[0-9OoIlSB|]*\d[0-9OoIlSB|]*\d)[0-9OoIlSB|]{5,}(?![A-Za-z])")


@dataclass(frozen=True, slots=True)
class Receipt:
    """What a receipt says; None where it says nothing readable."""

    amount: Decimal | None = None
    paid_at: datetime | None = None  # the time 00:00 when only the date is printed
    payee_name: str | None = None
    payee_tax_id: str | None = None  # digits, with ``*`` where the bank masks them
    payee_key: str | None = None  # the PIX key paid, where the receipt prints it
    payer_name: str | None = None
    bank: str | None = None
    end_to_end: str | None = None  # the PIX end-to-end id
    digitable_line: str | None = None  # a billet's 47 or 48 digits
    authentication: str | None = None
    missing: tuple[str, ...] = field(default=())

    @property
    def paid_on(self) -> date | None:
        return self.paid_at.date() if self.paid_at else None

    @property
    def is_receipt(self) -> bool:
        """Anything at all a payment's proof shows: else the file is not a receipt (a selfie, a bill)."""
        return self.amount is not None and (self.paid_at is not None or self.end_to_end is not None
                                            or self.payee_name is not None or self.digitable_line is not None)


def read_fields(text: str) -> Receipt:
    lines = [_clean(line) for line in text.splitlines()]
    lines = [line for line in lines if line]
    payee_lines, payer_lines = _sections(lines)
    amount = _amount(lines)
    paid_at = _paid_at(lines)
    payee_name, payee_tax = _party(payee_lines)
    payer_name, _payer_tax = _party(payer_lines)
    missing = tuple(name for name, value in (("amount", amount), ("date", paid_at)) if value is None)
    return Receipt(
        amount=amount, paid_at=paid_at, payee_name=payee_name, payee_tax_id=payee_tax, payee_key=_key(payee_lines),
        payer_name=payer_name,
        bank=_bank(lines, payer_lines), end_to_end=end_to_end(text), digitable_line=digitable(text),
        authentication=_authentication(text), missing=missing,
    )


def _clean(line: str) -> str:
    line = unicodedata.normalize("NFKC", line).replace("|", " ").replace("—", "-").replace("–", "-")
    return " ".join(line.split()).strip(" _~")


def _sections(lines: list[str]) -> tuple[list[str], list[str]]:
    """The payee's and the payer's lines: from a header (its own rest included) to the next header."""
    payee: list[str] = []
    payer: list[str] = []
    current: list[str] | None = None
    for line in lines:
        if (m := _PAYEE.match(line)) and not _looks_like_sentence(line):
            current = payee if not payee else None  # the first payee part only (a second is a repeat)
            rest = line[m.end():].strip(" :-")
            if current is not None and rest:
                current.append(rest)
            continue
        if (m := _PAYER.match(line)) and not _looks_like_sentence(line):
            current = payer if not payer else None
            rest = line[m.end():].strip(" :-")
            if current is not None and rest:
                current.append(rest)
            continue
        if _OTHER.match(line):
            current = None
            continue
        if current is not None:
            current.append(line)
    return payee, payer


def _looks_like_sentence(line: str) -> bool:
    # "De acordo com..." or "Para mais informações..." are not headers
    return len(line.split()) > 6


def _amount(lines: list[str]) -> Decimal | None:
    """The amount paid: a money line's amount ("Valor", "Total", "R$"), the first that is not a fee,
    a discount or the billet's original value; any amount when no line says which."""
    fallback: Decimal | None = None
    for index, line in enumerate(lines):
        found = _AMOUNT.search(line)
        if not found:
            # the label on one line and the amount on the next ("Valor" / "R$ 102,30")
            continue
        value = Decimal(re.sub(r"[.\s]", "", found.group(1)).replace(",", "."))
        label = line[: found.start()] or (lines[index - 1] if index else "")
        if _NOT_PAID.search(label):
            continue
        if _MONEY_LINE.search(line) or _MONEY_LINE.search(label) or "R" in line[: found.start() + 3]:
            return value
        fallback = fallback if fallback is not None else value
    return fallback


def _paid_at(lines: list[str]) -> datetime | None:
    """The payment's date and time: the first date not labelled as a due or issue date, with a time on
    its line or the next."""
    for index, line in enumerate(lines):
        label = lines[index - 1] if index and len(lines[index - 1]) < 30 else ""
        if _NOT_PAID_DATE.search(line) or (_NOT_PAID_DATE.search(label) and not _DATE_NUM.search(label)):
            continue
        day = _date(line)
        if day is None:
            continue
        moment = _TIME.search(line[line.find(str(day.year)[-2:]):] if str(day.year) in line else line)
        if moment is None and index + 1 < len(lines) and _date(lines[index + 1]) is None:
            moment = _TIME.search(lines[index + 1])
        at = time(int(moment.group(1)), int(moment.group(2))) if moment else time(0, 0)
        return datetime.combine(day, at)
    return None


def _date(line: str) -> date | None:
    if found := _DATE_NUM.search(line):
        day, month, year = int(found.group(1)), int(found.group(2)), int(found.group(3))
        year += 2000 if year < 100 else 0
    elif (found := _DATE_WORDS.search(line)) and found.group(2).lower()[:3] in MONTHS:
        day, month, year = int(found.group(1)), MONTHS[found.group(2).lower()[:3]], int(found.group(3))
    else:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _party(lines: list[str]) -> tuple[str | None, str | None]:
    """The name and the tax id of one part: the line labelled "Nome", else the first line that is
    mostly letters and no label of something else."""
    name: str | None = None
    tax: str | None = None
    for line in lines[:8]:
        if tax is None and (found := _CNPJ.search(line) or _CPF.search(line)):
            tax = _tax_digits(found.group(1))
            if _LABEL_VALUE.match(line) or line.strip() == found.group(1):
                continue
        if name is not None or _INSTITUTION.match(line):
            continue
        labelled = _NAME_LABEL.match(line)
        if labelled is None and _LABEL_VALUE.match(line):
            continue
        candidate = line[labelled.end():] if labelled else line
        candidate = _CNPJ.sub("", _CPF.sub("", candidate)).strip(" -:,")
        letters = sum(c.isalpha() for c in candidate)
        if letters >= 3 and letters >= 0.6 * len(candidate.replace(" ", "")):
            name = candidate.upper()
    return name, tax


def _key(lines: list[str]) -> str | None:
    """The PIX key in the payee's part ("Chave Pix: ..."), on its label's line or the next."""
    for index, line in enumerate(lines[:8]):
        if found := _KEY.match(line):
            value = found.group(1) or (lines[index + 1] if index + 1 < len(lines) else "")
            return value.strip() or None
    return None


def _tax_digits(text: str) -> str:
    """The tax id's digits, ``*`` where masked (any mask character)."""
    return "".join(c if c.isdecimal() else "*" for c in text if c.isdecimal() or c in "*•xX+#")


def _bank(lines: list[str], payer_lines: list[str]) -> str | None:
    """The bank the receipt comes from: named in its header (the app's name), else the payer's
    institution."""
    for line in lines[:4] + payer_lines:
        lowered = _plain(line)
        for word, bank in BANKS.items():
            if re.search(rf"(?<![a-z]){re.escape(_plain(word))}(?![a-z])", lowered):
                return bank
    return None


def end_to_end(text: str) -> str | None:
    """The PIX end-to-end id in ``text``: the first of ``end_to_end_candidates``."""
    found = end_to_end_candidates(text)
    return found[0] if found else None


def end_to_end_candidates(text: str) -> list[str]:
    """Every word of ``text`` shaped as a PIX end-to-end id: "E", the ISPB (8 digits),
    yyyyMMddHHmm, 11 letters and digits, exactly 32 characters (a word longer or shorter is OCR's
    slip: no id is taken from it). Read across a line break (narrow screenshots wrap it), with
    OCR's letters for digits put right in its first 21 characters, which are digits, and a "J" read
    as a bracket."""
    words = re.findall(r"\S+", text.replace("-", ""))
    found: list[str] = []
    for index, word in enumerate(words):
        if not _E2E_START.match(word):
            continue
        candidate, following = word, index
        while len(candidate) < 32 and following + 1 < len(words):  # a wrapped id goes on at the next word
            following += 1
            candidate += words[following]
        candidate = candidate.translate(_BRACKET_J).rstrip(".,;:")
        if (shaped := _shaped_end_to_end(candidate)) is not None:
            found.append(shaped)
    return found


def _shaped_end_to_end(candidate: str) -> str | None:
    if not _E2E.fullmatch(candidate):
        return None
    digits = candidate[1:21].translate(_DIGIT_LOOKALIKES)
    try:
        datetime.strptime(digits[8:20], "%Y%m%d%H%M")
    except ValueError:
        return None
    return "E" + digits + candidate[21:]


_LOOKALIKES = str.maketrans({"O": "0", "o": "0", "Q": "0", "D": "0", "I": "1", "l": "1", "i": "1", "|": "1",
                             "q": "9", "g": "9", "Z": "2", "z": "2", "S": "5", "s": "5", "B": "8"})


def end_to_end_key(e2e: str) -> str:
    """The end-to-end id with the letters OCR confuses (0/O, 1/l, g/q, 2/z, 5/s, case) made one: the
    same receipt read twice gives the same key, and two real ids differing only there are as unlikely
    as a collision."""
    return e2e.translate(_LOOKALIKES).upper().translate(_LOOKALIKES)


def digitable(text: str) -> str | None:
    """A billet's digitable line: 47 digits whose check digits hold (three modulo 10, one modulo 11), a
    digit OCR added, dropped or misread put right when exactly one correction makes them hold; a
    utility bill's 48 digits (starting with 8) as read."""
    text = _DIGIT_RUN.sub(lambda run: run.group(0).translate(_LINE_LOOKALIKES), text)
    for found in _DIGITABLE.finditer(text):
        digits = re.sub(r"\D", "", found.group(1))
        if len(digits) == 48 and digits[0] == "8":
            return digits
        if 46 <= len(digits) <= 48 and (line := corrected_line(digits)) is not None:
            return line
    return None


def line_holds(line: str) -> bool:
    """The 47-digit line's check digits hold: fields 1-3 modulo 10, the barcode's modulo 11."""
    if len(line) != 47 or not line.isdecimal():
        return False
    fields = ((line[:9], line[9]), (line[10:20], line[20]), (line[21:31], line[31]))
    if any(_mod10(body) != check for body, check in fields):
        return False
    barcode = line[:4] + line[33:47] + line[4:9] + line[10:20] + line[21:31]
    return _mod11_barcode(barcode) == line[32]


_LINE_FIELDS = ((0, 10), (10, 21), (21, 32), (32, 47))  # fields 1-3 with their check digit; the rest


def corrected_line(digits: str) -> str | None:
    """``digits`` when they hold, else the one line one OCR slip away (a digit added, dropped or
    misread) that holds; None when none or several do (a guess is worse than nothing). The slip is
    looked for where the first field whose check digit fails begins, or in the field before it
    (an added or dropped digit shifts the rest)."""
    if len(digits) == 47 and line_holds(digits):
        return digits
    failing = next((i for i, (a, b) in enumerate(_LINE_FIELDS[:3])
                    if _mod10(digits[a:b - 1]) != digits[b - 1:b]), 3)
    first = _LINE_FIELDS[max(0, failing - (len(digits) != 47))][0]
    last = _LINE_FIELDS[failing][1]
    if len(digits) == 48:
        candidates = {digits[:i] + digits[i + 1:] for i in range(first, min(last + 1, 48))}
    elif len(digits) == 46:
        candidates = {digits[:i] + d + digits[i:] for i in range(first, min(last, 46) + 1) for d in "0123456789"}
    else:
        candidates = {digits[:i] + d + digits[i + 1:] for i in range(first, last) for d in "0123456789"}
    holding = [line for line in candidates if line_holds(line)]
    return holding[0] if len(holding) == 1 else None


# The check digits again here on purpose: the sandbox's own (bot.sandbox.brazil) draws the lines the
# reader is measured on, and neither may lean on the other.
def _mod10(digits: str) -> str:
    total = 0
    for index, digit in enumerate(reversed(digits)):
        product = int(digit) * (2 if index % 2 == 0 else 1)
        total += product // 10 + product % 10
    return str((10 - total % 10) % 10)


def _mod11_barcode(barcode43: str) -> str:
    total = sum(int(d) * (2 + i % 8) for i, d in enumerate(reversed(barcode43)))
    rest = 11 - total % 11
    return "1" if rest in (0, 10, 11) else str(rest)


def _authentication(text: str) -> str | None:
    found = _AUTH.search(text)
    if not found:
        return None
    value = " ".join(found.group(1).split("\n")[0].split())
    return value if sum(c.isalnum() for c in value) >= 10 else None


def _plain(text: str) -> str:
    """Lower case without accents: how names are compared."""
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))
