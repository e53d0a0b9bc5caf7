"""What one catalog entry holds, and the small builders the generation modules use."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from bot.isp.errors import ErrorName, FilterError, Generation, IspBadResponse
from bot.isp.filters import Filter
from bot.isp.models.base import Request

log = logging.getLogger("bot.isp.catalog")

Req = TypeVar("Req")
Res = TypeVar("Res")
M = TypeVar("M", bound=BaseModel)


class Kind(StrEnum):
    QUERY = "query"  # reads: retried on transport failures, coalesced, cacheable
    WRITE = "write"  # never retried blindly


@dataclass(frozen=True)
class EncodeContext:
    """What encoding a request needs from the client: the ISP time zone for dates."""

    context: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Operation(Generic[Req, Res]):
    name: str
    generation: Generation
    kind: Kind
    encode: Callable[[Req, EncodeContext], Any]
    parse: Callable[[Any], Res]
    errors: Mapping[int, ErrorName] = field(default_factory=dict)
    #: Names a ``Filtro`` may use (generation-1.0 filtered queries); empty when filters are refused.
    filter_names: frozenset[str] = frozenset()
    #: The request model, for the CLI and the sandbox (``None`` for generation-1.0 queries).
    request_model: type[BaseModel] | None = None
    #: Generation-1.0 writes wrap their parameters in this group (``DadosAtendimento``).
    group: str = ""
    #: The ``mvno_*`` operations answer a bare object with no envelope on success.
    bare: bool = False
    #: A failed envelope whose ``result`` is a list still carries one answer per item, each with its own
    #: error (``invoices_issued_pdf``): that list is the result, and the caller reads each item.
    per_item_errors: bool = False
    summary: str = ""

    @property
    def filterable(self) -> bool:
        return bool(self.filter_names)


# ---- encoders ----------------------------------------------------------------------------------
def encode_model(request: Request, ctx: EncodeContext) -> Any:
    return request.to_payload(ctx.context)


def encode_in_group(group: str) -> Callable[[Request, EncodeContext], Any]:
    """Generation-1.0 writes put their parameters inside a named group (``DadosAtendimento``)."""

    def encode(request: Request, ctx: EncodeContext) -> Any:
        return {group: request.to_payload(ctx.context)}

    return encode


def encode_filter(operation: str, names: frozenset[str]) -> Callable[[Filter | None, EncodeContext], Any]:
    def encode(where: Filter | None, ctx: EncodeContext) -> Any:
        if where is None:
            return {}
        unknown = sorted(where.fields() - names) if not where.unsafe else []
        if unknown:
            raise FilterError(
                f"{operation} does not accept filter name(s) {', '.join(unknown)}",
                operation=operation,
                field=unknown[0],
            )
        return {"Filtro": where.render()}

    return encode


def encode_nothing(_: None, ctx: EncodeContext) -> Any:
    return {}


# ---- result parsers ----------------------------------------------------------------------------
def records(model: type[M]) -> Callable[[Any], list[M]]:
    """A list of records; an entry that is not an object or cannot be read at all is skipped and
    logged, never failing the whole list."""

    def parse(raw: Any) -> list[M]:
        if raw in ("", None):
            return []
        if isinstance(raw, dict):  # PHP sometimes sends a list as an object keyed "0", "1", ...
            raw = list(raw.values()) if all(str(k).isdecimal() for k in raw) else [raw]
        if not isinstance(raw, list):
            raise IspBadResponse(f"expected a list of {model.__name__}, got {type(raw).__name__}")
        out: list[M] = []
        for index, item in enumerate(raw):
            if not isinstance(item, dict):
                log.warning("%s: entry %d is not an object; skipped", model.__name__, index)
                continue
            try:
                out.append(model.model_validate(item))
            except ValidationError:
                log.warning("%s: entry %d cannot be read; skipped", model.__name__, index)
        return out

    return parse


def one(model: type[M]) -> Callable[[Any], M]:
    """A single result object."""

    def parse(raw: Any) -> M:
        if raw in ("", None, []):
            raw = {}
        if not isinstance(raw, dict):
            raise IspBadResponse(f"expected an object for {model.__name__}, got {type(raw).__name__}")
        try:
            return model.model_validate(raw)
        except ValidationError as exc:
            raise IspBadResponse(f"{model.__name__} cannot be read: {exc.error_count()} error(s)") from None

    return parse


def message(raw: Any) -> str:
    """Operations that answer a success text (never branched on: texts carry typos)."""
    if raw is None:
        return ""
    if isinstance(raw, str):
        return raw
    return str(raw)


# ---- builders the generation modules use -------------------------------------------------------
def field_names(model: type[BaseModel]) -> frozenset[str]:
    """The names a record carries on the wire (aliases where set)."""
    return frozenset((f.alias or name) for name, f in model.model_fields.items())


def v1_query(name: str, record: type[M], *, also: tuple[str, ...] = (),
             summary: str = "") -> Operation[Filter | None, list[M]]:
    """A generation-1.0 query that accepts ``Filtro``: the record's field names plus the
    alternative filter names the spec lists for it (``also``)."""
    names = field_names(record) | frozenset(also)
    return Operation(name, Generation.V1, Kind.QUERY, encode_filter(name, names), records(record),
                     errors={}, filter_names=names, summary=summary)


def v1_listing(name: str, record: type[M], *, summary: str = "") -> Operation[None, list[M]]:
    """A generation-1.0 query without filter support (the request holds only the key)."""
    return Operation(name, Generation.V1, Kind.QUERY, encode_nothing, records(record), summary=summary)
