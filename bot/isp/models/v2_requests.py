"""Requests of the generation-2.0 operations (second document, part 4).

One model per operation, named after it in CamelCase; nested groups are nested models. Attribute
names are the spec's wire names, typos included (``discount_vale``, ``resend_clicksign_contract``).
Enumerations are English ``StrEnum`` classes whose values are the spec's codes, and no class here is
named like a field, so no annotation is ever shadowed at class scope.

What the spec states is enforced before anything is sent: required fields, code sets, ranges,
formats and the conditional rules; a broken conditional rule raises a ``ValueError`` whose message
starts with the field it concerns. Rules only the server can judge (a code must exist, the plan
demands a dealer, the minimum-distance parameter is configured) are left to it.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Self

from pydantic import AfterValidator, BeforeValidator, Field, PlainSerializer, model_validator

from bot.isp.models.base import Request
from bot.isp.models.v2_results import ActiveCode, ActiveState
from bot.isp.types import (
    DateStr,
    DateTimeStr,
    HourMinute,
    Mac,
    Money,
    NonNegativeMoney,
    Password,
    PositiveInt,
    PositiveMoney,
)
from bot.isp.types import Latitude as LatitudeValue  # fields are named latitude/longitude
from bot.isp.types import Longitude as LongitudeValue

# ---- request scalar types ----------------------------------------------------------------------
NonEmpty = Annotated[str, Field(min_length=1)]
NonNegativeInt = Annotated[int, Field(ge=0)]
Priority = Annotated[int, Field(ge=0, le=99)]
Number = Annotated[Decimal, PlainSerializer(float, return_type=float, when_used="json")]
"""A plain JSON number with decimals (tax rates and bases of inventory_insert)."""


def _code_text(value: Any) -> Any:
    if isinstance(value, bool):
        return value  # refused by str validation rather than read as 0/1
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value.strip()
    return value


CodeText = Annotated[str, BeforeValidator(_code_text), Field(min_length=1)]
"""A code the spec types Texto (ids of contract_transfer, package_id, ...): ints are accepted and
sent as strings."""

_SEPARATORS = re.compile(r"[\s.\-/()]")


def _strip_separators(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _SEPARATORS.sub("", value)
    return value


DigitString = Annotated[str, BeforeValidator(_strip_separators), Field(pattern=r"^\d+$")]
"""A Numero that is really a digit string (tax id): separators dropped, leading zeros kept."""
Phone = Annotated[str, BeforeValidator(_strip_separators), Field(pattern=r"^\d{10,11}$")]
"""Area code plus number, digits only (Brazilian numbering: 10 or 11 digits)."""
Cep = Annotated[str, BeforeValidator(_strip_separators), Field(pattern=r"^\d{8}$")]
"""A CEP: sent as a string of 8 digits so its leading zero survives."""
Email = Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
HexColour = Annotated[str, Field(pattern=r"^#?(?:[0-9A-Fa-f]{3}){1,2}$")]


def _clock(value: str) -> str:
    if int(value[:2]) > 23:
        raise ValueError("must be a time of day HH:MM")
    return value


def _positive_duration(value: str) -> str:
    if value == "00:00":
        raise ValueError("duration must be greater than 00:00")
    return value


ClockTime = Annotated[HourMinute, AfterValidator(_clock)]
Duration = Annotated[HourMinute, AfterValidator(_positive_duration)]
"""A duration ``HH:MM`` greater than zero."""


def _not_zero(value: Decimal) -> Decimal:
    if value == 0:
        raise ValueError("must not be 0")
    return value


NonZeroLatitude = Annotated[LatitudeValue, AfterValidator(_not_zero)]
"""-90 <= v < 0 or 0 < v <= 90 (ticket_os_status_update, ticket_occurrence_insert)."""
NonZeroLongitude = Annotated[LongitudeValue, AfterValidator(_not_zero)]


def _ip_checker(parse: Callable[[str], object], what: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip()
            try:
                parse(value)
            except ValueError:
                raise ValueError(f"must be {what}") from None
        return value

    return check


IpAddressText = Annotated[str, AfterValidator(_ip_checker(ipaddress.ip_address, "an IP address"))]
Ipv4Address = Annotated[str, AfterValidator(_ip_checker(ipaddress.IPv4Address, "an IPv4 address"))]
Ipv4Interface = Annotated[
    str, AfterValidator(_ip_checker(ipaddress.IPv4Interface, "an IPv4 address or network"))
]
Ipv4Mask = Annotated[
    str,
    BeforeValidator(_code_text),
    AfterValidator(_ip_checker(lambda m: ipaddress.IPv4Network(f"0.0.0.0/{m}"), "an IPv4 mask")),
]
Ipv6Interface = Annotated[
    str, AfterValidator(_ip_checker(ipaddress.IPv6Interface, "an IPv6 address or prefix"))
]


def _group_contract(value: Any) -> Any:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip().lower()
        if text in ("yes", "no"):
            return text
        if not text.isdecimal():
            raise ValueError("must be yes, no or 1 to 99")
        number = int(text)
    else:
        return value
    if not 1 <= number <= 99:
        raise ValueError("must be yes, no or 1 to 99")
    return str(number)


GroupContract = Annotated[str, BeforeValidator(_group_contract)]
"""``yes``, ``no`` or 1 to 99 (an int or a string); sent as Texto: ``"yes"``, ``"no"``, ``"12"``."""


def _template_codes(value: Any) -> Any:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    return value


def _comma_joined(codes: list[int]) -> str:
    return ",".join(str(code) for code in codes)


TemplateCodes = Annotated[list[PositiveInt], BeforeValidator(_template_codes), Field(min_length=1)]
"""Template codes as a Lista; a comma-separated string is accepted too."""
CommaTemplateCodes = Annotated[TemplateCodes, PlainSerializer(_comma_joined, return_type=str)]
"""Template codes sent as Texto, comma-separated (contract_insert, contract_transfer)."""

_VIRTUAL_NAS = frozenset({"-1", "-2", "-3"})  # all, subscriber center, learn
_VIRTUAL_PORTS = frozenset({"-1", "-3"})  # all, learn


def _nas(value: Any) -> Any:
    value = _code_text(value)
    if isinstance(value, str) and value not in _VIRTUAL_NAS:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise ValueError("must be the IP of a registered NAS, or -1 (all), -2 (subscriber center), "
                             "-3 (learn)") from None
    return value


def _port(value: Any) -> Any:
    value = _code_text(value)
    if isinstance(value, str) and value.startswith("-") and value not in _VIRTUAL_PORTS:
        raise ValueError("virtual ports are -1 (all) and -3 (learn)")
    return value


NasAddress = Annotated[str, BeforeValidator(_nas), Field(min_length=1)]
NasPort = Annotated[str, BeforeValidator(_port), Field(min_length=1)]


def _both_or_neither(model: Request, first: str, second: str, prefix: str = "") -> None:
    if (getattr(model, first) is None) != (getattr(model, second) is None):
        raise ValueError(f"{prefix}{first} and {prefix}{second} are sent together or not at all")


def _earliest_today() -> dt.date:
    """The earliest date that is today somewhere: the ISP time zone is not known when a request is
    built, so only dates already past in every zone are refused."""
    return (dt.datetime.now(dt.UTC) - dt.timedelta(hours=12)).date()


# ---- enumerations ------------------------------------------------------------------------------
class YesNo(StrEnum):
    YES = "yes"
    NO = "no"


class TicketStatus(StrEnum):
    NONE = ""
    IN_PROGRESS = "in_progress"
    ON_HOLD = "on_hold"


class AppointmentStatus(StrEnum):
    TO_CONFIRM = "to_confirm"
    CONFIRMED = "confirmed"
    CANCELED = "canceled"
    COMPLETED = "completed"


class ChecklistSet(StrEnum):
    CHECK = "M"
    UNCHECK = "D"


class OsStatus(StrEnum):
    """Service-order status (generation-1.0 codes F, A, E, P, C, B)."""

    IN_QUEUE = "in_queue"
    ON_THE_WAY = "on_the_way"
    RUNNING = "running"
    PAUSED = "paused"
    ABORTED = "aborted"
    COMPLETED = "completed"


class TargetType(StrEnum):
    USER = "user"
    GROUP = "group"


class RecurrencePeriod(StrEnum):
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"
    YEARLY = "yearly"


class Reminder(StrEnum):
    NONE = "none"
    AT_APPOINTMENT_TIME = "appointment_time"
    MINUTES_10 = "10_minutos"  # spelled so by the spec
    MINUTES_15 = "15_minutes"
    MINUTES_20 = "20_minutes"
    MINUTES_25 = "25_minutes"
    MINUTES_30 = "30_minutes"
    MINUTES_45 = "45_minutes"
    MINUTES_60 = "60_minutes"
    HOURS_2 = "2_hours"
    HOURS_3 = "3_hours"
    HOURS_12 = "12_hours"
    HOURS_24 = "24_hours"
    DAYS_2 = "2_days"
    WEEKS_1 = "1_weeks"


class ItemType(StrEnum):
    SERVICE = "service"
    PRODUCT = "product"  # a stock item


class ItemOperation(StrEnum):
    SALE = "sale"
    LENDING = "lending"
    CONSUMPTION = "consumption"


class ChatOrigin(StrEnum):
    ATTENDANT = "A"
    CUSTOMER = "C"
    SYSTEM = "S"


class PersonType(StrEnum):
    CUSTOMER = "C"
    MARKET = "P"


class ContactType(StrEnum):
    """Contact types G, A and T; their meanings are not shown in the spec."""

    G = "G"
    A = "A"
    T = "T"


class AdditionalDataType(StrEnum):
    CUSTOMER_MARKET = "customer_market"
    CONTRACTS = "contracts"
    SERVICES = "services"


class ContractKind(StrEnum):
    PLAN = "Plan"
    PACKAGE = "Package"


class SignatureOption(StrEnum):
    NO = "no"
    OPTIONAL = "optional"
    REQUIRED = "required"


class BilletMode(StrEnum):
    SINGLE_BILLET = "single_billet"
    INCLUDE_IN_BILLING = "include_in_billing"


class ChargeMode(StrEnum):
    SIMPLE = "simple"
    REGISTERED = "registered"


class PeriodAction(StrEnum):
    """What happens to the current period's billing when a contract is cancelled or transferred."""

    NONE = "none"
    CANCEL = "cancel"
    BLOCK = "block"


