"""Generation-1.0 models and catalog entries: request rules refused before sending, lenient records,
the full list of operations and the filter names each query accepts."""

from __future__ import annotations

import inspect
from datetime import date
from decimal import Decimal
from enum import Enum
from typing import Any

import pytest
from bot.isp.catalog import OPERATIONS, Kind, v1
from bot.isp.catalog.base import EncodeContext
from bot.isp.catalog.v1 import V1_OPERATIONS
from bot.isp.errors import ErrorName as E
from bot.isp.errors import FilterError, Generation
from bot.isp.filters import F
from bot.isp.models import v1_records, v1_requests
from pydantic import BaseModel, ValidationError

# ---- the operation list (first document, section 4.2 and 4.3) ------------------------------------
FILTERED = [
    "ConsultaAtendimentos",
    "ConsultaCausas",
    "ConsultaChecklistAtendimentos",
    "ConsultaFluxos",
    "ConsultaOcorrenciasAtendimentos",
    "ConsultaTopicos",
    "ConsultaAutenticacao",
    "ConsultaAutenticacaoSenha",
    "ConsultaClientes",
    "ConsultaClientesBloqueados",
    "ConsultaClientesReducao",
    "ConsultaClienteOnline",
    "ConsultaContatos",
    "ConsultarDadosAdicionais",
    "ConsultaClientesCobranca",
    "ConsultaEquipamentosOnline",
    "ConsultaMercados",
    "ConsultaContratos",
    "ConsultaContratosBloqueados",
    "ConsultaModelosProduto",
    "ConsultaTiposProduto",
    "ConsultaUnidadesProduto",
    "ConsultaCartoesCadastrados",
    "ConsultaDocumentosBaixados",
    "ConsultaDocumentosAbertos",
    "FailOverEvents",
    "ConsutaFornecedores",
    "ConsultaStatusNAS",
]
UNFILTERED = [
    "ConsultaGruposSLA",
    "ConsultaComplementoContatos",
    "ConsultaGruposCliente",
    "ConsultaConcorrencia",
    "ConsultaMotivosCancelamento",
    "ConsultaCiclosFaturamento",
    "ConsultaGruposCobranca",
    "ConsultaDadosAdicionais",
    "ConsultaPlanos",
    "ConsultaQoS",
    "ConsultaUsuarios",
]
WRITES = [
    "AtendimentoCadastro",
    "ClienteCadastro",
    "MercadoCadastro",
    "ClienteAlteracao",
    "MercadoAlteracao",
    "NotasFiscaisCadastro",
    "PedidoCadastro",
]


def test_v1_has_exactly_the_47_operations_of_the_spec() -> None:
    names = [op.name for op in V1_OPERATIONS]
    assert len(names) == 47 == len(set(names))
    assert set(names) == {*FILTERED, *UNFILTERED, *WRITES, "ConsultaLinhaDigitavelBoleto"}
    assert all(op.generation is Generation.V1 for op in V1_OPERATIONS)


def test_kinds_groups_and_filters() -> None:
    for name in FILTERED:
        assert OPERATIONS[name].kind is Kind.QUERY and OPERATIONS[name].filterable, name
    for name in UNFILTERED:
        assert OPERATIONS[name].kind is Kind.QUERY and not OPERATIONS[name].filterable, name
    for name in WRITES:
        op = OPERATIONS[name]
        assert op.kind is Kind.WRITE and op.group.startswith("Dados") and op.request_model is not None, name
    boleto = OPERATIONS["ConsultaLinhaDigitavelBoleto"]
    assert boleto.kind is Kind.QUERY and boleto.group == "DadosLinhaDigitavelEntrada"
    assert boleto.request_model is v1_requests.DigitableLineQuery


