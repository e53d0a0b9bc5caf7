"""Pure helpers for proving who a subscriber is: tax ids, Brazilian phones, secret comparison.

- A tax id is read from whatever the person typed by keeping its digits (``529.982.247-25``,
  ``CPF 52998224725``): 11 digits are a CPF, 14 a CNPJ, and the check digits must hold.
  Repeated-digit ids (``111.111.111-11``) satisfy the arithmetic but are never issued: refused.
- A CNPJ may also be alphanumeric (issued from July 2026): each character is worth its ASCII code
  minus 48 in the same check digits. It is read upper-cased without punctuation nor the words
  CPF/CNPJ (``cnpj 12.abc.345/01de-35`` is ``12ABC34501DE35``), as the ISP stores it.
- A phone is compared by area code and subscriber number (country code 55, trunk prefix 0 and
  punctuation do not matter), a mobile's ninth digit dropped: a record still holding the old
  8-digit mobile matches the number Telegram reports. A record without an area code matches on
  the subscriber number alone (typed by the ISP, usually in its own area).
- A typed tax id or PPPoE login holding a character a real one cannot (``plausible_tax_id``,
  ``plausible_login``: control, zero-width, U+FFFD, a lone surrogate) is asked again, never cleaned.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import NamedTuple

_CPF_WEIGHTS = (list(range(10, 1, -1)), list(range(11, 1, -1)))
_CNPJ_WEIGHTS = ([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
COUNTRY = "55"


# ---- tax ids (CPF, CNPJ) -----------------------------------------------------------------------
def _check_digit(chars: str, weights: list[int]) -> str:
    rest = sum((ord(c) - 48) * w for c, w in zip(chars, weights, strict=True)) % 11
    return "0" if rest < 2 else str(11 - rest)


def _valid(value: str, shape: re.Pattern[str], weights: tuple[list[int], list[int]]) -> bool:
    if not shape.fullmatch(value) or len(set(value)) == 1:
        return False
    base = value[:-2]
    first = _check_digit(base, weights[0])
    return value[-2:] == first + _check_digit(base + first, weights[1])


_CPF = re.compile(r"[0-9]{11}")
_CNPJ = re.compile(r"[0-9A-Z]{12}[0-9]{2}")
# A label before the number ("CPF: ...", "meu cnpj é ..."), not letters of an alphanumeric CNPJ that
# happen to spell one between its dots ("00.CPF.000/0000-04").
_LABELS = re.compile(r"(?<![0-9A-Z.-])(?:CPF|CNPJ)(?![0-9A-Z.-])")


def valid_cpf(digits: str) -> bool:
    return _valid(digits, _CPF, _CPF_WEIGHTS)


def valid_cnpj(value: str) -> bool:
    """A numeric or alphanumeric CNPJ, upper case, without punctuation."""
    return _valid(value, _CNPJ, _CNPJ_WEIGHTS)


def normalise_tax_id(text: str) -> str | None:
    """The CPF or CNPJ in ``text`` as the ISP stores it (digits, and capitals for an alphanumeric
    CNPJ), or None unless its check digits hold."""
    chars = re.sub(r"[^0-9A-Z]", "", _LABELS.sub("", text.upper()))
    if valid_cnpj(chars):  # first: the digits alone of an alphanumeric CNPJ could be some CPF
        return chars
    digits = re.sub(r"[^0-9]", "", text)
    return digits if valid_cpf(digits) or valid_cnpj(digits) else None


# ---- what a person may type --------------------------------------------------------------------
# A tax id as people write it: digits (and letters: an alphanumeric CNPJ, the words CPF/CNPJ) with
# the usual punctuation and spaces (``CPF: 529.982.247-25``, ``12.ABC.345/01DE-35``).
_TAX_ID_TEXT = re.compile(r"[0-9A-Za-z .\-/:]+")
# A PPPoE login: ASCII letters, digits and the punctuation logins use (``joao.silva``,
# ``maria_2@fibra.net``, ``paoquente-5004``). No space, quote, backslash nor anything outside ASCII.
_LOGIN = re.compile(r"[0-9A-Za-z._@\-]+")


def masked_tax_id(tax_id: str | None) -> str:
    """A tax id as the staff may see it beside a conversation: its first three and last two
    characters hidden (``***.982.247-**`` for a CPF), punctuation kept; "" for none."""
    chars = [c for c in tax_id or "" if c.isalnum()]
    if len(chars) < 6:
        return "*" * len(chars)
    hidden = set(range(3)) | {len(chars) - 2, len(chars) - 1}
    shown = iter("*" if i in hidden else c for i, c in enumerate(chars))
    return "".join(next(shown) if c.isalnum() else c for c in tax_id or "")


def plausible_tax_id(text: str) -> bool:
    """Whether ``text`` (its ends stripped of whitespace) holds only what a written tax id can."""
    return _TAX_ID_TEXT.fullmatch(text.strip()) is not None


def plausible_login(login: str) -> bool:
    """Whether ``login`` holds only characters a PPPoE login can (checked before it goes anywhere)."""
    return _LOGIN.fullmatch(login) is not None


# ---- phones ------------------------------------------------------------------------------------
class Phone(NamedTuple):
    """A Brazilian phone as compared: area code (None when the record has none) and the 8-digit
    subscriber number (a 9-digit mobile without its leading 9)."""

    area: str | None
    number: str


def normalise_phone(raw: str | None, *, international: bool = False) -> Phone | None:
    """The phone in ``raw``, or None when it is not a Brazilian number.

    ``international``: ``raw`` always carries a country code (Telegram contacts do, with or without
    the ``+``), so a number of another country is refused rather than read as a Brazilian one.
    """
    digits = _national(raw or "", international)
    if digits is None:
        return None
    if len(digits) in (10, 11):
        area, number = digits[:2], digits[2:]
        if "0" in area:
            return None
    elif len(digits) in (8, 9) and not international:
        area, number = None, digits
    else:
        return None
    if len(number) == 9:
        if number[0] != "9":
            return None
        if number[1] in "6789":
            number = number[1:]  # the ninth digit: 9 8765-4321 was 8765-4321
    elif number[0] in "01":
        return None
    return Phone(area, number)


def _national(raw: str, international: bool) -> str | None:
    """The digits of the number as dialled inside Brazil: no country code, no trunk prefix 0."""
    digits = re.sub(r"[^0-9]", "", raw)
    if raw.lstrip().startswith("+") or digits.startswith("00"):
        international = True
        digits = digits.lstrip("0")
    if international:
        if not digits.startswith(COUNTRY):
            return None
        digits = digits[len(COUNTRY) :]
    elif len(digits) in (12, 13) and digits.startswith(COUNTRY):
        digits = digits[len(COUNTRY) :]
    if len(digits) in (11, 12) and digits.startswith("0"):
        digits = digits[1:]  # the trunk prefix of a national call: 0 11 98765-4321
    return digits or None


def same_phone(a: Phone, b: Phone) -> bool:
    """The same line, when both areas are known, or by subscriber number where one is missing."""
    if a.area is not None and b.area is not None and a.area != b.area:
        return False
    return a.number == b.number


# ---- targets of link attempts --------------------------------------------------------------------
TARGET_KINDS = ("tax_id", "login")


def target_key(secret: str) -> bytes:
    """The key of ``target_ref``, derived from a deployment secret every process of the bot (and the
    ``ispbot locks`` command) has."""
    return hmac.new(secret.encode(), b"ispbot link target", hashlib.sha256).digest()


def target_ref(key: bytes, kind: str, value: str) -> str:
    """The person a link attempt tried, as stored to count failures across chats: the kind and a
    keyed hash of the value (a plain hash of a CPF is reversed by trying the billion CPFs). A login
    is compared case-blind by the ISP's database, so it is hashed so."""
    if kind not in TARGET_KINDS:
        raise ValueError(f"unknown target kind {kind!r}")
    folded = value.strip().casefold() if kind == "login" else value
    return f"{kind}:" + hmac.new(key, folded.encode(), hashlib.sha256).hexdigest()[:48]


# ---- secrets -----------------------------------------------------------------------------------
def same_secret(given: str, expected: str) -> bool:
    """Compare a secret a person typed with the real one in constant time (no timing oracle)."""
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))