class PreBillingAction(StrEnum):
    CANCEL = "cancel"
    NONE = "none"


class OsTargetType(StrEnum):
    TOPIC = "topic"
    WORKFLOW = "workflow"


class DocumentPurpose(StrEnum):
    HIRING = "hiring"
    CANCELLATION = "cancellation"


class AddressKind(StrEnum):
    INSTALLATION = "installation"
    BILLING = "billing"


class DiciType(StrEnum):
    URBAN = "urban"
    RURAL = "rural"


class TransferScope(StrEnum):
    PLAN = "plan"  # only this contract
    PACKAGE = "package"  # every contract of its package


class PromotionalDiscountOption(StrEnum):
    KEEP = "keep"  # plan-to-plan only
    NEW = "new"
    CANCEL = "cancel"


# ---- 4.1 tickets -------------------------------------------------------------------------------
class TicketAppointmentUpdate(Request):
    """ticket_appointment_update."""

    ticket_id: PositiveInt
    appointment_date: DateStr
    appointment_time: ClockTime
    duration: Duration
    appointment_status: AppointmentStatus | None = None


class TicketUpdate(Request):
    """ticket_update (open tickets only)."""

    ticket_id: PositiveInt
    priority: Priority | None = None
    status: TicketStatus | None = None


class TicketChecklistUpdate(Request):
    """ticket_checklist_update."""

    ticket_id: PositiveInt
    checklist_id: PositiveInt
    checklist_set: ChecklistSet
    user: NonEmpty | None = None


