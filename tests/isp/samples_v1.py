"""A sample call of every generation-1.0 operation: the request, the spec-shaped ``result`` (every
scalar a string, as generation 1.0 sends them) and what the typed value must come back as."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any, TypeVar

from bot.isp.filters import F
from bot.isp.models import v1_records, v1_requests

from tests.isp.samples import Sample

SAMPLES: dict[str, Sample] = {}

Check = TypeVar("Check", bound=Callable[[Any], None])


def sample(name: str, request: Any, result: Any) -> Callable[[Check], Check]:
    """Registers the decorated check under ``name``."""

    def register(check: Check) -> Check:
        SAMPLES[name] = Sample(request=request, result=result, check=check)
        return check

    return register


# ---- 2.1 tickets ---------------------------------------------------------------------------------
@sample(
    "ConsultaAtendimentos",
    (F("Situacao_OS").in_(["F", "A", "E"])) & (F("Atendimentos.Data_AB") >= date(2024, 5, 1)),
    [
        {
            "Numero": "48213",
            "Protocolo": "2024050348213",
            "Abertura_DataHora": "2024-05-03 09:14:22",
            "Abertura_Usuario": "mariana.souza",
            "Designacao_Tipo": "grupo",
            "Designacao_Usuario": "",
            "Designacao_Grupo_Id": "7",
            "Designacao_Grupo_Nome": "Suporte N2",
            "Situacao_OS": "A",
            "Topico": "Sem conexão",
            "Assunto": "Cliente sem internet desde ontem",
            "Solucao": "",
            "Encerramento_DataHora": "0000-00-00 00:00:00",
            "Causa": "",
            "Tipo": "T",
            "TipoCliente": "C",
            "CodigoCliente": "1532",
            "Data_Agendamento": "2024-05-04",
            "Hora_Agendamento": "14:00:00",
            "Duracao_Agendamento": "01:30:00",
            "Situacao_Agendamento": "Agendado",
        },
        {
            "Numero": "48214",
            "Protocolo": "2024050348214",
            "Abertura_DataHora": "2024-05-03 10:02:00",
            "Abertura_Usuario": "webservice",
            "Designacao_Tipo": "",
            "Situacao_OS": "",
            "Tipo": "C",
            "TipoCliente": "M",
            "CodigoCliente": "88",
            "Assunto": "Orçamento 300 Mega",
        },
    ],
)
def _tickets(result: list[v1_records.Ticket]) -> None:
    first, second = result
    assert first.Numero == 48213 and first.Protocolo == 2024050348213
    assert first.Abertura_DataHora == datetime(2024, 5, 3, 9, 14, 22)
    assert first.Designacao_Tipo is v1_records.AssigneeKind.GROUP and first.Designacao_Usuario is None
    assert first.Situacao_OS is v1_records.OsStatus.ON_THE_WAY and first.Tipo is v1_records.TicketType.TECHNICAL
    assert first.TipoCliente is v1_records.PartyKind.CUSTOMER and first.CodigoCliente == 1532
    assert first.Encerramento_DataHora is None and first.Solucao is None
    assert first.Data_Agendamento == date(2024, 5, 4) and first.Hora_Agendamento == time(14, 0)
    assert first.Duracao_Agendamento == time(1, 30)
    assert second.Situacao_OS is None and second.Designacao_Tipo is None
    assert second.TipoCliente is v1_records.PartyKind.MARKET and second.Tipo is v1_records.TicketType.COMMERCIAL
    assert not first.odd_fields and not second.odd_fields


@sample(
    "ConsultaCausas",
    F("Situacao") == "A",
    [
        {
            "Codigo": "3",
            "Tipo": "T",
            "Nome": "Cabo rompido",
            "Descricao": "Drop rompido na rua",
            "Situacao": "A",
        }
    ],
)
def _causes(result: list[v1_records.ClosingCause]) -> None:
    (cause,) = result
    assert cause.Codigo == 3 and cause.Tipo is v1_records.TicketType.TECHNICAL
    assert cause.Nome == "Cabo rompido" and cause.Situacao is v1_records.ActiveStatus.ACTIVE


@sample(
    "ConsultaChecklistAtendimentos",
    F("Atendimento_Numero") == 48213,
    [
        {
            "Atendimento_Numero": "48213",
            "Checklist_Id": "11",
            "Checklist_Descricao": "Foto da ONU instalada",
            "Checklist_Obrigatorio": "S",
            "Checklist_Status": "N",
        },
    ],
)
def _checklist(result: list[v1_records.ChecklistItem]) -> None:
    (item,) = result
    assert item.Atendimento_Numero == 48213 and item.Checklist_Id == 11
    assert item.Checklist_Obrigatorio is v1_records.YesNo.YES and item.Checklist_Status is v1_records.YesNo.NO


@sample(
    "ConsultaFluxos",
    F("Descricao").contains("Instalação"),
    [
        {
            "Codigo": "2",
            "Descricao": "Instalação FTTH",
            "Planos": "1,4,9",
            "GruposClientes": "",
            "GruposUsuarios": "3",
            "Situacao": "I",
        }
    ],
)
def _workflows(result: list[v1_records.Workflow]) -> None:
    (flow,) = result
    assert flow.Codigo == 2 and flow.Planos == "1,4,9" and flow.GruposClientes is None
    assert flow.Situacao is v1_records.ActiveStatus.INACTIVE


@sample(
    "ConsultaGruposSLA",
    None,
    [
        {"Codigo": "1", "Descricao": "Residencial 24h", "Situacao": "A"},
        {"Codigo": "2", "Descricao": "Empresarial 4h", "Situacao": "A"},
    ],
)
def _sla_groups(result: list[v1_records.SlaGroup]) -> None:
    assert [g.Codigo for g in result] == [1, 2]
    assert result[1].Descricao == "Empresarial 4h" and result[1].Situacao is v1_records.ActiveStatus.ACTIVE


@sample(
    "ConsultaOcorrenciasAtendimentos",
    (F("Atendimento") == 48213) & (F("Modo") == "M"),
    [
        {
            "Id": "90211",
            "Data": "2024-05-03 11:20:05",
            "Descricao": "<p>Técnico a caminho</p>",
            "Modo": "M",
            "Usuario": "carlos.tec",
            "Latitude": "-23.5505199000000",
            "Longitude": "-46.6333094000000",
            "Atendimento_Numero": "48213",
        }
    ],
)
def _occurrences(result: list[v1_records.TicketOccurrence]) -> None:
    (occ,) = result
    assert occ.Id == 90211 and occ.Data == datetime(2024, 5, 3, 11, 20, 5)
    assert occ.Modo is v1_records.AutoOrManual.MANUAL
    assert occ.Latitude == Decimal("-23.5505199") and occ.Longitude == Decimal("-46.6333094")
    assert occ.Atendimento_Numero == 48213


@sample(
    "ConsultaTopicos",
    F("Central") == "S",
    [
        {
            "Codigo": "14",
            "Tipo": "T",
            "Nome": "Sem conexão",
            "Descricao": "Cliente sem acesso",
            "Central": "S",
            "Abertura": "T",
            "Situacao": "A",
        }
    ],
)
def _topics(result: list[v1_records.TicketTopic]) -> None:
    (topic,) = result
    assert topic.Codigo == 14 and topic.Central is v1_records.YesNo.YES
    assert topic.Abertura is v1_records.TopicOpening.ALL and topic.Tipo is v1_records.TicketType.TECHNICAL


# ---- 2.2 authentications -------------------------------------------------------------------------
_AUTH = {
    "Id": "301",
    "Cliente": "1532",
    "Contrato": "2087",
    "NAS": "10.0.0.1",
    "Porta": "ether5",
    "Usuario": "joao.silva@fibra",
    "MAC": "AA:BB:CC:00:11:22",
    "Observacao": "",
}


@sample("ConsultaAutenticacao", F("Cliente") == 1532, [_AUTH])
def _authentications(result: list[v1_records.Authentication]) -> None:
    (auth,) = result
    assert auth.Id == 301 and auth.Cliente == 1532 and auth.Contrato == 2087
    assert auth.NAS == "10.0.0.1" and auth.MAC == "AA:BB:CC:00:11:22" and auth.Observacao is None


@sample("ConsultaAutenticacaoSenha", F("Usuario") == "joao.silva@fibra", [{**_AUTH, "Senha": "Tr0ca@2024"}])
def _authentications_with_password(result: list[v1_records.AuthenticationWithPassword]) -> None:
    (auth,) = result
    assert auth.Senha is not None and auth.Senha.get_secret_value() == "Tr0ca@2024"
    assert "Tr0ca@2024" not in repr(auth)
    assert auth.Usuario == "joao.silva@fibra"


# ---- 2.3 customers and markets -------------------------------------------------------------------
_REGISTRATION = {
    "Codigo": "1532",
    "Tipo": "F",
    "CNPJ_CNPF": "01234567890",
    "Nome": "João da Silva",
    "Endereco": "Rua das Acácias",
    "Numero": "120",
    "Complemento": "Casa 2",
    "Bairro": "Jardim América",
    "Cidade": "Campinas",
    "Distrito": "",
    "UF": "SP",
    "CEP": "01310100",
    "TelComercial": "",
    "TelResidencial": "1933214567",
    "TelCelular": "19991234567",
    "BcoCobr": "341",
    "RG_IE": "123456789",
    "Nascimento": "1985-07-21",
    "Cobranca": "R",
    "TipoImpressao": "B",
    "DiaCobr": "10",
    "DiasProtesto": "0",
    "Sigla": "Joãozinho",
    "Cobr_Endereco": "Rua das Acácias",
    "Cobr_Complemento": "",
    "Cobr_Bairro": "Jardim América",
    "Cobr_Cidade": "Campinas",
    "Cobr_UF": "SP",
    "Cobr_CEP": "01310100",
    "Bloqueavel": "S",
    "Inclusao": "2021-03-15",
    "usuario": "mariana.souza",
    "Observacoes": "",
    "MapsMarkLat": "-22.9056390000000",
    "MapsMarkLng": "-47.0608310000000",
    "Grupo": "2",
}


@sample(
    "ConsultaClientes",
    F("CNPJ_CNPF") == "01234567890",
    [
        {
            **_REGISTRATION,
            "CodCobr": "000123",
            "Situacao": "A",
            "Email": "joao@example.com.br",
            "AvisoPagamento": "A",
        }
    ],
)
def _customers(result: list[v1_records.Customer]) -> None:
    (c,) = result
    assert c.Codigo == 1532 and c.Tipo is v1_records.PersonKind.INDIVIDUAL
    assert c.CNPJ_CNPF == "01234567890" and c.CEP == "01310100"  # leading zeros kept
    assert c.Numero == 120 and c.TelComercial is None and c.TelCelular == "19991234567"
    assert c.Nascimento == date(1985, 7, 21) and c.Inclusao == date(2021, 3, 15)
    assert c.Cobranca is v1_records.ChargeKind.REGISTERED and c.TipoImpressao is v1_records.PrintKind.BILL_SLIP
    assert c.Bloqueavel is v1_records.YesNo.YES and c.DiaCobr == 10 and c.DiasProtesto == 0
    assert c.MapsMarkLat == Decimal("-22.905639") and c.Grupo == 2 and c.Distrito is None
    assert c.CodCobr == "000123" and c.Situacao is v1_records.CustomerStatus.ACTIVE
    assert c.AvisoPagamento is v1_records.PaymentNotice.ALLOWED_AT_ALERT_LEVEL


@sample(
    "ConsultaMercados",
    F("Nome").startswith("Padaria"),
    [
        {
            **_REGISTRATION,
            "Codigo": "88",
            "Tipo": "J",
            "CNPJ_CNPF": "04252011000110",
            "Nome": "Padaria Pão Quente",
            "RG_IE": "ISENTO",
            "CodCobr": "A-77",
            "Bloqueavel": "N",
        }
    ],
)
def _markets(result: list[v1_records.Market]) -> None:
    (m,) = result
    assert m.Codigo == 88 and m.Tipo is v1_records.PersonKind.LEGAL_ENTITY
    assert m.CNPJ_CNPF == "04252011000110" and m.RG_IE == "ISENTO" and m.CodCobr == "A-77"
    assert m.Bloqueavel is v1_records.YesNo.NO and not hasattr(m, "Situacao")


@sample(
    "ConsultaClientesBloqueados",
    F("DiasBloqueio") > 5,
    [
        {
            "Codigo": "1532",
            "Nome": "João da Silva",
            "DataBloqueio": "2024-04-20 00:05:00",
            "DiasBloqueio": "13",
        }
    ],
)
def _blocked_customers(result: list[v1_records.BlockedCustomer]) -> None:
    (b,) = result
    assert b.Codigo == 1532 and b.DataBloqueio == datetime(2024, 4, 20, 0, 5) and b.DiasBloqueio == 13


@sample(
    "ConsultaClientesReducao",
    F("Regra") == 2,
    [
        {
            "Regra": "2",
            "Cliente_Codigo": "1532",
            "Cliente_Nome": "João da Silva",
            "Contrato_Numero": "2087",
            "Contrato_Descricao": "FIBRA 300 MEGA",
        }
    ],
)
def _reduced_customers(result: list[v1_records.ReducedCustomer]) -> None:
    (c,) = result
    assert c.Regra == 2 and c.Contrato_Numero == 2087 and c.Contrato_Descricao == "FIBRA 300 MEGA"


@sample(
    "ConsultaClienteOnline",
    F("Codigo") == 1532,
    [
        {"Codigo": "1532", "Nome": "João da Silva", "Online": "S", "NasConectados": "10.0.0.1,10.0.0.2"},
        {"Codigo": "1533", "Nome": "Ana Lima", "Online": "N", "NasConectados": ""},
    ],
)
def _customers_online(result: list[v1_records.CustomerOnline]) -> None:
    online, offline = result
    assert online.Online is v1_records.YesNo.YES and online.NasConectados == "10.0.0.1,10.0.0.2"
    assert offline.Online is v1_records.YesNo.NO and offline.NasConectados is None


@sample(
    "ConsultaComplementoContatos",
    None,
    [{"Codigo": "1", "Tipo": "F", "Nome": "Cônjuge"}, {"Codigo": "2", "Tipo": "J", "Nome": "Sócio"}],
)
def _contact_complements(result: list[v1_records.ContactComplement]) -> None:
    assert [(c.Codigo, c.Tipo) for c in result] == [
        (1, v1_records.PersonKind.INDIVIDUAL),
        (2, v1_records.PersonKind.LEGAL_ENTITY),
    ]


@sample(
    "ConsultaContatos",
    F("Cliente") == 1532,
    [
        {
            "id": "77",
            "Nome": "Maria da Silva",
            "CPF": "09876543210",
            "Email": "maria@example.com.br",
            "Telefone1": "19991112222",
            "Telefone2": "",
            "Telefone3": "",
            "Aniversario": "050319",
            "Tipo": "A",
            "Situacao": "A",
            "Cliente": "1532",
        }
    ],
)
def _contacts(result: list[v1_records.Contact]) -> None:
    (c,) = result
    assert c.id == 77 and c.CPF == "09876543210" and c.Aniversario == "050319"
    assert c.Tipo is v1_records.ContactType.ADMINISTRATIVE and c.Telefone2 is None and c.Cliente == 1532


@sample(
    "ConsultarDadosAdicionais",
    (F("Tabela") == "Clientes") & (F("Chave") == "1532"),
    [
        {
            "Id": "501",
            "Codigo": "4",
            "Descricao": "Ponto de referência",
            "Tabela": "Clientes",
            "Chave": "1532",
            "Valor": "Em frente à padaria",
        }
    ],
)
def _additional_values(result: list[v1_records.AdditionalDataValue]) -> None:
    (v,) = result
    assert v.Id == 501 and v.Codigo == 4 and v.Chave == "1532" and v.Valor == "Em frente à padaria"


@sample(
    "ConsultaDadosAdicionais",
    None,
    [{"Codigo": "4", "Tabela": "Clientes", "Nome": "Ponto de referência"}],
)
def _additional_definitions(result: list[v1_records.AdditionalDataDefinition]) -> None:
    (d,) = result
    assert d.Codigo == 4 and d.Tabela == "Clientes"


@sample(
    "ConsultaClientesCobranca",
    F("Cobranca") == "D",
    [
        {
            "Codigo": "1532",
            "Nome": "João da Silva",
            "BcoCobr": "104",
            "CodCobr": "00991",
            "Cobranca": "D",
            "TipoImpressao": "C",
            "DiaCobr": "5",
            "DiasProtesto": "30",
            "Cobr_Endereco": "Rua das Acácias, 120",
            "Cobr_Complemento": "",
            "Cobr_Bairro": "Jardim América",
            "Cobr_Cidade": "Campinas",
            "Cobr_UF": "SP",
            "Cobr_CEP": "13015000",
            "Bloqueavel": "N",
        }
    ],
)
def _customer_billing(result: list[v1_records.CustomerBilling]) -> None:
    (b,) = result
    assert b.BcoCobr == 104 and b.CodCobr == "00991" and b.Cobranca is v1_records.ChargeKind.DIRECT_DEBIT
    assert b.TipoImpressao is v1_records.PrintKind.BOOKLET and b.DiasProtesto == 30 and b.Cobr_CEP == "13015000"


@sample(
    "ConsultaEquipamentosOnline",
    F("NAS_IP") == "10.0.0.1",
    [
        {
            "Cliente_Codigo": "1532",
            "Cliente_Nome": "João da Silva",
            "Contrato_Numero": "2087",
            "Contrato_Descricao": "FIBRA 300 MEGA",
            "DataHora_UltimaColeta": "2024-05-03 12:00:00",
            "NAS_IP": "10.0.0.1",
            "NAS_Sigla": "OLT-CENTRO",
            "NAS_Descricao": "OLT Centro",
            "NAS_Slot": "1",
            "NAS_Porta": "3",
            "Equipamento_Id": "9001",
            "Equipamento_Descricao": "ONU Huawei",
            "Equipamento_Serial": "HWTC1A2B3C4D",
            "Equipamento_Sinal": "-21",
            "Equipamento_Txccq": "95",
            "Equipamento_MaxCpe": "4",
            "Equipamento_Temperatura": "47",
            "Equipamento_TempoConectadoMinutos": "1440",
        }
    ],
)
def _online_equipment(result: list[v1_records.OnlineEquipment]) -> None:
    (e,) = result
    assert e.Equipamento_Sinal == -21 and e.Equipamento_Temperatura == 47
    assert e.DataHora_UltimaColeta == datetime(2024, 5, 3, 12, 0)
    assert e.Equipamento_Serial == "HWTC1A2B3C4D" and e.Equipamento_TempoConectadoMinutos == "1440"


@sample("ConsultaGruposCliente", None, [{"Codigo": "2", "Nome": "Residencial"}])
def _customer_groups(result: list[v1_records.CustomerGroup]) -> None:
    assert [(g.Codigo, g.Nome) for g in result] == [(2, "Residencial")]


# ---- 2.4 contracts -------------------------------------------------------------------------------
def _address(prefix: str) -> dict[str, str]:
    return {
        f"{prefix}Logradouro": "Rua das Acácias",
        f"{prefix}Numero": "120",
        f"{prefix}Complemento": "",
        f"{prefix}Bairro": "Jardim América",
        f"{prefix}Cidade": "Campinas",
        f"{prefix}UF": "SP",
        f"{prefix}CEP": "13015-000",
        f"{prefix}Pais": "Brasil",
        f"{prefix}LocalidadeId": "3509502",
        f"{prefix}BairroId": "120",
        f"{prefix}LogradouroId": "4410",
        f"{prefix}MapsPlaceId": "ChIJ0WGkg4",
        f"{prefix}Latitude": "-22.9056390000000",
        f"{prefix}Longitude": "-47.0608310000000",
    }


@sample(
    "ConsultaContratos",
    F("Situacao_Codigo").in_(["A", "B"]),
    [
        {
            "Cliente_Codigo": "1532",
            "Cliente_Nome": "João da Silva",
            "Numero": "2087",
            "Plano_Codigo": "12",
            "Plano_Descricao": "FIBRA 300 MEGA",
            "Pacote_Codigo": "",
            "Pacote_Descricao": "",
            "Pacote_PacoteID": "",
            "Modelos_Contrato": "3,5",
            "Situacao_Codigo": "A",
            "Situacao_Descricao": "Ativo",
            "Assinatura": "2021-03-15",
            "Inicio": "2021-03-20",
            "DataUltimaOperacao": "0000-00-00",
            "Data_Validade": "2025-03-20",
            "Aceite_Eletronico_Data": "2021-03-15",
            "CicloFaturamento_DiaBase": "1",
            "CicloFaturamento_Vencimento": "10",
            "ValorBruto": "109.90",
            "DescontoFixo": "10.00",
            "ValorLiquido": "99.90",
            "DescontoPromocional_Valor": "0.00",
            "DescontoPromocional_Prazo": "0",
            "Vigencia": "12",
            "Adesao_Valor": "150.00",
            "Plano_Valor": "109.90",
            "Plano_Tipo": "Internet",
            "Agrupamento": "",
            "Assinado": "S",
            "Vendedor": "Pedro Vendas",
            "Vigencia_Situacao": "Vigente",
            "Qtde_Dias_Vencido": "0",
            "SLA": "Residencial 24h",
            "QoS": "300M",
            "Tecnologia": "FTTH",
            **_address("EnderecoCobranca_"),
            **_address("EnderecoInstalacao_"),
            "EnderecoInstalacao_UsadoParaCobranca": "S",
            "Cliente_Tipo": "F",
            "Cliente_CPF_CNPJ": "01234567890",
            "Cliente_Tel_Comercial": "",
            "Cliente_Tel_Residencial": "1933214567",
            "Cliente_Tel_Celular": "19991234567",
            "Cliente_RG_IE": "123456789",
            "Cliente_Sigla": "Joãozinho",
            "Cliente_Bloqueavel": "S",
            "Cliente_Email": "joao@example.com.br",
            "Cliente_Grupo": "Residencial",
            "Aceite_Eletronico": "S",
            "Aceite_Eletronico_IP": "177.10.20.30",
            "Aceite_Eletronico_Origem": "Central",
            "Cancelamento_Motivo": "",
            "Cancelamento_Concorrencia": "",
            "Ultima_Operacao_Usuario": "",
            "Cancelamento_Agendado_Data": "",
            "Cancelamento_Agendado_Registro": "",
            "Cancelamento_Agendado_Usuario": "",
        }
    ],
)
def _contracts(result: list[v1_records.Contract]) -> None:
    (c,) = result
    assert c.Numero == 2087 and c.Situacao_Codigo is v1_records.ContractStatus.ACTIVE
    assert c.Pacote_Codigo is None and c.DataUltimaOperacao is None
    assert c.Assinatura == date(2021, 3, 15) and c.Vigencia == 12
    assert c.ValorBruto == Decimal("109.90") and c.ValorLiquido == Decimal("99.90")
    assert c.EnderecoInstalacao_CEP == "13015000" and c.EnderecoCobranca_LocalidadeId == 3509502
    assert c.EnderecoInstalacao_Latitude == Decimal("-22.905639")
    assert c.Cliente_Tipo is v1_records.PersonKind.INDIVIDUAL and c.Cliente_CPF_CNPJ == "01234567890"
    assert c.Cliente_Bloqueavel is v1_records.YesNo.YES and c.Aceite_Eletronico is v1_records.YesNo.YES
    assert c.Aceite_Eletronico_IP == "177.10.20.30" and c.Cancelamento_Motivo is None
    assert not c.odd_fields


@sample(
    "ConsultaContratosBloqueados",
    F("Contrato_Bloqueio") >= date(2024, 4, 1),
    [
        {
            "Contrato_Numero": "2087",
            "Contrato_Descricao": "FIBRA 300 MEGA",
            "Contrato_Bloqueio": "2024-04-20",
            "Contrato_Bloqueio_Usuario": "robo",
            "Cliente_Codigo": "1532",
            "Cliente_Nome": "João da Silva",
        }
    ],
)
def _blocked_contracts(result: list[v1_records.BlockedContract]) -> None:
    (b,) = result
    assert b.Contrato_Numero == 2087 and b.Contrato_Bloqueio == date(2024, 4, 20)


@sample("ConsultaConcorrencia", None, [{"id": "1", "Nome": "Operadora X"}, {"id": "2", "Nome": "Rede Y"}])
def _competitors(result: list[v1_records.Competitor]) -> None:
    assert [c.id for c in result] == [1, 2]


@sample("ConsultaMotivosCancelamento", None, [{"id": "5", "Nome": "Mudança de endereço"}])
def _cancellation_reasons(result: list[v1_records.CancellationReason]) -> None:
    (m,) = result
    assert m.id == 5 and m.Nome == "Mudança de endereço"


# ---- 2.5 stock -----------------------------------------------------------------------------------
@sample(
    "ConsultaModelosProduto",
    F("Marca") == "Huawei",
    [{"Codigo": "31", "Tipo_Descricao": "ONU", "Tipo_Id": "4", "Descricao": "EG8145V5", "Marca": "Huawei"}],
)
def _product_models(result: list[v1_records.ProductModel]) -> None:
    (m,) = result
    assert m.Codigo == 31 and m.Tipo_Id == 4 and m.Descricao == "EG8145V5"


@sample("ConsultaTiposProduto", F("Codigo") == 4, [{"Codigo": "4", "Descricao": "ONU"}])
def _product_types(result: list[v1_records.ProductType]) -> None:
    assert [(t.Codigo, t.Descricao) for t in result] == [(4, "ONU")]


@sample("ConsultaUnidadesProduto", F("Sigla") == "M", [{"Codigo": "2", "Sigla": "M", "Descricao": "Metro"}])
def _product_units(result: list[v1_records.ProductUnit]) -> None:
    (u,) = result
    assert u.Codigo == 2 and u.Sigla == "M"


# ---- 2.6 financial -------------------------------------------------------------------------------
@sample(
    "ConsultaCartoesCadastrados",
    (F("TipoPessoa") == "C") & (F("CodigoPessoa") == 1532),
    [
        {
            "Id": "12",
            "TipoPessoa": "C",
            "CodigoPessoa": "1532",
            "UltimosDigitos": "0457",
            "Bandeira": "V",
            "TipoCartao": "C",
            "CartaoPadrao": "S",
        }
    ],
)
def _stored_cards(result: list[v1_records.StoredCard]) -> None:
    (card,) = result
    assert card.UltimosDigitos == "0457" and card.Bandeira is v1_records.CardNetwork.NETWORK_V
    assert card.TipoCartao is v1_records.CardKind.CREDIT and card.CartaoPadrao is v1_records.YesNo.YES
    assert card.TipoPessoa is v1_records.PartyKind.CUSTOMER


@sample(
    "ConsultaCiclosFaturamento",
    None,
    [{"id": "1", "Dia": "1", "Vencimento": "10", "Situacao": "A", "Descricao": "1 a 31 / 10"}],
)
def _billing_cycles(result: list[v1_records.BillingCycle]) -> None:
    (c,) = result
    assert c.id == 1 and c.Vencimento == 10 and c.Situacao is v1_records.ActiveStatus.ACTIVE


@sample(
    "ConsultaDocumentosBaixados",
    (F("Movimento.DataBaixa") >= date(2024, 5, 1)) & (F("Clientes.CNPJ_CNPF") == "01234567890"),
    [
        {
            "Sequencia": "700321",
            "Tipo": "C",
            "Cobranca": "R",
            "CodigoPessoa": "1532",
            "DocumentoPessoa": "01234567890",
            "NomePessoa": "João da Silva",
            "Conta": "3",
            "Historico": "Mensalidade",
            "HistoricoBaixa": "Recebimento",
            "ContaContrapartida": "",
            "Documento": "202405",
            "NossoNumero": "00012345",
            "Origem": "FAT",
            "Banco": "341",
            "Convenio": "1234",
            "Complemento": "",
            "DataLancamento": "2024-04-25",
            "DataVencimento": "2024-05-10",
            "DataBaixa": "2024-05-09",
            "Motivo": "PAGTO",
            "FormaPagto": "CM",
            "ValorOriginal": "99.90",
            "ValorJuros": "0.00",
            "ValorMulta": "0.00",
            "ValorDesconto": "5.00",
            "ValorBaixado": "94.90",
            "UsuarioBaixa": "caixa1",
            "DataHoraExecucaoBaixa": "2024-05-09 16:45:10",
        }
    ],
)
def _settled_documents(result: list[v1_records.SettledDocument]) -> None:
    (d,) = result
    assert d.Sequencia == 700321 and d.Tipo is v1_records.DocumentParty.CUSTOMER
    assert d.DocumentoPessoa == "01234567890" and d.NossoNumero == "00012345"
    assert d.Origem is v1_records.DocumentOrigin.BILLING and d.Motivo is v1_records.SettlementReason.PAYMENT
    assert d.FormaPagto is v1_records.SettlementMethod.CREDIT_CARD_MACHINE and d.ContaContrapartida is None
    assert d.ValorBaixado == Decimal("94.90") and d.DataBaixa == date(2024, 5, 9)
    assert d.DataHoraExecucaoBaixa == datetime(2024, 5, 9, 16, 45, 10)


@sample(
    "ConsultaDocumentosAbertos",
    (F("Cliente") == 1532) & (F("Data") < date(2024, 6, 1)),
    [
        {
            "Conta": "3",
            "Vencimento": "2024-05-10",
            "Documento": "202405",
            "Historico": "Mensalidade",
            "Complemento": "Maio/2024",
            "Origem": "FAT",
            "Valor": "99.90",
            "Tipo": "C",
            "CliFor": "1532",
            "Nome": "João da Silva",
            "CPF_CNPJ": "01234567890",
            "Telefone1": "",
            "Telefone2": "1933214567",
            "Telefone3": "19991234567",
            "Convenio": "1234",
            "Banco": "341",
            "NossoNumero": "00012345",
            "ContratosVinculados": "2087",
            "Sequencia": "700321",
            "RegistradoNoBanco": "S",
        }
    ],
)
def _open_documents(result: list[v1_records.OpenDocument]) -> None:
    (d,) = result
    assert d.Vencimento == date(2024, 5, 10) and d.Valor == Decimal("99.90") and d.CliFor == 1532
    assert d.CPF_CNPJ == "01234567890" and d.Telefone1 is None and d.NossoNumero == "00012345"
    assert d.RegistradoNoBanco is v1_records.YesNo.YES and d.Origem is v1_records.DocumentOrigin.BILLING


@sample("ConsultaGruposCobranca", None, [{"Codigo": "1", "Nome": "Cobrança padrão"}])
def _collection_groups(result: list[v1_records.CollectionGroup]) -> None:
    assert [(g.Codigo, g.Nome) for g in result] == [(1, "Cobrança padrão")]


@sample(
    "ConsultaLinhaDigitavelBoleto",
    v1_requests.DigitableLineQuery(
        CliFor=1532, Tipo=v1_records.DocumentParty.CUSTOMER, Documento=202405, BoletoAtualizado="S"
    ),
    [{"LinhaDigitavel": "34191.79001 01043.510047 91020.150008 5 97130000009990"}],
)
def _digitable_lines(result: list[v1_requests.DigitableLine]) -> None:
    (line,) = result
    assert line.LinhaDigitavel == "34191.79001 01043.510047 91020.150008 5 97130000009990"


# ---- 2.7 miscellaneous ---------------------------------------------------------------------------
@sample(
    "FailOverEvents",
    F("Status") == "O",
    [
        {
            "Id": "44",
            "Host": "link-vivo",
            "Type": "LINK",
            "Server": "fw01",
            "AffectedCustomers": "1532,1533",
            "DownTime": "2024-05-03 02:10:00",
            "UpTime": "",
            "Status": "O",
            "Source": "A",
            "Description": "Perda de pacotes",
            "Duration": "35",
            "Cause": "",
            "Solution": "",
        }
    ],
)
def _failover_events(result: list[v1_records.FailoverEvent]) -> None:
    (e,) = result
    assert e.Id == 44 and e.Type is v1_records.FailoverKind.LINK and e.Status is v1_records.FailoverStatus.OPEN
    assert e.Source is v1_records.AutoOrManual.AUTOMATIC and e.DownTime == datetime(2024, 5, 3, 2, 10)
    assert e.UpTime is None and e.Duration == 35 and e.Cause is None


@sample(
    "ConsutaFornecedores",
    F("Situacao") == "A",
    [
        {
            "Codigo": "9",
            "Tipo": "J",
            "CNPJ_CNPF": "04252011000110",
            "Nome": "Cabos Brasil Ltda",
            "Endereco": "Av. Industrial",
            "Numero": "1500",
            "Complemento": "",
            "Bairro": "Distrito Industrial",
            "Cidade": "Sorocaba",
            "UF": "SP",
            "CEP": "18087000",
            "Telefone1": "1532221100",
            "Telefone2": "",
            "TelFax": "",
            "RG_IE": "669123456110",
            "Sigla": "Cabos BR",
            "Inclusao": "2020-01-10",
            "Usuario": "compras",
            "Situacao": "A",
            "Observacoes": "",
        }
    ],
)
def _suppliers(result: list[v1_records.Supplier]) -> None:
    (s,) = result
    assert s.Codigo == 9 and s.Tipo is v1_records.PersonKind.LEGAL_ENTITY and s.CNPJ_CNPF == "04252011000110"
    assert s.Numero == 1500 and s.Inclusao == date(2020, 1, 10) and s.Situacao is v1_records.ActiveStatus.ACTIVE


@sample(
    "ConsultaPlanos", None, [{"Codigo": "12", "Descricao": "FIBRA 300 MEGA", "Grupo": "Fibra - Residencial"}]
)
def _plans(result: list[v1_records.Plan]) -> None:
    (p,) = result
    assert p.Codigo == 12 and p.Grupo == "Fibra - Residencial"


@sample("ConsultaQoS", None, [{"Codigo": "3", "Descricao": "300M"}])
def _qos(result: list[v1_records.QosProfile]) -> None:
    assert [(x.Codigo, x.Descricao) for x in result] == [(3, "300M")]


@sample(
    "ConsultaStatusNAS",
    F("Online") == "N",
    [{"IPInterno": "10.0.0.2", "Online": "N"}],
)
def _nas_status(result: list[v1_records.NasStatus]) -> None:
    (n,) = result
    assert n.IPInterno == "10.0.0.2" and n.Online is v1_records.YesNo.NO


@sample(
    "ConsultaUsuarios",
    None,
    [
        {"Usuario": "mariana.souza", "Situacao": "A", "Email": "mariana@provedor.com.br"},
        {"Usuario": "antigo", "Situacao": "B", "Email": ""},
    ],
)
def _users(result: list[v1_records.SystemUser]) -> None:
    active, blocked = result
    assert active.Situacao is v1_records.UserStatus.ACTIVE and blocked.Situacao is v1_records.UserStatus.BLOCKED
    assert blocked.Email is None


# ---- 4.3 writes ----------------------------------------------------------------------------------
@sample(
    "AtendimentoCadastro",
    v1_requests.TicketCreate(
        Data_Abertura=date(2024, 5, 3),
        Hora_Abertura="09:14:22",
        Iniciativa=v1_requests.Initiative.CUSTOMER,
        Modo="1",
        TipoCliente=v1_records.PartyKind.CUSTOMER,
        Cliente=1532,
        Contrato=2087,
        Tipo=v1_records.TicketType.TECHNICAL,
        Topico=14,
        Assunto="Cliente sem internet desde ontem",
        Ocorrencia="Luz LOS vermelha na ONU",
    ),
    {"NumeroAtendimento": "48213", "SLA": "24:00", "SLA_Tipo": "Horas", "Mensagem": "Atendimento cadastrado"},
)
def _ticket_created(result: v1_requests.TicketCreated) -> None:
    assert result.NumeroAtendimento == 48213 and result.SLA == "24:00"
    assert result.Mensagem == "Atendimento cadastrado"


_CONTACT = v1_requests.ContactCreate(
    Nome="Maria da Silva", Tipo=v1_records.ContactType.ADMINISTRATIVE, Telefone1="(19) 99111-2222"
)


@sample(
    "ClienteCadastro",
    v1_requests.CustomerCreate(
        TipoPessoa=v1_requests.PersonType.INDIVIDUAL,
        CPF="012.345.678-90",
        Nome="João da Silva",
        Endereco="Rua das Acácias",
        EndNumero=120,
        Bairro="Jardim América",
        CodMunicipio=3509502,
        UF="SP",
        CEP="13015-000",
        TipoConta=v1_requests.AccountKind.POSTPAID,
        RG="12.345.678-9",
        Cobranca=v1_records.ChargeKind.REGISTERED,
        DiaVencimento=10,
        Latitude=Decimal("-22.905639"),
        Longitude=Decimal("-47.060831"),
        Contatos=v1_requests.ContactCreateList(Contato=[_CONTACT]),
        DadosAdicionais=v1_requests.AdditionalDataCreateList(
            DadoAdicional=[v1_requests.AdditionalDataCreate(Codigo=4, Conteudo="Portão azul")]
        ),
    ),
    {"CodigoCliente": "1532", "Mensagem": "Cliente cadastrado com sucesso"},
)
def _customer_created(result: v1_requests.CustomerCreated) -> None:
    assert result.CodigoCliente == 1532 and result.Mensagem == "Cliente cadastrado com sucesso"


@sample(
    "MercadoCadastro",
    v1_requests.MarketCreate(
        TipoPessoa=v1_requests.PersonType.LEGAL_ENTITY,
        CNPJ="04.252.011/0001-10",
        Nome="Padaria Pão Quente",
        CodMunicipio=3552205,
        UF="sp",
        TipoConta="POS",
        IE="669123456110",
        BuscarCoordenadas=v1_records.YesNo.YES,
    ),
    {"CodigoMercado": "88", "Mensagem": "Mercado cadastrado com sucesso"},
)
def _market_created(result: v1_requests.MarketCreated) -> None:
    assert result.CodigoMercado == 88 and result.Mensagem == "Mercado cadastrado com sucesso"


@sample(
    "ClienteAlteracao",
    v1_requests.CustomerChange(
        Codigo=1532,
        Email="joao.novo@example.com.br",
        TelCelular="19988887777",
        BuscarCoordenadaS=v1_records.YesNo.NO,
        Contatos=v1_requests.ContactChangeList(
            Contato=[v1_requests.ContactChange(Codigo=77, Situacao=v1_records.ActiveStatus.INACTIVE)]
        ),
    ),
    {"CodigoCliente": "1532", "Mensagem": "Cliente alterado com sucesso"},
)
def _customer_changed(result: v1_requests.CustomerChanged) -> None:
    assert result.CodigoCliente == 1532 and result.Mensagem == "Cliente alterado com sucesso"


@sample(
    "MercadoAlteracao",
    v1_requests.MarketChange(Codigo=88, Sigla="Pão Quente", Observacoes="Visita agendada"),
    {"CodigoMercado": "88", "Mensagem": "Mercado alterado com sucesso"},
)
def _market_changed(result: v1_requests.MarketChanged) -> None:
    assert result.CodigoMercado == 88 and result.Mensagem is not None


@sample(
    "NotasFiscaisCadastro",
    v1_requests.InvoicesCreate(
        Nota=[
            v1_requests.Invoice(
                Cabecalho=v1_requests.InvoiceHeader(
                    CodigoCliente=1532,
                    Modelo=21,
                    DataEmissao=date(2024, 5, 1),
                    TipoUtilizacao=v1_requests.InvoiceUsage.MULTIMEDIA,
                    NaturezaOperacao="Prestação de serviço de comunicação multimídia",
                    Situacao=v1_requests.InvoiceStatus.NORMAL,
                ),
                Itens=v1_requests.InvoiceItemList(
                    Item=[
                        v1_requests.InvoiceItem(
                            Codigo=12,
                            Descricao="FIBRA 300 MEGA",
                            CFOP=5307,
                            Unidade="UN",
                            Valor=Decimal("99.90"),
                            ICMSValorAliquota=Decimal("0.00"),
                            CodigoClassificacaoItem="0104",
                        ),
                    ]
                ),
            ),
        ]
    ),
    {"QuantidadeNotas": "1"},
)
def _invoices_created(result: v1_requests.InvoicesCreated) -> None:
    assert result.QuantidadeNotas == 1


@sample(
    "PedidoCadastro",
    v1_requests.OrderCreate(
        Geral=v1_requests.OrderGeneral(
            Cliente=1532,
            TipoCliente=v1_records.PartyKind.CUSTOMER,
            CicloFat=1,
            Assinatura=date(2024, 5, 3),
            Vendedor="Pedro Vendas",
        ),
        EnderecoInstalacao=v1_requests.OrderAddress(
            Endereco="Rua das Acácias",
            Numero=120,
            Bairro="Jardim América",
            CodMunicipio=3509502,
            UF="SP",
            CEP="13015000",
        ),
        Adesao=v1_requests.Enrollment(
            TipoPlano=v1_requests.OrderItemKind.PLAN,
            CodigoPlano=12,
            NroParcelas=1,
            FormaPagto=v1_requests.EnrollmentPayment.BANK_SLIP,
            Cobranca=v1_requests.EnrollmentCharge.REGISTERED,
            Conta=3,
            Historico=8,
            Banco=341,
            Convenio=1234,
        ),
        Parcelas=v1_requests.InstallmentList(
            Parcela=[
                v1_requests.Installment(Descricao="Adesão 1/1", Vencimento=date(2024, 5, 10), Valor=Decimal("150.00"))
            ]
        ),
        Itens=v1_requests.OrderItemList(
            ItemP=[
                v1_requests.OrderItem(
                    Tipo=v1_requests.OrderItemKind.PLAN, Codigo=12, InicioCobranca=date(2024, 5, 3), AgruparCobranca="S"
                )
            ]
        ),
    ),
    {"NumeroPedido": "5120", "Mensagem": "Pedido cadastrado com sucesso"},
)
def _order_created(result: v1_requests.OrderCreated) -> None:
    assert result.NumeroPedido == 5120 and result.Mensagem == "Pedido cadastrado com sucesso"
