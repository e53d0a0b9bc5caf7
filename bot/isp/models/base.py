"""Base classes of every request and record model.

Records are lenient: a field whose value cannot be read as its spec type (a date ``2024-15-01``, a
code outside the documented set) is set to ``None``, its raw value kept in ``odd_fields`` and its
name logged, so one odd record never fails a whole list. Unknown extra fields are kept.

Requests are strict about meaning and lenient about representation, as the vendor's own published
requests are: unknown fields are refused and a broken rule raises a ``ValidationError`` naming the
field before anything is sent, but an empty string (or an optional group whose fields are all empty)
is "not given", and one object where the spec wants a repeatable group is a list of
one. ``0`` is a value, never "not given".
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import cache
from types import NoneType, UnionType
from typing import Annotated, Any, ClassVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError, model_validator
from pydantic_core import PydanticCustomError

log = logging.getLogger("bot.isp.records")


class Record(BaseModel):
    """A record returned by the web service."""

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        coerce_numbers_to_str=True,
        use_enum_values=False,
    )

    _odd_fields: dict[str, Any] = PrivateAttr(default_factory=dict)

    @property
    def odd_fields(self) -> dict[str, Any]:
        """Raw values of fields that did not parse as their spec type."""
        return self._odd_fields

    @model_validator(mode="wrap")
    @classmethod
    def _tolerate_odd_values(cls, data: Any, handler: Any) -> Any:
        try:
            return handler(data)
        except ValidationError as exc:
            if not isinstance(data, dict):
                raise
            odd_keys = {str(err["loc"][0]) for err in exc.errors() if err["loc"]}
            by_alias = {(f.alias or name): name for name, f in cls.model_fields.items()}
            odd = {key: data[key] for key in odd_keys if key in data}
            if not odd:
                raise
            log.warning("%s: odd value in field(s) %s kept raw", cls.__name__, ", ".join(sorted(odd)))
            cleaned = {k: (None if k in odd else v) for k, v in data.items()}
            try:
                record = handler(cleaned)
            except ValidationError:
                raise PydanticCustomError("odd_record", "record cannot be read") from None
            record._odd_fields = {by_alias.get(k, k): v for k, v in odd.items()}
            return record


def _is_blank(value: Any, *, inside: bool = False) -> bool:
    """``""``, or an object or list made only of ``""`` and nulls (the vendor's way of leaving a whole
    optional group out). A null field itself is left to the model: some send an explicit null."""
    if value is None:
        return inside
    if isinstance(value, str):
        return value.strip() == ""
    if isinstance(value, Mapping):
        return all(_is_blank(v, inside=True) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_is_blank(v, inside=True) for v in value)
    return False


def _repeatable(annotation: Any) -> bool:
    """Whether a field's type is a list or tuple (under ``Annotated`` and ``| None``)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _repeatable(get_args(annotation)[0])
    if origin in (Union, UnionType):
        return any(_repeatable(arg) for arg in get_args(annotation) if arg is not NoneType)
    return origin in (list, tuple)


@cache
def _wire_fields(model: type[BaseModel]) -> dict[str, tuple[bool, bool]]:
    """Each wire name (alias and attribute name) -> (optional, repeatable)."""
    out: dict[str, tuple[bool, bool]] = {}
    for name, info in model.model_fields.items():
        shape = (not info.is_required(), _repeatable(info.annotation))
        out[name] = shape
        if info.alias:
            out[info.alias] = shape
    return out


class Request(BaseModel):
    """A request, validated against the spec when it is built."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    #: Fields whose values must never be logged or shown (besides ``Password``-typed ones).
    sensitive: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _vendor_representations(cls, data: Any) -> Any:
        """Reads the shapes the vendor's own examples send as what they mean (module docstring)."""
        if not isinstance(data, Mapping):
            return data
        fields = _wire_fields(cls)
        out: dict[str, Any] = {}
        for key, value in data.items():
            optional, repeatable = fields.get(key, (False, False))
            if optional and _is_blank(value):
                continue
            out[key] = _as_list(value) if repeatable and isinstance(value, Mapping) else value
        return out

    def to_payload(self, context: dict[str, Any] | None = None) -> Any:
        """The JSON value sent to the web service (aliases, no ``None`` fields)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True, context=context)


def _as_list(value: Mapping[str, Any]) -> list[Any]:
    """One group where a repeatable one is expected; PHP's list-as-object (keys "0", "1", ...) too.
    (A scalar is left to the field: some read "4,5" as a list themselves.)"""
    if isinstance(value, Mapping) and value and all(str(k).isdecimal() for k in value):
        return [value[k] for k in sorted(value, key=int)]
    return [value]


class Empty(Request):
    """Operations without parameters send an empty object."""
