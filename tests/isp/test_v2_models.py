"""Generation-2.0 request models enforce the spec before anything is sent; the catalog is complete
and maps every documented error code."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from bot.isp.catalog import OPERATIONS, Kind
from bot.isp.catalog import v2 as catalog
from bot.isp.errors import ErrorName, Generation
from bot.isp.models import v2_requests, v2_results
from bot.isp.models.base import Request
from pydantic import BaseModel, ValidationError

from tests.isp.samples_v2 import SAMPLES

PASSWORD = "s3nh@-Secreta!"
FUTURE = date.today() + timedelta(days=3)


def dump(model: BaseModel) -> dict[str, Any]:
    """A valid request as plain data, to break one rule at a time."""
    data: dict[str, Any] = model.model_dump(mode="python", exclude_none=True)
    return data


def base(name: str) -> dict[str, Any]:
    return dump(SAMPLES[name].request)


def assert_rejected(model: type[Request], data: Any, field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    named = [
        ".".join(str(part) for part in error["loc"]) + " " + error["msg"] for error in caught.value.errors()
    ]
    assert any(field in text for text in named), f"{field} not named in {named}"


def with_(data: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = dict(data)
    for key, value in changes.items():
        if value is ...:
            out.pop(key, None)
        else:
            out[key] = value
    return out


ITEM: dict[str, Any] = {
    "ticket_id": 1, "customer_id": 2, "type": "product", "operation": "lending", "contract_id": 3,
    "item_id": 4, "location_id": 5, "quantity": "1",
}
SALE: dict[str, Any] = ITEM | {"operation": "sale", "installments_quantity": 1}
INSTALLMENTS = [
    {"description": "1/2", "amount": "30.00", "reference_period": "2024-06-01"},
    {"description": "2/2", "amount": "30.00", "reference_period": "2024-07-01"},
]
SIGNING = {"option": "optional", "templates": "1,2"}
PLAN_DATA = {"id": 1, "quantity": 1, "qos_id": 2, "group_contract": "no", "online_signature": SIGNING}
CONTRACT: dict[str, Any] = {
    "customer_id": 1, "seller_name": "Ana", "type": "Plan", "plan_data": PLAN_DATA, "due_date_id": 1,
    "signature_date": "2024-05-01", "start_date": "2024-05-01", "signature": "yes",
}
ADDRESS = {
    "country": "Brasil", "zipcode": "01001000", "street": "Rua A", "number": 1, "neighborhood": "Centro",
    "additional_details": "", "state": "SP", "city": "São Paulo", "maps_lat": "-23.5", "maps_lng": "-46.6",
    "billing_address": "yes",
}
TRANSFER_PLAN = {
    "id": "14", "qos_id": "3", "sla_id": "1", "due_date_id": 2, "duration": 12,
    "promotional_discount_option": "new", "online_signature": {"option": "no"}, "billing": {"keep": True},
}
TRANSFER: dict[str, Any] = {
    "customer_id": 1, "contract_id": 2, "type": "plan", "new": {"type": "plan", "plan_data": TRANSFER_PLAN},
    "fine": {"account_id": 10, "historic_id": 20},
}
PACKAGE_DATA = {
    "id": "P1", "due_date_id": "2", "duration": 12, "promotional_discount_option": "new",
    "billing": {"keep": False, "future_cancel": True, "cancellation_period_action": "block"},
}
CANCEL: dict[str, Any] = {
    "customer_id": 1, "contract_id": 2, "reason_id": 3,
    "billing": {"future_cancel": True, "cancellation_period_action": "none", "reason_id": 4},
    "pre_billing": {"cancel": False, "cancellation_period_action": "cancel"},
    "fine": {"account_id": 5, "historic_id": 6},
}
LENDING: dict[str, Any] = {
    "product_id": 1, "customer_id": 2, "contract_id": 3, "activation_date": "2024-05-01", "quantity": "2",
    "location_id": 4,
}
ADDRESS_OF_CONTRACT: dict[str, Any] = {
    "customer_id": 1, "contract_id": 2, "address": "Rua A", "number": 10, "neighborhood": "Centro",
    "city_id": 3550308, "state": "SP", "zip_code": "01001-000",
}

REJECTED: list[tuple[str, type[Request], Any, str]] = [
    # tickets
    ("appointment status outside the set", v2_requests.TicketAppointmentUpdate,
     with_(base("ticket_appointment_update"), appointment_status="scheduled"), "appointment_status"),
    ("appointment time not HH:MM", v2_requests.TicketAppointmentUpdate,
     with_(base("ticket_appointment_update"), appointment_time="14:00:00"), "appointment_time"),
    ("appointment hour past 23", v2_requests.TicketAppointmentUpdate,
     with_(base("ticket_appointment_update"), appointment_time="24:00"), "appointment_time"),
    ("zero duration", v2_requests.TicketAppointmentInsert,
     with_(base("ticket_appointment_insert"), duration="00:00"), "duration"),
    ("missing ticket_id", v2_requests.TicketAppointmentInsert, with_(base("ticket_appointment_insert"), ticket_id=...),
     "ticket_id"),
    ("ticket_id not > 0", v2_requests.TicketUpdate, {"ticket_id": 0}, "ticket_id"),
    ("priority above 99", v2_requests.TicketUpdate, {"ticket_id": 1, "priority": 100}, "priority"),
    ("priority below 0", v2_requests.TicketUpdate, {"ticket_id": 1, "priority": -1}, "priority"),
    ("ticket status outside the set", v2_requests.TicketUpdate, {"ticket_id": 1, "status": "closed"}, "status"),
    ("checklist_set not M/D", v2_requests.TicketChecklistUpdate,
     {"ticket_id": 1, "checklist_id": 2, "checklist_set": "X"}, "checklist_set"),
    ("OS status outside the set", v2_requests.TicketOsStatusUpdate, {"ticket_id": 1, "new_status": "F"}, "new_status"),
    ("latitude 0", v2_requests.TicketOsStatusUpdate,
     {"ticket_id": 1, "new_status": "running", "coordinates": {"latitude": 0, "longitude": -46}},
     "coordinates.latitude"),
    ("longitude 0", v2_requests.TicketOsStatusUpdate,
     {"ticket_id": 1, "new_status": "running", "coordinates": {"latitude": -23, "longitude": "0.0"}},
     "coordinates.longitude"),
    ("latitude beyond 90", v2_requests.TicketOsStatusUpdate,
     {"ticket_id": 1, "new_status": "running", "coordinates": {"latitude": "90.5", "longitude": 1}},
     "coordinates.latitude"),
    ("longitude beyond 180", v2_requests.TicketOsStatusUpdate,
     {"ticket_id": 1, "new_status": "running", "coordinates": {"latitude": 1, "longitude": -181}},
     "coordinates.longitude"),
    ("coordinates without longitude", v2_requests.TicketOsStatusUpdate,
     {"ticket_id": 1, "new_status": "running", "coordinates": {"latitude": -23}}, "coordinates.longitude"),
    ("appointments without user", v2_requests.ConsultAppointments, {"appointment_date": "2024-05-01"}, "user"),
    ("appointment date not a date", v2_requests.ConsultAppointments, {"user": "a", "appointment_date": "01/05/2024"},
     "appointment_date"),
    ("target_type outside the set", v2_requests.TicketAssign,
     {"ticket_id": 1, "mode_assign": "1", "target_type": "team", "target_id": "7"}, "target_type"),
    ("group target not an id", v2_requests.TicketAssign,
     {"ticket_id": 1, "mode_assign": "1", "target_type": "group", "target_id": "suporte"}, "target_id"),
    ("finish without user", v2_requests.TicketFinish, with_(base("ticket_finish"), user=...), "user"),
    ("finish datetime malformed", v2_requests.TicketFinish, with_(base("ticket_finish"), datetime="ontem"), "datetime"),
    ("recurrence yes without period", v2_requests.AppointmentInsert, with_(base("appointment_insert"), period=...),
     "period"),
    ("period without recurrence", v2_requests.AppointmentInsert, with_(base("appointment_insert"), recurrence="no"),
     "period"),
    ("recurrence not yes/no", v2_requests.AppointmentInsert, with_(base("appointment_insert"), recurrence="S"),
     "recurrence"),
    ("reminder outside the set", v2_requests.AppointmentInsert,
     with_(base("appointment_insert"), reminder="10_minutes"), "reminder"),
    ("event colour not hex", v2_requests.AppointmentInsert, with_(base("appointment_insert"), event_color="blue"),
     "event_color"),
    ("appointment_insert without reminder", v2_requests.AppointmentInsert,
     with_(base("appointment_insert"), reminder=...), "reminder"),
    # ticket items
    ("item type outside the set", v2_requests.TicketItemInsert, ITEM | {"type": "plan"}, "type"),
    ("item operation outside the set", v2_requests.TicketItemInsert, ITEM | {"operation": "rent"}, "operation"),
    ("service other than sale", v2_requests.TicketItemInsert,
     ITEM | {"type": "service", "location_id": None}, "operation"),
    ("contract_id missing for lending", v2_requests.TicketItemInsert, with_(ITEM, contract_id=...), "contract_id"),
    ("stock item without location", v2_requests.TicketItemInsert, with_(ITEM, location_id=...), "location_id"),
    ("service with a location", v2_requests.TicketItemInsert,
     SALE | {"type": "service"}, "location_id"),
    ("serial item quantity 2", v2_requests.TicketItemInsert,
     with_(ITEM, location_id=...) | {"serial_number": "ZTE1", "quantity": "2"}, "quantity"),
    ("quantity 0", v2_requests.TicketItemInsert, ITEM | {"quantity": "0"}, "quantity"),
    ("discount outside sale", v2_requests.TicketItemInsert, ITEM | {"discount_amount": "5"}, "discount_amount"),
    ("discount below 0", v2_requests.TicketItemInsert, SALE | {"discount_amount": "-1"}, "discount_amount"),
    ("discount above quantity x price", v2_requests.TicketItemInsert,
     SALE | {"sale_price": "10", "discount_amount": "11"}, "discount_amount"),
    ("sale without installments_quantity", v2_requests.TicketItemInsert, with_(SALE, installments_quantity=...),
     "installments_quantity"),
    ("installments outside sale", v2_requests.TicketItemInsert, ITEM | {"installments_quantity": 1},
     "installments_quantity"),
    ("installments_detail missing", v2_requests.TicketItemInsert, SALE | {"installments_quantity": 2},
     "installments_detail"),
    ("installments count differs", v2_requests.TicketItemInsert,
     SALE | {"installments_quantity": 3, "installments_detail": INSTALLMENTS}, "installments_detail"),
    ("installments sum differs from the total", v2_requests.TicketItemInsert,
     SALE | {"installments_quantity": 2, "installments_detail": INSTALLMENTS, "sale_price": "70"},
     "installments_detail"),
    ("installment period repeated", v2_requests.TicketItemInsert,
     SALE | {"installments_quantity": 2, "installments_detail": [
         INSTALLMENTS[0], INSTALLMENTS[1] | {"reference_period": "2024-06-15"}]}, "reference_period"),
    ("installment description over 50", v2_requests.TicketItemInsert,
     SALE | {"installments_detail": [INSTALLMENTS[0] | {"description": "x" * 51}]}, "description"),
    ("installment amount 0", v2_requests.TicketItemInsert,
     SALE | {"installments_detail": [INSTALLMENTS[0] | {"amount": "0"}]}, "amount"),
    ("dealer_id not > 0", v2_requests.TicketItemInsert, ITEM | {"dealer_id": 0}, "dealer_id"),
    # chat, occurrences
    ("chat origin outside the set", v2_requests.ChatMessages,
     [{"record": "2024-05-01 10:00:00", "customer": 1, "ticket_id": 2, "attendant": "a", "content": "oi",
       "origin": "X"}], "origin"),
    ("chat entry without content", v2_requests.ChatMessages,
     [{"record": "2024-05-01 10:00:00", "customer": 1, "ticket_id": 2, "attendant": "a", "origin": "A"}],
     "content"),
    ("no chat messages", v2_requests.ChatMessages, [], "messages"),
    ("occurrence latitude alone", v2_requests.TicketOccurrenceInsert,
     {"ticket_id": 1, "description": "x", "latitude": "-23.5"}, "longitude"),
    ("occurrence latitude 0", v2_requests.TicketOccurrenceInsert,
     {"ticket_id": 1, "description": "x", "latitude": 0, "longitude": 1}, "latitude"),
    # authentications
    ("authentication status outside A/I", v2_requests.AuthenticationInsert,
     with_(base("authentication_insert"), status="B"), "status"),
    ("authentication mac malformed", v2_requests.AuthenticationInsert,
     with_(base("authentication_insert"), mac="AA-BB-CC-DD-EE-FF"), "mac"),
    ("nas neither IP nor virtual", v2_requests.AuthenticationInsert,
     with_(base("authentication_insert"), nas="-4"), "nas"),
    ("port virtual -2 does not exist", v2_requests.AuthenticationInsert,
     with_(base("authentication_insert"), port="-2"), "port"),
    ("authentication flags required", v2_requests.AuthenticationInsert,
     with_(base("authentication_insert"), force_password_update=...), "force_password_update"),
    ("update status outside A/I", v2_requests.AuthenticationUpdate, {"id": 1, "status": "X"}, "status"),
    ("delete id not > 0", v2_requests.AuthenticationDelete, {"id": 0}, "id"),
    # contacts, groups
    ("person_type outside C/P", v2_requests.ContactCreate,
     with_(base("contact_create"), person_type="M"), "person_type"),
    ("contact type outside G/A/T", v2_requests.ContactCreate, with_(base("contact_create"), type="X"), "type"),
    ("contact without status", v2_requests.ContactCreate, with_(base("contact_create"), status=...), "status"),
    ("phone with letters", v2_requests.ContactCreate, with_(base("contact_create"), phone_1="11 9876-ABCD"), "phone_1"),
    ("phone without area code", v2_requests.ContactUpdate, {"contact_id": 1, "phone_2": "98765432"}, "phone_2"),
    ("email malformed", v2_requests.ContactUpdate, {"contact_id": 1, "email": "ana.example.com"}, "email"),
    ("birthday malformed", v2_requests.ContactUpdate, {"contact_id": 1, "birthday": "02/04/1990"}, "birthday"),
    ("group priority above 99", v2_requests.ClientGroupInsert,
     {"name": "g", "priority": 100, "status": "A"}, "priority"),
    ("group without status", v2_requests.ClientGroupInsert, {"name": "g"}, "status"),
    ("group update status outside A/I", v2_requests.ClientGroupUpdate, {"group_id": 1, "status": "X"}, "status"),
    # IPs
    ("pool with a fixed address", v2_requests.IpInsert,
     {"customer_id": 1, "contract_id": 2, "ipv4": {"pool_id": "[p1]", "ip_address": "10.0.0.2"}}, "pool_id"),
    ("fixed address without mask", v2_requests.IpInsert,
     {"customer_id": 1, "contract_id": 2, "ipv4": {"ip_address": "10.0.0.2", "gateway": "10.0.0.1"}}, "mask"),
    ("fixed address without gateway", v2_requests.IpInsert,
     {"customer_id": 1, "contract_id": 2, "ipv4": {"ip_address": "10.0.0.2", "mask": "30"}}, "gateway"),
    ("ipv4 empty", v2_requests.IpInsert, {"customer_id": 1, "contract_id": 2, "ipv4": {}}, "ipv4"),
    ("ipv4 missing", v2_requests.IpInsert, {"customer_id": 1, "contract_id": 2}, "ipv4"),
    ("ipv4 address malformed", v2_requests.IpInsert,
     {"customer_id": 1, "contract_id": 2,
      "ipv4": {"ip_address": "10.0.0.300", "mask": "30", "gateway": "10.0.0.1"}},
     "ip_address"),
    ("ipv6 wan with wan pool", v2_requests.IpInsert,
     {"customer_id": 1, "contract_id": 2, "ipv4": {"pool_id": "p1"},
      "ipv6": {"ip_address_wan": "2804::2", "ip_address_delegated": "2804:1::/56", "wan_pool_id": "w"}},
     "wan_pool_id"),
    ("ipv6 wan without delegated", v2_requests.IpInsert,
     {"customer_id": 1, "contract_id": 2, "ipv4": {"pool_id": "p1"}, "ipv6": {"ip_address_wan": "2804::2"}},
     "ip_address_delegated"),
    ("ipv6 wan pool without delegated pool", v2_requests.IpInsert,
     {"customer_id": 1, "contract_id": 2, "ipv4": {"pool_id": "p1"}, "ipv6": {"wan_pool_id": "w"}},
     "delegated_pool_id"),
    ("ip status outside A/I", v2_requests.IpInsert,
     {"customer_id": 1, "contract_id": 2, "ipv4": {"pool_id": "p1"}, "status": "X"}, "status"),
    # queries
    ("online filter datetime malformed", v2_requests.GetOnlineCustomer, {"session_start_time": "01/05/2024 10:00"},
     "session_start_time"),
    ("disconnect without session", v2_requests.DisconnectOnlineCustomer,
     {"customer_id": 1, "server_id": 2, "nas_ip_address": "10.0.0.1"}, "session_id"),
    ("disconnect nas not an IP", v2_requests.DisconnectOnlineCustomer,
     {"customer_id": 1, "server_id": 2, "nas_ip_address": "bng", "session_id": "s"}, "nas_ip_address"),
    ("collector without rules", v2_requests.VirtualCollectorCostumerList, {"regra": []}, "regra"),
    ("additional data type outside the set", v2_requests.ConsultAdditionalData, {"type": ["markets"]}, "type"),
    ("additional data without type", v2_requests.ConsultAdditionalData, {}, "type"),
    ("equipment status outside the set", v2_requests.GetEquipmentCustomer,
     {"equipment_status": "A"}, "equipment_status"),
    ("mvno recharge without recharge_id", v2_requests.MvnoInsertRecharge, {"customer_id": 1, "contract_line_id": 2},
     "recharge_id"),
    # contracts
    ("contract type outside Plan/Package", v2_requests.ContractInsert, CONTRACT | {"type": "plan"}, "type"),
    ("Plan without plan_data", v2_requests.ContractInsert, with_(CONTRACT, plan_data=...), "plan_data"),
    ("Package without package_data", v2_requests.ContractInsert, CONTRACT | {"type": "Package"}, "package_data"),
    ("Plan with package_data", v2_requests.ContractInsert, CONTRACT | {"package_data": {"id": 3}}, "package_data"),
    ("group_contract 0", v2_requests.ContractInsert, CONTRACT | {"plan_data": PLAN_DATA | {"group_contract": 0}},
     "group_contract"),
    ("group_contract 100", v2_requests.ContractInsert, CONTRACT | {"plan_data": PLAN_DATA | {"group_contract": "100"}},
     "group_contract"),
    ("group_contract word", v2_requests.ContractInsert,
     CONTRACT | {"plan_data": PLAN_DATA | {"group_contract": "maybe"}},
     "group_contract"),
    ("signing option outside the set", v2_requests.ContractInsert,
     CONTRACT | {"plan_data": PLAN_DATA | {"online_signature": {"option": "always"}}}, "option"),
    ("signing without templates", v2_requests.ContractInsert,
     CONTRACT | {"plan_data": PLAN_DATA | {"online_signature": {"option": "required"}}}, "templates"),
    ("signature not yes/no", v2_requests.ContractInsert, CONTRACT | {"signature": True}, "signature"),
    ("adhesion billet outside the set", v2_requests.ContractInsert,
     CONTRACT | {"generate_adhesion": {"installments": [{"value": "50", "due_date": "2024-06-01"}],
                                       "billet": "carne", "charge": "simple", "account_id": 1,
                                       "historic_id": 2, "bank": 3, "bank_agreement": "x"}}, "billet"),
    ("adhesion charge outside the set", v2_requests.ContractInsert,
     CONTRACT | {"generate_adhesion": {"installments": [{"value": "50", "due_date": "2024-06-01"}],
                                       "billet": "single_billet", "charge": "pix", "account_id": 1,
                                       "historic_id": 2, "bank": 3, "bank_agreement": "x"}}, "charge"),
    ("installation address incomplete", v2_requests.ContractInsert,
     CONTRACT | {"installation_address": with_(ADDRESS, city=...)}, "city"),
    ("installation address without billing_address", v2_requests.ContractInsert,
     CONTRACT | {"installation_address": with_(ADDRESS, billing_address=...)}, "billing_address"),
    ("update group_contract out of range", v2_requests.ContractUpdate,
     {"customer_id": 1, "contract_id": 2, "group_contract": 100}, "group_contract"),
    ("update signing without templates", v2_requests.ContractUpdate,
     {"customer_id": 1, "contract_id": 2, "online_signature": {"option": "optional"}}, "templates"),
    ("activate contract_id not > 0", v2_requests.ContractActivate, {"customer_id": 1, "contract_id": 0}, "contract_id"),
    ("block customer_id not > 0", v2_requests.ContractBlock, {"customer_id": -1, "contract_id": 2}, "customer_id"),
    ("unblock without contract", v2_requests.ContractUnblock, {"customer_id": 1}, "contract_id"),
    ("cancel period action outside the set", v2_requests.ContractCancel,
     CANCEL | {"billing": CANCEL["billing"] | {"cancellation_period_action": "delete"}},
     "cancellation_period_action"),
    ("pre-billing action block does not exist", v2_requests.ContractCancel,
     CANCEL | {"pre_billing": CANCEL["pre_billing"] | {"cancellation_period_action": "block"}},
     "cancellation_period_action"),
    ("cancel without fine", v2_requests.ContractCancel, with_(CANCEL, fine=...), "fine"),
    ("os open without target", v2_requests.ContractCancel, CANCEL | {"os": {"open": True}}, "os.target_type"),
    ("os target type outside the set", v2_requests.ContractCancel,
     CANCEL | {"os": {"open": True, "target_type": "group", "target_id": 1}}, "target_type"),
    ("suspension in the past", v2_requests.ContractSuspendTemporary,
     {"customer_id": 1, "contract_id": 2, "duration": 5, "start_date": date.today() - timedelta(days=3)},
     "start_date"),
    ("suspension of 0 days", v2_requests.ContractSuspendTemporary,
     {"customer_id": 1, "contract_id": 2, "duration": 0, "start_date": FUTURE}, "duration"),
    ("promotional discount 0", v2_requests.PromotionalContractDiscountUpdate,
     {"customer": 1, "contract_number": 2, "discount_period": 3, "discount_value": "0"}, "discount_value"),
    ("promotional delete without contract", v2_requests.PromotionalContractDiscountDelete, {"customer": 1},
     "contract_number"),
    ("html type outside the set", v2_requests.ContractGenerateHtml,
     {"customer_id": 1, "contract_id": 2, "generate_link": True, "type": "signing"}, "type"),
    ("html resend without type", v2_requests.ContractGenerateHtml,
     {"customer_id": 1, "contract_id": 2, "generate_link": True, "resend_clicksign_contract": True}, "type"),
    ("html without generate_link", v2_requests.ContractGenerateHtml, {"customer_id": 1, "contract_id": 2},
     "generate_link"),
    ("address without contract or package", v2_requests.ContractAddress, with_(ADDRESS_OF_CONTRACT, contract_id=...),
     "package_id"),
    ("address with contract and package", v2_requests.ContractAddress, ADDRESS_OF_CONTRACT | {"package_id": "P1"},
     "contract_id"),
    ("address type outside the set", v2_requests.ContractAddress, ADDRESS_OF_CONTRACT | {"type": "delivery"}, "type"),
    ("address dici_type outside the set", v2_requests.ContractAddress, ADDRESS_OF_CONTRACT | {"dici_type": "x"},
     "dici_type"),
    ("address zip code short", v2_requests.ContractAddress, ADDRESS_OF_CONTRACT | {"zip_code": "0100"}, "zip_code"),
    ("address latitude alone", v2_requests.ContractAddress, ADDRESS_OF_CONTRACT | {"latitude": "-23.5"}, "longitude"),
    ("transfer type outside plan/package", v2_requests.ContractTransfer, TRANSFER | {"type": "Plan"}, "type"),
    ("transfer new plan without plan_data", v2_requests.ContractTransfer,
     TRANSFER | {"new": {"type": "plan"}}, "plan_data"),
    ("transfer new package without package_data", v2_requests.ContractTransfer,
     TRANSFER | {"new": {"type": "package", "plan_data": TRANSFER_PLAN}}, "package_data"),
    ("transfer keep discount outside plan-to-plan", v2_requests.ContractTransfer,
     TRANSFER | {"type": "package", "new": {
         "type": "plan", "plan_data": TRANSFER_PLAN | {"promotional_discount_option": "keep"}}},
     "promotional_discount_option"),
    ("transfer plan status outside plan-to-plan", v2_requests.ContractTransfer,
     TRANSFER | {"type": "package", "new": {"type": "plan", "plan_data": TRANSFER_PLAN | {"status": "A"}}},
     "status"),
    ("package-to-package without plan_correlation", v2_requests.ContractTransfer,
     TRANSFER | {"type": "package", "new": {"type": "package", "package_data": PACKAGE_DATA}},
     "plan_correlation"),
    ("transfer future_cancel while keeping billing", v2_requests.ContractTransfer,
     TRANSFER | {"new": {"type": "plan", "plan_data": TRANSFER_PLAN | {
         "billing": {"keep": True, "future_cancel": True}}}}, "future_cancel"),
    ("transfer period action without future_cancel", v2_requests.ContractTransfer,
     TRANSFER | {"new": {"type": "plan", "plan_data": TRANSFER_PLAN | {
         "billing": {"keep": False, "cancellation_period_action": "none"}}}}, "cancellation_period_action"),
    ("transfer promotional option outside the set", v2_requests.ContractTransfer,
     TRANSFER | {"new": {"type": "plan", "plan_data": TRANSFER_PLAN | {"promotional_discount_option": "x"}}},
     "promotional_discount_option"),
    ("transfer signing without templates", v2_requests.ContractTransfer,
     TRANSFER | {"new": {"type": "plan",
                         "plan_data": TRANSFER_PLAN | {"online_signature": {"option": "required"}}}},
     "templates"),
    ("transfer reason not > 0", v2_requests.ContractTransfer, TRANSFER | {"reason_id": 0}, "reason_id"),
    ("transfer without fine", v2_requests.ContractTransfer, with_(TRANSFER, fine=...), "fine"),
    # temporary plans
    ("start_period omitted", v2_requests.TemporaryPlanInsert,
     {"customer_id": 1, "contract_id": 2, "temporary_plan_id": 3, "finish_period": "2024-06-01 00:00:00"},
     "start_period"),
    ("finish before start", v2_requests.TemporaryPlanUpdate,
     {"id": 1, "temporary_plan_id": 3, "start_period": "2024-06-01 00:00:00",
      "finish_period": "2024-05-01 00:00:00"}, "finish_period"),
    ("update without finish_period", v2_requests.TemporaryPlanUpdate,
     {"id": 1, "temporary_plan_id": 3, "start_period": None}, "finish_period"),
    ("list without id nor start_period", v2_requests.TemporaryPlanList, {}, "start_period"),
    ("disable id not > 0", v2_requests.TemporaryPlanDisable, {"id": 0}, "id"),
    # stock
    ("lending serial with location", v2_requests.EquipmentLending, LENDING | {"serial_number": "S1", "quantity": 1},
     "serial_number"),
    ("lending without serial nor location", v2_requests.EquipmentLending,
     with_(LENDING, location_id=...), "location_id"),
    ("lending serial quantity 2", v2_requests.EquipmentLending,
     with_(LENDING, location_id=...) | {"serial_number": "S1"}, "quantity"),
    ("lending quantity 0", v2_requests.EquipmentLending, LENDING | {"quantity": 0}, "quantity"),
    ("provisioning without scripts", v2_requests.EquipmentLending,
     LENDING | {"provisioning": {"controller_id": 1, "controller_port_id": 2}}, "scripts"),
    ("complementary field without value", v2_requests.EquipmentLending,
     LENDING | {"complementary_fields": [{"name": "vlan"}]}, "value"),
    ("inventory null where not allowed", v2_requests.InventoryInsert, {"code": None}, "code"),
    ("inventory unknown field", v2_requests.InventoryInsert, {"colour": "red"}, "colour"),
]


@pytest.mark.parametrize(("case", "model", "data", "field"), REJECTED, ids=[c[0] for c in REJECTED])
def test_each_rule_is_enforced_naming_the_field(
    case: str, model: type[Request], data: Any, field: str
) -> None:
    assert_rejected(model, data, field)


def test_valid_variants_pass() -> None:
    v2_requests.TicketItemInsert.model_validate(ITEM | {"operation": "consumption", "contract_id": None})
    v2_requests.TicketItemInsert.model_validate(SALE | {"type": "service", "location_id": None})
    v2_requests.TicketItemInsert.model_validate(
        SALE | {"installments_quantity": 2, "installments_detail": INSTALLMENTS, "quantity": 2,
                "sale_price": 30})
    serial = v2_requests.TicketItemInsert.model_validate(with_(ITEM, location_id=...) | {"serial_number": "ZTE1"})
    assert "location_id" not in serial.to_payload()
    v2_requests.TicketOsStatusUpdate.model_validate(
        {"ticket_id": 1, "new_status": "completed", "coordinates": {"latitude": 90, "longitude": -180}})
    v2_requests.ContractInsert.model_validate(
        with_(CONTRACT, plan_data=...) | {"type": "Package", "package_data": {"id": 3}})
    v2_requests.ContractAddress.model_validate(with_(ADDRESS_OF_CONTRACT, contract_id=...) | {"package_id": "P1"})
    v2_requests.ContractTransfer.model_validate(
        TRANSFER | {"type": "package", "new": {"type": "package", "package_data": PACKAGE_DATA | {
            "plan_correlation": [{"contract_id": 881, "new_plan_id": 14}]}}})
    v2_requests.ContractSuspendTemporary.model_validate(
        {"customer_id": 1, "contract_id": 2, "duration": 5, "start_date": date.today()})
    v2_requests.TemporaryPlanList.model_validate({"id": 3})
    v2_requests.AuthenticationInsert.model_validate(with_(base("authentication_insert"), nas="-2", port="-3"))


def test_group_contract_is_sent_as_the_spec_shows() -> None:
    def sent(value: Any) -> Any:
        request = v2_requests.ContractUpdate(customer_id=1, contract_id=2, group_contract=value)
        return request.to_payload()["group_contract"]

    assert [sent(v) for v in ("yes", "NO", 1, "07", 99)] == ["yes", "no", "1", "7", "99"]


def test_templates_are_text_for_insert_and_a_list_for_update() -> None:
    insert = v2_requests.OnlineSignature(option=v2_requests.SignatureOption.REQUIRED, templates=[4, 5])
    update = v2_requests.OnlineSignatureList(option=v2_requests.SignatureOption.REQUIRED, templates="4, 5")
    assert insert.to_payload() == {"option": "required", "templates": "4,5"}
    assert update.to_payload() == {"option": "required", "templates": [4, 5]}


def test_pool_name_is_bracketed_and_digit_strings_keep_zeros() -> None:
    ip = v2_requests.Ipv4Settings(pool_id="clientes")
    assert ip.to_payload() == {"pool_id": "[clientes]"}
    contact = v2_requests.ContactUpdate(contact_id=1, document_number="012.345.678-90", phone_1="(11) 98765-4321")
    assert contact.to_payload() == {
        "contact_id": 1, "document_number": "01234567890", "phone_1": "11987654321"}
    address = v2_requests.ContractAddress.model_validate(ADDRESS_OF_CONTRACT)
    assert address.to_payload()["zip_code"] == "01001000"


def test_item_sale_price_is_checked_but_never_sent() -> None:
    item = SAMPLES["ticket_item_insert"].request
    assert item.item_total() == Decimal("100.00")
    assert "sale_price" not in item.to_payload()


def test_datetimes_are_sent_in_the_isp_time_zone() -> None:
    aware = datetime(2024, 5, 6, 13, 0, tzinfo=ZoneInfo("UTC"))
    request = v2_requests.TicketFinish(ticket_id=1, cause_id=2, solution="ok", datetime=aware, user="u")
    assert request.to_payload({"tz": ZoneInfo("America/Sao_Paulo")})["datetime"] == "2024-05-06 10:00:00"


# ---- passwords ---------------------------------------------------------------------------------
@pytest.mark.parametrize("model", [v2_requests.AuthenticationInsert, v2_requests.AuthenticationUpdate])
def test_passwords_never_show_in_repr_or_str(model: type[Request]) -> None:
    data = base("authentication_insert") if model is v2_requests.AuthenticationInsert else {"id": 1}
    request = model.model_validate(data | {"password": PASSWORD})
    assert PASSWORD not in repr(request) and PASSWORD not in str(request)
    assert request.to_payload()["password"] == PASSWORD
    assert "password" in model.sensitive


# ---- null and list payloads --------------------------------------------------------------------
def test_start_period_null_is_sent_as_null() -> None:
    insert = v2_requests.TemporaryPlanInsert(customer_id=1, contract_id=2, temporary_plan_id=3, start_period=None,
                                   finish_period=datetime(2024, 6, 1))
    payload = insert.to_payload()
    assert "start_period" in payload and payload["start_period"] is None
    update = v2_requests.TemporaryPlanUpdate(id=1, temporary_plan_id=3, start_period=datetime(2024, 5, 1),
                                   finish_period=datetime(2024, 6, 1))
    assert update.to_payload()["start_period"] == "2024-05-01 00:00:00"


def test_inventory_sends_only_what_was_set_and_nulls_where_allowed() -> None:
    payload = SAMPLES["inventory_insert"].request.to_payload()
    assert payload["tax_group_id"] is None
    pis = payload["invoice"]["nfe_oper_venda"]["pis"]
    assert pis == {"sit_trib": "01", "quantidade": None, "valor": None}
    assert "ean" not in payload


def test_chat_messages_payload_is_a_list() -> None:
    request = SAMPLES["chat_messages"].request
    payload = request.to_payload()
    assert isinstance(payload, list) and len(payload) == 2
    assert payload[0]["record"] == "2024-05-06 10:00:05" and payload[1]["origin"] == "C"
    assert "contact" not in payload[0] and payload[1]["contact"] == 77
    assert v2_requests.ChatMessages(messages=request.messages) == request


# ---- catalog -----------------------------------------------------------------------------------
def test_there_are_exactly_52_distinct_operations() -> None:
    names = [op.name for op in catalog.V2_OPERATIONS]
    assert len(names) == 52 and len(set(names)) == 52
    assert set(names) == set(SAMPLES)
    for op in catalog.V2_OPERATIONS:
        assert getattr(catalog, op.name) is op  # the module variable is named as the operation
        assert op.generation is Generation.V2
        assert op.request_model is not None and op.summary
        assert op.bare is op.name.startswith("mvno_")


DOCUMENTED: dict[str, dict[int, ErrorName]] = {
    # tickets
    "ticket_appointment_update": {15: ErrorName.TICKET_SEARCH_FAILED},
    "ticket_update": {13: ErrorName.TICKET_ALREADY_CLOSED},
    "ticket_checklist_update": {1: ErrorName.REQUIRED_FIELD_MISSING},
    "ticket_os_status_update": {15: ErrorName.INVALID_OS_STATUS},
    "consult_appointments": {8: ErrorName.USER_NOT_FOUND},
    "get_tickets_mode": {12: ErrorName.INTERNAL_SERVER_ERROR},
    "ticket_assign": {14: ErrorName.INVALID_TARGET},
    "ticket_finish": {7: ErrorName.USER_NOT_FOUND},
    "generate_questionare_link": {11: ErrorName.TICKET_HAS_NO_SURVEY},
    "appointment_insert": {16: ErrorName.USER_NOT_FOUND},
    "ticket_appointment_insert": {18: ErrorName.TICKET_ALREADY_HAS_APPOINTMENT},
    "ticket_item_insert": {6: ErrorName.TICKET_NOT_FOUND},
    "chat_messages": {16: ErrorName.TICKET_NOT_FOUND},
    "ticket_occurrence_insert": {18: ErrorName.USER_NOT_FOUND},
    # authentications
    "authentication_insert": {19: ErrorName.AUTHENTICATION_USER_TAKEN},
    "authentication_update": {12: ErrorName.INVALID_FIELD},
    "authentication_delete": {9: ErrorName.AUTHENTICATION_NOT_FOUND},
    # customers, contacts, groups, IPs
    "contact_create": {12: ErrorName.INVALID_FIELD},
    "contact_update": {9: ErrorName.CONTACT_HAS_NO_CUSTOMER},
    "contact_delete": {9: ErrorName.CONTACT_NOT_FOUND},
    "client_group_insert": {9: ErrorName.INVALID_GROUP_STATUS},
    "client_group_update": {13: ErrorName.GROUP_NOT_FOUND},
    "ip_insert": {16: ErrorName.IP_ALREADY_EXISTS},
    "get_online_customer": {3: ErrorName.INVALID_CUSTOMER},
    "disconnect_online_customer": {},
    "virtual_collector_costumer_list": {8: ErrorName.RULE_NOT_FOUND},
    "consult_additional_data": {4: ErrorName.INVALID_TYPE},
    "get_equipment_customer": {8: ErrorName.INVALID_EQUIPMENT_STATUS},
    # mobile virtual operator
    "mvno_get_customer": {8: ErrorName.UNIDENTIFIED_CUSTOMER},
    "mvno_get_simcard_balance": {13: ErrorName.UNIDENTIFIED_CONTRACT_LINE},
    "mvno_insert_recharge": {13: ErrorName.UNIDENTIFIED_CONTRACT_LINE},
    # contracts
    "contract_insert": {1: ErrorName.UNIDENTIFIED_PACKAGE},
    "contract_update": {26: ErrorName.CUSTOMER_NOT_FOUND},
    "contract_signature": {11: ErrorName.CONTRACT_ALREADY_SIGNED},
    "contract_activate": {10: ErrorName.INVALID_CONTRACT_STATUS},
    "contract_block": {10: ErrorName.INVALID_CONTRACT_STATUS},
    "contract_unblock": {10: ErrorName.INVALID_CONTRACT_STATUS},
    "contract_cancel": {38: ErrorName.CONTRACT_CANNOT_BE_CANCELLED},
    "contract_suspend_temporary": {20: ErrorName.SUSPENSION_ALREADY_SCHEDULED},
    "contract_suspend_temporary_cancel": {12: ErrorName.NO_SUSPENSION_FOUND},
    "promotional_contract_discount_update": {21: ErrorName.DISCOUNT_ABOVE_CONTRACT_VALUE},
    "promotional_contract_discount_delete": {12: ErrorName.CONTRACT_NOT_FOUND},
    "contract_generate_html": {14: ErrorName.CONTRACT_NOT_OF_CUSTOMER},
    "contract_address": {27: ErrorName.CONTRACT_NOT_OF_CUSTOMER},
    "contract_transfer": {10: ErrorName.CONTRACT_STARTS_IN_FUTURE},
    "reasons_for_transfer": {12: ErrorName.INTERNAL_SERVER_ERROR},
    # temporary plans
    "temporary_plan_insert": {13: ErrorName.TEMPORARY_PLAN_EXISTS},
    "temporary_plan_update": {5: ErrorName.TEMPORARY_PLAN_NOT_FOUND},
    "temporary_plan_disable": {6: ErrorName.TEMPORARY_PLAN_CANNOT_DISABLE},
    "temporary_plan_list": {5: ErrorName.TEMPORARY_PLAN_LIST_NEEDS_FILTER},
    # stock
    "equipment_lending": {15: ErrorName.NO_STOCK_BALANCE},
    "inventory_insert": {90: ErrorName.PRODUCT_CODE_EXISTS},
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_every_documented_error_code_is_mapped(name: str) -> None:
    assert dict(OPERATIONS[name].errors) == DOCUMENTED[name]


def test_reads_are_queries_and_changes_are_writes() -> None:
    queries = {op.name for op in catalog.V2_OPERATIONS if op.kind is Kind.QUERY}
    assert queries == {
        "consult_appointments", "get_tickets_mode", "generate_questionare_link", "get_online_customer",
        "virtual_collector_costumer_list", "consult_additional_data", "get_equipment_customer",
        "mvno_get_customer", "mvno_get_simcard_balance", "reasons_for_transfer", "temporary_plan_list",
    }


# ---- results -----------------------------------------------------------------------------------
def test_mvno_customer_reads_with_or_without_result_wrapper() -> None:
    subscriber = {"id": "9", "contract_line": {"id": "31", "iccid": "8955****1234"}}
    for body in ({"subscriber": [subscriber]}, {"result": {"subscriber": [subscriber]}}):
        parsed = catalog.mvno_get_customer.parse(body)
        assert parsed.subscriber[0].contract_line is not None
        assert parsed.subscriber[0].contract_line.id == 31


def test_failure_shaped_results_read_as_empty() -> None:
    finish = catalog.ticket_finish.parse({"messages": [], "new_tickets": ""})
    assert finish.messages == [] and finish.new_tickets == []
    transfer = catalog.contract_transfer.parse({"new_contracts": {"0": "883", "1": 884}, "package_id": None})
    assert transfer.new_contracts == [883, 884] and transfer.messages == []


def test_odd_codes_are_kept_raw() -> None:
    (reason,) = catalog.reasons_for_transfer.parse([{"id": "1", "status": "Z"}])
    assert reason.status is None and reason.odd_fields == {"status": "Z"}
    (equipment,) = catalog.get_equipment_customer.parse([{"id": 1, "status": ""}])
    assert equipment.status is None and equipment.odd_fields == {}
    assert v2_results.ContractHtml(contract_model_html="not base64!").html is None
