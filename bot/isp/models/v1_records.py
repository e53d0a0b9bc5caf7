"""Records returned by the generation-1.0 queries (first document, section 2).

Every scalar arrives as a string; the types in ``bot.isp.types`` read them. Codes the spec lists
become enums; a code outside the list is kept raw in ``odd_fields``.

Attribute names are the spec's wire names. Classes, enums and types are named in English so no
annotation can ever be shadowed by a field of the same name (pydantic resolves annotations in the
class namespace, where a field ``Situacao = None`` would hide an enum ``Situacao``).

Where the spec types an identifier as Numero but it is really a digit string (phones, CEP, bank
"nosso número", card last digits), the field is ``Digits`` so leading zeros survive; a tax id is
``TaxId``, which keeps the capitals of an alphanumeric CNPJ too. Fields the spec types as Numero
that may hold letters or separators that matter (RG/state registration: ``ISENTO``, an ``X`` check
digit; an IP address) are ``Text`` instead, because ``Digits`` would drop those characters.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator, SecretStr

from bot.isp.models.base import Record
from bot.isp.types import Blank, Date, DateTime, Dec, Digits, Int, TaxId, Text, Time


def _secret(value: Any) -> Any:
    # Never fails on odd input: a value that failed would be kept raw in ``odd_fields``.
    if value is None or value == "":
        return None
    if isinstance(value, SecretStr):
        return value
    return SecretStr(str(value))


SecretText = Annotated[SecretStr | None, BeforeValidator(_secret)]
"""A password returned in clear: hidden in ``repr``/``str``/logs; empty reads as ``None``."""


# ---- code sets -----------------------------------------------------------------------------------
class ActiveStatus(StrEnum):
    """A = active, I = inactive (topics, causes, workflows, SLA groups, contacts, ...)."""

    ACTIVE = "A"
    INACTIVE = "I"


class YesNo(StrEnum):
    """S = yes, N = no (the spec's flags: mandatory, shown, blockable, online, ...)."""

    YES = "S"
    NO = "N"


class TicketType(StrEnum):
    """Ticket, topic and cause type."""

    ADMINISTRATIVE = "A"  # administrative/financial
    COMMERCIAL = "C"
    TECHNICAL = "T"


class OsStatus(StrEnum):
    """Status of the service order linked to a ticket; empty means no service order."""

    QUEUED = "F"
    ON_THE_WAY = "A"
    EXECUTING = "E"
    PAUSED = "P"
    COMPLETED = "C"
    ABORTED = "B"


class AssigneeKind(StrEnum):
    """Who a ticket is assigned to; empty means nobody."""

    USER = "usuario"
    GROUP = "grupo"


class PartyKind(StrEnum):
    """Whether a code refers to a customer or a market (prospect)."""

    CUSTOMER = "C"
    MARKET = "M"


class DocumentParty(StrEnum):
    """Whose financial document it is."""

    CUSTOMER = "C"
    SUPPLIER = "F"
    MARKET = "M"


class TopicOpening(StrEnum):
    """How tickets of a topic may be opened."""

    ALL = "T"
    STANDALONE = "A"
    WORKFLOW = "F"


class AutoOrManual(StrEnum):
    """Occurrence mode, failover event source."""

    AUTOMATIC = "A"
    MANUAL = "M"


class PersonKind(StrEnum):
    """Tipo of customers, markets, suppliers and contact complements in the queries (F/J).

    The create/change operations spell an individual ``P`` instead (see ``v1_requests``)."""

    INDIVIDUAL = "F"
    LEGAL_ENTITY = "J"


class ChargeKind(StrEnum):
    """Cobranca: how a customer is charged."""

    SIMPLE = "S"
    REGISTERED = "R"
    DIRECT_DEBIT = "D"
    CREDIT_CARD = "C"


class PrintKind(StrEnum):
    """TipoImpressao."""

    BILL_SLIP = "B"
    BOOKLET = "C"


class CustomerStatus(StrEnum):
    """Situacao of a customer.

    The spec lists the code ``I`` twice: "inactive" and "in installation". One code cannot mean
    both, so ``I`` reads as ``INACTIVE`` (listed first, and the meaning ``ActiveStatus`` gives it
    everywhere else). Whether a customer is really being installed is told by its contracts
    (``ConsultaContratos`` ``Situacao_Codigo`` I, which is unambiguous there).
    """

    ACTIVE = "A"
    INACTIVE = "I"
    BLOCKED = "B"
    SUSPENDED = "S"
    CANCELLED = "C"
    WAITING_FOR_INSTALLATION = "E"


class PaymentNotice(StrEnum):
    """AvisoPagamento: whether the customer may report a payment notice."""

    ALLOWED = "S"
    ALLOWED_AT_ALERT_LEVEL = "A"
    NOT_ALLOWED = "N"


class ContactType(StrEnum):
    GENERAL = "G"
    ADMINISTRATIVE = "A"
    TECHNICAL = "T"


class ContractStatus(StrEnum):
    WAITING_FOR_INSTALLATION = "E"
    IN_INSTALLATION = "I"
    ACTIVE = "A"
    BLOCKED = "B"
    SUSPENDED = "S"
    CANCELLED = "C"
    TRANSFERRED = "T"


class CardNetwork(StrEnum):
    """Bandeira of a stored card. The spec lists the codes (one per card network) but not which
    network each code is, so members are named by code rather than by a guessed network."""

    NETWORK_A = "A"
    NETWORK_D = "D"
    NETWORK_E = "E"
    NETWORK_H = "H"
    NETWORK_J = "J"
    NETWORK_M = "M"
    NETWORK_R = "R"
    NETWORK_U = "U"
    NETWORK_V = "V"


class CardKind(StrEnum):
    CREDIT = "C"
    DEBIT = "D"
    MULTIPLE = "M"


class DocumentOrigin(StrEnum):
    """Origem of a financial document."""

    ENROLLMENT = "ADE"
    BILLING = "FAT"
    OTHER = "OUT"
    SERVICES = "SER"
    SALES = "VEN"


class SettlementReason(StrEnum):
    PAYMENT = "PAGTO"
    CANCELLATION = "CANC"  # not a reversal
    RENEGOTIATION = "RENEG"
    TRANSFER = "TRANS"  # between accounts


class SettlementMethod(StrEnum):
    NORMAL = "N"
    ONLINE_CREDIT_CARD = "C"
    ONLINE_DEBIT_CARD = "D"
    CREDIT_CARD_MACHINE = "CM"
    DEBIT_CARD_MACHINE = "DM"
    MULTI_CURRENCY = "Multimoeda"  # other-country licences only


class FailoverKind(StrEnum):
    NAS = "NAS"
    LINK = "LINK"
    VIRTUAL_LINK = "LINK_VIR"
    DNSR = "DNSR"
    DNSF = "DNSF"
    PROXY = "PROXY"


class FailoverStatus(StrEnum):
    OPEN = "O"
    FINISHED = "C"


class UserStatus(StrEnum):
    ACTIVE = "A"
    BLOCKED = "B"
    INACTIVE = "I"


# ---- 2.1 tickets ---------------------------------------------------------------------------------
class Ticket(Record):
    """ConsultaAtendimentos: a support ticket."""

    Numero: Int = None
    Protocolo: Int = None
    Abertura_DataHora: DateTime = None
    Abertura_Usuario: Text = None
    Designacao_Tipo: Annotated[AssigneeKind | None, Blank] = None
    Designacao_Usuario: Text = None
    Designacao_Grupo_Id: Text = None
    Designacao_Grupo_Nome: Text = None
    Situacao_OS: Annotated[OsStatus | None, Blank] = None
    Topico: Text = None
    Assunto: Text = None
    Solucao: Text = None
    Encerramento_DataHora: DateTime = None
    Causa: Text = None
    Tipo: Annotated[TicketType | None, Blank] = None
    TipoCliente: Annotated[PartyKind | None, Blank] = None
    CodigoCliente: Int = None
    Data_Agendamento: Date = None
    Hora_Agendamento: Time = None
    Duracao_Agendamento: Time = None
    Situacao_Agendamento: Text = None


class ClosingCause(Record):
    """ConsultaCausas: a ticket closing cause."""

    Codigo: Int = None
    Tipo: Annotated[TicketType | None, Blank] = None
    Nome: Text = None
    Descricao: Text = None
    Situacao: Annotated[ActiveStatus | None, Blank] = None


class ChecklistItem(Record):
    """ConsultaChecklistAtendimentos: a checklist entry of an open ticket."""

    Atendimento_Numero: Int = None
    Checklist_Id: Int = None
    Checklist_Descricao: Text = None
    Checklist_Obrigatorio: Annotated[YesNo | None, Blank] = None
    Checklist_Status: Annotated[YesNo | None, Blank] = None


class Workflow(Record):
    """ConsultaFluxos: a ticket workflow."""

    Codigo: Int = None
    Descricao: Text = None
    Planos: Text = None
    GruposClientes: Text = None
    GruposUsuarios: Text = None
    Situacao: Annotated[ActiveStatus | None, Blank] = None


class SlaGroup(Record):
    """ConsultaGruposSLA."""

    Codigo: Int = None
    Descricao: Text = None
    Situacao: Annotated[ActiveStatus | None, Blank] = None


class TicketOccurrence(Record):
    """ConsultaOcorrenciasAtendimentos: an occurrence of a ticket (``Descricao`` may hold HTML)."""

    Id: Int = None
    Data: DateTime = None
    Descricao: Text = None
    Modo: Annotated[AutoOrManual | None, Blank] = None
    Usuario: Text = None
    Latitude: Dec = None
    Longitude: Dec = None
    Atendimento_Numero: Int = None


class TicketTopic(Record):
    """ConsultaTopicos: a ticket topic."""

    Codigo: Int = None
    Tipo: Annotated[TicketType | None, Blank] = None
    Nome: Text = None
    Descricao: Text = None
    Central: Annotated[YesNo | None, Blank] = None
    Abertura: Annotated[TopicOpening | None, Blank] = None
    Situacao: Annotated[ActiveStatus | None, Blank] = None


# ---- 2.2 authentications -------------------------------------------------------------------------
class Authentication(Record):
    """ConsultaAutenticacao: a subscriber authentication."""

    Id: Int = None
    Cliente: Int = None
    Contrato: Int = None
    NAS: Text = None
    Porta: Text = None
    Usuario: Text = None
    MAC: Text = None
    Observacao: Text = None


class AuthenticationWithPassword(Authentication):
    """ConsultaAutenticacaoSenha: an authentication with its password (returned in clear by the
    web service, hidden here everywhere but ``Senha.get_secret_value()``)."""

    Senha: SecretText = None


# ---- 2.3 customers and markets -------------------------------------------------------------------
class _Registration(Record):
    """Fields customers and markets share."""

    Codigo: Int = None
    Tipo: Annotated[PersonKind | None, Blank] = None
    CNPJ_CNPF: TaxId = None
    Nome: Text = None
    Endereco: Text = None
    Numero: Int = None
    Complemento: Text = None
    Bairro: Text = None
    Cidade: Text = None
    Distrito: Text = None
    UF: Text = None
    CEP: Digits = None
    TelComercial: Digits = None
    TelResidencial: Digits = None
    TelCelular: Digits = None
    BcoCobr: Int = None
    RG_IE: Text = None
    Nascimento: Date = None
    Cobranca: Annotated[ChargeKind | None, Blank] = None
    TipoImpressao: Annotated[PrintKind | None, Blank] = None
    DiaCobr: Int = None
    DiasProtesto: Int = None
    Sigla: Text = None
    Cobr_Endereco: Text = None
    Cobr_Complemento: Text = None
    Cobr_Bairro: Text = None
    Cobr_Cidade: Text = None
    Cobr_UF: Text = None
    Cobr_CEP: Digits = None
    Bloqueavel: Annotated[YesNo | None, Blank] = None
    Inclusao: Date = None
    usuario: Text = None
    Observacoes: Text = None
    MapsMarkLat: Dec = None
    MapsMarkLng: Dec = None
    Grupo: Int = None


class Customer(_Registration):
    """ConsultaClientes: a customer."""

    CodCobr: Digits = None
    Situacao: Annotated[CustomerStatus | None, Blank] = None
    Email: Text = None
    AvisoPagamento: Annotated[PaymentNotice | None, Blank] = None


class Market(_Registration):
    """ConsultaMercados: a market (prospect); ``Grupo`` is the market group."""

    CodCobr: Text = None


class BlockedCustomer(Record):
    """ConsultaClientesBloqueados."""

    Codigo: Int = None
    Nome: Text = None
    DataBloqueio: DateTime = None
    DiasBloqueio: Int = None


class ReducedCustomer(Record):
    """ConsultaClientesReducao: a customer in a bandwidth-reduction rule of the virtual collector."""

    Regra: Int = None
    Cliente_Codigo: Int = None
    Cliente_Nome: Text = None
    Contrato_Numero: Int = None
    Contrato_Descricao: Text = None


class CustomerOnline(Record):
    """ConsultaClienteOnline: online when at least one of the customer's authentications is."""

    Codigo: Int = None
    Nome: Text = None
    Online: Annotated[YesNo | None, Blank] = None
    NasConectados: Text = None


class ContactComplement(Record):
    """ConsultaComplementoContatos."""

    Codigo: Int = None
    Tipo: Annotated[PersonKind | None, Blank] = None
    Nome: Text = None


class Contact(Record):
    """ConsultaContatos: a contact (``Aniversario`` is a digit string, format DDAAAA per the spec)."""

    id: Int = None
    Nome: Text = None
    CPF: Digits = None
    Email: Text = None
    Telefone1: Digits = None
    Telefone2: Digits = None
    Telefone3: Digits = None
    Aniversario: Digits = None
    Tipo: Annotated[ContactType | None, Blank] = None
    Situacao: Annotated[ActiveStatus | None, Blank] = None
    Cliente: Int = None


class AdditionalDataValue(Record):
    """ConsultarDadosAdicionais: a value of an additional data (``Chave`` is the id of the customer,
    contract or ticket it belongs to)."""

    Id: Int = None
    Codigo: Int = None
    Descricao: Text = None
    Tabela: Text = None
    Chave: Text = None
    Valor: Text = None


class AdditionalDataDefinition(Record):
    """ConsultaDadosAdicionais: a definition of an additional data."""

    Codigo: Int = None
    Tabela: Text = None
    Nome: Text = None


class CustomerBilling(Record):
    """ConsultaClientesCobranca: billing data of a customer."""

    Codigo: Int = None
    Nome: Text = None
    BcoCobr: Int = None
    CodCobr: Text = None
    Cobranca: Annotated[ChargeKind | None, Blank] = None
    TipoImpressao: Annotated[PrintKind | None, Blank] = None
    DiaCobr: Int = None
    DiasProtesto: Int = None
    Cobr_Endereco: Text = None
    Cobr_Complemento: Text = None
    Cobr_Bairro: Text = None
    Cobr_Cidade: Text = None
    Cobr_UF: Text = None
    Cobr_CEP: Digits = None
    Bloqueavel: Annotated[YesNo | None, Blank] = None


class OnlineEquipment(Record):
    """ConsultaEquipamentosOnline."""

    Cliente_Codigo: Int = None
    Cliente_Nome: Text = None
    Contrato_Numero: Int = None
    Contrato_Descricao: Text = None
    DataHora_UltimaColeta: DateTime = None
    NAS_IP: Text = None
    NAS_Sigla: Text = None
    NAS_Descricao: Text = None
    NAS_Slot: Text = None
    NAS_Porta: Text = None
    Equipamento_Id: Int = None
    Equipamento_Descricao: Text = None
    Equipamento_Serial: Text = None
    Equipamento_Sinal: Int = None
    Equipamento_Txccq: Int = None
    Equipamento_MaxCpe: Int = None
    Equipamento_Temperatura: Int = None
    # Typed Hora by the spec but described as "connection time in minutes": a count of minutes or a
    # duration past 24 hours cannot be a time of day, so the raw text is kept.
    Equipamento_TempoConectadoMinutos: Text = None


class CustomerGroup(Record):
    """ConsultaGruposCliente."""

    Codigo: Int = None
    Nome: Text = None


# ---- 2.4 contracts -------------------------------------------------------------------------------
class Contract(Record):
    """ConsultaContratos: a contract (flat record, both addresses prefixed)."""

    Cliente_Codigo: Int = None
    Cliente_Nome: Text = None
    Numero: Int = None
    Plano_Codigo: Int = None
    Plano_Descricao: Text = None
    Pacote_Codigo: Int = None
    Pacote_Descricao: Text = None
    Pacote_PacoteID: Int = None
    Modelos_Contrato: Text = None
    Situacao_Codigo: Annotated[ContractStatus | None, Blank] = None
    Situacao_Descricao: Text = None
    Assinatura: Date = None
    Inicio: Date = None
    DataUltimaOperacao: Date = None
    Data_Validade: Date = None
    Aceite_Eletronico_Data: Date = None
    CicloFaturamento_DiaBase: Int = None
    CicloFaturamento_Vencimento: Int = None
    ValorBruto: Dec = None
    DescontoFixo: Dec = None
    ValorLiquido: Dec = None
    DescontoPromocional_Valor: Dec = None
    DescontoPromocional_Prazo: Int = None
    Vigencia: Int = None
    Adesao_Valor: Dec = None
    Plano_Valor: Dec = None
    Plano_Tipo: Text = None
    Agrupamento: Text = None
    Assinado: Text = None
    Vendedor: Text = None
    Vigencia_Situacao: Text = None
    Qtde_Dias_Vencido: Int = None
    SLA: Text = None
    QoS: Text = None
    Tecnologia: Text = None
    EnderecoCobranca_Logradouro: Text = None
    EnderecoCobranca_Numero: Int = None
    EnderecoCobranca_Complemento: Text = None
    EnderecoCobranca_Bairro: Text = None
    EnderecoCobranca_Cidade: Text = None
    EnderecoCobranca_UF: Text = None
    EnderecoCobranca_CEP: Digits = None
    EnderecoCobranca_Pais: Text = None
    EnderecoCobranca_LocalidadeId: Int = None
    EnderecoCobranca_BairroId: Int = None
    EnderecoCobranca_LogradouroId: Int = None
    EnderecoCobranca_MapsPlaceId: Text = None
    EnderecoCobranca_Latitude: Dec = None
    EnderecoCobranca_Longitude: Dec = None
    EnderecoInstalacao_Logradouro: Text = None
    EnderecoInstalacao_Numero: Int = None
    EnderecoInstalacao_Complemento: Text = None
    EnderecoInstalacao_Bairro: Text = None
    EnderecoInstalacao_Cidade: Text = None
    EnderecoInstalacao_UF: Text = None
    EnderecoInstalacao_CEP: Digits = None
    EnderecoInstalacao_Pais: Text = None
    EnderecoInstalacao_LocalidadeId: Int = None
    EnderecoInstalacao_BairroId: Int = None
    EnderecoInstalacao_LogradouroId: Int = None
    EnderecoInstalacao_MapsPlaceId: Text = None
    EnderecoInstalacao_Latitude: Dec = None
    EnderecoInstalacao_Longitude: Dec = None
    EnderecoInstalacao_UsadoParaCobranca: Text = None
    Cliente_Tipo: Annotated[PersonKind | None, Blank] = None
    Cliente_CPF_CNPJ: TaxId = None
    Cliente_Tel_Comercial: Digits = None
    Cliente_Tel_Residencial: Digits = None
    Cliente_Tel_Celular: Digits = None
    Cliente_RG_IE: Text = None
    Cliente_Sigla: Text = None
    Cliente_Bloqueavel: Annotated[YesNo | None, Blank] = None
    Cliente_Email: Text = None
    Cliente_Grupo: Text = None
    Aceite_Eletronico: Annotated[YesNo | None, Blank] = None
    # Typed Numero by the spec, but an IP address: digits only would drop its dots.
    Aceite_Eletronico_IP: Text = None
    Aceite_Eletronico_Origem: Text = None
    Cancelamento_Motivo: Text = None
    Cancelamento_Concorrencia: Text = None
    Ultima_Operacao_Usuario: Text = None
    Cancelamento_Agendado_Data: Text = None
    Cancelamento_Agendado_Registro: Text = None
    Cancelamento_Agendado_Usuario: Text = None


class BlockedContract(Record):
    """ConsultaContratosBloqueados."""

    Contrato_Numero: Int = None
    Contrato_Descricao: Text = None
    Contrato_Bloqueio: Date = None
    Contrato_Bloqueio_Usuario: Text = None
    Cliente_Codigo: Int = None
    Cliente_Nome: Text = None


class Competitor(Record):
    """ConsultaConcorrencia."""

    id: Int = None
    Nome: Text = None


class CancellationReason(Record):
    """ConsultaMotivosCancelamento."""

    id: Int = None
    Nome: Text = None


# ---- 2.5 stock -----------------------------------------------------------------------------------
class ProductModel(Record):
    """ConsultaModelosProduto."""

    Codigo: Int = None
    Tipo_Descricao: Text = None
    Tipo_Id: Int = None
    Descricao: Text = None
    Marca: Text = None


class ProductType(Record):
    """ConsultaTiposProduto."""

    Codigo: Int = None
    Descricao: Text = None


class ProductUnit(Record):
    """ConsultaUnidadesProduto."""

    Codigo: Int = None
    Sigla: Text = None
    Descricao: Text = None


# ---- 2.6 financial -------------------------------------------------------------------------------
class StoredCard(Record):
    """ConsultaCartoesCadastrados: a stored payment card."""

    Id: Int = None
    TipoPessoa: Annotated[PartyKind | None, Blank] = None
    CodigoPessoa: Int = None
    UltimosDigitos: Digits = None
    Bandeira: Annotated[CardNetwork | None, Blank] = None
    TipoCartao: Annotated[CardKind | None, Blank] = None
    CartaoPadrao: Annotated[YesNo | None, Blank] = None


class BillingCycle(Record):
    """ConsultaCiclosFaturamento (``Descricao``: ``[start day] a [end day] / [due day]``)."""

    id: Int = None
    Dia: Int = None
    Vencimento: Int = None
    Situacao: Annotated[ActiveStatus | None, Blank] = None
    Descricao: Text = None


class SettledDocument(Record):
    """ConsultaDocumentosBaixados: a settled financial document."""

    Sequencia: Int = None
    Tipo: Annotated[DocumentParty | None, Blank] = None
    Cobranca: Annotated[ChargeKind | None, Blank] = None
    CodigoPessoa: Int = None
    DocumentoPessoa: TaxId = None
    NomePessoa: Text = None
    Conta: Int = None
    Historico: Text = None
    HistoricoBaixa: Text = None
    ContaContrapartida: Int = None
    Documento: Int = None
    NossoNumero: Digits = None
    Origem: Annotated[DocumentOrigin | None, Blank] = None
    Banco: Int = None
    Convenio: Int = None
    Complemento: Text = None
    DataLancamento: Date = None
    DataVencimento: Date = None
    DataBaixa: Date = None
    Motivo: Annotated[SettlementReason | None, Blank] = None
    FormaPagto: Annotated[SettlementMethod | None, Blank] = None
    ValorOriginal: Dec = None
    ValorJuros: Dec = None
    ValorMulta: Dec = None
    ValorDesconto: Dec = None
    ValorBaixado: Dec = None
    UsuarioBaixa: Text = None
    DataHoraExecucaoBaixa: DateTime = None


class OpenDocument(Record):
    """ConsultaDocumentosAbertos: an open financial document."""

    Conta: Int = None
    Vencimento: Date = None
    Documento: Int = None
    Historico: Text = None
    Complemento: Text = None
    Origem: Annotated[DocumentOrigin | None, Blank] = None
    Valor: Dec = None
    Tipo: Annotated[DocumentParty | None, Blank] = None
    CliFor: Int = None
    Nome: Text = None
    CPF_CNPJ: TaxId = None
    Telefone1: Digits = None
    Telefone2: Digits = None
    Telefone3: Digits = None
    Convenio: Int = None
    Banco: Int = None
    NossoNumero: Digits = None
    ContratosVinculados: Text = None
    Sequencia: Int = None
    RegistradoNoBanco: Annotated[YesNo | None, Blank] = None


class CollectionGroup(Record):
    """ConsultaGruposCobranca."""

    Codigo: Int = None
    Nome: Text = None


# ---- 2.7 miscellaneous ---------------------------------------------------------------------------
class FailoverEvent(Record):
    """FailOverEvents: a failover event (``Cause``/``Solution`` close the linked ticket)."""

    Id: Int = None
    Host: Text = None
    Type: Annotated[FailoverKind | None, Blank] = None
    Server: Text = None
    AffectedCustomers: Text = None
    DownTime: DateTime = None
    UpTime: DateTime = None
    Status: Annotated[FailoverStatus | None, Blank] = None
    Source: Annotated[AutoOrManual | None, Blank] = None
    Description: Text = None
    Duration: Int = None
    Cause: Int = None
    Solution: Text = None


class Supplier(Record):
    """ConsutaFornecedores: a supplier."""

    Codigo: Int = None
    Tipo: Annotated[PersonKind | None, Blank] = None
    CNPJ_CNPF: TaxId = None
    Nome: Text = None
    Endereco: Text = None
    Numero: Int = None
    Complemento: Text = None
    Bairro: Text = None
    Cidade: Text = None
    UF: Text = None
    CEP: Digits = None
    Telefone1: Digits = None
    Telefone2: Digits = None
    TelFax: Digits = None
    RG_IE: Text = None
    Sigla: Text = None
    Inclusao: Date = None
    Usuario: Text = None
    Situacao: Annotated[ActiveStatus | None, Blank] = None
    Observacoes: Text = None


class Plan(Record):
    """ConsultaPlanos (``Grupo``: name and description of the plan group)."""

    Codigo: Int = None
    Descricao: Text = None
    Grupo: Text = None


class QosProfile(Record):
    """ConsultaQoS."""

    Codigo: Int = None
    Descricao: Text = None


class NasStatus(Record):
    """ConsultaStatusNAS: offline after more than 90 seconds without communication."""

    IPInterno: Text = None
    Online: Annotated[YesNo | None, Blank] = None


class SystemUser(Record):
    """ConsultaUsuarios: a user of the management system."""

    Usuario: Text = None
    Situacao: Annotated[UserStatus | None, Blank] = None
    Email: Text = None
