"""Scalar types of the spec (section 2 of the first document), for records and for requests.

Record types (``Int`` for Numero, ``Text`` for Texto, ``Date`` for Data ...) are lenient on input:
generation 1.0 sends every scalar as a string, an empty string means "no value", MySQL's zero date
means no date, and numbers arrive where strings are usual and the reverse. Request types are
strict: they enforce the spec's formats before anything is sent, and serialise the way the web service expects.

Choice where the spec is silent: identifiers typed ``Numero`` that are really digit strings (tax
ids, phones, CEP, bank "nosso número") are kept as ``Digits`` (``str``), because an ``int`` would
drop their leading zeros.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    PlainSerializer,
    SecretStr,
    SerializationInfo,
)

_ZERO_DATES = {"0000-00-00", "0000-00-00 00:00:00"}


def _empty_to_none(value: Any) -> Any:
    if isinstance(value, str):
        stripped = value.strip()
        if stripped == "" or stripped in _ZERO_DATES:
            return None
        return stripped
    return value


def _to_text(value: Any) -> Any:
    if isinstance(value, bool):
        return "S" if value else "N"
    if isinstance(value, int | float | Decimal):
        return str(value)
    return value


def _digits_text(value: Any) -> Any:
    value = _empty_to_none(_to_text(value))
    if isinstance(value, str):
        return re.sub(r"\D", "", value) or None
    return value


def _tax_id_text(value: Any) -> Any:
    value = _empty_to_none(_to_text(value))
    if isinstance(value, str):
        return re.sub(r"[^0-9A-Z]", "", value.upper()) or None
    return value


# ---- record (response) types: lenient ----------------------------------------------------------
# Named in English so they never clash with the spec's Portuguese field names (Numero, Data, ...).
Int = Annotated[int | None, BeforeValidator(_empty_to_none)]
"""Numero."""
Text = Annotated[str | None, BeforeValidator(lambda v: _to_text(v) if v != "" else None)]
"""Texto."""
Digits = Annotated[str | None, BeforeValidator(_digits_text)]
"""A Numero that is really a digit string (phone, CEP): leading zeros kept."""
TaxId = Annotated[str | None, BeforeValidator(_tax_id_text)]
"""A CPF or CNPJ: digits, or capitals and digits for an alphanumeric CNPJ; punctuation dropped."""
Dec = Annotated[Decimal | None, BeforeValidator(_empty_to_none)]
"""Decimal(p.s)."""
Date = Annotated[date | None, BeforeValidator(_empty_to_none)]
"""Data, YYYY-MM-DD."""
Time = Annotated[time | None, BeforeValidator(_empty_to_none)]
"""Hora, HH:MM:SS."""
DateTime = Annotated[datetime | None, BeforeValidator(_empty_to_none)]
"""Data/Hora, YYYY-MM-DD HH:MM:SS."""


# ---- request types: strict, serialised as the spec wants ---------------------------------------
def _isp_datetime(value: datetime, info: SerializationInfo) -> str:
    """Aware datetimes are converted to the ISP's own time zone (serialisation context ``tz``);
    naive ones are taken to be ISP local time already."""
    tz = (info.context or {}).get("tz") if info.context else None
    if value.tzinfo is not None and isinstance(tz, ZoneInfo):
        value = value.astimezone(tz)
    return value.strftime("%Y-%m-%d %H:%M:%S")


def _hhmm(value: Any) -> Any:
    if isinstance(value, time):
        return value.strftime("%H:%M")
    if isinstance(value, str) and not re.fullmatch(r"\d{2}:[0-5]\d", value):
        raise ValueError("must be HH:MM")
    return value


def _hhmmss(value: Any) -> Any:
    if isinstance(value, time):
        return value.strftime("%H:%M:%S")
    if isinstance(value, str) and not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d:[0-5]\d", value):
        raise ValueError("must be HH:MM:SS")
    return value


def _check_mac(value: str) -> str:
    if not re.fullmatch(r"[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}", value):
        raise ValueError("must be a MAC address ##:##:##:##:##:##")
    return value


def _float(value: Decimal) -> float:
    return float(value)


def _reveal(value: SecretStr) -> str:
    return value.get_secret_value()


DateStr = Annotated[date, PlainSerializer(lambda d: d.isoformat(), return_type=str)]
"""``YYYY-MM-DD``."""
DateTimeStr = Annotated[datetime, PlainSerializer(_isp_datetime, return_type=str)]
"""``YYYY-MM-DD HH:MM:SS`` in the ISP's time zone."""
HourMinute = Annotated[str, BeforeValidator(_hhmm)]
"""``HH:MM`` (also accepts a ``datetime.time``). Durations use it too."""
HourMinuteSecond = Annotated[str, BeforeValidator(_hhmmss)]
"""``HH:MM:SS`` (also accepts a ``datetime.time``)."""
Money = Annotated[
    Decimal,
    Field(max_digits=15, decimal_places=2),
    PlainSerializer(_float, return_type=float, when_used="json"),
]
"""Decimal(15.2)."""
PositiveMoney = Annotated[Money, Field(gt=0)]
NonNegativeMoney = Annotated[Money, Field(ge=0)]
"""A discount, interest or fine: ``0`` is a value (the vendor's examples send a zero discount)."""
def _coordinate(value: Any) -> Any:
    """A GPS reading carries more decimals than the service stores (Decimal(16.13)): round to 13
    places (a tenth of a micrometre) rather than refuse it."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float | str | Decimal):
        try:
            number = Decimal(str(value).strip())
        except ArithmeticError:
            return value
        if number.is_finite():
            return number.quantize(_COORDINATE_STEP, rounding=ROUND_HALF_EVEN)
    return value


_COORDINATE_STEP = Decimal("1e-13")

Latitude = Annotated[
    Decimal,
    BeforeValidator(_coordinate),
    Field(ge=-90, le=90, max_digits=16, decimal_places=13),
    PlainSerializer(_float, return_type=float, when_used="json"),
]
Longitude = Annotated[
    Decimal,
    BeforeValidator(_coordinate),
    Field(ge=-180, le=180, max_digits=16, decimal_places=13),
    PlainSerializer(_float, return_type=float, when_used="json"),
]
Mac = Annotated[str, AfterValidator(_check_mac)]
Password = Annotated[SecretStr, PlainSerializer(_reveal, return_type=str, when_used="json")]
"""A password: hidden in ``repr``/``str``, revealed only when the request is serialised."""
PositiveInt = Annotated[int, Field(gt=0)]

Blank = BeforeValidator(_empty_to_none)
"""Put in ``Annotated[SomeEnum | None, Blank]`` so an empty code reads as ``None``."""