def test_module_variables_are_named_as_the_operations() -> None:
    for op in V1_OPERATIONS:
        assert getattr(v1, op.name) is op


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        (
            "ConsultaAtendimentos",
            {
                "Atendimentos.Data_AB",
                "Atendimentos.Hora_AB",
                "Atendimentos.Usu_abertura",
                "Atendimentos.Usu_Designado",
                "Atendimentos.Grupo_Designado",
                "UsuariosGrupoSetor.Grupo",
                "Atendimentos.SituacaoOS",
                "AtendT.Nome",
                "AtendT.Descricao",
                "Atendimentos.Assunto",
                "Atendimentos.Solucao",
                "Atendimentos.Data_BX",
                "Atendimentos.Hora_BX",
                "AtendC.Nome",
                "AtendC.Descricao",
                "Atendimentos.Tipo",
                "Atendimentos.TipoCli",
                "Atendimentos.Cliente",
                "Atendimentos.Data_Prox",
                "Atendimentos.Hora_Prox",
                "Atendimentos.Duracao_Prox",
                "Atendimentos.SituacaoAgendamento",
            },
        ),
        (
            "ConsultaOcorrenciasAtendimentos",
            {"Data", "Descricao", "Modo", "Usuario", "MapsLat", "MapsLng", "Atendimento"},
        ),
        ("ConsultaContatos", {"Cliente", "id"}),
        ("ConsultaDocumentosAbertos", {"Data", "Cliente", "BcoCobr", "NroBanco", "DataLancto", "Vencimento"}),
        (
            "ConsultaDocumentosBaixados",
            {
                "Movimento.Sequencia",
                "Movimento.Tipo",
                "Movimento.Cobranca",
                "Movimento.Cliente",
                "Clientes.CNPJ_CNPF",
                "Fornecedores.CNPJ_CNPF",
                "Mercado.CNPJ_CNPF",
                "Clientes.Nome",
                "Fornecedores.Nome",
                "Mercado.Nome",
                "Movimento.Conta",
                "Historicos.Descricao",
                "HistoricosBaixa.Descricao",
                "Movimento.BxCPartida",
                "Movimento.Documento",
                "Movimento.NroBanco",
                "Movimento.Origem",
                "Movimento.BcoCobr",
                "Movimento.Convenio",
                "Movimento.Complemento",
                "Movimento.DataLancto",
                "Movimento.Data",
                "Movimento.DataBaixa",
                "Movimento.MotivoBaixa",
                "Movimento.FormaPagto",
                "Movimento.Valor",
                "Movimento.BxJuros",
                "Movimento.BxMulta",
                "Movimento.BxDesconto",
                "Movimento.Bxusuario",
                "Movimento.BaixaDataHora",
            },
        ),
        ("ConsultaClientes", {"CNPJ_CNPF", "Situacao", "MapsMarkLat", "usuario"}),
        ("ConsultaAutenticacaoSenha", {"Usuario", "Senha", "MAC"}),
    ],
)
def test_filtered_queries_accept_their_alternative_names(name: str, extra: set[str]) -> None:
    op = OPERATIONS[name]
    assert extra <= op.filter_names
    for field in sorted(extra):
        payload = op.encode(F(field) == "x", EncodeContext())
        assert payload == {"Filtro": f"{field} = 'x'"}


def test_a_name_the_query_does_not_return_is_refused_before_sending() -> None:
    with pytest.raises(FilterError, match="Nome"):
        OPERATIONS["ConsultaStatusNAS"].encode(F("Nome") == "x", EncodeContext())
    assert OPERATIONS["ConsultaGruposSLA"].encode(None, EncodeContext()) == {}


def test_documented_error_codes_are_mapped() -> None:
    expected = {
        "AtendimentoCadastro": {223: E.MARKETING_STIMULUS_NOT_COMMERCIAL},
        "ClienteCadastro": {1: E.REQUIRED_FIELD_MISSING},
        "MercadoCadastro": {1: E.REQUIRED_FIELD_MISSING},
        "ClienteAlteracao": {4: E.INVALID_CODE},
        "MercadoAlteracao": {4: E.INVALID_CODE},
        "NotasFiscaisCadastro": {98: E.INVOICE_ISSUE_DATE_TOO_EARLY},
        "PedidoCadastro": {135: E.ENROLLMENT_WITHOUT_INSTALLMENT},
        "ConsultaLinhaDigitavelBoleto": {1: E.DOCUMENT_NOT_FOUND},
    }
    for op in V1_OPERATIONS:
        assert dict(op.errors) == expected.get(op.name, {}), op.name


# ---- names: no type may be shadowed by a field ---------------------------------------------------
@pytest.mark.parametrize("module", [v1_records, v1_requests])
def test_no_class_or_type_name_equals_a_field_name(module: Any) -> None:
    models = [v for v in vars(module).values() if inspect.isclass(v) and issubclass(v, BaseModel)]
    fields = {name for model in models for name in model.model_fields}
    # Every module-level name counts: classes, enums, type aliases and imports alike.
    assert not (set(vars(module)) & fields)
    assert "Latitude" in fields and "Situacao" in fields  # the clash this guards against is real


