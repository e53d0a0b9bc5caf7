"""Every quirk of the two response envelopes, normalised in this one place.

Generation 1.0: ``{status, erro_code, erro_inf, erro_desc, erro_detail, result}``; on a query,
``erro_code`` 1 means "no rows" and reads as an empty list (unless the operation documents code 1
otherwise, like ``ConsultaLinhaDigitavelBoleto``'s "document not found"); 97 is an invalid key.
Generation 2.0: ``{status, error_code, error_description, result}``; ``status`` is seen as 1, true
or '1' (``ip_insert`` answers it as a string), ``error_code`` as '', 0 or '0' on success, and a
failure's ``result`` may be '', [] or an object of empty lists (ignored). The ``mvno_*`` operations
answer a bare object with no envelope on success. ``invoices_issued_pdf`` may answer status 0 with a
list of items, each with its own error: that list is its result (``per_item_errors``).

Branching is on ``status`` and codes only, never on message texts (they carry typos).
"""

from __future__ import annotations

from typing import Any

from bot.isp.catalog.base import Kind, Operation
from bot.isp.errors import ErrorName, Generation, InvalidKeyError, IspApiError, IspBadResponse

INVALID_KEY_CODE = 97
NO_ROWS_CODE = 1

_TRUE = {1, "1", "true", "True"}
_FALSE = {0, "0", "false", "False", ""}


def _status(value: Any, operation: str) -> bool:
    # bool is an int: test it by identity before the set lookups treat True as 1.
    if value is True or value is False:
        return value
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise IspBadResponse(f"{operation}: the envelope's status {value!r} is neither success nor failure",
                         operation=operation)


def _code(value: Any) -> int | None:
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        code = int(str(value).strip())
    except ValueError:
        return None
    return code or None


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def unwrap(op: Operation[Any, Any], body: Any) -> Any:
    """The ``result`` of a successful answer, or the right ``IspApiError``."""
    if op.bare and isinstance(body, dict) and "status" not in body:
        return body
    if not isinstance(body, dict) or "status" not in body:
        raise IspBadResponse(f"{op.name}: the answer is not a web-service envelope", operation=op.name,
                             generation=op.generation)
    if _status(body["status"], op.name):
        return body.get("result")
    if op.per_item_errors and isinstance(body.get("result"), list | dict) and body["result"]:
        return body["result"]
    if op.generation is Generation.V1:
        code = _code(body.get("erro_code"))
        description, detail, inf = (_text(body.get(k)) for k in ("erro_desc", "erro_detail", "erro_inf"))
    else:
        code = _code(body.get("error_code"))
        description, detail, inf = _text(body.get("error_description")), "", ""
    if (op.generation is Generation.V1 and op.kind is Kind.QUERY and code == NO_ROWS_CODE
            and NO_ROWS_CODE not in op.errors):
        return []
    known = op.errors.get(code) if code is not None else None
    error_type = IspApiError
    if code == INVALID_KEY_CODE and known is None:
        known, error_type = ErrorName.INVALID_KEY, InvalidKeyError
    raise error_type(operation=op.name, generation=op.generation, code=code, description=description,
                     detail=detail, inf=inf, known=known)
