"""The contract state machine (second document, 3.1) with every refused transition's code."""

from __future__ import annotations

from typing import Any

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox

from tests.sandbox.conftest import Api, fail2, ok2

MINE = {"customer_id": D.customer, "contract_id": D.contract}
CANCEL = {
    "reason_id": 1,
    "billing": {"future_cancel": True, "cancellation_period_action": "none", "reason_id": 1},
    "pre_billing": {"cancel": True, "cancellation_period_action": "none"},
    "fine": {"account_id": 1, "historic_id": 2},
}


async def state(api: Api, number: int = D.contract) -> str:
    (row,) = await api.rows("ConsultaContratos", f"Numero = {number}")
    return row["Situacao_Codigo"]


async def test_block_unblock_suspend_activate_cancel(api: Api) -> None:
    fail2(await api.v2("contract_unblock", MINE), 10)
    fail2(await api.v2("contract_activate", MINE), 10)
    ok2(await api.v2("contract_block", MINE))
    assert await state(api) == "B"
    assert [
        r["Contrato_Numero"]
        for r in await api.rows("ConsultaContratosBloqueados", f"Contrato_Numero = {D.contract}")
    ]
    assert (await api.rows("ConsultaClientes", f"Codigo = {D.customer}"))[0]["Situacao"] == "B"
    assert (await api.rows("ConsultaClienteOnline", f"Codigo = {D.customer}"))[0]["Online"] == "N"
    fail2(await api.v2("contract_block", MINE), 10)
    ok2(await api.v2("contract_unblock", MINE))
    assert await state(api) == "A"

    ok2(await api.v2("contract_suspend_temporary", {**MINE, "duration": 15, "start_date": "2025-03-10"}))
    assert await state(api) == "S"  # effective immediately: start_date is today
    fail2(await api.v2("contract_block", MINE), 10)
    fail2(await api.v2("contract_suspend_temporary_cancel", MINE), 12)  # already effected
    ok2(await api.v2("contract_activate", MINE))
    assert await state(api) == "A"

    ok2(await api.v2("contract_cancel", {**MINE, **CANCEL, "cancel_competition_id": 2}))
    (row,) = await api.rows("ConsultaContratos", f"Numero = {D.contract}")
    assert row["Situacao_Codigo"] == "C" and row["Cancelamento_Motivo"] == "Mudança de endereço"
    assert row["Cancelamento_Concorrencia"] == "2" and row["DataUltimaOperacao"] == "2025-03-10"
    fail2(await api.v2("contract_cancel", {**MINE, **CANCEL}), 38)
    fail2(await api.v2("contract_activate", MINE), 10)
    # The future document was reversed; the overdue one stays open.
    open_docs = await api.rows("ConsultaDocumentosAbertos", f"Cliente = {D.customer}")
    assert [d["Sequencia"] for d in open_docs] == [str(D.overdue_document)]


async def test_scheduled_suspension_twenty_cancel_and_time(api: Api, sb: Sandbox, clock: FixedClock) -> None:
    fail2(await api.v2("contract_suspend_temporary", {**MINE, "duration": 5, "start_date": "2025-03-09"}), 1)
    ok2(await api.v2("contract_suspend_temporary", {**MINE, "duration": 5, "start_date": "2025-03-15"}))
    assert await state(api) == "A"
    fail2(await api.v2("contract_suspend_temporary", {**MINE, "duration": 5, "start_date": "2025-03-20"}), 20)
    ok2(await api.v2("contract_suspend_temporary_cancel", MINE))
    fail2(await api.v2("contract_suspend_temporary_cancel", MINE), 12)
    ok2(await api.v2("contract_suspend_temporary", {**MINE, "duration": 5, "start_date": "2025-03-12"}))
    clock.advance(days=2)
    assert await state(api) == "S"  # the clock reached the start date
    clock.advance(days=5)
    await api.v2("get_tickets_mode")  # any call lets time pass
    assert await state(api) == "A"


async def test_cancel_refused_states_and_signature_and_transfer(api: Api, sb: Sandbox) -> None:
    transferred = next(c for c in sb.store.rows("contracts") if c["Situacao_Codigo"] == "T")
    other = {"customer_id": transferred["Cliente_Codigo"], "contract_id": transferred["Numero"]}
    fail2(await api.v2("contract_cancel", {**other, **CANCEL}), 38)
    fail2(await api.v2("contract_block", {"customer_id": D.company, "contract_id": D.contract}), 10)

    fail2(await api.v2("contract_signature", MINE), 11)
    new = ok2(
        await api.v2(
            "contract_insert",
            {
                "customer_id": D.customer,
                "seller_name": "Bot",
                "type": "Plan",
                "plan_data": {
                    "id": 3,
                    "quantity": 1,
                    "qos_id": 1,
                    "group_contract": "no",
                    "online_signature": {"option": "no"},
                },
                "due_date_id": 3,
                "signature_date": "2025-03-01",
                "start_date": "2025-03-10",
                "signature": "no",
            },
        )
    )
    (created,) = new["new_contracts"]
    assert created["plan"] == 3 and await state(api, created["id"]) == "E"
    ok2(
        await api.v2(
            "contract_signature",
            {"customer_id": D.customer, "contract_id": created["id"], "update_start_date": True},
        )
    )
    fail2(await api.v2("contract_signature", {"customer_id": D.customer, "contract_id": created["id"]}), 11)
    fail2(
        await api.v2(
            "contract_insert",
            {
                "customer_id": D.customer,
                "seller_name": "Bot",
                "type": "Package",
                "package_data": {"id": 99},
                "due_date_id": 3,
                "signature_date": "2025-03-01",
                "start_date": "2025-03-10",
                "signature": "no",
            },
        ),
        1,
    )

    future = ok2(
        await api.v2(
            "contract_insert",
            {
                "customer_id": D.customer,
                "seller_name": "Bot",
                "type": "Plan",
                "plan_data": {
                    "id": 1,
                    "quantity": 1,
                    "qos_id": 1,
                    "group_contract": "3",
                    "online_signature": {"option": "no"},
                },
                "due_date_id": 3,
                "signature_date": "2025-03-01",
                "start_date": "2025-04-01",
                "signature": "yes",
            },
        )
    )
    transfer: dict[str, Any] = {
        "type": "plan",
        "new": {
            "type": "plan",
            "plan_data": {
                "id": "4",
                "qos_id": "1",
                "sla_id": "1",
                "due_date_id": "3",
                "duration": 12,
                "promotional_discount_option": "cancel",
                "online_signature": {"option": "no", "templates": "1"},
                "billing": {"keep": True},
            },
        },
        "fine": {"account_id": "1", "historic_id": "2"},
    }
    fail2(
        await api.v2(
            "contract_transfer",
            {"customer_id": D.customer, "contract_id": future["new_contracts"][0]["id"], **transfer},
        ),
        10,
    )
    moved = ok2(await api.v2("contract_transfer", {**MINE, **transfer}))
    assert await state(api) == "T" and await state(api, moved["new_contracts"][0]) == "A"
    assert moved["package_id"] is None and moved["messages"]