def test_enums_have_readable_member_names() -> None:
    for module in (v1_records, v1_requests):
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, Enum) and value.__module__ == module.__name__:
                for member in value:
                    assert member.name.isupper() and len(member.name) > 1, (value, member)


# ---- requests: every rule refused, the field named ----------------------------------------------
TICKET: dict[str, Any] = {
    "Data_Abertura": "2024-05-03",
    "Hora_Abertura": "09:14:22",
    "Iniciativa": "C",
    "Modo": "1",
    "TipoCliente": "C",
    "Cliente": 1532,
    "Assunto": "Sem internet",
}
CUSTOMER: dict[str, Any] = {
    "TipoPessoa": "P",
    "CPF": "01234567890",
    "Nome": "João",
    "CodMunicipio": 3509502,
    "UF": "SP",
    "TipoConta": "POS",
}
COMPANY: dict[str, Any] = {**CUSTOMER, "TipoPessoa": "J", "CPF": None, "CNPJ": "04252011000110"}
HEADER: dict[str, Any] = {
    "CodigoCliente": 1532,
    "Modelo": 21,
    "DataEmissao": "2024-05-01",
    "TipoUtilizacao": 4,
    "NaturezaOperacao": "Serviço",
    "Situacao": "N",
}
ITEM: dict[str, Any] = {
    "Codigo": 1,
    "Descricao": "Internet",
    "CFOP": 5307,
    "Unidade": "UN",
    "Valor": "99.90",
    "CodigoClassificacaoItem": "0104",
}
ORDER_ITEM: dict[str, Any] = {
    "Tipo": "P",
    "Codigo": 12,
    "InicioCobranca": "2024-05-03",
    "AgruparCobranca": "S",
}
ORDER: dict[str, Any] = {
    "Geral": {"Cliente": 1532, "TipoCliente": "C", "CicloFat": 1, "Assinatura": "2024-05-03"},
    "Itens": {"ItemP": [ORDER_ITEM]},
}
ENROLLMENT: dict[str, Any] = {
    "TipoPlano": "P",
    "CodigoPlano": 12,
    "NroParcelas": 1,
    "FormaPagto": "B",
    "Cobranca": "R",
    "Conta": 3,
    "Historico": 8,
    "Banco": 341,
    "Convenio": 1234,
}


def _invoice(header: dict[str, Any] | None = None, item: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "Nota": [{"Cabecalho": {**HEADER, **(header or {})}, "Itens": {"Item": [{**ITEM, **(item or {})}]}}]
    }


def _without(data: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != key}


