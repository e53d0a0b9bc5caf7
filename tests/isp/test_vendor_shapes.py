"""Requests shaped as the vendor's own published examples are sent, not refused before sending.

Strict about meaning, lenient about representation: ``""`` (or an optional group of empty fields) is
"not given", ``0`` is a value, a coordinate is rounded to the 13 decimals the service stores, one
object where a repeatable group is expected is a list of one. The first tests are the shapes seen in
the vendor's examples; the last ones audit every request model of the catalog for the same class of
refusal, starting from each operation's valid sample request.
"""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import pytest
from bot.commands.call import build_request
from bot.isp.catalog import OPERATIONS
from bot.isp.errors import InvalidRequestError
from bot.isp.models.base import Empty, Request
from pydantic import BaseModel, ValidationError

from tests.isp.samples import Sample
from tests.isp.samples_finance import SAMPLES as FINANCE
from tests.isp.samples_v1 import SAMPLES as V1
from tests.isp.samples_v2 import SAMPLES as V2

SAMPLES: dict[str, Sample] = V1 | V2 | FINANCE
WITH_FIELDS = sorted(name for name, op in OPERATIONS.items()
                     if op.request_model is not None and op.request_model is not Empty)


def payload_of(name: str) -> dict[str, Any]:
    """The sample request's payload as an object (chat_messages, whose value is a list, as ``messages``)."""
    request = SAMPLES[name].request
    assert isinstance(request, Request)
    payload = request.to_payload()
    return {"messages": payload} if isinstance(payload, list) else payload


def resent(name: str, params: dict[str, Any]) -> Any:
    model = OPERATIONS[name].request_model
    assert model is not None and issubclass(model, Request)
    payload = model.model_validate(params).to_payload()
    return {"messages": payload} if isinstance(payload, list) else payload


def build(name: str, params: dict[str, Any]) -> Any:
    """The request ``ispbot call NAME --json PARAMS`` builds (generation 1.0: inside its group)."""
    op = OPERATIONS[name]
    return build_request(op, {op.group: params} if op.group else params, None)


def sent(name: str, params: dict[str, Any]) -> Any:
    """What ``ispbot call NAME --json PARAMS`` would send."""
    request = build(name, params)
    assert isinstance(request, Request)
    return request.to_payload()


# ---- the shapes of the vendor's examples ---------------------------------------------------------
def test_an_empty_optional_code_is_not_given() -> None:
    params = payload_of("AtendimentoCadastro") | {"Contato": "", "Contrato": ""}
    body = sent("AtendimentoCadastro", params)
    assert "Contato" not in body and "Contrato" not in body


def test_an_optional_group_of_empty_fields_is_not_given() -> None:
    params = payload_of("PedidoCadastro")
    params["Adesao"] = {"TipoPlano": "", "CodigoPlano": "", "NroParcelas": "", "FormaPagto": "", "Cobranca": "",
                        "Conta": "", "Historico": "", "Banco": "", "Convenio": ""}
    assert "Adesao" not in sent("PedidoCadastro", params)


def test_an_empty_optional_phone_is_not_given() -> None:
    params = payload_of("contact_create") | {"phone_2": "", "phone_3": "", "birthday": ""}
    body = sent("contact_create", params)
    assert not {"phone_2", "phone_3", "birthday"} & set(body)


def test_a_zero_discount_is_a_value() -> None:
    params = payload_of("ticket_item_insert") | {"discount_amount": 0}
    assert sent("ticket_item_insert", params)["discount_amount"] == 0


def test_a_gps_reading_with_more_decimals_is_rounded_to_what_the_service_stores() -> None:
    gps = {"latitude": -23.55052123456789, "longitude": "-46.63330812345678"}
    body = sent("ticket_os_status_update", payload_of("ticket_os_status_update") | {"coordinates": gps})
    assert Decimal(str(body["coordinates"]["latitude"])) == Decimal("-23.5505212345679")
    assert Decimal(str(body["coordinates"]["longitude"])) == Decimal("-46.6333081234568")


def test_one_invoice_where_a_list_is_expected_is_a_list_of_one() -> None:
    params = payload_of("NotasFiscaisCadastro")
    (invoice,) = params["Nota"][:1]
    body = sent("NotasFiscaisCadastro", params | {"Nota": invoice})
    assert body["Nota"] == [invoice]


