"""Temporary (trial) plans (second document, 3.2 and 4.6).

Statuses: ``scheduled`` (the spec's only named one), then ``active`` once the clock reaches
start_period and ``finished`` after finish_period (``contracts.advance_time``); ``disabled`` after
temporary_plan_disable, which only a scheduled trial allows (else 6). An unknown id answers 5, and so
does updating a trial that has already started.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.sandbox import codes
from bot.sandbox.errors import Refusal
from bot.sandbox.params import Params
from bot.sandbox.registry import Context, customer_contract, need, operation
from bot.sandbox.store import Record

LIVE = ("scheduled", "active")


def _period(ctx: Context, p: Params) -> tuple[str, str]:
    if not p.present("start_period"):
        raise p.missing("start_period")
    start = p.moment("start_period") or ctx.now  # null: the trial starts immediately
    finish = p.moment("finish_period", True)
    assert finish is not None  # noqa: S101
    if finish <= start:
        raise p.invalid("finish_period", "deve ser posterior ao início")
    return start.strftime("%Y-%m-%d %H:%M:%S"), finish.strftime("%Y-%m-%d %H:%M:%S")


def _plan(ctx: Context, p: Params) -> int:
    plan = p.id("temporary_plan_id")
    if ctx.store.find("plans", Codigo=plan) is None:
        raise p.invalid("temporary_plan_id", "plano não encontrado")
    return plan


def _status(ctx: Context, start: str) -> str:
    return "active" if start <= ctx.stamp else "scheduled"


@operation("temporary_plan_insert")
def temporary_plan_insert(ctx: Context, p: Params) -> dict[str, int]:
    customer = p.id("customer_id")
    contract = p.id("contract_id")
    plan = _plan(ctx, p)
    start, finish = _period(ctx, p)
    customer_contract(ctx, customer, contract, codes.V2_INVALID_FIELD)
    if any(t["status"] in LIVE for t in ctx.store.where("temporary_plans", contract_id=contract)):
        raise Refusal(13, "Contrato já possui um plano temporário")
    row = ctx.store.insert(
        "temporary_plans",
        {
            "id": None,
            "customer_id": customer,
            "contract_id": contract,
            "temporary_plan_id": plan,
            "start_period": start,
            "finish_period": finish,
            "status": _status(ctx, start),
        },
        "id",
    )
    return {"id": row["id"]}


@operation("temporary_plan_update")
def temporary_plan_update(ctx: Context, p: Params) -> str:
    trial_id = p.id("id")
    plan = _plan(ctx, p)
    start, finish = _period(ctx, p)
    trial = need(ctx.store.find("temporary_plans", id=trial_id), 5, "Id do plano temporário desconhecido")
    if trial["status"] != "scheduled":
        raise Refusal(5, "Plano temporário já iniciado ou encerrado: alteração não permitida")
    trial.update(
        {
            "temporary_plan_id": plan,
            "start_period": start,
            "finish_period": finish,
            "status": _status(ctx, start),
        }
    )
    return "Plano temporário alterado com sucesso"


@operation("temporary_plan_disable")
def temporary_plan_disable(ctx: Context, p: Params) -> str:
    trial = need(ctx.store.find("temporary_plans", id=p.id("id")), 5, "Id do plano temporário desconhecido")
    if trial["status"] != "scheduled":
        raise Refusal(6, f"Status {trial['status']} não permite desabilitar")
    trial["status"] = "disabled"
    return "Plano temporário desabilitado com sucesso"


@operation("temporary_plan_list", writes=False)
def temporary_plan_list(ctx: Context, p: Params) -> list[dict[str, Any]]:
    trial_id = p.integer("id", minimum=1)
    since: datetime | None = p.moment("start_period")
    if trial_id is None and since is None:
        raise Refusal(5, "Informe id ou start_period")

    def keep(row: Record) -> bool:
        if trial_id is not None:
            return bool(row["id"] == trial_id)
        assert since is not None  # noqa: S101
        return bool(row["start_period"] >= since.strftime("%Y-%m-%d %H:%M:%S"))

    return [dict(row) for row in ctx.store.where("temporary_plans", keep)]