class OsCoordinates(Request):
    """Where the technician is; both members are required in the group and 0 is refused."""

    latitude: NonZeroLatitude
    longitude: NonZeroLongitude


class TicketOsStatusUpdate(Request):
    """ticket_os_status_update. ``coordinates`` is required when the system's minimum distance to
    execute is configured and ``new_status`` is running: only the server knows that setting."""

    ticket_id: PositiveInt
    new_status: OsStatus
    coordinates: OsCoordinates | None = None
    user: NonEmpty | None = None


class ConsultAppointments(Request):
    """consult_appointments."""

    user: NonEmpty
    appointment_date: DateStr


class TicketAssign(Request):
    """ticket_assign: ``target_id`` is a user name, or a group id when ``target_type`` is group."""

    ticket_id: PositiveInt
    mode_assign: NonEmpty
    target_type: TargetType
    target_id: CodeText

    @model_validator(mode="after")
    def _group_id_is_a_number(self) -> Self:
        if self.target_type is TargetType.GROUP and not (
            self.target_id.isdecimal() and int(self.target_id) > 0
        ):
            raise ValueError("target_id must be a group id (a number > 0) when target_type is group")
        return self


class TicketFinish(Request):
    """ticket_finish; ``datetime`` defaults on the server to the time of execution."""

    ticket_id: PositiveInt
    cause_id: PositiveInt
    solution: NonEmpty
    datetime: DateTimeStr | None = None
    user: NonEmpty


class GenerateQuestionareLink(Request):
    """generate_questionare_link."""

    ticket: PositiveInt


class AppointmentInsert(Request):
    """appointment_insert (a standalone appointment)."""

    description: NonEmpty
    customer_id: PositiveInt | None = None
    appointment_date: DateStr
    appointment_time: ClockTime
    duration: Duration | None = None
    user: NonEmpty
    recurrence: YesNo
    period: RecurrencePeriod | None = None
    event_color: HexColour | None = None
    reminder: Reminder
    local: NonEmpty | None = None
    status: AppointmentStatus | None = None
    comments: str | None = None
    pre_appointment_type: PositiveInt | None = None

    @model_validator(mode="after")
    def _period_with_recurrence(self) -> Self:
        if self.recurrence is YesNo.YES and self.period is None:
            raise ValueError("period is required when recurrence is yes")
        if self.recurrence is YesNo.NO and self.period is not None:
            raise ValueError("period is sent only when recurrence is yes")
        return self


class TicketAppointmentInsert(Request):
    """ticket_appointment_insert."""

    ticket_id: PositiveInt
    appointment_date: DateStr
    appointment_time: ClockTime
    duration: Duration
    appointment_status: AppointmentStatus | None = None


class ItemInstallment(Request):
    description: Annotated[str, Field(min_length=1, max_length=50)]
    amount: PositiveMoney
    reference_period: DateStr  # the server stores the day as 01


class TicketItemInsert(Request):
    """ticket_item_insert: a product or service in a ticket.

    ``sale_price`` is not sent: the spec bounds the discount by quantity x sale price and makes the
    installments add up to the item total, but the price lives on the server. When the caller knows
    it, the item total (quantity x sale_price - discount_amount) is checked against the
    installments and the discount bound is checked too; without it, only the count, positivity and
    distinct periods of the installments are.

    ``serial_number`` and ``location_id`` together: the spec says the first is for serial-controlled
    products and the second for the others, but which kind a product is lives on the server, and the
    vendor's own published example sends both. Both are sent as given and the server judges; only a
    service item (which never leaves a stock) with either is refused here.
    """

    ticket_id: PositiveInt
    customer_id: PositiveInt
    type: ItemType
    operation: ItemOperation
    contract_id: PositiveInt | None = None
    item_id: PositiveInt
    serial_number: NonEmpty | None = None
    location_id: PositiveInt | None = None
    quantity: PositiveMoney
    discount_amount: NonNegativeMoney | None = None
    installments_quantity: PositiveInt | None = None
    installments_detail: Annotated[list[ItemInstallment], Field(min_length=1)] | None = None
    dealer_id: PositiveInt | None = None
    sale_price: PositiveMoney | None = Field(default=None, exclude=True)

    def item_total(self) -> Decimal | None:
        """quantity x sale_price - discount_amount, when the sale price is known."""
        if self.sale_price is None:
            return None
        gross = (self.quantity * self.sale_price).quantize(Decimal("0.01"))
        return gross - (self.discount_amount or Decimal(0))

    @model_validator(mode="after")
    def _rules(self) -> Self:
        self._check_kind()
        self._check_installments()
        return self

    def _check_kind(self) -> None:
        sale = self.operation is ItemOperation.SALE
        if self.type is ItemType.SERVICE and not sale:
            raise ValueError("operation: service items accept only sale")
        if self.contract_id is None and self.operation is not ItemOperation.CONSUMPTION:
            raise ValueError("contract_id is required unless operation is consumption")
        if self.type is ItemType.SERVICE:
            if self.serial_number is not None or self.location_id is not None:
                raise ValueError("serial_number and location_id are only for stock (product) items")
        elif self.serial_number is None and self.location_id is None:
            raise ValueError("location_id is required for non-serial stock items "
                             "(serial_number for serial ones)")
        if self.serial_number is not None and self.quantity != 1:
            raise ValueError("quantity must be exactly 1 for serial-controlled items")
        if self.discount_amount and not sale:  # a zero discount is no discount
            raise ValueError("discount_amount is allowed only for sale")
        total = self.item_total()
        if total is not None and total < 0:
            raise ValueError("discount_amount must not exceed quantity x sale price")

    def _check_installments(self) -> None:
        if self.operation is not ItemOperation.SALE:
            if self.installments_quantity is not None or self.installments_detail is not None:
                raise ValueError("installments_quantity and installments_detail are only for sale")
            return
        if self.installments_quantity is None:
            raise ValueError("installments_quantity is required for sale")
        detail = self.installments_detail
        if detail is None:
            if self.installments_quantity > 1:
                raise ValueError("installments_detail is required when installments_quantity > 1")
            return
        if len(detail) != self.installments_quantity:
            raise ValueError(f"installments_detail must have installments_quantity "
                             f"({self.installments_quantity}) entries, not {len(detail)}")
        periods = [(entry.reference_period.year, entry.reference_period.month) for entry in detail]
        if len(set(periods)) != len(periods):
            raise ValueError("installments_detail.reference_period must not repeat among installments")
        total = self.item_total()
        amounts = sum((entry.amount for entry in detail), Decimal(0))
        if total is not None and amounts != total:
            raise ValueError(f"installments_detail amounts add up to {amounts}, not the item total {total}")


