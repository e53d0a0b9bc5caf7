"""Result shapes of the generation-2.0 operations (second document, part 2).

Records are lenient (see ``Record``): numbers may arrive as strings and the reverse, an empty
string reads as ``None``, and a value that cannot be read is kept raw in ``odd_fields``. Lists
default to empty, and an empty string, ``null`` or a PHP object keyed ``"0"``, ``"1"`` ... where a
list belongs all read as a list, so a failure-shaped or odd answer never breaks the caller.

Attribute names are the spec's wire names, typos included (``equipament_id``,
``produt_movement_id``, ``recharge_avaliable``, ``generate_questionare_link``).
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import date, timedelta
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import BeforeValidator, Field

from bot.isp.models.base import Record
from bot.isp.types import Blank, DateTime, Dec, Digits, Int, TaxId, Text

T = TypeVar("T")


def _as_list(value: Any) -> Any:
    if value is None or value == "":
        return []
    if isinstance(value, dict) and value and all(str(k).isdecimal() for k in value):
        return list(value.values())
    return value


ListOf = Annotated[list[T], BeforeValidator(_as_list), Field(default_factory=list)]
"""A list that reads ``null``, ``""`` and a digit-keyed object as lists."""


def _slash_date(value: Any) -> Any:
    """``DD/MM/YYYY`` (the Brazilian order the system uses), ``YYYY/MM/DD``, or ISO."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text:
        return None
    match = re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{4})", text)
    if match:
        day, month, year = (int(part) for part in match.groups())
        return date(year, month, day)
    match = re.fullmatch(r"(\d{4})/(\d{1,2})/(\d{1,2})", text)
    if match:
        year, month, day = (int(part) for part in match.groups())
        return date(year, month, day)
    return text


SlashDate = Annotated[date | None, BeforeValidator(_slash_date)]
"""A date sent slash-separated (``mvno_insert_recharge``'s ``due_date``)."""


def _elapsed(value: Any) -> Any:
    """``H+:MM:SS``: an uptime may exceed 24 hours, so it is a duration, not a time of day."""
    if isinstance(value, timedelta) or value is None:
        return value
    text = str(value).strip()
    if not text:
        return None
    match = re.fullmatch(r"(\d+):([0-5]\d):([0-5]\d)", text)
    if not match:
        raise ValueError("must be H:MM:SS")
    hours, minutes, seconds = (int(part) for part in match.groups())
    return timedelta(hours=hours, minutes=minutes, seconds=seconds)


Elapsed = Annotated[timedelta | None, BeforeValidator(_elapsed)]


class ActiveCode(StrEnum):
    """Status codes A/I (authentications, contacts, client groups, transfer reasons)."""

    ACTIVE = "A"
    INACTIVE = "I"


class ActiveState(StrEnum):
    """Status words of customer equipment."""

    ACTIVE = "active"
    INACTIVE = "inactive"


# ---- tickets -----------------------------------------------------------------------------------
class Appointment(Record):
    """consult_appointments: one busy slot of the user on that day."""

    start_time: DateTime = None
    end_time: DateTime = None


class TicketMode(Record):
    """get_tickets_mode: a ``code`` is what ticket_assign's ``mode_assign`` takes."""

    code: Text = None
    description: Text = None


class FinishMessage(Record):
    message: Text = None


class NewTicket(Record):
    ticket_id: Int = None


class TicketFinishResult(Record):
    """ticket_finish: both lists are empty on failure."""

    messages: ListOf[FinishMessage]
    new_tickets: ListOf[NewTicket]


class QuestionnaireLink(Record):
    """generate_questionare_link: the satisfaction-survey URL is the field of the operation's name."""

    Description: Text = None
    generate_questionare_link: Text = None


class ItemId(Record):
    """ticket_item_insert."""

    item_id: Int = None


class OccurrenceId(Record):
    """ticket_occurrence_insert."""

    occurrence_id: Int = None


class IdResult(Record):
    """authentication_insert, contact_create, temporary_plan_insert, inventory_insert."""

    id: Int = None


# ---- customers, contacts, groups, IPs ----------------------------------------------------------
class IpInsertResult(Record):
    """ip_insert (``ip_id`` is empty when the IP already exists: error 16)."""

    ip_id: Int = None


class OnlineSession(Record):
    """get_online_customer: one access session."""

    session_id: Text = None
    customer_id: Int = None
    customer_name: Text = None
    contract_id: Int = None
    plan_id: Int = None
    plan_description: Text = None
    authentication_username: Text = None
    framed_ipv4_address: Text = None
    framed_ipv6_address: Text = None
    delegated_ipv6_prefix: Text = None
    session_start_time: DateTime = None
    session_up_time: Elapsed = None
    nas_port_id: Text = None
    calling_station_id: Text = None
    input_octets: Int = None
    output_octets: Int = None
    server: Text = None
    nas_ip_address: Text = None