async def test_temporary_plans(api: Api) -> None:
    base = {"customer_id": D.customer, "contract_id": D.contract, "temporary_plan_id": 4}
    trial = ok2(
        await api.v2(
            "temporary_plan_insert",
            {**base, "start_period": "2025-03-12 00:00:00", "finish_period": "2025-03-19 23:59:59"},
        )
    )
    fail2(
        await api.v2(
            "temporary_plan_insert", {**base, "start_period": None, "finish_period": "2025-03-19 23:59:59"}
        ),
        13,
    )
    ok2(
        await api.v2(
            "temporary_plan_update",
            {
                "id": trial["id"],
                "temporary_plan_id": 3,
                "start_period": "2025-03-13 00:00:00",
                "finish_period": "2025-03-20 00:00:00",
            },
        )
    )
    fail2(
        await api.v2(
            "temporary_plan_update",
            {"id": 999, "temporary_plan_id": 3, "start_period": None, "finish_period": "2025-03-20 00:00:00"},
        ),
        5,
    )
    listed = ok2(await api.v2("temporary_plan_list", {"id": trial["id"]}))
    assert listed[0]["status"] == "scheduled" and listed[0]["temporary_plan_id"] == 3
    fail2(await api.v2("temporary_plan_list", {}), 5)
    ok2(await api.v2("temporary_plan_disable", {"id": trial["id"]}))
    fail2(await api.v2("temporary_plan_disable", {"id": trial["id"]}), 6)
    now = ok2(
        await api.v2(
            "temporary_plan_insert", {**base, "start_period": None, "finish_period": "2025-03-19 23:59:59"}
        )
    )
    fail2(await api.v2("temporary_plan_disable", {"id": now["id"]}), 6)  # already started


async def test_promotional_discount_html_and_address(api: Api) -> None:
    promo = {"customer": D.customer, "contract_number": D.contract, "discount_period": 3}
    fail2(await api.v2("promotional_contract_discount_update", {**promo, "discount_value": 500}), 21)
    ok2(await api.v2("promotional_contract_discount_update", {**promo, "discount_value": 20}))
    (row,) = await api.rows("ConsultaContratos", f"Numero = {D.contract}")
    assert row["DescontoPromocional_Valor"] == "20.00" and row["DescontoPromocional_Prazo"] == "3"
    ok2(
        await api.v2(
            "promotional_contract_discount_delete", {"customer": D.customer, "contract_number": D.contract}
        )
    )
    fail2(
        await api.v2(
            "promotional_contract_discount_delete", {"customer": D.company, "contract_number": D.contract}
        ),
        12,
    )
    html = ok2(await api.v2("contract_generate_html", {**MINE, "generate_link": True}))
    assert html[0]["contract_link_download"].endswith(".pdf")
    fail2(await api.v2("contract_generate_html", {**MINE, "contract_id": 1, "generate_link": False}), 14)
    ok2(
        await api.v2(
            "contract_address",
            {
                **MINE,
                "address": "Rua Nova",
                "number": 10,
                "neighborhood": "Centro",
                "city_id": 3518800,
                "state": "SP",
                "zip_code": "07010000",
                "billing": True,
            },
        )
    )
    (row,) = await api.rows("ConsultaContratos", f"Numero = {D.contract}")
    assert (
        row["EnderecoInstalacao_Cidade"] == "Guarulhos" and row["EnderecoCobranca_Logradouro"] == "Rua Nova"
    )
    fail2(
        await api.v2(
            "contract_address",
            {
                "customer_id": D.customer,
                "contract_id": 1,
                "address": "x",
                "number": 1,
                "neighborhood": "x",
                "city_id": 3518800,
                "state": "SP",
                "zip_code": "07010000",
            },
        ),
        27,
    )
    fail2(await api.v2("contract_update", {"customer_id": 424242, "contract_id": D.contract}), 26)
    ok2(await api.v2("contract_update", {**MINE, "discount_value": 9.9, "due_date_id": 2}))
    (row,) = await api.rows("ConsultaContratos", f"Numero = {D.contract}")
    assert row["ValorLiquido"] == "90.00" and row["CicloFaturamento_Vencimento"] == "15"
