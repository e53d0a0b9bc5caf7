"""Base classes of every request and record model.

Records are lenient: a field whose value cannot be read as its spec type (a date ``2024-15-01``, a
code outside the documented set) is set to ``None``, its raw value kept in ``odd_fields`` and its
name logged, so one odd record never fails a whole list. Unknown extra fields are kept.

Requests are strict: unknown fields are refused, and a broken rule raises a ``ValidationError``
naming the field before anything is sent.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

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


class Request(BaseModel):
    """A request, validated against the spec when it is built."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    #: Fields whose values must never be logged or shown (besides ``Password``-typed ones).
    sensitive: ClassVar[frozenset[str]] = frozenset()

    def to_payload(self, context: dict[str, Any] | None = None) -> Any:
        """The JSON value sent to the web service (aliases, no ``None`` fields)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True, context=context)


class Empty(Request):
    """Operations without parameters send an empty object."""