class ChatMessage(Request):
    """One entry of chat_messages."""

    record: DateTimeStr
    customer: PositiveInt
    ticket_id: PositiveInt
    attendant: NonEmpty
    content: NonEmpty
    origin: ChatOrigin
    contact: PositiveInt | None = None


class ChatMessages(Request):
    """chat_messages: the operation's value is a list, not an object. Built from a list too
    (``ChatMessages.model_validate([...])``), from one message alone, or from ``messages=[...]``."""

    messages: Annotated[list[ChatMessage], Field(min_length=1)]

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, data: Any) -> Any:
        if isinstance(data, Sequence) and not isinstance(data, str | bytes):
            return {"messages": list(data)}
        if isinstance(data, Mapping) and "messages" not in data:
            return {"messages": [data]}
        return data

    def to_payload(self, context: dict[str, Any] | None = None) -> Any:
        return [message.to_payload(context) for message in self.messages]


class TicketOccurrenceInsert(Request):
    """ticket_occurrence_insert; ``protocol_id`` is needed when the occurrence belongs to the
    ticket's workflow (only the server knows)."""

    ticket_id: PositiveInt
    protocol_id: PositiveInt | None = None
    user: NonEmpty | None = None
    description: NonEmpty  # HTML accepted
    latitude: NonZeroLatitude | None = None
    longitude: NonZeroLongitude | None = None

    @model_validator(mode="after")
    def _coordinates_pair(self) -> Self:
        _both_or_neither(self, "latitude", "longitude")
        return self


# ---- 4.2 authentications -----------------------------------------------------------------------
class AuthenticationInsert(Request):
    """authentication_insert."""

    sensitive: ClassVar[frozenset[str]] = frozenset({"password"})

    customer_id: PositiveInt
    contract_id: PositiveInt
    nas: NasAddress
    port: NasPort
    user: NonEmpty
    password: Password | None = None
    mac: Mac | None = None
    allow_access_subscriber_center: bool
    allow_update_password: bool
    force_password_update: bool
    profile_id: PositiveInt | None = None
    comments: str | None = None
    status: ActiveCode


class AuthenticationUpdate(Request):
    """authentication_update."""

    sensitive: ClassVar[frozenset[str]] = frozenset({"password"})

    id: PositiveInt
    contract_id: PositiveInt | None = None
    nas: NasAddress | None = None
    port: NasPort | None = None
    password: Password | None = None
    mac: Mac | None = None
    allow_access_subscriber_center: bool | None = None
    allow_update_password: bool | None = None
    force_password_update: bool | None = None
    profile_id: PositiveInt | None = None
    comments: str | None = None
    status: ActiveCode | None = None


class AuthenticationDelete(Request):
    """authentication_delete."""

    id: PositiveInt


# ---- 4.3 customers, contacts, groups, IPs ------------------------------------------------------
class ContactCreate(Request):
    """contact_create."""

    person_type: PersonType
    person_id: PositiveInt
    name: NonEmpty
    document_number: DigitString | None = None
    complement: PositiveInt | None = None
    email: Email | None = None
    phone_1: Phone | None = None
    phone_2: Phone | None = None
    phone_3: Phone | None = None
    birthday: DateStr | None = None
    type: ContactType
    status: ActiveCode


class ContactUpdate(Request):
    """contact_update."""

    contact_id: PositiveInt
    name: NonEmpty | None = None
    document_number: DigitString | None = None
    complement: PositiveInt | None = None
    type: ContactType | None = None
    email: Email | None = None
    phone_1: Phone | None = None
    phone_2: Phone | None = None
    phone_3: Phone | None = None
    birthday: DateStr | None = None
    status: ActiveCode | None = None


class ContactDelete(Request):
    """contact_delete."""

    contact_id: PositiveInt


class ClientGroupInsert(Request):
    """client_group_insert."""

    name: NonEmpty
    description: str | None = None
    priority: Priority | None = None
    status: ActiveCode


class ClientGroupUpdate(Request):
    """client_group_update."""

    group_id: PositiveInt
    name: NonEmpty | None = None
    description: str | None = None
    priority: Priority | None = None
    status: ActiveCode | None = None


def _bracket_pool(value: Any) -> Any:
    if isinstance(value, str):
        value = value.strip()
        if value and not value.startswith("["):
            return f"[{value}]"
    return value


