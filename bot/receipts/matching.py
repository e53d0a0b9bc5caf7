"""A receipt matched to the open bills and to the ISP, as a careful person in finance would: the amount
is the bill's amount due today or its face value (within a centavo), the payee is the ISP (its CNPJ,
the name of ``ISPBOT_COMPANY``, the name and the key in the bill's own PIX code), the date is neither in the
future nor before the bill could be paid."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

CENT = Decimal("0.01")
_LEGAL_WORDS = re.compile(r"\b(LTDA|ME|EPP|EIRELI|SA|S A|S/A|MEI|CIA|DE|DA|DO|DAS|DOS|E)\b")

Payee = Literal["isp", "other", "unknown"]


@dataclass(frozen=True, slots=True)
class Match:
    bill: dict[str, Any] | None  # the bill the amount is, or None
    closest: dict[str, Any] | None  # without a match: the bill nearest in amount
    payee: Payee


def match_bill(amount: Decimal | None, bills: Sequence[dict[str, Any]]) -> tuple[dict[str, Any] | None,
                                                                                  dict[str, Any] | None]:
    """The bill whose amount due today is ``amount``, else the one whose face value is (the oldest of
    equals: a face value paid late is the commonest slip), else None and the bill nearest in amount.
    The amount due today first: 99,90 paid when one bill is due 99,90 today and an overdue one of
    99,90 is 102,30 today is the first's payment."""
    if amount is None or not bills:
        return None, None

    def today(bill: dict[str, Any]) -> Decimal:
        return Decimal(bill.get("value_up") or bill["value"])

    def gap(bill: dict[str, Any]) -> Decimal:
        return min(abs(amount - today(bill)), abs(amount - Decimal(bill["value"])))

    for exact in ([b for b in bills if abs(amount - today(b)) <= CENT],
                  [b for b in bills if abs(amount - Decimal(b["value"])) <= CENT]):
        if exact:
            return exact[0], None
    return None, min(bills, key=gap)


def payee_is(name: str | None, tax_id: str | None, *, company: str, company_tax_id: str,
             pix_names: Sequence[str] = (), pix_keys: Sequence[str] = (), key: str | None = None) -> Payee:
    """Whether the payee read is the ISP: the PIX key read being the bill's own key, then its tax id
    (masked digits compared where shown) against the company's and a key that is a CNPJ or CPF, else
    its name against the company's and the bill's PIX merchant names; "unknown" when nothing was read
    or nothing is known of the ISP to compare with."""
    if key and any(_same_key(key, own) for own in pix_keys):
        return "isp"
    own_ids = {_digits(company_tax_id)} | set(re.findall(r"\d{14}", _digits(company)))
    own_ids |= {_digits(own) for own in pix_keys if _is_tax_id_key(own)}
    own_ids.discard("")
    if tax_id and own_ids and len(tax_id) in (11, 14):
        return "isp" if any(_same_tax_id(tax_id, own) for own in own_ids) else "other"
    own_names = [n for n in (_name(company), *(_name(p) for p in pix_names)) if n]
    if not name or not own_names:
        return "unknown"
    read = _name(name)
    return "isp" if any(_names_agree(read, own) for own in own_names) else "other"


def _is_tax_id_key(key: str) -> bool:
    """A CNPJ or CPF key: 14 or 11 digits, with or without its dots (a phone key starts with +55)."""
    return bool(re.fullmatch(r"[\d./\-]+", key)) and len(_digits(key)) in (11, 14)


def _same_key(read: str, own: str) -> bool:
    def plain(key: str) -> str:
        return re.sub(r"[\s./\-()]", "", key).lower()

    return plain(read) == plain(own)


def _same_tax_id(read: str, own: str) -> bool:
    if len(read) != len(own):
        return False
    shown = [(r, o) for r, o in zip(read, own, strict=True) if r != "*"]
    return len(shown) >= 6 and all(r == o for r, o in shown)


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdecimal())


def _name(text: str) -> str:
    plain = "".join(c for c in unicodedata.normalize("NFKD", text.upper()) if not unicodedata.combining(c))
    plain = re.sub(r"[\d./\-]+", " ", plain)  # a CNPJ beside the name
    return " ".join(_LEGAL_WORDS.sub(" ", re.sub(r"[^A-Z ]", " ", plain)).split())


def _names_agree(read: str, own: str) -> bool:
    """One name within the other, or most of the shorter's words in the longer (PIX codes cut names
    at 25 characters; apps print the trade name or the legal one)."""
    if not read or not own:
        return False
    if read in own or own in read:
        return True
    words_read, words_own = set(read.split()), set(own.split())
    shorter = min(words_read, words_own, key=len)
    return len(words_read & words_own) * 3 >= len(shorter) * 2
