"""The PIX "BR Code" (EMV merchant-presented payload), checked before anyone is shown it.

A code is a run of tag-length-value fields: two-digit tag, two-digit length, value. It starts with
``000201`` (payload format 01), carries the merchant account in tag 26 (whose own sub-fields hold
the GUI ``br.gov.bcb.pix`` and a key or a URL), the country ``BR`` in 58, the amount in 54 when
fixed, and ends in tag 63 of length 4: the CRC16-CCITT (polynomial 0x1021, initial 0xFFFF) of
everything before those four hex digits, ``6304`` included.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

PIX_GUI = "br.gov.bcb.pix"


def crc16_ccitt(data: bytes) -> int:
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def with_crc(payload: str) -> str:
    """``payload`` (without tag 63) closed with its CRC field: how a code is built."""
    head = payload + "6304"
    return head + f"{crc16_ccitt(head.encode('utf-8')):04X}"


def fields(text: str) -> list[tuple[str, str]] | None:
    """The TLV fields of ``text`` in order, or None when they do not tile it exactly."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        tag, size = text[i:i + 2], text[i + 2:i + 4]
        if not (tag.isdecimal() and size.isdecimal() and len(size) == 2):
            return None
        end = i + 4 + int(size)
        if end > len(text):
            return None
        out.append((tag, text[i + 4:end]))
        i = end
    return out


@dataclass(frozen=True, slots=True)
class BrCode:
    code: str
    amount: Decimal | None  # tag 54; None when the payer types the amount
    merchant: str | None = None  # tag 59: the name the receiver's bank registered (up to 25 characters)
    key: str | None = None  # tag 26's sub-field 01: the receiver's PIX key (None in a dynamic code's URL)


def parse_br_code(raw: str | None) -> BrCode | None:
    """The code (surrounding whitespace dropped) when it is a well-formed PIX BR Code with a right
    CRC; None otherwise."""
    if raw is None:
        return None
    code = raw.strip()
    if len(code) < 30 or not code.isascii() or not code.startswith("000201") or code[-8:-4] != "6304":
        return None
    if f"{crc16_ccitt(code[:-4].encode('ascii')):04X}" != code[-4:].upper():
        return None
    top = fields(code)
    if top is None or top[-1][0] != "63":
        return None
    tags = dict(top)
    account = fields(tags.get("26", ""))
    if not account or dict(account).get("00", "").lower() != PIX_GUI or len(account) < 2:
        return None
    if tags.get("58") != "BR":
        return None
    amount: Decimal | None = None
    if "54" in tags:
        try:
            amount = Decimal(tags["54"])
        except InvalidOperation:
            return None
        if not amount.is_finite() or amount <= 0:
            return None
    return BrCode(code, amount, merchant=tags.get("59") or None, key=dict(account).get("01") or None)