class Ipv4Settings(Request):
    """Either a dynamic pool, or a fixed address with its mask and gateway."""

    pool_id: Annotated[str, BeforeValidator(_bracket_pool), Field(pattern=r"^\[[^\[\]]+\]$")] | None = None
    ip_address: Ipv4Interface | None = None
    mask: Ipv4Mask | None = None
    gateway: Ipv4Address | None = None

    @model_validator(mode="after")
    def _pool_or_fixed(self) -> Self:
        fixed = (self.ip_address, self.mask, self.gateway)
        if self.pool_id is not None:
            if any(value is not None for value in fixed):
                raise ValueError("ipv4.pool_id excludes ip_address, mask and gateway")
        elif self.ip_address is None:
            raise ValueError("ipv4 needs pool_id (dynamic) or ip_address with mask and gateway (fixed)")
        elif self.mask is None or self.gateway is None:
            raise ValueError("ipv4.mask and ipv4.gateway are required with ipv4.ip_address")
        return self


class Ipv6Settings(Request):
    """Either a fixed WAN address with its delegated prefix, or dynamic pools."""

    ip_address_wan: Ipv6Interface | None = None
    ip_address_delegated: Ipv6Interface | None = None
    wan_pool_id: CodeText | None = None
    delegated_pool_id: CodeText | None = None

    @model_validator(mode="after")
    def _fixed_or_pool(self) -> Self:
        if self.ip_address_wan is not None and self.wan_pool_id is not None:
            raise ValueError("ipv6.ip_address_wan and ipv6.wan_pool_id exclude each other")
        if self.ip_address_wan is None and self.wan_pool_id is None:
            raise ValueError("ipv6 needs ip_address_wan (fixed) or wan_pool_id (dynamic)")
        _both_or_neither(self, "ip_address_wan", "ip_address_delegated", "ipv6.")
        _both_or_neither(self, "wan_pool_id", "delegated_pool_id", "ipv6.")
        return self


class IpInsert(Request):
    """ip_insert."""

    customer_id: PositiveInt
    contract_id: PositiveInt
    ipv4: Ipv4Settings
    ipv6: Ipv6Settings | None = None
    mac: Mac | None = None
    remote_mac: Mac | None = None
    comments: str | None = None
    status: ActiveCode | None = None


class GetOnlineCustomer(Request):
    """get_online_customer: every filter is optional."""

    customer_id: PositiveInt | None = None
    customer_name: NonEmpty | None = None
    contract_id: PositiveInt | None = None
    plan_id: PositiveInt | None = None
    framed_ipv4_address: Ipv4Address | None = None
    authentication_username: NonEmpty | None = None
    session_start_time: DateTimeStr | None = None


class DisconnectOnlineCustomer(Request):
    """disconnect_online_customer: with no matching session the answer is still a success text."""

    customer_id: PositiveInt
    server_id: PositiveInt
    nas_ip_address: IpAddressText
    session_id: NonEmpty


class VirtualCollectorCostumerList(Request):
    """virtual_collector_costumer_list (operation name spelled so)."""

    regra: Annotated[list[PositiveInt], Field(min_length=1)]


class ConsultAdditionalData(Request):
    """consult_additional_data."""

    type: Annotated[list[AdditionalDataType], Field(min_length=1)]

    @model_validator(mode="after")
    def _distinct(self) -> Self:
        if len(set(self.type)) != len(self.type):
            raise ValueError("type must not repeat a value")
        return self


class GetEquipmentCustomer(Request):
    """get_equipment_customer: without customer_id, every customer's equipment."""

    customer_id: PositiveInt | None = None
    equipment_status: ActiveState | None = None


# ---- 4.4 mobile virtual operator ---------------------------------------------------------------
class MvnoGetCustomer(Request):
    """mvno_get_customer."""

    customer_id: PositiveInt


class MvnoGetSimcardBalance(Request):
    """mvno_get_simcard_balance."""

    customer_id: PositiveInt
    contract_line_id: PositiveInt


class MvnoInsertRecharge(Request):
    """mvno_insert_recharge."""

    customer_id: PositiveInt
    contract_line_id: PositiveInt
    recharge_id: PositiveInt


# ---- 4.5 contracts -----------------------------------------------------------------------------
def _check_templates(option: SignatureOption, templates: list[int] | None, prefix: str) -> None:
    if option is not SignatureOption.NO and not templates:
        raise ValueError(f"{prefix}online_signature.templates is required when option is {option}")


class OnlineSignature(Request):
    """Templates sent as comma-separated text (contract_insert, contract_transfer)."""

    option: SignatureOption
    templates: CommaTemplateCodes | None = None

    @model_validator(mode="after")
    def _templates_when_signing(self) -> Self:
        _check_templates(self.option, self.templates, "")
        return self


class OnlineSignatureList(Request):
    """Templates sent as a list (contract_update)."""

    option: SignatureOption
    templates: TemplateCodes | None = None

    @model_validator(mode="after")
    def _templates_when_signing(self) -> Self:
        _check_templates(self.option, self.templates, "")
        return self


class AdditionalField(Request):
    code: PositiveInt
    content: NonEmpty


class PlanData(Request):
    """contract_insert's plan: ``bank_agreement`` and the dealers are demanded by some plans (only
    the server knows which)."""

    id: PositiveInt
    quantity: PositiveInt
    attach_package_id: CodeText | None = None
    qos_id: PositiveInt
    sla_id: PositiveInt | None = None
    group_contract: GroupContract
    bank_billing: PositiveInt | None = None
    bank_agreement: NonEmpty | None = None
    additional_data: list[AdditionalField] | None = None
    online_signature: OnlineSignature
    by_dealer_id: PositiveInt | None = None
    from_dealer_id: PositiveInt | None = None


class PackageData(Request):
    id: PositiveInt


class AdhesionInstallment(Request):
    value: PositiveMoney
    due_date: DateStr


class GenerateAdhesion(Request):
    """The enrollment charge of contract_insert."""

    installments: Annotated[list[AdhesionInstallment], Field(min_length=1)]
    billet: BilletMode
    charge: ChargeMode
    account_id: PositiveInt
    historic_id: PositiveInt
    bank: PositiveInt
    bank_agreement: NonEmpty
    accounting_launch: PositiveInt | None = None


