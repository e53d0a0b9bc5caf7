"""Requests of the generation-1.0 write operations (first document, section 4.3) and the result
objects they answer.

Attribute names are the spec's wire names. Each request model is the content of the operation's
parameter group (``DadosAtendimento``, ``DadosCliente`` ...); the catalog wraps it in the group.
Classes, enums and types are named in English so no annotation is ever shadowed by a field of the
same name (``Latitude`` is a field here, so the coordinate types are imported under other names).

What the spec states is enforced before anything is sent: required fields, code sets, ranges,
formats, and the conditional rules (``Topico`` not with ``Fluxo``, RG only for individuals, ...).
Rules only the server can judge (a code must exist, a marketing stimulus needs a Commercial ticket
when the type is not given) are left to it.

Repeatable groups (``Contato``, ``DadoAdicional``, ``Nota``, ``Item``, ``Parcela``, ``ItemP``)
are sent as JSON lists.
"""

from __future__ import annotations

import re
from decimal import Decimal
from enum import IntEnum, StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, PlainSerializer, model_validator

from bot.isp.models.base import Record, Request
from bot.isp.models.v1_records import (
    ActiveStatus,
    ChargeKind,
    ContactType,
    DocumentOrigin,
    DocumentParty,
    PartyKind,
    PaymentNotice,
    PrintKind,
    TicketType,
    YesNo,
)
from bot.isp.types import DateStr, HourMinuteSecond, Int, Money, PositiveInt, Text
from bot.isp.types import Latitude as LatitudeValue  # a field is named Latitude
from bot.isp.types import Longitude as LongitudeValue

# ---- request scalar types ------------------------------------------------------------------------
_SEPARATORS = re.compile(r"[\s.\-/()]")


def _strip_separators(value: Any) -> Any:
    if isinstance(value, bool):
        return value  # refused by the pattern below rather than read as 0/1
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _SEPARATORS.sub("", value)
    return value


def _upper(value: Any) -> Any:
    return value.strip().upper() if isinstance(value, str) else value


_Digits = BeforeValidator(_strip_separators)
DigitString = Annotated[str, _Digits, Field(pattern=r"^\d+$")]
"""A Numero that is really a digit string (phone, item class): separators dropped, zeros kept."""
Cep = Annotated[str, _Digits, Field(pattern=r"^\d{8}$")]
Cpf = Annotated[str, _Digits, Field(pattern=r"^\d{11}$")]
Cnpj = Annotated[str, _Digits, BeforeValidator(_upper), Field(pattern=r"^[0-9A-Z]{12}\d{2}$")]
"""Numeric, or alphanumeric (from July 2026): 12 capitals or digits and 2 check digits."""
BankNumber = Annotated[str, _Digits, Field(pattern=r"^\d+[\dXx]?$")]
"""Branch or account number with its check digit (which may be an ``X``)."""


StateCode = Annotated[str, BeforeValidator(_upper), Field(pattern=r"^[A-Z]{2}$")]
"""UF: the two-letter code of a Brazilian state."""
NonEmpty = Annotated[str, Field(min_length=1)]
NonNegativeInt = Annotated[int, Field(ge=0)]


def _at_least_one(items: tuple[Any, ...]) -> tuple[Any, ...]:
    if not items:
        raise ValueError("needs at least one entry")
    return items


# Not ``Field(min_length=1)``: on a tuple it counts only the entries that validated, adding a second,
# misleading "too short" error whenever one entry is wrong.
_AT_LEAST_ONE = AfterValidator(_at_least_one)

IcmsDecimal = Annotated[
    Decimal,
    Field(ge=0, max_digits=5, decimal_places=2),
    PlainSerializer(float, return_type=float, when_used="json"),
]
"""Decimal(3.2) for the ICMS base and rate: 3 digits before the point and 2 after (at most 999.99).
Not 3 digits in all, as Decimal(16.13) reads for coordinates: the vendor's own published example
sends a base of ``100.00`` and a rate of ``10.00``."""


def _check_cfop(value: int) -> int:
    if not (5301 <= value <= 5307 or 6301 <= value <= 6307):
        raise ValueError("must be one of 5301-5307 or 6301-6307")
    return value