def test_an_item_code_written_with_letters_is_sent_as_it_is() -> None:
    params = payload_of("NotasFiscaisCadastro")
    params["Nota"][0]["Itens"]["Item"][0]["Codigo"] = "RBX2023"  # the vendor's own example
    (item,) = sent("NotasFiscaisCadastro", params)["Nota"][0]["Itens"]["Item"]
    assert item["Codigo"] == "RBX2023"
    params["Nota"][0]["Itens"]["Item"][0]["Codigo"] = "12"
    assert sent("NotasFiscaisCadastro", params)["Nota"][0]["Itens"]["Item"][0]["Codigo"] == 12


def test_an_empty_enrollment_plan_type_is_the_type_of_the_item_it_names() -> None:
    params = payload_of("PedidoCadastro")
    params["Adesao"] = params["Adesao"] | {"TipoPlano": ""}  # the vendor's own example
    (item,) = params["Itens"]["ItemP"]
    assert sent("PedidoCadastro", params)["Adesao"]["TipoPlano"] == item["Tipo"] == "P"


# Shaped as the vendor's published examples of NotasFiscaisCadastro and PedidoCadastro (values as
# strings, one object where a list is expected), each with its error twin: the same request, which the
# service answers with an error of its own (98: an issue date too early; 135: an enrollment without
# installments). Neither may be refused before it is sent.
INVOICE_EXAMPLE = {"Nota": {
    "Cabecalho": {"CodigoCliente": "9", "Modelo": "21", "DataEmissao": "2023-12-01", "TipoUtilizacao": "4",
                  "NaturezaOperacao": "Prestacao de Servicos de Comunicacao", "InformacoesAdicionais": "Adicionais",
                  "Situacao": "N"},
    "Itens": {"Item": {"Codigo": "RBX2023", "Descricao": "Item 1", "CFOP": "5301", "Unidade": "UN",
                       "Valor": "150.00", "ICMSValorBaseCalculo": "100.00", "ICMSValorAliquota": "10.00",
                       "ICMSCodigoReducaoBaseCalculo": "01", "CodigoClassificacaoItem": "104"}},
}}
ORDER_EXAMPLE = {
    "Geral": {"Cliente": "6", "TipoCliente": "C", "CicloFat": "1", "Assinatura": "2023-12-01",
              "Vendedor": "joao.silva", "Usuario": "joao.silva"},
    "Adesao": {"TipoPlano": "", "CodigoPlano": "1", "NroParcelas": "2", "FormaPagto": "", "Cobranca": "",
               "Conta": "3", "Historico": "1", "Banco": "104", "Convenio": "123456", "PreLancamentoContabil": ""},
    "Parcelas": {"Parcela": [{"Descricao": "Parcela 1", "Vencimento": "2023-12-10", "Valor": "50.00"},
                             {"Descricao": "Parcela 2", "Vencimento": "2024-01-10", "Valor": "50.00"}]},
    "Itens": {"ItemP": {"Tipo": "P", "Codigo": "1", "InicioCobranca": "2023-12-01", "AgruparCobranca": "S",
                        "DescPromoPrazo": "12", "DescPromoValor": -20, "DescPromoDesc": "DESCONTO PROMOCIONAL"}},
}


def test_the_vendors_invoice_example_and_its_error_twin_are_sent() -> None:
    for issued in ("2023-12-01", "2020-01-01"):  # the twin: an issue date the service finds too early
        example = copy.deepcopy(INVOICE_EXAMPLE)
        example["Nota"]["Cabecalho"]["DataEmissao"] = issued
        (item,) = sent("NotasFiscaisCadastro", example)["Nota"][0]["Itens"]["Item"]
        assert (item["Valor"], item["ICMSValorBaseCalculo"], item["ICMSValorAliquota"]) == (150.0, 100.0, 10.0)


def test_the_vendors_order_example_and_its_error_twin_are_sent() -> None:
    body = sent("PedidoCadastro", copy.deepcopy(ORDER_EXAMPLE))
    assert "FormaPagto" not in body["Adesao"] and "Cobranca" not in body["Adesao"]  # the ISP's defaults
    assert body["Adesao"]["TipoPlano"] == "P" and body["Itens"]["ItemP"][0]["DescPromoValor"] == -20
    twin = {name: group for name, group in copy.deepcopy(ORDER_EXAMPLE).items() if name != "Parcelas"}
    assert "Parcelas" not in sent("PedidoCadastro", twin)  # the service answers 135: no installment


def test_an_icms_beyond_what_the_service_stores_is_still_refused() -> None:
    for field, value in (("ICMSValorBaseCalculo", "1000.00"), ("ICMSValorAliquota", "10.001")):
        example = copy.deepcopy(INVOICE_EXAMPLE)
        example["Nota"]["Itens"]["Item"][field] = value
        with pytest.raises(InvalidRequestError, match=field):
            build("NotasFiscaisCadastro", example)
    example = copy.deepcopy(ORDER_EXAMPLE)
    example["Adesao"]["FormaPagto"] = "C"
    with pytest.raises(InvalidRequestError, match="FormaPagto"):
        build("PedidoCadastro", example)