class BillingAddress(Request):
    """Every member required; ``additional_details`` may be an empty string (no complement)."""

    country: NonEmpty
    zipcode: NonEmpty
    street: NonEmpty
    number: NonNegativeInt
    neighborhood: NonEmpty
    additional_details: str
    state: NonEmpty
    city: NonEmpty
    maps_lat: LatitudeValue
    maps_lng: LongitudeValue


class InstallationAddress(BillingAddress):
    billing_address: YesNo  # yes: also the billing address


class ContractInsert(Request):
    """contract_insert."""

    customer_id: PositiveInt
    seller_name: NonEmpty
    type: ContractKind
    plan_data: PlanData | None = None
    package_data: PackageData | None = None
    discount_value: NonNegativeMoney | None = None
    duration: PositiveInt | None = None
    due_date_id: PositiveInt
    signature_date: DateStr
    start_date: DateStr
    signature: YesNo
    generate_adhesion: GenerateAdhesion | None = None
    installation_address: InstallationAddress | None = None
    billing_address: BillingAddress | None = None

    @model_validator(mode="after")
    def _data_of_type(self) -> Self:
        if self.type is ContractKind.PLAN:
            if self.plan_data is None:
                raise ValueError("plan_data is required when type is Plan")
            if self.package_data is not None:
                raise ValueError("package_data is sent only when type is Package")
        else:
            if self.package_data is None:
                raise ValueError("package_data is required when type is Package")
            if self.plan_data is not None:
                raise ValueError("plan_data is sent only when type is Plan")
        return self


class ContractUpdate(Request):
    """contract_update: only what is given changes."""

    customer_id: PositiveInt
    contract_id: PositiveInt
    quantity: PositiveInt | None = None
    adhesion_value: NonNegativeMoney | None = None
    discount_value: NonNegativeMoney | None = None
    due_date_id: PositiveInt | None = None
    signature_date: DateStr | None = None
    start_date: DateStr | None = None
    bank_billing: PositiveInt | None = None
    bank_agreement: NonEmpty | None = None
    group_contract: GroupContract | None = None
    signature: bool | None = None
    text: str | None = None
    seller_name: NonEmpty | None = None
    sla_id: PositiveInt | None = None
    qos_id: PositiveInt | None = None
    online_signature: OnlineSignatureList | None = None
    by_dealer_id: PositiveInt | None = None
    from_dealer_id: PositiveInt | None = None


class ContractSignature(Request):
    """contract_signature."""

    customer_id: PositiveInt
    contract_id: PositiveInt
    update_start_date: bool | None = None


class ContractActivate(Request):
    """contract_activate (from E, I or S)."""

    customer_id: PositiveInt
    contract_id: PositiveInt


class ContractBlock(Request):
    """contract_block (from A)."""

    customer_id: PositiveInt
    contract_id: PositiveInt


class ContractUnblock(Request):
    """contract_unblock (from B)."""

    customer_id: PositiveInt
    contract_id: PositiveInt


class CancelBilling(Request):
    future_cancel: bool  # true reverses future billings
    cancellation_period_action: PeriodAction
    reason_id: PositiveInt


class CancelPreBilling(Request):
    cancel: bool  # true deletes pre-billings
    cancellation_period_action: PreBillingAction


class CancelFine(Request):
    account_id: PositiveInt
    historic_id: PositiveInt


class WithdrawalOrder(Request):
    """The equipment-withdrawal ticket of contract_cancel; required only when no transitory stock
    location is registered (only the server knows)."""

    open: bool
    target_type: OsTargetType | None = None
    target_id: PositiveInt | None = None

    @model_validator(mode="after")
    def _target_when_open(self) -> Self:
        if self.open and (self.target_type is None or self.target_id is None):
            raise ValueError("os.target_type and os.target_id are required when os.open is true")
        if not self.open and (self.target_type is not None or self.target_id is not None):
            raise ValueError("os.target_type and os.target_id are sent only when os.open is true")
        return self


class ContractCancel(Request):
    """contract_cancel (from E, I, A, B or S)."""

    customer_id: PositiveInt
    contract_id: PositiveInt
    reason_id: PositiveInt
    cancel_competition_id: PositiveInt | None = None
    billing: CancelBilling
    pre_billing: CancelPreBilling
    fine: CancelFine
    os: WithdrawalOrder | None = None


class ContractSuspendTemporary(Request):
    """contract_suspend_temporary: ``duration`` in days; ``start_date`` today or later."""

    customer_id: PositiveInt
    contract_id: PositiveInt
    duration: PositiveInt
    start_date: DateStr
    user: NonEmpty | None = None
    ticket_id: PositiveInt | None = None

    @model_validator(mode="after")
    def _not_in_the_past(self) -> Self:
        if self.start_date < _earliest_today():
            raise ValueError("start_date must be today or later")
        return self


class ContractSuspendTemporaryCancel(Request):
    """contract_suspend_temporary_cancel."""

    customer_id: PositiveInt
    contract_id: PositiveInt
    user: NonEmpty | None = None


class PromotionalContractDiscountUpdate(Request):
    """promotional_contract_discount_update."""

    customer: PositiveInt
    contract_number: PositiveInt
    discount_period: PositiveInt
    discount_value: PositiveMoney
    discount_description: str | None = None


class PromotionalContractDiscountDelete(Request):
    """promotional_contract_discount_delete."""

    customer: PositiveInt
    contract_number: PositiveInt


class ContractGenerateHtml(Request):
    """contract_generate_html. ``type`` is required by the electronic-signature-provider
    integration, so it is required when ``resend_clicksign_contract`` is true."""

    customer_id: PositiveInt
    contract_id: PositiveInt
    type: DocumentPurpose | None = None
    contract_model_id: list[PositiveInt] | None = None
    generate_link: bool
    resend_clicksign_contract: bool | None = None

    @model_validator(mode="after")
    def _type_for_signature_provider(self) -> Self:
        if self.resend_clicksign_contract and self.type is None:
            raise ValueError("type is required when resend_clicksign_contract is true")
        return self


