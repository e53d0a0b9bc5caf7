"""A ticket's life over raw HTTP: opened in 1.0, worked in 2.0, seen closed in 1.0."""

from __future__ import annotations

from typing import Any

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox

from tests.sandbox.conftest import Api, fail2, ok2

HERE = {"latitude": -23.5869, "longitude": -46.6353}


def ticket_request(**overrides: Any) -> dict[str, Any]:
    data = {
        "Data_Abertura": "2025-03-10",
        "Hora_Abertura": "09:15:00",
        "Iniciativa": "C",
        "Modo": D.telegram_mode,
        "TipoCliente": "C",
        "Cliente": D.customer,
        "Contrato": D.contract,
        "Tipo": "T",
        "Topico": 1,
        "Assunto": "Sem internet desde cedo",
        "Ocorrencia": "Aberto pelo Telegram",
    }
    data.update(overrides)
    return {"DadosAtendimento": data}


async def open_ticket(api: Api, **overrides: Any) -> int:
    answer = await api.v1("AtendimentoCadastro", ticket_request(**overrides))
    assert answer["status"] == 1, answer
    result = answer["result"]
    assert set(result) == {"NumeroAtendimento", "SLA", "SLA_Tipo", "Mensagem"}
    assert all(isinstance(v, str) for v in result.values())
    return int(result["NumeroAtendimento"])


async def move(api: Api, ticket: int, status: str, **extra: Any) -> Any:
    return await api.v2("ticket_os_status_update", {"ticket_id": ticket, "new_status": status, **extra})


async def test_ticket_lifecycle_end_to_end(api: Api, sb: Sandbox) -> None:
    number = await open_ticket(api)
    (row,) = await api.rows("ConsultaAtendimentos", f"Numero = {number}")
    assert row["Protocolo"].startswith("20250310") and row["Tipo"] == "T" and row["Topico"] == "Sem conexão"
    assert (
        row["Encerramento_DataHora"] == ""
        and row["Situacao_OS"] == ""
        and row["CodigoCliente"] == str(D.customer)
    )

    ok2(
        await api.v2(
            "ticket_assign",
            {
                "ticket_id": number,
                "mode_assign": D.telegram_mode,
                "target_type": "user",
                "target_id": D.technician,
            },
        )
    )
    fail2(
        await api.v2(
            "ticket_assign",
            {"ticket_id": number, "mode_assign": "1", "target_type": "user", "target_id": "tecnico.pedro"},
        ),
        14,
    )  # blocked user
    ok2(
        await api.v2(
            "ticket_appointment_insert",
            {
                "ticket_id": number,
                "appointment_date": "2025-03-11",
                "appointment_time": "10:00",
                "duration": "01:00",
            },
        )
    )
    fail2(
        await api.v2(
            "ticket_appointment_insert",
            {
                "ticket_id": number,
                "appointment_date": "2025-03-12",
                "appointment_time": "10:00",
                "duration": "01:00",
            },
        ),
        18,
    )
    ok2(
        await api.v2(
            "ticket_appointment_update",
            {
                "ticket_id": number,
                "appointment_date": "2025-03-11",
                "appointment_time": "11:00",
                "duration": "02:00",
                "appointment_status": "confirmed",
            },
        )
    )
    agenda = ok2(
        await api.v2("consult_appointments", {"user": D.technician, "appointment_date": "2025-03-11"})
    )
    assert {"start_time": "2025-03-11 11:00:00", "end_time": "2025-03-11 13:00:00"} in agenda
    fail2(await api.v2("consult_appointments", {"user": "nobody", "appointment_date": "2025-03-11"}), 8)

    fail2(await move(api, number, "running", coordinates=HERE), 15)  # no service order yet
    ok2(await move(api, number, "in_queue"))
    refused = fail2(await move(api, number, "running", coordinates=HERE), 15)
    assert "on_the_way, aborted, completed" in refused
    ok2(await move(api, number, "on_the_way", user=D.technician))
    fail2(await move(api, number, "running"), 1)  # coordinates required (minimum-distance setting on)
    fail2(await move(api, number, "running", coordinates={"latitude": 91, "longitude": -46.6}), 1)
    fail2(await move(api, number, "running", coordinates={"latitude": -23.5}), 1)
    ok2(await move(api, number, "running", coordinates=HERE, user=D.technician))
    ok2(await move(api, number, "paused"))
    fail2(await move(api, number, "completed"), 15)
    ok2(await move(api, number, "running", coordinates=HERE))

    (checklist, *_) = await api.rows("ConsultaChecklistAtendimentos", f"Atendimento_Numero = {number}")
    ok2(
        await api.v2(
            "ticket_checklist_update",
            {
                "ticket_id": number,
                "checklist_id": int(checklist["Checklist_Id"]),
                "checklist_set": "M",
                "user": D.technician,
            },
        )
    )
    marked = await api.rows(
        "ConsultaChecklistAtendimentos",
        f"Atendimento_Numero = {number} AND Checklist_Id = {checklist['Checklist_Id']}",
    )
    assert marked[0]["Checklist_Status"] == "S"
    fail2(await api.v2("ticket_checklist_update", {"checklist_id": 1, "checklist_set": "M"}), 1)

    occurrence = ok2(
        await api.v2(
            "ticket_occurrence_insert",
            {"ticket_id": number, "user": D.technician, "description": "<b>ONU</b> trocada", **HERE},
        )
    )
    fail2(
        await api.v2("ticket_occurrence_insert", {"ticket_id": number, "user": "ghost", "description": "x"}),
        18,
    )
    (seen,) = await api.rows("ConsultaOcorrenciasAtendimentos", f"Id = {occurrence['occurrence_id']}")
    assert seen["Latitude"] == "-23.5869000000000" and seen["Atendimento_Numero"] == str(number)
    by_alias = await api.rows(
        "ConsultaOcorrenciasAtendimentos", f"Atendimento = {number} AND MapsLat IS NOT NULL"
    )
    assert len(by_alias) >= 3  # the on_the_way/running moves and the manual occurrence carry coordinates

    ok2(await move(api, number, "completed"))
    fail2(
        await api.v2(
            "ticket_finish", {"ticket_id": number, "cause_id": 1, "solution": "Trocada", "user": "ghost"}
        ),
        7,
    )
    finished = ok2(
        await api.v2(
            "ticket_finish",
            {
                "ticket_id": number,
                "cause_id": 1,
                "solution": "ONU trocada",
                "user": D.technician,
                "datetime": "2025-03-10 11:45:00",
            },
        )
    )
    assert finished["new_tickets"] == [] and finished["messages"]
    (closed,) = await api.rows("ConsultaAtendimentos", f"Numero = {number}")
    assert closed["Encerramento_DataHora"] == "2025-03-10 11:45:00"
    assert (
        closed["Causa"] == "Cabo rompido"
        and closed["Solucao"] == "ONU trocada"
        and closed["Situacao_OS"] == "C"
    )
    fail2(await api.v2("ticket_update", {"ticket_id": number, "status": "on_hold"}), 13)
    fail2(
        await api.v2(
            "ticket_finish", {"ticket_id": number, "cause_id": 1, "solution": "x", "user": D.technician}
        ),
        13,
    )
    assert await api.rows("ConsultaChecklistAtendimentos", f"Atendimento_Numero = {number}") == []
    survey = ok2(await api.v2("generate_questionare_link", {"ticket": number}))
    assert survey[0]["generate_questionare_link"].startswith("https://")


