"""Where each operation's rule is registered, and what a rule receives.

A rule is a function ``(Context, Params) -> result``. It reads and validates its parameters first
(``Params`` refuses with the operation's own codes), then checks the records and changes them
through ``Context.store``. The dispatcher hands a homologation key a throw-away copy of the store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from bot.sandbox import codes
from bot.sandbox.errors import Refusal
from bot.sandbox.keys import ApiKey
from bot.sandbox.params import Params
from bot.sandbox.store import Record, Store

V1, V2 = 1, 2
#: Where a sandbox called without HTTP says it is (``Sandbox.v2``); over HTTP, the request's own base.
DEFAULT_BASE_URL = "http://sandbox/"


@dataclass
class Settings:
    """Behaviour switches of the sandbox's own "system parameters"."""

    #: The "minimum distance to execute" parameter: coordinates are required to start a service order.
    min_distance_to_execute: bool = True
    #: A transitory stock location is registered, so contract_cancel does not require ``os``.
    transitory_stock_location: bool = True
    #: Late payment: a fine once past the due date, and interest per month counted by the day.
    fine_percent: float = 2.0
    interest_percent_per_month: float = 1.0
    #: The largest receipt send_payment_notification accepts (decoded bytes).
    receipt_max_bytes: int = 10 * 1024 * 1024
    #: The MySQL server runs in the ``NO_BACKSLASH_ESCAPES`` SQL mode: a ``Filtro`` is read so.
    no_backslash_escapes: bool = False
    #: After disconnect_online_customer, the equipment of an active contract dials in again this many
    #: seconds later (a new session); ``redials`` off: it never comes back (a dead router).
    redial_seconds: float = 20.0
    redials: bool = True


@dataclass
class Context:
    store: Store
    now: datetime  # naive, in the ISP's time zone, as the service writes its dates
    key: ApiKey
    settings: Settings = field(default_factory=Settings)
    #: Where the service is reached: temporary links (``*_link``) point under it.
    base_url: str = DEFAULT_BASE_URL

    @property
    def today(self) -> date:
        return self.now.date()

    @property
    def stamp(self) -> str:
        return self.now.strftime("%Y-%m-%d %H:%M:%S")

    def user(self, name: str | None, *, active: bool = False) -> Record | None:
        """The system user ``name`` (the key's default user when None); None when unknown."""
        found = self.store.find("users", Usuario=name if name is not None else self.key.default_user)
        if found is not None and active and found["Situacao"] != "A":
            return None
        return found

    def user_name(self, name: str | None) -> str:
        return name if name is not None else self.key.default_user


Handler = Callable[[Context, Params], Any]


@dataclass(frozen=True)
class Operation:
    name: str
    generation: int
    handler: Handler
    writes: bool = True
    #: Generation-1.0 writes wrap their parameters in this group (``DadosAtendimento``).
    group: str = ""
    missing_code: int = codes.V2_INVALID_FIELD
    invalid_code: int = codes.V2_INVALID_FIELD
    #: mvno_*: a bare object on success.
    bare: bool = False
    #: ip_insert answers its status as a string.
    string_status: bool = False
    #: The empty result of a failure, where the spec shows one other than "".
    failure_result: Any = ""
    #: chat_messages: the root value is a list, not an object.
    list_body: bool = False
    #: Builds a PDF or an image: the app runs it off its event loop.
    slow: bool = False


OPERATIONS: dict[str, Operation] = {}


def operation(name: str, generation: int = V2, **options: Any) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        if generation == V1:
            options.setdefault("missing_code", codes.V1_NOT_FOUND)
            options.setdefault("invalid_code", codes.V1_INVALID_FIELD)
        OPERATIONS[name] = Operation(name, generation, handler, **options)
        return handler

    return register


# ---- lookups every family uses -----------------------------------------------------------------
def need(record: Record | None, code: int, description: str, **extra: Any) -> Record:
    """``record``, or a refusal with the operation's code when it does not exist."""
    if record is None:
        raise Refusal(code, description, **extra)
    return record


def customer_contract(ctx: Context, customer_id: int, contract_id: int, code: int) -> Record:
    """The contract, which must belong to the customer (else ``code``)."""
    return need(
        ctx.store.find("contracts", Numero=contract_id, Cliente_Codigo=customer_id),
        code,
        "Contrato não encontrado ou não pertence ao cliente",
    )


def is_closed(ticket: Record) -> bool:
    return bool(ticket.get("Encerramento_DataHora"))