class ContractAddress(Request):
    """contract_address: for one contract or for a whole package (exactly one of them)."""

    customer_id: PositiveInt
    contract_id: PositiveInt | None = None
    package_id: CodeText | None = None
    type: AddressKind | None = None
    dici_type: DiciType | None = None
    billing: bool | None = None
    address: NonEmpty
    number: NonNegativeInt
    neighborhood: NonEmpty
    complement: str | None = None
    city_id: PositiveInt
    state: NonEmpty
    zip_code: Cep
    latitude: LatitudeValue | None = None
    longitude: LongitudeValue | None = None

    @model_validator(mode="after")
    def _rules(self) -> Self:
        if (self.contract_id is None) == (self.package_id is None):
            raise ValueError("contract_id or package_id is required (exactly one of them)")
        if self.billing and self.type is AddressKind.BILLING:
            raise ValueError("billing (installation address also for billing) needs type installation")
        _both_or_neither(self, "latitude", "longitude")
        return self


class TransferBilling(Request):
    keep: bool  # false reverses the billing
    future_cancel: bool | None = None
    cancellation_period_action: PeriodAction | None = None

    @model_validator(mode="after")
    def _chain(self) -> Self:
        if self.keep and self.future_cancel is not None:
            raise ValueError("billing.future_cancel is sent only when billing.keep is false")
        if self.cancellation_period_action is not None and not self.future_cancel:
            raise ValueError("billing.cancellation_period_action is sent only when "
                             "billing.future_cancel is true")
        return self


class TransferPlanData(Request):
    """The new plan of contract_transfer (codes typed Texto by the spec)."""

    id: CodeText
    status: NonEmpty | None = None  # plan-to-plan only
    qos_id: CodeText
    sla_id: CodeText
    due_date_id: CodeText
    discount_vale: NonNegativeMoney | None = None  # spelled so
    duration: PositiveInt
    promotional_discount_option: PromotionalDiscountOption
    online_signature: OnlineSignature
    billing: TransferBilling
    by_dealer_id: CodeText | None = None
    from_dealer_id: CodeText | None = None


class PlanCorrelation(Request):
    contract_id: CodeText
    new_plan_id: CodeText


class TransferPackageData(Request):
    """The new package of contract_transfer."""

    id: CodeText
    due_date_id: CodeText
    discount_vale: NonNegativeMoney | None = None  # spelled so
    duration: PositiveInt
    promotional_discount_option: PromotionalDiscountOption
    billing: TransferBilling
    by_dealer_id: CodeText | None = None
    from_dealer_id: CodeText | None = None
    plan_correlation: Annotated[list[PlanCorrelation], Field(min_length=1)] | None = None


class TransferTarget(Request):
    """``new`` of contract_transfer; ``seller_name`` defaults to the transferred contract's seller."""

    seller_name: NonEmpty | None = None
    type: TransferScope
    plan_data: TransferPlanData | None = None
    package_data: TransferPackageData | None = None

    @model_validator(mode="after")
    def _data_of_type(self) -> Self:
        if self.type is TransferScope.PLAN:
            if self.plan_data is None:
                raise ValueError("new.plan_data is required when new.type is plan")
            if self.package_data is not None:
                raise ValueError("new.package_data is sent only when new.type is package")
        else:
            if self.package_data is None:
                raise ValueError("new.package_data is required when new.type is package")
            if self.plan_data is not None:
                raise ValueError("new.plan_data is sent only when new.type is plan")
        return self


class TransferFine(Request):
    account_id: CodeText
    historic_id: CodeText
    due_date: DateStr | None = None  # default: next business day


class ContractTransfer(Request):
    """contract_transfer."""

    customer_id: PositiveInt
    contract_id: PositiveInt
    type: TransferScope
    user: NonEmpty | None = None
    new: TransferTarget
    fine: TransferFine
    reason_id: PositiveInt | None = None

    @model_validator(mode="after")
    def _scope_rules(self) -> Self:
        plan_to_plan = self.type is TransferScope.PLAN and self.new.type is TransferScope.PLAN
        data: TransferPlanData | TransferPackageData | None = self.new.plan_data or self.new.package_data
        if (data is not None and not plan_to_plan
                and data.promotional_discount_option is PromotionalDiscountOption.KEEP):
            raise ValueError("new.*.promotional_discount_option keep is allowed only plan-to-plan")
        plan = self.new.plan_data
        if plan is not None and plan.status is not None and not plan_to_plan:
            raise ValueError("new.plan_data.status is allowed only plan-to-plan")
        package = self.new.package_data
        if (package is not None and self.type is TransferScope.PACKAGE
                and package.plan_correlation is None):
            raise ValueError("new.package_data.plan_correlation is required package-to-package")
        return self


# ---- 4.6 temporary (trial) plans ---------------------------------------------------------------
class _StartsWhen(Request):
    """``start_period`` must be present; ``None`` means "start immediately" and is sent as null."""

    start_period: DateTimeStr | None
    finish_period: DateTimeStr

    @model_validator(mode="after")
    def _finish_after_start(self) -> Self:
        if self.start_period is not None and self.finish_period <= self.start_period:
            raise ValueError("finish_period must be later than start_period")
        return self

    def to_payload(self, context: dict[str, Any] | None = None) -> Any:
        payload = super().to_payload(context)
        payload["start_period"] = payload.get("start_period")
        return payload


class TemporaryPlanInsert(_StartsWhen):
    """temporary_plan_insert."""

    customer_id: PositiveInt
    contract_id: PositiveInt
    temporary_plan_id: PositiveInt


