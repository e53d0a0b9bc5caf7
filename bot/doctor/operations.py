"""The ISP operations the bot calls, read from its own code, and for each a probe: a request the web
service answers without changing anything, so that its answer tells whether the key may call it.

The list is not typed by hand: every module of ``flows`` and ``bot`` (the ISP client and the
sandbox aside) is searched for attribute uses named as a catalog operation
(``self.client.ConsultaTopicos``, ``client.chat_messages``), so a flow that starts calling a new
operation is checked without anyone remembering to add it here.

Probes, chosen so that no probe can create or change a record, whatever the key's environment:

- a generation-1.0 query with a ``Filtro`` asks for rows where a field is null and not null at once
  (no row can match); a query without filters asks for its reference list (users, causes, NAS);
- any other operation (every write) is sent with empty parameters, and only when the catalog's
  request model refuses empty parameters, i.e. the spec marks a field required: the service must
  refuse it before acting. A write whose fields are all optional is not probed.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

import bot
import flows
from bot.isp.catalog import OPERATIONS, Kind, Operation
from bot.isp.filters import F

# Packages that call the ISP only through the client (the client itself and the sandbox define
# operations rather than need them; this package probes them).
_NOT_CALLERS = ("isp", "sandbox", "doctor")
_PREFERRED_FIELDS = ("Codigo", "Numero", "Id")


@dataclass(frozen=True)
class Need:
    operation: Operation[Any, Any]
    used_in: tuple[str, ...]  # source files, relative to the project: "flows/coordinator.py"

    @property
    def name(self) -> str:
        return self.operation.name

    def where(self) -> str:
        return f"{self.name} ({', '.join(self.used_in)})"


def _sources() -> list[tuple[str, Path]]:
    files = []
    for package in (flows, bot):
        root = Path(package.__file__ or "").parent
        for path in sorted(root.rglob("*.py")):
            relative = path.relative_to(root.parent)
            if package is bot and len(relative.parts) > 2 and relative.parts[1] in _NOT_CALLERS:
                continue
            files.append((relative.as_posix(), path))
    return files


@functools.cache
def needed_operations() -> tuple[Need, ...]:
    """Every catalog operation the bot's code calls, with the files that call it, sorted by name."""
    names = sorted(OPERATIONS, key=len, reverse=True)  # longest first: ConsultaAutenticacaoSenha
    pattern = re.compile(r"\.(" + "|".join(names) + r")\b")
    found: dict[str, set[str]] = {}
    for relative, path in _sources():
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(match.group(1), set()).add(relative)
    return tuple(Need(OPERATIONS[name], tuple(sorted(files))) for name, files in sorted(found.items()))


def probe_payload(op: Operation[Any, Any]) -> Any | None:
    """The side-effect-free request for ``op`` (see the module docstring); None when there is none."""
    if op.kind is Kind.QUERY and op.request_model is None:
        if not op.filterable:
            return {}
        name = next((n for n in _PREFERRED_FIELDS if n in op.filter_names), min(op.filter_names))
        return {"Filtro": (F(name).is_null() & F(name).is_not_null()).render()}
    if op.kind is Kind.WRITE and not refuses_empty(op):
        return None
    return {op.group: {}} if op.group else {}


def refuses_empty(op: Operation[Any, Any]) -> bool:
    if op.request_model is None:
        return False
    try:
        op.request_model.model_validate({})
    except ValidationError:
        return True
    return False