def test_a_serial_and_a_stock_location_together_are_sent_for_the_server_to_judge() -> None:
    params = payload_of("ticket_item_insert") | {"serial_number": "ZTEG1234ABCD", "quantity": 1, "location_id": 3}
    params = params | {"discount_amount": "", "installments_quantity": 1, "installments_detail": ""}
    body = sent("ticket_item_insert", params)  # the vendor's own example sends both
    assert body["serial_number"] == "ZTEG1234ABCD" and body["location_id"] == 3


def test_what_changes_meaning_is_still_refused() -> None:
    with pytest.raises(InvalidRequestError, match="Cliente"):
        build("AtendimentoCadastro", payload_of("AtendimentoCadastro") | {"Cliente": ""})
    with pytest.raises(InvalidRequestError, match="discount_amount"):
        build("ticket_item_insert", payload_of("ticket_item_insert") | {"discount_amount": -1})
    with pytest.raises(InvalidRequestError, match="Codigo"):
        params = payload_of("NotasFiscaisCadastro")
        params["Nota"][0]["Itens"]["Item"][0]["Codigo"] = " "
        build("NotasFiscaisCadastro", params)
    with pytest.raises(InvalidRequestError, match="TipoPlano"):  # empty, and no item has that code
        build("PedidoCadastro", payload_of("PedidoCadastro") | {
            "Adesao": payload_of("PedidoCadastro")["Adesao"] | {"TipoPlano": "", "CodigoPlano": 99}})
    with pytest.raises(InvalidRequestError, match="serial_number"):  # a service never leaves a stock
        build("ticket_item_insert", payload_of("ticket_item_insert") | {"type": "service", "serial_number": "X1"})
    with pytest.raises(InvalidRequestError, match="latitude"):
        build("ticket_os_status_update", payload_of("ticket_os_status_update")
              | {"coordinates": {"latitude": 91.00000000000001, "longitude": -46.6}})


# ---- every request model, audited ----------------------------------------------------------------
def blanked(model: type[BaseModel], payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with every optional field it leaves out sent as ``""``, in nested groups too."""
    out = dict(payload)
    for name, info in model.model_fields.items():
        if info.exclude:
            continue
        wire = info.alias or name
        if wire not in out and not info.is_required():
            out[wire] = ""
        sub = _nested_model(info.annotation)
        if sub is not None and isinstance(out.get(wire), dict):
            out[wire] = blanked(sub, out[wire])
        elif sub is not None and isinstance(out.get(wire), list):
            out[wire] = [blanked(sub, item) if isinstance(item, dict) else item for item in out[wire]]
    return out


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    for arg in (annotation, *getattr(annotation, "__args__", ()), *getattr(annotation, "__metadata__", ())):
        if isinstance(arg, type) and issubclass(arg, Request):
            return arg
        if arg is not annotation:
            found = _nested_model(arg)
            if found is not None:
                return found
    return None


@pytest.mark.parametrize("name", WITH_FIELDS)
def test_every_optional_field_may_come_as_an_empty_string(name: str) -> None:
    model = OPERATIONS[name].request_model
    assert model is not None
    payload = payload_of(name)
    assert resent(name, blanked(model, payload)) == payload


def group_paths(value: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Where the payload holds a list of groups (objects), at any depth."""
    found: list[tuple[str, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, list) and item and isinstance(item[0], dict):
                found.append((*path, key))
            found += group_paths(item, (*path, key))
    return found


def replaced(payload: dict[str, Any], path: tuple[str, ...], new: Any) -> dict[str, Any]:
    head, *rest = path
    return payload | {head: replaced(payload[head], tuple(rest), new) if rest else new}


def at(payload: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        payload = payload[key]
    return payload


@pytest.mark.parametrize("name", WITH_FIELDS)
def test_every_repeatable_group_may_come_as_one_object(name: str) -> None:
    payload = payload_of(name)
    for path in group_paths(payload):
        first = at(payload, path)[0]
        try:
            expected = resent(name, replaced(payload, path, [first]))
        except ValidationError:
            continue  # the sample's rules need all its entries (installments adding up): nothing to compare
        assert resent(name, replaced(payload, path, first)) == expected, path


def test_the_audit_reads_every_operation_that_takes_parameters() -> None:
    assert all(isinstance(SAMPLES[name].request, Request) for name in WITH_FIELDS)
    assert len(WITH_FIELDS) >= 55