async def test_ticket_opening_rules(api: Api) -> None:
    answer = await api.v1("AtendimentoCadastro", ticket_request(Estimulo_Marketing=1))
    assert answer["status"] == 0 and answer["erro_code"] == 223
    commercial = await open_ticket(api, Tipo="C", Topico=8, Estimulo_Marketing=1)
    assert (await api.rows("ConsultaAtendimentos", f"Numero = {commercial}"))[0]["Tipo"] == "C"
    missing = await api.v1("AtendimentoCadastro", {"DadosAtendimento": {"Data_Abertura": "2025-03-10"}})
    assert missing["erro_code"] == 1 and missing["erro_detail"] == "Hora_Abertura"
    bad = await api.v1("AtendimentoCadastro", ticket_request(Iniciativa="X"))
    assert bad["erro_code"] == 2 and bad["erro_detail"] == "Iniciativa"
    unknown = await api.v1("AtendimentoCadastro", ticket_request(Cliente=987654))
    assert unknown["erro_code"] == 4
    both = await api.v1("AtendimentoCadastro", ticket_request(Fluxo=1))
    assert both["erro_code"] == 2 and both["erro_detail"] == "Fluxo"
    no_survey = await open_ticket(api, Tipo="A", Topico=5)
    fail2(await api.v2("generate_questionare_link", {"ticket": no_survey}), 11)


async def test_ticket_update_and_assignment_visible_in_1_0(api: Api) -> None:
    ok2(await api.v2("ticket_update", {"ticket_id": D.ticket, "priority": 7, "status": "on_hold"}))
    fail2(await api.v2("ticket_update", {"ticket_id": D.ticket, "status": "sleeping"}), 1)
    ok2(
        await api.v2(
            "ticket_assign",
            {"ticket_id": D.ticket, "mode_assign": "1", "target_type": "group", "target_id": "2"},
        )
    )
    (row,) = await api.rows("ConsultaAtendimentos", f"Numero = {D.ticket}")
    assert row["Designacao_Tipo"] == "grupo" and row["Designacao_Grupo_Nome"] == "Técnicos de campo"
    fail2(
        await api.v2(
            "ticket_assign",
            {"ticket_id": D.ticket, "mode_assign": "1", "target_type": "group", "target_id": "77"},
        ),
        14,
    )
    modes = ok2(await api.v2("get_tickets_mode"))
    assert {"code": D.telegram_mode, "description": "Telegram"} in modes


