"""``ispbot call OPERATION [--json PARAMS] [--filter WHERE]``: one operation against the configured
server, for integrators testing a key and its permitted operations.

PARAMS is the operation's parameter object as the spec shows it, without the key (generation-1.0
writes include their group, e.g. ``{"DadosAtendimento": {...}}``). WHERE is a raw ``Filtro``
typed by the operator and sent as is (the unsafe escape hatch, acceptable for a person at their own
terminal). ``--list`` prints the catalog's operations, one a line, and needs no settings.

Binary results (a PIX QR code's PNG, a bill's PDF) are printed as base 64 in the JSON, as the wire
carries them; ``--out FILE`` writes the file instead, and the JSON shows where and how many bytes.

The server and key are ``ISPBOT_ISP_BASE_URL`` and ``ISPBOT_ISP_KEY`` (with the other ``ISPBOT_ISP_*``),
from the environment or ``.env`` as every command reads them. Exit codes: 0 success (typed result as
JSON on stdout), 1 the ISP refused, 2 the request or the configuration is invalid, 3 the web service
could not be reached or read.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.commands.support import settings_problems

if TYPE_CHECKING:
    from pydantic import ValidationError

    from bot.isp.catalog import Operation
    from bot.isp.settings import IspSettings

EXIT_OK, EXIT_ISP_ERROR, EXIT_INVALID, EXIT_TRANSPORT = 0, 1, 2, 3


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "call", help="run one ISP web-service operation and print its typed result as JSON",
        description=__doc__,
    )
    parser.add_argument("operation", help="operation name as the spec spells it (see --list)", nargs="?")
    parser.add_argument("--json", dest="params", default=None, help="the operation's parameters as JSON")
    parser.add_argument("--filter", dest="where", default=None, help="Filtro WHERE clause (queries)")
    parser.add_argument("--list", action="store_true", help="list every operation of the catalog")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE",
                        help="write a binary result (QR code image, PDF) to FILE instead of printing it as base 64")
    parser.set_defaults(func=run)


def field_path(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return ".".join(str(part) for part in first["loc"]) or "(request)"


def build_request(op: Operation[Any, Any], params: Any, where: str | None) -> Any:
    """The typed request for ``op`` from spec-shaped parameters; raises InvalidRequestError."""
    from pydantic import ValidationError

    from bot.isp.errors import InvalidRequestError
    from bot.isp.filters import unsafe_raw_filter

    if op.request_model is None:  # generation-1.0 query: the only parameter is Filtro
        raw = where if where is not None else (params or {}).get("Filtro") if isinstance(params, dict) else None
        return unsafe_raw_filter(raw) if raw else None
    if where is not None:
        raise InvalidRequestError(f"{op.name} does not take a Filtro", operation=op.name, field="Filtro")
    if op.group:
        if not isinstance(params, dict) or op.group not in params:
            raise InvalidRequestError(f"{op.name} needs its parameters inside {op.group}",
                                      operation=op.name, field=op.group)
        params = params[op.group]
    try:
        return op.request_model.model_validate(params if params is not None else {})
    except ValidationError as exc:
        field = field_path(exc)
        message = exc.errors()[0]["msg"]
        raise InvalidRequestError(f"{op.name}: field {field}: {message}", operation=op.name,
                                  field=field) from None


def to_jsonable(value: Any, binary: Any = None) -> Any:
    """The result as JSON values. Bytes become base 64 (as the wire carries them), or, with
    ``binary`` (called with the bytes), whatever it returns (where the file was written)."""
    from pydantic import BaseModel

    if isinstance(value, bytes):
        return binary(value) if binary is not None else base64.b64encode(value).decode("ascii")
    if isinstance(value, BaseModel):
        blobs = {name: getattr(value, name) for name in type(value).model_fields
                 if isinstance(getattr(value, name), bytes)}
        dumped = value.model_dump(mode="json", by_alias=True, exclude=set(blobs))
        for name, data in blobs.items():
            dumped[type(value).model_fields[name].alias or name] = to_jsonable(data, binary)
        return dumped
    if isinstance(value, list):
        return [to_jsonable(v, binary) for v in value]
    return value


class _OutFile:
    """``--out FILE``: the first binary value of the result is written there."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.written = False

    def __call__(self, data: bytes) -> Any:
        if self.written:  # one file per call: any other binary value stays in the JSON
            return base64.b64encode(data).decode("ascii")
        self.path.write_bytes(data)
        self.written = True
        return {"file": str(self.path), "bytes": len(data)}


def _fail(code: int, text: str) -> int:
    print(f"ispbot call: {text}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    import asyncio

    from pydantic import ValidationError

    from bot.isp.catalog import OPERATIONS, Kind
    from bot.isp.errors import InvalidRequestError, IspApiError, IspTransportError
    from bot.isp.settings import IspSettings

    if args.list or not args.operation:
        for name, op in sorted(OPERATIONS.items(), key=lambda item: (item[1].generation, item[0])):
            kind = "query" if op.kind is Kind.QUERY else "write"
            print(f"{op.generation}  {kind:5}  {name}  {op.summary}")
        return EXIT_OK
    if args.operation not in OPERATIONS:
        return _fail(EXIT_INVALID, f"unknown operation {args.operation!r} (ispbot call --list shows them)")
    op = OPERATIONS[args.operation]
    try:
        params = json.loads(args.params) if args.params else None
    except json.JSONDecodeError as exc:
        return _fail(EXIT_INVALID, f"--json is not valid JSON: {exc.msg} at position {exc.pos}")
    try:
        request = build_request(op, params, args.where)
    except InvalidRequestError as exc:
        return _fail(EXIT_INVALID, str(exc))
    try:
        isp_settings = IspSettings()
    except ValidationError as exc:
        for line in settings_problems(exc, IspSettings):
            _fail(EXIT_INVALID, f"configuration: {line}")
        return EXIT_INVALID
    try:
        result = asyncio.run(_call(isp_settings, op, request))
    except IspApiError as exc:
        return _fail(EXIT_ISP_ERROR, str(exc))
    except InvalidRequestError as exc:
        return _fail(EXIT_INVALID, str(exc))
    except IspTransportError as exc:
        return _fail(EXIT_TRANSPORT, f"{op.name}: {exc}")
    out = _OutFile(args.out) if args.out is not None else None
    try:
        shown = to_jsonable(result, out)
    except OSError as exc:
        return _fail(EXIT_INVALID, f"--out {args.out}: {exc.strerror or exc}")
    json.dump(shown, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")
    if out is not None and not out.written:
        _fail(EXIT_OK, f"{op.name} answered nothing binary: {args.out} was not written")
    return EXIT_OK


async def _call(isp_settings: IspSettings, op: Operation[Any, Any], request: Any) -> Any:
    from bot.isp.client import IspClient

    async with IspClient(isp_settings) as client:
        return await client.call(op, request)