Cfop = Annotated[int, AfterValidator(_check_cfop)]
"""CFOP of communication-service invoices (model 21)."""


def _billing_group(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be S, N or an integer 1 to 20")
    text = str(value).strip().upper() if isinstance(value, int | str) else value
    if not isinstance(text, str) or not (text in ("S", "N") or (text.isdecimal() and 1 <= int(text) <= 20)):
        raise ValueError("must be S, N or an integer 1 to 20")
    return str(int(text)) if text.isdecimal() else text


BillingGroup = Annotated[str, BeforeValidator(_billing_group)]
"""AgruparCobranca: S = group, N = do not group, or 1 to 20 (same number, same group)."""


def _invoice_model(value: int) -> int:
    if value not in (21, 22):
        raise ValueError("must be 21 or 22")
    return value


def _two_digits(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:02d}"
    return value


# ---- code sets -----------------------------------------------------------------------------------
class Initiative(StrEnum):
    CUSTOMER = "C"
    ATTENDANT = "A"


class TicketState(StrEnum):
    """Situacao a new ticket opens in."""

    IN_PROGRESS = "A"
    ON_HOLD = "E"


class PersonType(StrEnum):
    """TipoPessoa of the create/change operations: individual is ``P`` here (the queries say ``F``)."""

    INDIVIDUAL = "P"
    LEGAL_ENTITY = "J"


class AccountKind(StrEnum):
    PREPAID = "PRE"
    POSTPAID = "POS"


class SubscriberKind(IntEnum):
    """TipoAssinante. Default when omitted: 1 for legal entities, 3 for individuals."""

    COMMERCIAL_INDUSTRIAL = 1
    PUBLIC_AUTHORITY = 2
    RESIDENTIAL_INDIVIDUAL = 3
    PUBLIC = 4
    SEMI_PUBLIC = 5
    OTHER = 6


class SubscriberKindFiscal(StrEnum):
    """TipoAssinante2, for the fiscal file of invoice models 21 and 22 (two digits, sent so)."""

    COMMERCIAL = "01"
    INDUSTRIAL = "02"
    RESIDENTIAL_INDIVIDUAL = "03"
    RURAL_PRODUCER = "04"
    STATE_DIRECT_PUBLIC_ADMINISTRATION = "05"
    TELECOM_NETWORK_CESSION = "06"
    DIPLOMATIC_MISSION = "07"
    CHURCH_OR_TEMPLE = "08"
    OTHER = "99"


class IcmsTaxpayer(IntEnum):
    """ContribuinteICMS. Default: 1 when a state registration exists, otherwise 2."""

    TAXPAYER = 1
    EXEMPT = 2
    NON_TAXPAYER = 9


class DebitOperation(StrEnum):
    """DebitoOperacao: account operation for direct debit at bank 104."""

    INDIVIDUAL_CHECKING = "001"
    LEGAL_ENTITY_CHECKING = "003"
    INDIVIDUAL_SAVINGS = "013"


class InvoiceUsage(IntEnum):
    TELEPHONY = 1
    DATA_COMMUNICATION = 2
    SUBSCRIPTION_TV = 3
    INTERNET_ACCESS = 4
    MULTIMEDIA = 5
    OTHER = 6


class InvoiceStatus(StrEnum):
    NORMAL = "N"
    CANCELLED = "C"


class OrderItemKind(StrEnum):
    PLAN = "P"
    PACKAGE = "O"


class EnrollmentPayment(StrEnum):
    BANK_SLIP = "B"
    WITH_MONTHLY_BILL = "P"


class EnrollmentCharge(StrEnum):
    """Only simple and registered charges are allowed for an enrollment."""

    SIMPLE = "S"
    REGISTERED = "R"


# ---- 4.3.1 AtendimentoCadastro -------------------------------------------------------------------
class TicketCreate(Request):
    """DadosAtendimento of AtendimentoCadastro: a new ticket."""

    Data_Abertura: DateStr
    Hora_Abertura: HourMinuteSecond
    Iniciativa: Initiative
    Modo: NonEmpty
    Estimulo_Marketing: PositiveInt | None = None
    TipoCliente: PartyKind
    Cliente: PositiveInt
    Contrato: PositiveInt | None = None
    Contato: PositiveInt | None = None
    Prioridade: NonNegativeInt | None = None
    Situacao: TicketState | None = None
    Tipo: TicketType | None = None
    Topico: PositiveInt | None = None
    Fluxo: PositiveInt | None = None
    Assunto: NonEmpty
    Ocorrencia: str | None = None
    Usuario_Abertura: NonEmpty | None = None

    @model_validator(mode="after")
    def _rules(self) -> TicketCreate:
        if self.Contrato is not None and self.TipoCliente is not PartyKind.CUSTOMER:
            raise ValueError("Contrato is allowed only when TipoCliente is C (customer)")
        if self.Topico is not None and self.Fluxo is not None:
            raise ValueError("Topico cannot be sent together with Fluxo")
        if self.Tipo is not None and self.Fluxo is not None:
            raise ValueError("Tipo cannot be sent together with Fluxo")
        if self.Tipo is not None and self.Topico is None:
            raise ValueError("Tipo is allowed only when Topico is given")
        # Only checkable when the type is sent; otherwise the server answers code 223.
        if self.Estimulo_Marketing is not None and self.Tipo not in (None, TicketType.COMMERCIAL):
            raise ValueError("Estimulo_Marketing is allowed only for Commercial tickets (Tipo C)")
        return self


class TicketCreated(Record):
    """Result of AtendimentoCadastro."""

    NumeroAtendimento: Int = None
    SLA: Text = None
    SLA_Tipo: Text = None
    Mensagem: Text = None


# ---- 4.3.2 customers and markets -----------------------------------------------------------------
class AdditionalDataCreate(Request):
    """DadoAdicional on create."""

    Codigo: PositiveInt
    Conteudo: str


class AdditionalDataChange(AdditionalDataCreate):
    """DadoAdicional on change; ``Id`` is needed when the record holds the same code twice."""

    Id: PositiveInt | None = None


class AdditionalDataCreateList(Request):
    """DadosAdicionais on create."""

    DadoAdicional: Annotated[tuple[AdditionalDataCreate, ...], _AT_LEAST_ONE]


class AdditionalDataChangeList(Request):
    """DadosAdicionais on change."""

    DadoAdicional: Annotated[tuple[AdditionalDataChange, ...], _AT_LEAST_ONE]


class _ContactFields(Request):
    Complemento: PositiveInt | None = None
    Email: NonEmpty | None = None
    Telefone1: DigitString | None = None
    Telefone2: DigitString | None = None
    Telefone3: DigitString | None = None
    Aniversario: DateStr | None = None
    Situacao: ActiveStatus | None = None


class ContactCreate(_ContactFields):
    """Contato on create: ``Nome`` and ``Tipo`` required."""

    Nome: NonEmpty
    Tipo: ContactType


class ContactChange(_ContactFields):
    """Contato on change: ``Codigo`` names the contact to change."""

    Codigo: PositiveInt | None = None
    Nome: NonEmpty | None = None
    Tipo: ContactType | None = None


class ContactCreateList(Request):
    """Contatos on create."""

    Contato: Annotated[tuple[ContactCreate, ...], _AT_LEAST_ONE]


class ContactChangeList(Request):
    """Contatos on change."""

    Contato: Annotated[tuple[ContactChange, ...], _AT_LEAST_ONE]


class _RegistrationFields(Request):
    """Fields customer and market create and change share, all optional here."""

    TipoPessoa: PersonType | None = None
    CPF: Cpf | None = None
    CNPJ: Cnpj | None = None
    Nome: NonEmpty | None = None
    Endereco: str | None = None
    EndNumero: NonNegativeInt | None = None
    Complemento: str | None = None
    Bairro: str | None = None
    Distrito: str | None = None
    UF: StateCode | None = None
    CodMunicipio: PositiveInt | None = None
    CEP: Cep | None = None
    TelComercial: DigitString | None = None
    TelResidencial: DigitString | None = None
    TelCelular: DigitString | None = None
    Banco: NonNegativeInt | None = None
    RG: NonEmpty | None = None
    IE: NonEmpty | None = None
    Nascimento: DateStr | None = None
    CodCobr: NonEmpty | None = None
    Cobranca: ChargeKind | None = None
    TipoImpressao: PrintKind | None = None
    Convenio: PositiveInt | None = None
    TipoAssinante: SubscriberKind | None = None
    CFOP: Cfop | None = None
    DiaVencimento: Annotated[int, Field(ge=0, le=31)] | None = None
    DiasProtesto: NonNegativeInt | None = None
    DebitoAgencia: BankNumber | None = None
    DebitoOperacao: DebitOperation | None = None
    DebitoConta: BankNumber | None = None
    Sigla: str | None = None
    CobrEndereco: str | None = None
    CobrEndNumero: NonNegativeInt | None = None
    CobrComplemento: str | None = None
    CobrBairro: str | None = None
    CobrCidade: str | None = None
    CobrUF: StateCode | None = None
    CobrCEP: Cep | None = None
    Bloqueavel: YesNo | None = None
    Negativavel: YesNo | None = None
    AvisoPagamento: PaymentNotice | None = None
    CobrGrupo: PositiveInt | None = None
    Email: NonEmpty | None = None
    EnviarBoletoEmail: YesNo | None = None
    Observacoes: str | None = None
    Latitude: LatitudeValue | None = None
    Longitude: LongitudeValue | None = None
    Servidor: PositiveInt | None = None
    Grupo: PositiveInt | None = None
    TipoAssinante2: Annotated[SubscriberKindFiscal, BeforeValidator(_two_digits)] | None = None
    ContribuinteICMS: IcmsTaxpayer | None = None
    TipoConta: AccountKind | None = None

    @model_validator(mode="after")
    def _shared_rules(self) -> _RegistrationFields:
        if (self.Latitude is None) != (self.Longitude is None):
            missing = "Longitude" if self.Longitude is None else "Latitude"
            raise ValueError(f"{missing} is required: Latitude and Longitude go together")
        if self.TipoPessoa is PersonType.LEGAL_ENTITY:
            if self.CPF is not None:
                raise ValueError("CPF is only for TipoPessoa P (individual); use CNPJ")
            if self.RG is not None:
                raise ValueError("RG is only for TipoPessoa P (individual)")
        if self.TipoPessoa is PersonType.INDIVIDUAL:
            if self.CNPJ is not None:
                raise ValueError("CNPJ is only for TipoPessoa J (legal entity); use CPF")
            if self.IE is not None:
                raise ValueError("IE is only for TipoPessoa J (legal entity)")
        if self.DebitoOperacao is not None and self.Banco not in (None, 104):
            raise ValueError("DebitoOperacao is only for direct debit at bank 104")
        return self


class CustomerCreate(_RegistrationFields):
    """DadosCliente of ClienteCadastro: a new customer."""

    TipoPessoa: PersonType
    Nome: NonEmpty
    CodMunicipio: PositiveInt
    UF: StateCode
    TipoConta: AccountKind
    BuscarCoordenadas: YesNo | None = None
    DadosAdicionais: AdditionalDataCreateList | None = None
    Contatos: ContactCreateList | None = None

    @model_validator(mode="after")
    def _create_rules(self) -> CustomerCreate:
        if self.TipoPessoa is PersonType.INDIVIDUAL and self.CPF is None:
            raise ValueError("CPF is required when TipoPessoa is P (individual)")
        if self.TipoPessoa is PersonType.LEGAL_ENTITY and self.CNPJ is None:
            raise ValueError("CNPJ is required when TipoPessoa is J (legal entity)")
        return self


class MarketCreate(CustomerCreate):
    """DadosMercado of MercadoCadastro: a new market (prospect); same fields as a customer."""


class CustomerChange(_RegistrationFields):
    """DadosCliente of ClienteAlteracao: only the fields to change besides ``Codigo``.

    The spec names the coordinate look-up ``BuscarCoordenadaS`` here (``BuscarCoordenadas`` on
    create); the wire name is kept as the spec spells it."""

    Codigo: PositiveInt
    CobrCartaoId: PositiveInt | None = None
    BuscarCoordenadaS: YesNo | None = None
    DadosAdicionais: AdditionalDataChangeList | None = None
    Contatos: ContactChangeList | None = None


class MarketChange(CustomerChange):
    """DadosMercado of MercadoAlteracao: only the fields to change besides ``Codigo``."""


class CustomerCreated(Record):
    """Result of ClienteCadastro."""

    CodigoCliente: Int = None
    Mensagem: Text = None


class CustomerChanged(CustomerCreated):
    """Result of ClienteAlteracao."""


class MarketCreated(Record):
    """Result of MercadoCadastro."""

    CodigoMercado: Int = None
    Mensagem: Text = None


class MarketChanged(MarketCreated):
    """Result of MercadoAlteracao."""


# ---- 4.3.3 NotasFiscaisCadastro ------------------------------------------------------------------
def _digits_as_number(value: Any) -> Any:
    return int(value) if isinstance(value, str) and value.strip().isdecimal() else value


ItemCode = Annotated[
    PositiveInt | Annotated[str, Field(pattern=r"^\S(.*\S)?$", max_length=60)], BeforeValidator(_digits_as_number),
]
"""An item code: a number, or a code written with letters (``RBX2023``) sent as it is, never blank."""


class InvoiceHeader(Request):
    """Cabecalho of a Nota."""

    CodigoCliente: PositiveInt
    Modelo: Annotated[int, AfterValidator(_invoice_model)]
    DataEmissao: DateStr
    TipoUtilizacao: InvoiceUsage
    NaturezaOperacao: NonEmpty
    InformacoesAdicionais: str | None = None
    Situacao: InvoiceStatus


class InvoiceItem(Request):
    """Item of a Nota.

    ``Codigo`` is a Numero in the spec, but the vendor's own published example sends ``"RBX2023"``:
    an item code is a name the ISP's catalog gives, so a text code is sent as given (a number stays
    a number); an empty or blank one is refused (the field is required)."""

    Codigo: ItemCode
    Descricao: NonEmpty
    CFOP: PositiveInt
    Unidade: NonEmpty
    Valor: Money
    ICMSValorBaseCalculo: IcmsDecimal | None = None
    ICMSValorAliquota: IcmsDecimal | None = None
    ICMSCodigoReducaoBaseCalculo: NonNegativeInt | None = None
    # A classification code of the model-21/22 table: leading zeros are part of it.
    CodigoClassificacaoItem: DigitString


class InvoiceItemList(Request):
    """Itens of a Nota."""

    Item: Annotated[tuple[InvoiceItem, ...], _AT_LEAST_ONE]


class Invoice(Request):
    """Nota: one invoice (model 21 or 22)."""

    Cabecalho: InvoiceHeader
    Itens: InvoiceItemList


class InvoicesCreate(Request):
    """DadosNota of NotasFiscaisCadastro.

    ``Nota`` repeats: the result counts the invoices stored (``QuantidadeNotas``) and error 98
    names the failing one (``Nota <n>``), so one call may carry several."""

    Nota: Annotated[tuple[Invoice, ...], _AT_LEAST_ONE]


class InvoicesCreated(Record):
    """Result of NotasFiscaisCadastro."""

    QuantidadeNotas: Int = None


# ---- 4.3.4 PedidoCadastro ------------------------------------------------------------------------
class OrderGeneral(Request):
    """Geral of an order.

    ``Usuario`` is marked required by the spec, which also says the web service's default user is
    used when the tag is omitted; omitting it is therefore allowed."""

    Cliente: PositiveInt
    TipoCliente: PartyKind
    Atendimento: PositiveInt | None = None
    CicloFat: PositiveInt
    Assinatura: DateStr
    Vendedor: str | None = None
    Observacoes: str | None = None
    Usuario: NonEmpty | None = None


class OrderAddress(Request):
    """EnderecoInstalacao / EnderecoCobranca of an order."""

    Endereco: NonEmpty
    Numero: NonNegativeInt
    Complemento: str | None = None
    Bairro: NonEmpty
    CodMunicipio: PositiveInt
    UF: StateCode
    CEP: Cep


class Enrollment(Request):
    """Adesao: the enrollment charge of an order.

    ``TipoPlano`` is required by the spec, but the vendor's own published example sends it as ``""``.
    ``CodigoPlano`` must name an item of the order, so the type is that item's: an empty
    ``TipoPlano`` is filled in from the one item with that ``Codigo`` (``OrderCreate``), and the
    order is refused when no item, or a plan and a package alike, have it (the base would be a guess).
    ``FormaPagto`` and ``Cobranca`` are required by the spec too, and the same example sends both as
    ``""``: not given, the ISP's defaults apply; a value other than B or P (S or R) is still refused."""

    TipoPlano: OrderItemKind | None = None
    CodigoPlano: PositiveInt
    NroParcelas: PositiveInt
    FormaPagto: EnrollmentPayment | None = None
    Cobranca: EnrollmentCharge | None = None
    Conta: PositiveInt
    Historico: PositiveInt
    Banco: NonNegativeInt
    Convenio: PositiveInt
    PreLancamentoContabil: PositiveInt | None = None


class Installment(Request):
    """Parcela."""

    Descricao: NonEmpty
    Vencimento: DateStr
    Valor: Money


class InstallmentList(Request):
    """Parcelas."""

    Parcela: Annotated[tuple[Installment, ...], _AT_LEAST_ONE]


class OrderItem(Request):
    """ItemP: a plan or package of the order."""

    Tipo: OrderItemKind
    Codigo: PositiveInt
    DescontoAdesao: Money | None = None
    DescontoContrato: Money | None = None
    Vigencia: NonNegativeInt | None = None
    DescPromoPrazo: NonNegativeInt | None = None
    DescPromoValor: Money | None = None
    DescPromoDesc: str | None = None
    InicioCobranca: DateStr
    AgruparCobranca: BillingGroup
    QoS: PositiveInt | None = None
    GrupoSLA: PositiveInt | None = None
    PTerceiro: PositiveInt | None = None
    DTerceiro: PositiveInt | None = None


class OrderItemList(Request):
    """Itens of an order."""

    ItemP: Annotated[tuple[OrderItem, ...], _AT_LEAST_ONE]


class OrderCreate(Request):
    """DadosPedido of PedidoCadastro: a standalone order."""

    Geral: OrderGeneral
    EnderecoInstalacao: OrderAddress | None = None
    EnderecoCobranca: OrderAddress | None = None
    Adesao: Enrollment | None = None
    Parcelas: InstallmentList | None = None
    Itens: OrderItemList

    @model_validator(mode="after")
    def _rules(self) -> OrderCreate:
        enrollment = self.Adesao
        if enrollment is None:
            return self
        kinds = {item.Tipo for item in self.Itens.ItemP if item.Codigo == enrollment.CodigoPlano}
        if enrollment.TipoPlano is None:
            if len(kinds) != 1:
                raise ValueError("Adesao.TipoPlano is empty and Adesao.CodigoPlano names "
                                 + ("no item of the order" if not kinds else "both a plan and a package"))
            # frozen models: the copy is validated already, only the empty type is set
            object.__setattr__(self, "Adesao", enrollment.model_copy(update={"TipoPlano": kinds.pop()}))
        elif enrollment.TipoPlano not in kinds:
            raise ValueError("Adesao.CodigoPlano must be the Codigo of an item of the order (same Tipo)")
        return self


class OrderCreated(Record):
    """Result of PedidoCadastro."""

    NumeroPedido: Int = None
    Mensagem: Text = None


# ---- 4.3.7 ConsultaLinhaDigitavelBoleto ----------------------------------------------------------
class DigitableLineQuery(Request):
    """DadosLinhaDigitavelEntrada of ConsultaLinhaDigitavelBoleto."""

    BoletoAtualizado: YesNo | None = None
    Conta: PositiveInt | None = None
    Vencimento: DateStr | None = None
    Documento: PositiveInt | None = None
    Origem: DocumentOrigin | None = None
    Tipo: DocumentParty | None = None
    CliFor: PositiveInt
    Banco: NonNegativeInt | None = None


class DigitableLine(Record):
    """A digitable line of a bill slip."""

    LinhaDigitavel: Text = None
