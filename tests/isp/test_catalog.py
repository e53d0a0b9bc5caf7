"""Every one of the 115 operations, called through its typed method with a valid request, against a
stand-in answering the spec's shapes; the typed result is checked."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from bot.isp import Generation, IspClient
from bot.isp.catalog import OPERATIONS, Kind

from tests.isp.samples import Sample
from tests.isp.samples_finance import SAMPLES as FINANCE
from tests.isp.samples_v1 import SAMPLES as V1
from tests.isp.samples_v2 import SAMPLES as V2
from tests.isp.standin import KEY, StandIn, v1_ok, v2_ok

SAMPLES: dict[str, Sample] = V1 | V2 | FINANCE


def test_the_catalog_has_every_operation_of_the_spec() -> None:
    generations = [op.generation for op in OPERATIONS.values()]
    assert generations.count(Generation.V1) == 47
    assert generations.count(Generation.V2) == 52 + 16  # parts 4 of the second document, the third
    for spelled_so in ("ConsutaFornecedores", "virtual_collector_costumer_list", "generate_questionare_link"):
        assert spelled_so in OPERATIONS
    assert set(SAMPLES) == set(OPERATIONS)


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_every_operation_has_a_typed_method_of_its_name(name: str) -> None:
    method = getattr(IspClient, name)
    assert inspect.iscoroutinefunction(method)
    assert method.__doc__, f"{name} needs a docstring"


@pytest.mark.parametrize("name", sorted(OPERATIONS))
async def test_every_operation_end_to_end(standin: StandIn, client: IspClient, name: str) -> None:
    op = OPERATIONS[name]
    sample = SAMPLES[name]
    if op.bare:
        standin.answer(name, sample.result)
    elif op.generation is Generation.V1:
        standin.answer(name, v1_ok(sample.result))
    else:
        standin.answer(name, v2_ok(sample.result))
    method = getattr(client, name)
    takes_argument = len(inspect.signature(method).parameters) > 0
    result: Any = await (method(sample.request) if takes_argument else method())
    sample.check(result)

    (seen,) = standin.seen
    assert list(seen.body) == [name]  # the operation is the only root key
    if op.generation is Generation.V1:
        assert seen.path == "/ws/server_json.php"
        assert seen.body[name]["Autenticacao"] == {"ChaveIntegracao": KEY}
        if op.group:
            assert op.group in seen.body[name]
    else:
        assert seen.path == "/ws_json/ws_json.php"
        assert seen.headers["authentication_key"] == KEY
        expected_type = list if name == "chat_messages" else dict
        assert isinstance(seen.body[name], expected_type)


def test_writes_and_queries_are_told_apart() -> None:
    writes = {name for name, op in OPERATIONS.items() if op.kind is Kind.WRITE}
    assert {"AtendimentoCadastro", "ticket_finish", "chat_messages", "ticket_os_status_update",
            "contract_unblock", "ClienteCadastro", "PedidoCadastro"} <= writes
    assert {"ConsultaAtendimentos", "ConsultaLinhaDigitavelBoleto", "get_online_customer",
            "consult_appointments"}.isdisjoint(writes)