class TemporaryPlanUpdate(_StartsWhen):
    """temporary_plan_update (only while the trial has not started)."""

    id: PositiveInt
    temporary_plan_id: PositiveInt


class TemporaryPlanDisable(Request):
    """temporary_plan_disable."""

    id: PositiveInt


class TemporaryPlanList(Request):
    """temporary_plan_list: ``id`` or ``start_period`` (ignored by the server when id is given)."""

    id: PositiveInt | None = None
    start_period: DateTimeStr | None = None

    @model_validator(mode="after")
    def _some_filter(self) -> Self:
        if self.id is None and self.start_period is None:
            raise ValueError("id or start_period is required")
        return self


# ---- 4.7 stock ---------------------------------------------------------------------------------
class ComplementaryField(Request):
    name: NonEmpty
    value: NonEmpty


class Provisioning(Request):
    controller_id: PositiveInt
    controller_port_id: PositiveInt
    onu_id: PositiveInt | None = None
    scripts: Annotated[list[PositiveInt], Field(min_length=1)]  # scripts and script groups
    authentication_id: CodeText | None = None
    ip_id: PositiveInt | None = None


class EquipmentLending(Request):
    """equipment_lending: a serial item (serial_number, quantity 1) or a non-serial one (location_id)."""

    product_id: PositiveInt
    customer_id: PositiveInt
    contract_id: PositiveInt
    activation_date: DateStr
    quantity: PositiveMoney
    location_id: PositiveInt | None = None
    serial_number: NonEmpty | None = None
    complementary_fields: list[ComplementaryField] | None = None
    provisioning: Provisioning | None = None

    @model_validator(mode="after")
    def _serial_or_location(self) -> Self:
        if self.serial_number is not None and self.location_id is not None:
            raise ValueError("serial_number (serial items) and location_id (non-serial items) "
                             "exclude each other")
        if self.serial_number is None and self.location_id is None:
            raise ValueError("location_id is required for non-serial items (serial_number for serial ones)")
        if self.serial_number is not None and self.quantity != 1:
            raise ValueError("quantity must be exactly 1 for serial-controlled items")
        return self


class _Sparse(Request):
    """inventory_insert: required flags are not shown, so every field is optional and only what the
    caller set is sent; fields the spec says may be null (``nullable``) send an explicit null."""

    nullable: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="after")
    def _null_only_where_allowed(self) -> Self:
        for name in sorted(self.model_fields_set):
            if getattr(self, name) is None and name not in self.nullable:
                raise ValueError(f"{name} may not be null")
        return self

    def to_payload(self, context: dict[str, Any] | None = None) -> Any:
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True, context=context)


class IcmsSt(_Sparse):
    mod_base_calc: str | None = None
    perc_margem_valor_adic: Number | None = None
    perc_reducao_base_calc: Number | None = None
    valor_base_calc: Number | None = None
    aliquota: Number | None = None
    valor: Number | None = None


class IcmsTax(_Sparse):
    cst: str | None = None
    csosn: str | None = None
    origem: str | None = None
    mod_base_calc: str | None = None
    perc_red_base_calc: Number | None = None
    valor_base_calc: Number | None = None
    aliquota: Number | None = None
    valor: Number | None = None
    aliquota_calculo_credito: Number | None = None
    valor_credito: Number | None = None
    st: IcmsSt | None = None


class IpiTax(_Sparse):
    nullable: ClassVar[frozenset[str]] = frozenset({"quantidade", "valor_unitario"})

    sit_trib: str | None = None
    cod_enq: str | None = None
    cod_selo: str | None = None
    qtde_selo: Number | None = None
    tipo_calculo: str | None = None
    valor_base_calc: Number | None = None
    aliquota: Number | None = None
    quantidade: Number | None = None
    valor_unitario: Number | None = None


class PisCofinsSt(_Sparse):
    tipo_calculo: str | None = None
    valor_base_calc: Number | None = None
    aliquota: Number | None = None
    quantidade: Number | None = None
    valor: Number | None = None


class PisCofinsTax(_Sparse):
    nullable: ClassVar[frozenset[str]] = frozenset({"quantidade", "valor"})

    sit_trib: str | None = None
    tipo_calculo: str | None = None
    valor_base_calc: Number | None = None
    aliquota: Number | None = None
    quantidade: Number | None = None
    valor: Number | None = None
    st: PisCofinsSt | None = None


class NfeSale(_Sparse):
    id_nat_oper: int | None = None
    cod_benef_fiscal: str | None = None
    cest: str | None = None
    cfop: int | None = None
    tipo_valor_item: str | None = None
    informacoes_adicionais: str | None = None
    icms: IcmsTax | None = None
    ipi: IpiTax | None = None
    pis: PisCofinsTax | None = None
    cofins: PisCofinsTax | None = None


class InvoiceSettings(_Sparse):
    nfe_oper_venda: NfeSale | None = None


class InventoryInsert(_Sparse):
    """inventory_insert (create a stock product). ``status`` A and ``operation_type_workforce``
    consumption occur; other values are not shown, so both stay text."""

    nullable: ClassVar[frozenset[str]] = frozenset({"tax_group_id"})

    company_id: int | None = None
    code: int | None = None
    description: str | None = None
    model_id: int | None = None
    serial_controlled: bool | None = None
    unit_id: int | None = None
    sale_price: Money | None = None
    text: str | None = None
    allow_discount: bool | None = None
    accounting_number: str | None = None
    minimum_quantity: Number | None = None
    quantity_per_lot: Number | None = None
    operation_type_workforce: str | None = None
    ncm: int | None = None
    ean: str | None = None
    ean_trib: str | None = None
    ex_tipi: str | None = None
    efd_icms_ipi_item: str | None = None
    allows_movement: bool | None = None
    status: str | None = None
    tax_group_id: int | None = None
    invoice: InvoiceSettings | None = None