REFUSED: list[tuple[type[BaseModel], dict[str, Any], str]] = [
    # AtendimentoCadastro
    *[
        (v1_requests.TicketCreate, _without(TICKET, key), key)
        for key in (
            "Data_Abertura",
            "Hora_Abertura",
            "Iniciativa",
            "Modo",
            "TipoCliente",
            "Cliente",
            "Assunto",
        )
    ],
    (v1_requests.TicketCreate, {**TICKET, "Iniciativa": "X"}, "Iniciativa"),
    (v1_requests.TicketCreate, {**TICKET, "TipoCliente": "F"}, "TipoCliente"),
    (v1_requests.TicketCreate, {**TICKET, "Situacao": "F"}, "Situacao"),
    (v1_requests.TicketCreate, {**TICKET, "Tipo": "X", "Topico": 3}, "Tipo"),
    (v1_requests.TicketCreate, {**TICKET, "Data_Abertura": "03/05/2024"}, "Data_Abertura"),
    (v1_requests.TicketCreate, {**TICKET, "Hora_Abertura": "9:14"}, "Hora_Abertura"),
    (v1_requests.TicketCreate, {**TICKET, "Hora_Abertura": "25:00:00"}, "Hora_Abertura"),
    (v1_requests.TicketCreate, {**TICKET, "Topico": 3, "Fluxo": 2}, "Topico"),
    (v1_requests.TicketCreate, {**TICKET, "Tipo": "T"}, "Tipo"),
    (v1_requests.TicketCreate, {**TICKET, "Tipo": "T", "Fluxo": 2}, "Tipo"),
    (v1_requests.TicketCreate, {**TICKET, "TipoCliente": "M", "Contrato": 2087}, "Contrato"),
    (v1_requests.TicketCreate, {**TICKET, "Tipo": "T", "Topico": 3, "Estimulo_Marketing": 5}, "Estimulo_Marketing"),
    (v1_requests.TicketCreate, {**TICKET, "Extra": 1}, "Extra"),
    # ClienteCadastro / MercadoCadastro
    *[
        (model, _without(CUSTOMER, key), key)
        for model in (v1_requests.CustomerCreate, v1_requests.MarketCreate)
        for key in ("TipoPessoa", "CPF", "Nome", "CodMunicipio", "UF", "TipoConta")
    ],
    (v1_requests.CustomerCreate, _without(COMPANY, "CNPJ"), "CNPJ"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "TipoPessoa": "F"}, "TipoPessoa"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "CPF": "123"}, "CPF"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "CNPJ": "04252011000110"}, "CNPJ"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "IE": "669123456110"}, "IE"),
    (v1_requests.CustomerCreate, {**COMPANY, "RG": "123456789"}, "RG"),
    (v1_requests.CustomerCreate, {**COMPANY, "CPF": "01234567890"}, "CPF"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "TipoConta": "MENSAL"}, "TipoConta"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Cobranca": "X"}, "Cobranca"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "TipoImpressao": "X"}, "TipoImpressao"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "TipoAssinante": 7}, "TipoAssinante"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "TipoAssinante2": 9}, "TipoAssinante2"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "CFOP": 5308}, "CFOP"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "CFOP": 5300}, "CFOP"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "CFOP": 6308}, "CFOP"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "DiaVencimento": 32}, "DiaVencimento"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "DiaVencimento": -1}, "DiaVencimento"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "ContribuinteICMS": 3}, "ContribuinteICMS"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "DebitoOperacao": "002"}, "DebitoOperacao"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "DebitoOperacao": "001", "Banco": 341}, "DebitoOperacao"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "AvisoPagamento": "X"}, "AvisoPagamento"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Bloqueavel": "X"}, "Bloqueavel"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Latitude": "-22.9"}, "Longitude"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Longitude": "-47.0"}, "Latitude"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Latitude": "-91", "Longitude": "-47.0"}, "Latitude"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Latitude": "-22.9", "Longitude": "181"}, "Longitude"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Nascimento": "21/07/1985"}, "Nascimento"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "CEP": "1301500"}, "CEP"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "UF": "São Paulo"}, "UF"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "BuscarCoordenadaS": "S"}, "BuscarCoordenadaS"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Codigo": 1532}, "Codigo"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "CobrCartaoId": 3}, "CobrCartaoId"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Contatos": {"Contato": [{"Tipo": "G"}]}}, "Nome"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Contatos": {"Contato": [{"Nome": "Maria"}]}}, "Tipo"),
    (v1_requests.CustomerCreate, {**CUSTOMER, "Contatos": {"Contato": [{"Nome": "Maria", "Tipo": "X"}]}}, "Tipo"),
    (
        v1_requests.CustomerCreate,
        {**CUSTOMER, "Contatos": {"Contato": [{"Nome": "M", "Tipo": "G", "Codigo": 7}]}},
        "Codigo",
    ),
    (
        v1_requests.CustomerCreate,
        {**CUSTOMER, "Contatos": {"Contato": [{"Nome": "M", "Tipo": "G", "Situacao": "X"}]}},
        "Situacao",
    ),
    (
        v1_requests.CustomerCreate,
        {**CUSTOMER, "DadosAdicionais": {"DadoAdicional": [{"Codigo": 4, "Conteudo": "x", "Id": 1}]}},
        "Id",
    ),
    (v1_requests.CustomerCreate, {**CUSTOMER, "DadosAdicionais": {"DadoAdicional": [{"Conteudo": "x"}]}}, "Codigo"),
    # ClienteAlteracao / MercadoAlteracao
    (v1_requests.CustomerChange, {"Nome": "João"}, "Codigo"),
    (v1_requests.MarketChange, {"Nome": "João"}, "Codigo"),
    (v1_requests.CustomerChange, {"Codigo": 1532, "BuscarCoordenadas": "S"}, "BuscarCoordenadas"),
    (v1_requests.CustomerChange, {"Codigo": 1532, "TipoPessoa": "J", "RG": "123"}, "RG"),
    (v1_requests.CustomerChange, {"Codigo": 1532, "TipoPessoa": "P", "IE": "123"}, "IE"),
    (v1_requests.CustomerChange, {"Codigo": 1532, "Latitude": "-22.9"}, "Longitude"),
    (v1_requests.CustomerChange, {"Codigo": 1532, "DiaVencimento": 40}, "DiaVencimento"),
    (v1_requests.CustomerChange, {"Codigo": 1532, "Contatos": {"Contato": [{"Codigo": 7, "Tipo": "Z"}]}}, "Tipo"),
    # NotasFiscaisCadastro
    (v1_requests.InvoicesCreate, {"Nota": []}, "Nota"),
    (v1_requests.InvoicesCreate, {}, "Nota"),
    *[
        (v1_requests.InvoicesCreate, {"Nota": [{"Cabecalho": _without(HEADER, key), "Itens": {"Item": [ITEM]}}]}, key)
        for key in HEADER
    ],
    *[
        (v1_requests.InvoicesCreate, {"Nota": [{"Cabecalho": HEADER, "Itens": {"Item": [_without(ITEM, key)]}}]}, key)
        for key in ITEM
    ],
    (v1_requests.InvoicesCreate, {"Nota": [{"Cabecalho": HEADER, "Itens": {"Item": []}}]}, "Item"),
    (v1_requests.InvoicesCreate, {"Nota": [{"Cabecalho": HEADER}]}, "Itens"),
    (v1_requests.InvoicesCreate, _invoice({"Situacao": "X"}), "Situacao"),
    (v1_requests.InvoicesCreate, _invoice({"TipoUtilizacao": 7}), "TipoUtilizacao"),
    (v1_requests.InvoicesCreate, _invoice({"Modelo": 55}), "Modelo"),
    (v1_requests.InvoicesCreate, _invoice({"DataEmissao": "2024-13-01"}), "DataEmissao"),
    (v1_requests.InvoicesCreate, _invoice(item={"Valor": "99.999"}), "Valor"),
    (v1_requests.InvoicesCreate, _invoice(item={"Valor": "1234567890123456.00"}), "Valor"),
    (v1_requests.InvoicesCreate, _invoice(item={"ICMSValorAliquota": "1000.00"}), "ICMSValorAliquota"),
    (v1_requests.InvoicesCreate, _invoice(item={"ICMSValorAliquota": "18.005"}), "ICMSValorAliquota"),
    (v1_requests.InvoicesCreate, _invoice(item={"ICMSValorBaseCalculo": "1.234"}), "ICMSValorBaseCalculo"),
    # PedidoCadastro
    (v1_requests.OrderCreate, _without(ORDER, "Geral"), "Geral"),
    (v1_requests.OrderCreate, _without(ORDER, "Itens"), "Itens"),
    (v1_requests.OrderCreate, {**ORDER, "Itens": {"ItemP": []}}, "ItemP"),
    *[
        (v1_requests.OrderCreate, {**ORDER, "Geral": _without(ORDER["Geral"], key)}, key)
        for key in ("Cliente", "TipoCliente", "CicloFat", "Assinatura")
    ],
    (v1_requests.OrderCreate, {**ORDER, "Geral": {**ORDER["Geral"], "TipoCliente": "X"}}, "TipoCliente"),
    *[(v1_requests.OrderCreate, {**ORDER, "Itens": {"ItemP": [_without(ORDER_ITEM, key)]}}, key) for key in ORDER_ITEM],
    (v1_requests.OrderCreate, {**ORDER, "Itens": {"ItemP": [{**ORDER_ITEM, "Tipo": "X"}]}}, "Tipo"),
    *[
        (
            v1_requests.OrderCreate,
            {**ORDER, "Itens": {"ItemP": [{**ORDER_ITEM, "AgruparCobranca": value}]}},
            "AgruparCobranca",
        )
        for value in ("X", 0, 21, "21", "", True)
    ],
    (
        v1_requests.OrderCreate,
        {**ORDER, "Itens": {"ItemP": [{**ORDER_ITEM, "DescPromoValor": "1.001"}]}},
        "DescPromoValor",
    ),
    # TipoPlano left out is the type of the item CodigoPlano names, FormaPagto and Cobranca the ISP's
    # defaults (the vendor's own example leaves all three empty: test_vendor_shapes), not a refusal.
    *[(v1_requests.OrderCreate, {**ORDER, "Adesao": _without(ENROLLMENT, key)}, key)
      for key in ENROLLMENT if key not in ("TipoPlano", "FormaPagto", "Cobranca")],
    (v1_requests.OrderCreate, {**ORDER, "Adesao": {**ENROLLMENT, "TipoPlano": "X"}}, "TipoPlano"),
    (v1_requests.OrderCreate, {**ORDER, "Adesao": {**ENROLLMENT, "FormaPagto": "X"}}, "FormaPagto"),
    (v1_requests.OrderCreate, {**ORDER, "Adesao": {**ENROLLMENT, "Cobranca": "D"}}, "Cobranca"),
    (v1_requests.OrderCreate, {**ORDER, "Adesao": {**ENROLLMENT, "CodigoPlano": 99}}, "CodigoPlano"),
    (v1_requests.OrderCreate, {**ORDER, "Adesao": {**ENROLLMENT, "TipoPlano": "O"}}, "CodigoPlano"),
    (
        v1_requests.OrderCreate,
        {**ORDER, "Parcelas": {"Parcela": [{"Descricao": "Adesão", "Valor": "10.00"}]}},
        "Vencimento",
    ),
    (
        v1_requests.OrderCreate,
        {
            **ORDER,
            "EnderecoInstalacao": {
                "Endereco": "Rua A",
                "Numero": 1,
                "Bairro": "Centro",
                "CodMunicipio": 3509502,
                "UF": "SP",
            },
        },
        "CEP",
    ),
    # ConsultaLinhaDigitavelBoleto
    (v1_requests.DigitableLineQuery, {}, "CliFor"),
    (v1_requests.DigitableLineQuery, {"CliFor": 1532, "Origem": "XYZ"}, "Origem"),
    (v1_requests.DigitableLineQuery, {"CliFor": 1532, "Tipo": "X"}, "Tipo"),
    (v1_requests.DigitableLineQuery, {"CliFor": 1532, "BoletoAtualizado": "X"}, "BoletoAtualizado"),
    (v1_requests.DigitableLineQuery, {"CliFor": 1532, "Vencimento": "10/05/2024"}, "Vencimento"),
]


