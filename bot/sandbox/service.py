"""The web service itself, without HTTP: key check, permission, validation, rule, envelope.

``Service.v1(body)`` and ``Service.v2(key, body)`` take the parsed JSON body and answer the response
body. A homologation key runs the rule on a throw-away copy of the store, so every validation and
state rule runs for real and nothing persists.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from bot.sandbox import codes, rules
from bot.sandbox.clock import ISP_ZONE, Clock
from bot.sandbox.envelopes import v1_fail, v1_ok, v2_fail, v2_ok
from bot.sandbox.errors import Refusal
from bot.sandbox.filters import FilterRejected, Narrowing, select
from bot.sandbox.keys import ApiKey, Environment, KeyRing
from bot.sandbox.params import Params
from bot.sandbox.registry import DEFAULT_BASE_URL, OPERATIONS, V1, V2, Context, Operation, Settings
from bot.sandbox.rules.billing import serve_link
from bot.sandbox.rules.contracts import advance_time
from bot.sandbox.store import Store
from bot.sandbox.variants import Variants
from bot.sandbox.views import VIEWS, View, render

assert rules  # the import registers every rule  # noqa: S101


def operation_name(body: Any) -> str | None:
    """The only root key of a well-formed body, else None."""
    if isinstance(body, dict) and len(body) == 1:
        (name,) = body
        return str(name)
    return None


class Service:
    def __init__(
        self, store: Store, keys: KeyRing, clock: Clock, settings: Settings, variants: Variants | None = None
    ) -> None:
        self.store = store
        self.keys = keys
        self.clock = clock
        self.settings = settings
        self.variants = variants or Variants()
        self.lock = threading.RLock()  # the loopback server runs in another thread than the test

    def now(self) -> datetime:
        moment = self.clock()
        if moment.tzinfo is not None:
            moment = moment.astimezone(ISP_ZONE).replace(tzinfo=None)
        return moment.replace(microsecond=0)

    def context(self, key: ApiKey, store: Store | None = None, base_url: str = DEFAULT_BASE_URL) -> Context:
        return Context(store or self.store, self.now(), key, self.settings, base_url)

    # ---- generation 1.0 -------------------------------------------------------------------------
    def v1(self, body: Any) -> dict[str, Any]:
        name = operation_name(body)
        if name is None:
            return v1_fail(
                codes.MALFORMED_REQUEST,
                "Requisição inválida: o corpo deve ter uma única chave raiz, o nome do serviço",
            )
        params = body[name]
        if not isinstance(params, dict):
            return v1_fail(codes.MALFORMED_REQUEST, "Requisição inválida: os parâmetros devem ser um objeto")
        auth = params.get("Autenticacao")
        raw_key = auth.get("ChaveIntegracao") if isinstance(auth, dict) else None
        key = self.keys.get(raw_key) if isinstance(raw_key, str) else None
        if key is None:
            return v1_fail(codes.INVALID_KEY, "Erro de integração", "Chave de integração inválida ou inativa")
        view = VIEWS.get(name)
        op = OPERATIONS.get(name)
        if view is None and (op is None or op.generation != V1):
            return v1_fail(codes.UNKNOWN_OPERATION, f"Serviço {name} não encontrado")
        if not key.permits(name):
            return v1_fail(
                codes.NOT_PERMITTED, f"Serviço {name} não permitido para esta chave de integração", name
            )
        try:
            with self.lock:
                advance_time(self.context(key))
                if view is not None:
                    return v1_ok(self._query(view, params))
                assert op is not None  # noqa: S101
                group = params.get(op.group) if op.group else params
                if op.group and group is None:
                    raise Refusal(
                        codes.V1_NOT_FOUND, f"Campo obrigatório não informado: {op.group}", detail=op.group
                    )
                return v1_ok(self._run(op, key, group))
        except Refusal as refusal:
            return v1_fail(refusal.code, refusal.description, refusal.detail, refusal.inf)

    def _query(self, view: View, params: dict[str, Any]) -> list[dict[str, str]]:
        clause = params.get("Filtro")
        if not view.filterable or clause in (None, ""):
            rows = view.table(self.store, self.now())
        elif not isinstance(clause, str):
            raise Refusal(codes.INVALID_FILTER, "Filtro inválido: texto esperado", detail="Filtro")
        else:
            escapes = not self.settings.no_backslash_escapes
            try:
                narrow = Narrowing.of(clause, view.names, backslash_escapes=escapes)
                if narrow is not None and narrow.column in view.fields:
                    rows, affinities = view.narrowed(self.store, self.now(), narrow)
                else:
                    rows, affinities = view.table(self.store, self.now()), {}
                kept = select(rows, view.names, clause, self.now(), backslash_escapes=escapes, affinities=affinities)
                rows = [rows[i] for i in kept]
            except FilterRejected as exc:
                raise Refusal(codes.INVALID_FILTER, f"Filtro inválido: {exc}", detail="Filtro") from None
        if not rows:
            raise Refusal(codes.V1_NOT_FOUND, "A consulta não retornou resultados")
        return [render(view, row) for row in rows]

    # ---- generation 2.0 -------------------------------------------------------------------------
    def v2(self, raw_key: str | None, body: Any, base_url: str = DEFAULT_BASE_URL) -> Any:
        answer = self._v2(raw_key, body, base_url)
        name = operation_name(body)
        return self.variants.shape(name, answer, body[name]) if name is not None else answer

    def _v2(self, raw_key: str | None, body: Any, base_url: str) -> Any:
        name = operation_name(body)
        if name is None:
            return v2_fail(
                codes.MALFORMED_REQUEST,
                "Invalid request: the body must hold exactly one root key, the operation name",
            )
        op = OPERATIONS.get(name)
        fail: Callable[..., dict[str, Any]] = v2_fail
        if op is not None and op.generation == V2:

            def fail(code: int, description: str) -> dict[str, Any]:
                return v2_fail(code, description, op.failure_result, string_status=op.string_status)

        key = self.keys.get(raw_key) if raw_key else None
        if key is None:
            return fail(codes.INVALID_KEY, "Chave de integração inválida ou inativa")
        if op is None or op.generation != V2:
            return v2_fail(codes.UNKNOWN_OPERATION, f"Operation {name} not found")
        if not key.permits(name):
            return fail(codes.NOT_PERMITTED, f"Operação {name} não permitida para esta chave de integração")
        params = body[name]
        if op.list_body:
            if not isinstance(params, list):
                return fail(op.invalid_code, f"{name}: o valor da raiz deve ser uma lista")
            params = {"messages": params}
        try:
            with self.lock:
                advance_time(self.context(key))
                result = self._run(op, key, params, base_url)
        except Refusal as refusal:
            result_shape = refusal.result if refusal.result != "" else op.failure_result
            return v2_fail(refusal.code, refusal.description, result_shape, string_status=op.string_status)
        if op.bare:
            return result
        return v2_ok(result, string_status=op.string_status)

    # ---- both ----------------------------------------------------------------------------------
    def temporary_file(self, token: str) -> bytes | None:
        """The PDF a temporary link serves while it is valid by the sandbox's clock, else None."""
        with self.lock:
            return serve_link(self.store, self.now(), self.settings, token)

    def _run(self, op: Operation, key: ApiKey, params: Any, base_url: str = DEFAULT_BASE_URL) -> Any:
        homologation = key.environment is Environment.HOMOLOGATION and op.writes
        ctx = self.context(key, self.store.clone() if homologation else None, base_url)
        p = Params(
            params if params is not None else {}, missing_code=op.missing_code, invalid_code=op.invalid_code
        )
        return op.handler(ctx, p)


def generation_of(name: str) -> int | None:
    if name in VIEWS:
        return V1
    op = OPERATIONS.get(name)
    return op.generation if op else None