async def test_chat_messages_are_stored_in_order(api: Api, sb: Sandbox) -> None:
    messages = [
        {
            "record": "2025-03-10 09:31:00",
            "customer": D.customer,
            "ticket_id": D.ticket,
            "attendant": "ispbot",
            "content": "Olá, minha internet caiu",
            "origin": "C",
        },
        {
            "record": "2025-03-10 09:31:05",
            "customer": D.customer,
            "ticket_id": D.ticket,
            "attendant": "ispbot",
            "content": "Vamos verificar",
            "origin": "S",
            "contact": 1,
        },
    ]
    assert "2" in ok2(await api.v2("chat_messages", messages))
    ok2(await api.v2("chat_messages", [{**messages[0], "content": "Ainda sem sinal"}]))
    stored = sb.chat_messages(D.ticket)
    assert [m["content"] for m in stored] == [
        "Olá, minha internet caiu",
        "Vamos verificar",
        "Ainda sem sinal",
    ]
    assert stored[1]["origin"] == "S" and stored[1]["contact"] == 1
    fail2(await api.v2("chat_messages", [{**messages[0], "ticket_id": 1}]), 16)
    fail2(await api.v2("chat_messages", [{**messages[0], "origin": "X"}]), 1)
    fail2(await api.v2("chat_messages", {"not": "a list"}), 1)
    assert len(sb.chat_messages(D.ticket)) == 3


async def test_ticket_items_and_stock(api: Api) -> None:
    base = {"ticket_id": D.ticket, "customer_id": D.customer, "contract_id": D.contract}
    sold = ok2(
        await api.v2(
            "ticket_item_insert",
            {
                **base,
                "type": "service",
                "operation": "sale",
                "item_id": 501,
                "quantity": 1,
                "installments_quantity": 2,
                "installments_detail": [
                    {"description": "1/2", "amount": 40, "reference_period": "2025-04-15"},
                    {"description": "2/2", "amount": 40, "reference_period": "2025-05-15"},
                ],
            },
        )
    )
    assert sold["item_id"] >= 1
    fail2(
        await api.v2(
            "ticket_item_insert",
            {
                **base,
                "ticket_id": 1,
                "type": "service",
                "operation": "sale",
                "item_id": 501,
                "quantity": 1,
                "installments_quantity": 1,
            },
        ),
        6,
    )
    fail2(
        await api.v2(
            "ticket_item_insert",
            {**base, "type": "service", "operation": "lending", "item_id": 501, "quantity": 1},
        ),
        1,
    )
    fail2(
        await api.v2(
            "ticket_item_insert",
            {
                **base,
                "type": "service",
                "operation": "sale",
                "item_id": 501,
                "quantity": 1,
                "installments_quantity": 2,
                "installments_detail": [
                    {"description": "1/2", "amount": 40, "reference_period": "2025-04-01"},
                    {"description": "2/2", "amount": 40, "reference_period": "2025-04-20"},
                ],
            },
        ),
        1,
    )
    fail2(
        await api.v2(
            "ticket_item_insert",
            {
                **base,
                "type": "product",
                "operation": "lending",
                "item_id": 1,
                "quantity": 2,
                "serial_number": "SN01000001",
            },
        ),
        1,
    )
    ok2(
        await api.v2(
            "ticket_item_insert",
            {
                **base,
                "type": "product",
                "operation": "lending",
                "item_id": 1,
                "quantity": 1,
                "serial_number": "SN01000001",
            },
        )
    )
    fail2(
        await api.v2(
            "ticket_item_insert",
            {**base, "type": "product", "operation": "consumption", "item_id": 3, "quantity": 0},
        ),
        1,
    )
    ok2(
        await api.v2(
            "ticket_item_insert",
            {
                **base,
                "type": "product",
                "operation": "consumption",
                "item_id": 3,
                "quantity": 25,
                "location_id": 1,
            },
        )
    )


async def test_a_serial_item_with_a_stock_location_as_the_vendor_sends_it(api: Api) -> None:
    # The vendor's published ticket_item_insert example sends a serial and a location together; the
    # spec asks for a location for non-serial items and forbids a serial only there.
    base = {"ticket_id": D.ticket, "customer_id": D.customer, "contract_id": D.contract, "type": "product",
            "operation": "lending", "item_id": 1, "quantity": 1}
    ok2(await api.v2("ticket_item_insert", {**base, "serial_number": "SN01000002", "location_id": 3}))
    fail2(await api.v2("ticket_item_insert", {**base, "serial_number": "SN01000002", "location_id": 3}), 1)  # moved
    fail2(await api.v2("ticket_item_insert", {**base, "serial_number": "SN01000003", "location_id": 0}), 1)
    fail2(await api.v2("ticket_item_insert", {**base, "location_id": 1}), 1)  # a location is no serial