class CollectorCustomer(Record):
    """A customer of a virtual-collector rule."""

    Codigo: Int = None
    Nome: Text = None
    Endereco: Text = None
    Numero: Text = None  # a house number, which may be "S/N"
    Bairro: Text = None
    Complemento: Text = None
    Distrito: Text = None
    Cidade: Text = None
    UF: Text = None
    TelComercial: Digits = None
    TelResidencial: Digits = None
    TelCelular: Digits = None
    Bloqueavel: Text = None
    Acessos: Int = None
    ContratoNumero: Int = None
    Contrato: Text = None


class CollectorRule(Record):
    """virtual_collector_costumer_list: a rule, its delay bounds in days and its customers."""

    Regra: Int = None
    Prioridade: Int = None
    Atraso_Max: Int = None
    Atraso_Min: Int = None
    Clientes: ListOf[CollectorCustomer]


class AdditionalData(Record):
    """consult_additional_data."""

    id: Int = None
    table: Text = None
    complement: Text = None
    complement_value: Text = None
    market_id: Int = None
    customer: Int = None


class CustomerEquipment(Record):
    """get_equipment_customer."""

    id: Int = None
    customer_id: Int = None
    customer_name: Text = None
    contract_id: Int = None
    source: Text = None
    serial: Text = None
    product_code: Text = None
    activate_date: DateTime = None
    deactivation_date: DateTime = None
    deactivation_reason: Text = None
    quantity: Dec = None
    unit_price: Dec = None
    total_price: Dec = None
    controller_ip: Text = None
    controller_port: Text = None
    status: Annotated[ActiveState | None, Blank] = None
    additional_data: ListOf[Any]


# ---- mobile virtual operator -------------------------------------------------------------------
class MvnoContractLine(Record):
    id: Int = None
    contract_id: Int = None
    mvno_contract_code: Text = None
    mvno_plan_code: Text = None
    iccid: Text = None  # masked by the server
    msisdn: Text = None
    status: Text = None
    insert_date: DateTime = None
    last_update: DateTime = None
    portability: ListOf[Any]
    recharge_avaliable: ListOf[Any]


class MvnoSubscriber(Record):
    id: Int = None
    mvno_customer_code: Text = None
    mvno_person_type: Text = None
    mvno_person_name: Text = None
    mvno_document_number: TaxId = None
    insert_date: DateTime = None
    contract_line: MvnoContractLine | None = None
    recharge_purchase: ListOf[Any]


class MvnoCustomer(Record):
    """mvno_get_customer."""

    subscriber: ListOf[MvnoSubscriber]


class SimcardBalance(Record):
    """mvno_get_simcard_balance (a bare object)."""

    balance: Dec = None


class RechargePurchase(Record):
    id: Int = None
    banking_billet_id: Int = None
    value: Dec = None
    due_date: SlashDate = None
    barcode: Text = None
    pix: Text = None  # the PIX payment code


class RechargeResult(Record):
    """mvno_insert_recharge (a bare object)."""

    recharge_purchase: RechargePurchase | None = None


# ---- contracts ---------------------------------------------------------------------------------
class NewContract(Record):
    id: Int = None
    plan: Text = None


class ContractInsertResult(Record):
    """contract_insert."""

    new_contracts: ListOf[NewContract]


class ContractTransferResult(Record):
    """contract_transfer: numbers of the new contracts, the package (may be null) and messages."""

    new_contracts: ListOf[Int]
    package_id: Text = None
    messages: ListOf[Text]


class TransferReason(Record):
    """reasons_for_transfer: an ``id`` is what contract_transfer's ``reason_id`` takes."""

    id: Int = None
    name: Text = None
    description: Text = None
    status: Annotated[ActiveCode | None, Blank] = None


class ContractHtml(Record):
    """contract_generate_html: one contract model rendered."""

    contract_model_id: Int = None
    contract_model_html: Text = None  # base 64
    contract_link_download: Text = None  # URL of the PDF

    @property
    def html(self) -> str | None:
        """The decoded HTML, or ``None`` when absent or not valid base 64."""
        if not self.contract_model_html:
            return None
        try:
            return base64.b64decode(self.contract_model_html, validate=True).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return None


# ---- temporary plans ---------------------------------------------------------------------------
TEMPORARY_PLAN_SCHEDULED = "scheduled"
"""The only temporary-plan status the spec names; others exist but are not shown, so ``status``
stays text rather than a closed enumeration."""


class TemporaryPlan(Record):
    """temporary_plan_list."""

    id: Int = None
    customer_id: Int = None
    contract_id: Int = None
    temporary_plan_id: Int = None
    start_period: DateTime = None
    finish_period: DateTime = None
    status: Text = None


# ---- stock -------------------------------------------------------------------------------------
class EquipmentLendingResult(Record):
    """equipment_lending (names spelled so by the spec)."""

    equipament_id: Int = None
    produt_movement_id: Int = None