@pytest.mark.parametrize(
    ("model", "data", "field"), REFUSED, ids=[f"{m.__name__}-{f}-{i}" for i, (m, _, f) in enumerate(REFUSED)]
)
def test_request_rules_are_enforced_naming_the_field(
    model: type[BaseModel], data: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    assert caught.value.error_count() == 1, caught.value  # one mistake, one message
    error = caught.value.errors()[0]
    assert field in [str(part) for part in error["loc"]] or field in error["msg"], error


def test_valid_requests_pass_and_serialise_as_the_spec_wants() -> None:
    ticket = v1_requests.TicketCreate.model_validate(
        {
            **TICKET,
            "Tipo": "C",
            "Topico": 3,
            "Estimulo_Marketing": 5,
            "Contrato": 2087,
            "Hora_Abertura": "23:59:59",
        }
    )
    assert ticket.to_payload()["Data_Abertura"] == "2024-05-03"
    # Without Tipo the server decides (code 223): not pre-validated.
    v1_requests.TicketCreate.model_validate({**TICKET, "Estimulo_Marketing": 5})
    v1_requests.TicketCreate.model_validate({**TICKET, "Fluxo": 2})

    customer = v1_requests.CustomerCreate.model_validate(
        {
            **CUSTOMER,
            "CPF": "012.345.678-90",
            "CEP": "13015-000",
            "TipoAssinante": 3,
            "TipoAssinante2": 3,
            "ContribuinteICMS": 9,
            "DebitoOperacao": "001",
            "Banco": 104,
            "CFOP": 6307,
            "DiaVencimento": 0,
            "Latitude": "-22.9056390000000",
            "Longitude": "-47.0608310000000",
            "BuscarCoordenadas": "S",
            "Contatos": {
                "Contato": [
                    {"Nome": "Maria", "Tipo": "T", "Aniversario": "1990-03-05"},
                    {"Nome": "José", "Tipo": "G"},
                ]
            },
        }
    )
    payload = customer.to_payload()
    assert payload["CPF"] == "01234567890" and payload["CEP"] == "13015000"
    assert payload["TipoAssinante"] == 3 and payload["TipoAssinante2"] == "03"
    assert payload["DebitoOperacao"] == "001" and payload["ContribuinteICMS"] == 9
    assert payload["Latitude"] == pytest.approx(-22.905639) and payload["BuscarCoordenadas"] == "S"
    assert [c["Nome"] for c in payload["Contatos"]["Contato"]] == ["Maria", "José"]
    assert payload["Contatos"]["Contato"][0]["Aniversario"] == "1990-03-05"

    company = v1_requests.MarketCreate.model_validate({**COMPANY, "IE": "669123456110", "UF": "sp"})
    assert company.to_payload()["UF"] == "SP" and "CPF" not in company.to_payload()

    change = v1_requests.CustomerChange.model_validate({"Codigo": 1532, "BuscarCoordenadaS": "S", "CobrCartaoId": 3})
    assert change.to_payload() == {"Codigo": 1532, "BuscarCoordenadaS": "S", "CobrCartaoId": 3}
    # Change operations send only what changes: a contact by its code, nothing else required.
    contact_change = v1_requests.CustomerChange.model_validate(
        {"Codigo": 1532, "Contatos": {"Contato": [{"Codigo": 7}]}}
    )
    assert contact_change.to_payload() == {"Codigo": 1532, "Contatos": {"Contato": [{"Codigo": 7}]}}


def test_order_rules_and_billing_group_values() -> None:
    for value, sent in (("S", "S"), ("n", "N"), (1, "1"), ("20", "20"), (" 7 ", "7")):
        order = v1_requests.OrderCreate.model_validate(
            {**ORDER, "Itens": {"ItemP": [{**ORDER_ITEM, "AgruparCobranca": value}]}}
        )
        assert order.to_payload()["Itens"]["ItemP"][0]["AgruparCobranca"] == sent
    order = v1_requests.OrderCreate.model_validate(
        {
            **ORDER,
            "Adesao": ENROLLMENT,
            "Parcelas": {
                "Parcela": [
                    {"Descricao": "Adesão 1/2", "Vencimento": date(2024, 5, 10), "Valor": "75.00"},
                    {"Descricao": "Adesão 2/2", "Vencimento": date(2024, 6, 10), "Valor": "75.00"},
                ]
            },
        }
    )
    payload = order.to_payload()
    assert payload["Parcelas"]["Parcela"][1] == {
        "Descricao": "Adesão 2/2",
        "Vencimento": "2024-06-10",
        "Valor": 75.0,
    }
    assert "Usuario" not in payload["Geral"]  # the web service's default user


def test_invoices_repeat_inside_dados_nota() -> None:
    two = v1_requests.InvoicesCreate.model_validate(
        {"Nota": [*_invoice()["Nota"], *_invoice({"CodigoCliente": 7})["Nota"]]}
    )
    encoded = OPERATIONS["NotasFiscaisCadastro"].encode(two, EncodeContext())
    assert list(encoded) == ["DadosNota"]
    notes = encoded["DadosNota"]["Nota"]
    assert [n["Cabecalho"]["CodigoCliente"] for n in notes] == [1532, 7]
    assert notes[0]["Itens"]["Item"][0]["CodigoClassificacaoItem"] == "0104"
    ok = v1_requests.InvoicesCreate.model_validate(
        _invoice(item={"ICMSValorAliquota": "9.99", "ICMSValorBaseCalculo": 1})
    )
    assert ok.Nota[0].Itens.Item[0].ICMSValorAliquota == Decimal("9.99")


def test_requests_are_frozen() -> None:
    ticket = v1_requests.TicketCreate.model_validate(TICKET)
    with pytest.raises(ValidationError):
        ticket.Assunto = "other"  # type: ignore[misc]


# ---- records: lenient ----------------------------------------------------------------------------
def test_an_odd_date_is_kept_raw_without_failing_the_record() -> None:
    ticket = v1_records.Ticket.model_validate(
        {"Numero": "48213", "Abertura_DataHora": "2024-15-01 10:00:00", "Data_Agendamento": "2024-15-01"}
    )
    assert ticket.Numero == 48213 and ticket.Data_Agendamento is None and ticket.Abertura_DataHora is None
    assert ticket.odd_fields == {"Data_Agendamento": "2024-15-01", "Abertura_DataHora": "2024-15-01 10:00:00"}


def test_an_unknown_code_is_kept_raw() -> None:
    contract = v1_records.Contract.model_validate({"Numero": "1", "Situacao_Codigo": "Z"})
    assert contract.Situacao_Codigo is None and contract.odd_fields == {"Situacao_Codigo": "Z"}


def test_unknown_extra_fields_are_kept() -> None:
    customer = v1_records.Customer.model_validate({"Codigo": "1", "CampoNovo": "valor"})
    assert customer.model_extra == {"CampoNovo": "valor"}


def test_empty_strings_and_zero_dates_read_as_none() -> None:
    contract = v1_records.Contract.model_validate(
        {
            "Numero": "",
            "Assinatura": "0000-00-00",
            "ValorBruto": "",
            "Situacao_Codigo": "",
            "Cliente_Nome": "",
            "Cliente_CPF_CNPJ": "",
            "Aceite_Eletronico": "",
        }
    )
    assert all(getattr(contract, name) is None for name in v1_records.Contract.model_fields)
    assert not contract.odd_fields


def test_numbers_where_strings_are_usual_and_the_reverse() -> None:
    customer = v1_records.Customer.model_validate(
        {
            "Codigo": 1532,
            "Numero": "120",
            "Nome": 12345,
            "Complemento": 2,
            "DiaCobr": 10,
            "MapsMarkLat": -22.5,
            "CEP": 1310100,
            "TelCelular": "(19) 99123-4567",
        }
    )
    assert customer.Codigo == 1532 and customer.Numero == 120 and customer.DiaCobr == 10
    assert customer.Nome == "12345" and customer.Complemento == "2"
    assert customer.MapsMarkLat == Decimal("-22.5")
    assert customer.CEP == "1310100" and customer.TelCelular == "19991234567"


def test_leading_zeros_of_identifiers_are_kept() -> None:
    customer = v1_records.Customer.model_validate({"CNPJ_CNPF": "01234567890", "CEP": "01310100", "RG_IE": "0012345X"})
    assert customer.CNPJ_CNPF == "01234567890" and customer.CEP == "01310100" and customer.RG_IE == "0012345X"
    card = v1_records.StoredCard.model_validate({"UltimosDigitos": "0042"})
    assert card.UltimosDigitos == "0042"
    doc = v1_records.OpenDocument.model_validate({"NossoNumero": "000123", "CPF_CNPJ": "00.123.456/0001-00"})
    assert doc.NossoNumero == "000123" and doc.CPF_CNPJ == "00123456000100"


def test_an_alphanumeric_cnpj_keeps_its_letters_in_records_and_requests() -> None:
    assert v1_records.Customer.model_validate({"CNPJ_CNPF": "12.abc.345/01de-35"}).CNPJ_CNPF == "12ABC34501DE35"
    assert v1_records.OpenDocument.model_validate({"CPF_CNPJ": "12ABC34501DE35"}).CPF_CNPJ == "12ABC34501DE35"
    assert v1_requests.CustomerCreate.model_validate({**COMPANY, "CNPJ": "12.abc.345/01de-35"}).CNPJ == "12ABC34501DE35"
    with pytest.raises(ValidationError):
        v1_requests.CustomerCreate.model_validate({**COMPANY, "CNPJ": "12ABC34501DEXX"})  # check digits are digits


def test_customer_status_i_reads_as_inactive() -> None:
    assert v1_records.Customer.model_validate({"Situacao": "I"}).Situacao is v1_records.CustomerStatus.INACTIVE
    assert (
        v1_records.Customer.model_validate({"Situacao": "E"}).Situacao
        is v1_records.CustomerStatus.WAITING_FOR_INSTALLATION
    )


def test_senha_never_shows() -> None:
    secret = "Tr0ca@2024"
    auth = v1_records.AuthenticationWithPassword.model_validate({"Id": "1", "Usuario": "joao", "Senha": secret})
    assert secret not in repr(auth) and secret not in str(auth) and secret not in str(auth.model_dump())
    assert auth.Senha is not None and auth.Senha.get_secret_value() == secret
    assert v1_records.AuthenticationWithPassword.model_validate({"Senha": ""}).Senha is None
    numeric = v1_records.AuthenticationWithPassword.model_validate({"Senha": 123456})
    assert numeric.Senha is not None and numeric.Senha.get_secret_value() == "123456"
    assert not numeric.odd_fields


def test_result_objects_read_their_strings() -> None:
    created = v1_requests.TicketCreated.model_validate(
        {"NumeroAtendimento": "48213", "SLA": "", "SLA_Tipo": "", "Mensagem": "ok"}
    )
    assert created.NumeroAtendimento == 48213 and created.SLA is None
    assert v1_requests.InvoicesCreated.model_validate({"QuantidadeNotas": "3"}).QuantidadeNotas == 3
    assert v1_requests.OrderCreated.model_validate({"NumeroPedido": "5120"}).NumeroPedido == 5120
    assert v1_requests.MarketChanged.model_validate({"CodigoMercado": "88"}).CodigoMercado == 88
