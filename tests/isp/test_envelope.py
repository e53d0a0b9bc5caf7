"""Every response quirk of the spec and of real installations, normalised by the client."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from bot.isp import (
    ErrorName,
    F,
    InvalidKeyError,
    IspApiError,
    IspBadResponse,
    IspClient,
    IspHttpError,
    NotTheWebServiceError,
)
from bot.isp.catalog import OPERATIONS

from tests.isp.samples_v1 import SAMPLES as V1
from tests.isp.samples_v2 import SAMPLES as V2
from tests.isp.standin import StandIn, v1_fail, v1_ok, v2_fail, v2_ok


async def call(client: IspClient, name: str) -> Any:
    sample = (V1 | V2)[name]
    return await client.call(OPERATIONS[name], sample.request)


async def test_v1_query_without_rows_is_an_empty_list(standin: StandIn, client: IspClient) -> None:
    standin.answer("ConsultaTopicos", v1_fail(1, "Consulta não retornou resultados"))
    assert await client.ConsultaTopicos(F("Central") == "S") == []


async def test_v1_code_1_keeps_its_documented_meaning_elsewhere(standin: StandIn, client: IspClient) -> None:
    standin.answer("ConsultaLinhaDigitavelBoleto", v1_fail(1, "Documento não encontrado"))
    with pytest.raises(IspApiError) as caught:
        await call(client, "ConsultaLinhaDigitavelBoleto")
    assert caught.value.known is ErrorName.DOCUMENT_NOT_FOUND
    assert caught.value.operation == "ConsultaLinhaDigitavelBoleto"


@pytest.mark.parametrize("name", ["ConsultaTopicos", "AtendimentoCadastro"])
async def test_v1_code_97_is_an_invalid_key(standin: StandIn, client: IspClient, name: str) -> None:
    standin.answer(name, v1_fail(97, "Erro de integração", "Chave de integração inválida ou inativa"))
    with pytest.raises(InvalidKeyError) as caught:
        await call(client, name)
    err = caught.value
    assert (err.code, err.known, err.generation) == (97, ErrorName.INVALID_KEY, "1.0")
    assert err.detail == "Chave de integração inválida ou inativa"


@pytest.mark.parametrize("status", [1, True, "1"])
@pytest.mark.parametrize("error_code", ["", 0, "0", None])
async def test_v2_success_in_every_spelling(standin: StandIn, client: IspClient, status: Any,
                                            error_code: Any) -> None:
    standin.answer("ticket_update", v2_ok("Atendimento alterado com sucesso", status, error_code))
    assert await call(client, "ticket_update") == "Atendimento alterado com sucesso"


@pytest.mark.parametrize("result", ["", [], {"messages": [], "new_tickets": []}])
@pytest.mark.parametrize("status", [0, "0"])
async def test_v2_failure_whatever_its_result(standin: StandIn, client: IspClient, result: Any,
                                              status: Any) -> None:
    body = v2_fail(13, "Ticket already closed", result) | {"status": status}
    standin.answer("ticket_update", body)
    with pytest.raises(IspApiError) as caught:
        await call(client, "ticket_update")
    assert caught.value.known is ErrorName.TICKET_ALREADY_CLOSED
    assert caught.value.code == 13


async def test_v2_code_as_string_is_still_named(standin: StandIn, client: IspClient) -> None:
    standin.answer("ticket_finish", v2_fail("7", "Usuário não existe",
                                            {"messages": [], "new_tickets": []}))
    with pytest.raises(IspApiError) as caught:
        await call(client, "ticket_finish")
    assert caught.value.known is ErrorName.USER_NOT_FOUND


async def test_same_code_means_different_things_per_operation(standin: StandIn, client: IspClient) -> None:
    standin.answer("contract_block", v2_fail(10, "Status do contrato inválido"))
    standin.answer("temporary_plan_insert", v2_fail(13, "Contrato já possui plano temporário"))
    with pytest.raises(IspApiError) as blocked:
        await call(client, "contract_block")
    with pytest.raises(IspApiError) as trial:
        await call(client, "temporary_plan_insert")
    assert blocked.value.known is ErrorName.INVALID_CONTRACT_STATUS
    assert trial.value.known is ErrorName.TEMPORARY_PLAN_EXISTS


async def test_undocumented_code_is_an_error_without_a_name(standin: StandIn, client: IspClient) -> None:
    standin.answer("ticket_update", v2_fail(555, "Erro desconhecido"))
    with pytest.raises(IspApiError) as caught:
        await call(client, "ticket_update")
    assert (caught.value.code, caught.value.known) == (555, None)


async def test_mvno_answers_a_bare_object(standin: StandIn, client: IspClient) -> None:
    standin.answer("mvno_get_simcard_balance", {"balance": "12.50"})
    result = await call(client, "mvno_get_simcard_balance")
    assert result.balance == Decimal("12.50")


async def test_mvno_failure_still_comes_in_an_envelope(standin: StandIn, client: IspClient) -> None:
    standin.answer("mvno_get_simcard_balance", v2_fail(13, "Linha não identificada"))
    with pytest.raises(IspApiError) as caught:
        await call(client, "mvno_get_simcard_balance")
    assert caught.value.known is ErrorName.UNIDENTIFIED_CONTRACT_LINE


async def test_ip_insert_status_as_a_string(standin: StandIn, client: IspClient) -> None:
    standin.answer("ip_insert", v2_ok({"ip_id": "88"}, status="1"))
    assert (await call(client, "ip_insert")).ip_id == 88
    standin.answer("ip_insert", v2_fail("16", "IP já existe", {"ip_id": ""}) | {"status": "0"})
    standin.answers["ip_insert"].popleft()
    with pytest.raises(IspApiError) as caught:
        await call(client, "ip_insert")
    assert caught.value.known is ErrorName.IP_ALREADY_EXISTS


async def test_disconnect_without_a_session_is_a_success_text(standin: StandIn, client: IspClient) -> None:
    standin.answer("disconnect_online_customer", v2_ok("Nenhuma conexão ativa encontrada"))
    assert await call(client, "disconnect_online_customer") == "Nenhuma conexão ativa encontrada"


async def test_trailing_comma_is_tolerated(standin: StandIn, client: IspClient) -> None:
    raw = ('{"status": 1, "erro_code": "", "erro_inf": "", "erro_desc": "", "erro_detail": "", '
           '"result": [{"Codigo": "7", "Nome": "Sem conexão, ", "Situacao": "A",},],}')
    standin.answer("ConsultaTopicos", raw=raw)
    (topic,) = await client.ConsultaTopicos()
    assert (topic.Codigo, topic.Nome) == (7, "Sem conexão, ")


async def test_html_login_page_is_not_the_web_service(standin: StandIn, client: IspClient) -> None:
    standin.answer("ConsultaTopicos", raw="<!DOCTYPE html><html><form>Login</form></html>",
                   content_type="text/html; charset=utf-8")
    with pytest.raises(NotTheWebServiceError) as caught:
        await client.ConsultaTopicos()
    assert "http://127.0.0.1:8077/ws/server_json.php" in str(caught.value)
    assert standin.calls("ConsultaTopicos") == 1  # a wrong URL is not retried


@pytest.mark.parametrize("raw", ["Fatal error: Uncaught exception", '{"status": 1, "result": [', "[1, 2]",
                                 '{"result": []}', '{"status": "maybe", "result": []}'])
async def test_odd_envelope_is_refused(standin: StandIn, client: IspClient, raw: str) -> None:
    standin.answer("ConsultaTopicos", raw=raw)
    with pytest.raises(IspBadResponse):
        await client.ConsultaTopicos()


async def test_odd_record_never_fails_the_list(standin: StandIn, client: IspClient,
                                               caplog: pytest.LogCaptureFixture) -> None:
    standin.answer("ConsultaTopicos", v1_ok([
        {"Codigo": "1", "Nome": "Sem internet", "Situacao": "A", "Central": "S"},
        {"Codigo": "dois", "Nome": 3, "Situacao": "Z", "Novo": "campo"},
        "not a record",
        {"Codigo": 3, "Nome": "Lentidão", "Situacao": "I"},
    ]))
    first, odd, third = await client.ConsultaTopicos()
    assert first.Codigo == 1 and third.Codigo == 3  # numbers where strings are usual: read
    assert odd.Codigo is None and odd.odd_fields == {"Codigo": "dois", "Situacao": "Z"}
    assert odd.Nome == "3"  # a number where a string is usual
    assert odd.model_extra == {"Novo": "campo"}
    assert "Codigo" in caplog.text and "dois" not in caplog.text


async def test_invalid_date_in_a_record_is_kept_raw(standin: StandIn, client: IspClient) -> None:
    standin.answer("ConsultaAtendimentos", v1_ok([{"Numero": "10", "Abertura_DataHora": "2024-15-01 10:00:00",
                                                   "Data_Agendamento": "2024-15-01"}]))
    (ticket,) = await client.ConsultaAtendimentos()
    assert ticket.Numero == 10
    assert ticket.Data_Agendamento is None
    assert ticket.odd_fields["Data_Agendamento"] == "2024-15-01"


async def test_http_404_names_the_settings_to_fix(standin: StandIn, client: IspClient) -> None:
    standin.answer("ConsultaTopicos", {"error": "not found"}, status=404)
    with pytest.raises(IspHttpError) as caught:
        await client.ConsultaTopicos()
    assert caught.value.status_code == 404
    assert "ISPBOT_ISP_BASE_URL" in str(caught.value)
    assert standin.calls("ConsultaTopicos") == 1  # a client error is not retried
