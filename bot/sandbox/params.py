"""Reading a request's parameters and validating them in the same breath.

A rule reads every parameter it needs first, through ``Params``, which refuses with the operation's
own code (``Refusal``) when a value is missing or outside its type, set or range; only then does the
rule look at records. Numbers may come as JSON numbers or strings (the spec allows both in 1.0 and
PHP is as lenient in 2.0). Unknown fields are ignored, as the PHP service does.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from bot.sandbox.errors import Refusal

_INT = re.compile(r"-?\d+")
_TIME = re.compile(r"([01]\d|2[0-3]):[0-5]\d")
_TIME_S = re.compile(r"([01]\d|2[0-3]):[0-5]\d:[0-5]\d")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
_MAC = re.compile(r"[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}")


class Params:
    def __init__(self, data: Any, *, missing_code: int, invalid_code: int, path: str = "") -> None:
        if not isinstance(data, dict):
            raise Refusal(invalid_code, f"{path or 'parâmetros'}: um objeto era esperado", detail=path)
        self.data: dict[str, Any] = data
        self.missing_code = missing_code
        self.invalid_code = invalid_code
        self.path = path

    # ---- plumbing -------------------------------------------------------------------------------
    def where(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def missing(self, name: str) -> Refusal:
        where = self.where(name)
        return Refusal(self.missing_code, f"Campo obrigatório não informado: {where}", detail=where)

    def invalid(self, name: str, why: str) -> Refusal:
        where = self.where(name)
        return Refusal(self.invalid_code, f"Campo inválido: {where} ({why})", detail=where)

    def has(self, name: str) -> bool:
        return self.data.get(name) not in (None, "")

    def present(self, name: str) -> bool:
        """Sent at all, even as null (``start_period: null`` means "start now")."""
        return name in self.data

    def raw(self, name: str, required: bool = False) -> Any:
        if not self.has(name):
            if required:
                raise self.missing(name)
            return None
        return self.data[name]

    def child(self, data: Any, name: str) -> Params:
        return Params(
            data, missing_code=self.missing_code, invalid_code=self.invalid_code, path=self.where(name)
        )

    # ---- scalars --------------------------------------------------------------------------------
    def integer(
        self, name: str, required: bool = False, *, minimum: int | None = None, maximum: int | None = None
    ) -> int | None:
        value = self.raw(name, required)
        if value is None:
            return None
        if isinstance(value, bool) or not (
            isinstance(value, int) or (isinstance(value, str) and _INT.fullmatch(value.strip()))
        ):
            raise self.invalid(name, "número inteiro esperado")
        number = int(value)
        if minimum is not None and number < minimum:
            raise self.invalid(name, f"mínimo {minimum}")
        if maximum is not None and number > maximum:
            raise self.invalid(name, f"máximo {maximum}")
        return number

    def id(self, name: str) -> int:
        """A required code/id: an integer greater than zero."""
        value = self.integer(name, True, minimum=1)
        assert value is not None  # noqa: S101 - required=True never answers None
        return value

    def decimal(
        self,
        name: str,
        required: bool = False,
        *,
        positive: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
    ) -> float | None:
        value = self.raw(name, required)
        if value is None:
            return None
        if isinstance(value, bool):
            raise self.invalid(name, "número esperado")
        try:
            number = Decimal(str(value).strip())
        except InvalidOperation:
            raise self.invalid(name, "número esperado") from None
        if not number.is_finite():
            raise self.invalid(name, "número esperado")
        if positive and number <= 0:
            raise self.invalid(name, "deve ser maior que zero")
        if minimum is not None and number < Decimal(str(minimum)):
            raise self.invalid(name, f"mínimo {minimum}")
        if maximum is not None and number > Decimal(str(maximum)):
            raise self.invalid(name, f"máximo {maximum}")
        return float(number)

    def text(self, name: str, required: bool = False, *, max_len: int | None = None) -> str | None:
        value = self.raw(name, required)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self.invalid(name, "texto esperado")
        text = str(value)
        if max_len is not None and len(text) > max_len:
            raise self.invalid(name, f"máximo de {max_len} caracteres")
        return text

    def req_text(self, name: str, *, max_len: int | None = None) -> str:
        value = self.text(name, True, max_len=max_len)
        assert value is not None  # noqa: S101
        return value

    def choice(self, name: str, choices: Collection[str], required: bool = False) -> str | None:
        value = self.text(name, required)
        if value is None:
            return None
        if value not in choices:
            raise self.invalid(name, "valores aceitos: " + ", ".join(sorted(c or "(vazio)" for c in choices)))
        return value

    def req_choice(self, name: str, choices: Collection[str]) -> str:
        value = self.choice(name, choices, True)
        assert value is not None  # noqa: S101
        return value

    def optional_status(self, name: str, choices: Collection[str]) -> str | None:
        """Like ``choice`` but an empty string is a value of its own (ticket status "no status")."""
        if name in self.data and self.data[name] == "" and "" in choices:
            return ""
        return self.choice(name, choices)

    def email(self, name: str) -> str | None:
        value = self.text(name)
        if value is not None and not _EMAIL.fullmatch(value):
            raise self.invalid(name, "e-mail inválido")
        return value

    def mac(self, name: str) -> str | None:
        value = self.text(name)
        if value is not None and not _MAC.fullmatch(value):
            raise self.invalid(name, "MAC no formato ##:##:##:##:##:##")
        return value

    def digits(self, name: str, required: bool = False, *, lengths: Collection[int] = ()) -> str | None:
        value = self.text(name, required)
        if value is None:
            return None
        value = value.strip()
        if not value.isdecimal() or (lengths and len(value) not in lengths):
            raise self.invalid(
                name, "somente dígitos" + (f" ({'/'.join(map(str, lengths))})" if lengths else "")
            )
        return value

    def cnpj(self, name: str, required: bool = False) -> str | None:
        """A CNPJ as stored: numeric or alphanumeric, upper case (check digits are the caller's)."""
        value = self.text(name, required)
        if value is None:
            return None
        value = value.strip().upper()
        if not re.fullmatch(r"[0-9A-Z]{12}[0-9]{2}", value):
            raise self.invalid(name, "14 caracteres: 12 letras ou dígitos e 2 dígitos verificadores")
        return value

    def boolean(self, name: str, required: bool = False) -> bool | None:
        if name not in self.data or self.data[name] is None:
            if required:
                raise self.missing(name)
            return None
        value = self.data[name]
        if isinstance(value, bool):
            return value
        if value in ("true", "1", 1):
            return True
        if value in ("false", "0", 0):
            return False
        raise self.invalid(name, "true ou false")

    def day(self, name: str, required: bool = False) -> date | None:
        value = self.text(name, required)
        if value is None:
            return None
        try:
            if len(value) != 10:
                raise ValueError(value)
            return date.fromisoformat(value)
        except ValueError:
            raise self.invalid(name, "data no formato AAAA-MM-DD") from None

    def req_date(self, name: str) -> date:
        value = self.day(name, True)
        assert value is not None  # noqa: S101
        return value

    def moment(self, name: str, required: bool = False) -> datetime | None:
        value = self.text(name, required)
        if value is None:
            return None
        try:
            if len(value) != 19:
                raise ValueError(value)
            return datetime.strptime(value, "%Y-%m-%d %H:%M:%S")
        except ValueError:
            raise self.invalid(name, "data e hora no formato AAAA-MM-DD HH:MM:SS") from None

    def req_moment(self, name: str) -> datetime:
        value = self.moment(name, True)
        assert value is not None  # noqa: S101
        return value

    def hour(self, name: str, required: bool = False, *, seconds: bool = False) -> str | None:
        value = self.text(name, required)
        if value is None:
            return None
        pattern = _TIME_S if seconds else _TIME
        if not pattern.fullmatch(value):
            raise self.invalid(name, "hora no formato " + ("HH:MM:SS" if seconds else "HH:MM"))
        return value

    def req_time(self, name: str, *, seconds: bool = False) -> str:
        value = self.hour(name, True, seconds=seconds)
        assert value is not None  # noqa: S101
        return value

    # ---- structure ------------------------------------------------------------------------------
    def group(self, name: str, required: bool = False) -> Params | None:
        value = self.raw(name, required)
        if value is None:
            return None
        return self.child(value, name)

    def req_group(self, name: str) -> Params:
        value = self.group(name, True)
        assert value is not None  # noqa: S101
        return value

    def entries(self, name: str, required: bool = False) -> list[Any]:
        value = self.raw(name, required)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.invalid(name, "lista esperada")
        if required and not value:
            raise self.missing(name)
        return value

    def groups(self, name: str, required: bool = False) -> list[Params]:
        """Repeatable groups: a list of objects, or (1.0 style) one object standing for a list of one."""
        value = self.raw(name, required)
        if value is None:
            return []
        items = value if isinstance(value, list) else [value]
        return [self.child(item, f"{name}[{i}]") for i, item in enumerate(items)]

    def coordinates(self, lat: str = "latitude", lng: str = "longitude") -> tuple[float, float] | None:
        """Latitude/longitude: only together, never zero, latitude within ±90, longitude within ±180."""
        if not self.has(lat) and not self.has(lng):
            return None
        if not self.has(lat) or not self.has(lng):
            raise self.missing(lng if self.has(lat) else lat)
        la = self.decimal(lat, True, minimum=-90, maximum=90)
        lo = self.decimal(lng, True, minimum=-180, maximum=180)
        assert la is not None and lo is not None  # noqa: S101
        if la == 0:
            raise self.invalid(lat, "não pode ser zero")
        if lo == 0:
            raise self.invalid(lng, "não pode ser zero")
        return la, lo
