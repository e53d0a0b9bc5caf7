"""Generation-2.0 operations (second document, part 4), spelled as the spec spells them, each with
its documented error codes mapped onto ``ErrorName`` (codes are local to each operation). Kinds:

* ``Kind.QUERY`` for pure reads, which are retried on transport failures and coalesced. That
  includes ``generate_questionare_link``: it hands out the link of a survey the ticket already has
  (error 11 when it has none), so asking twice changes nothing.
* ``Kind.WRITE`` for everything that changes state, never retried blindly. That includes
  ``contract_generate_html``: it may generate the PDF and, with ``resend_clicksign_contract``,
  send the contract to the electronic-signature provider again, so a retry could email the
  customer twice; and ``disconnect_online_customer``, which drops a live session.

The three ``mvno_*`` operations answer a bare object without envelope on success (``bare``);
``mvno_get_customer``'s parser takes the subscriber list at the top of the body or inside ``result``
(the spec writes ``result.subscriber``).
"""

from __future__ import annotations

from typing import Any

from bot.isp.catalog.base import Kind, Operation, encode_model, message, one, records
from bot.isp.errors import ErrorName, Generation
from bot.isp.models import v2_requests, v2_results
from bot.isp.models.base import Empty

_mvno_customer_object = one(v2_results.MvnoCustomer)


def _mvno_customer(raw: Any) -> v2_results.MvnoCustomer:
    if isinstance(raw, dict) and "subscriber" not in raw and isinstance(raw.get("result"), dict):
        raw = raw["result"]
    return _mvno_customer_object(raw)


# ---- 4.1 tickets -------------------------------------------------------------------------------------------
ticket_appointment_update: Operation[v2_requests.TicketAppointmentUpdate, str] = Operation(
    "ticket_appointment_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={15: ErrorName.TICKET_SEARCH_FAILED}, request_model=v2_requests.TicketAppointmentUpdate,
    summary="Reschedule a ticket's appointment or change its status",
)
ticket_update: Operation[v2_requests.TicketUpdate, str] = Operation(
    "ticket_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={13: ErrorName.TICKET_ALREADY_CLOSED}, request_model=v2_requests.TicketUpdate,
    summary="Change priority or status of an open ticket",
)
ticket_checklist_update: Operation[v2_requests.TicketChecklistUpdate, str] = Operation(
    "ticket_checklist_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={1: ErrorName.REQUIRED_FIELD_MISSING}, request_model=v2_requests.TicketChecklistUpdate,
    summary="Check or uncheck an item of a ticket's checklist",
)
ticket_os_status_update: Operation[v2_requests.TicketOsStatusUpdate, str] = Operation(
    "ticket_os_status_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={15: ErrorName.INVALID_OS_STATUS}, request_model=v2_requests.TicketOsStatusUpdate,
    summary="Move a ticket's service order to another status",
)
consult_appointments: Operation[v2_requests.ConsultAppointments, list[v2_results.Appointment]] = Operation(
    "consult_appointments", Generation.V2, Kind.QUERY, encode_model, records(v2_results.Appointment),
    errors={8: ErrorName.USER_NOT_FOUND}, request_model=v2_requests.ConsultAppointments,
    summary="Busy slots of a user on a day",
)
get_tickets_mode: Operation[Empty, list[v2_results.TicketMode]] = Operation(
    "get_tickets_mode", Generation.V2, Kind.QUERY, encode_model, records(v2_results.TicketMode),
    errors={12: ErrorName.INTERNAL_SERVER_ERROR}, request_model=Empty,
    summary="Ticket modes for opening and assigning",
)
ticket_assign: Operation[v2_requests.TicketAssign, str] = Operation(
    "ticket_assign", Generation.V2, Kind.WRITE, encode_model, message,
    errors={14: ErrorName.INVALID_TARGET}, request_model=v2_requests.TicketAssign,
    summary="Assign a ticket to a user or a group",
)
ticket_finish: Operation[v2_requests.TicketFinish, v2_results.TicketFinishResult] = Operation(
    "ticket_finish", Generation.V2, Kind.WRITE, encode_model, one(v2_results.TicketFinishResult),
    errors={7: ErrorName.USER_NOT_FOUND}, request_model=v2_requests.TicketFinish,
    summary="Close a ticket with a cause and a solution",
)
generate_questionare_link: Operation[v2_requests.GenerateQuestionareLink, list[v2_results.QuestionnaireLink]] = (
    Operation(
        "generate_questionare_link",
        Generation.V2,
        Kind.QUERY,
        encode_model,
        records(v2_results.QuestionnaireLink),
        errors={11: ErrorName.TICKET_HAS_NO_SURVEY},
        request_model=v2_requests.GenerateQuestionareLink,
        summary="Satisfaction-survey link of a ticket",
    )
)
appointment_insert: Operation[v2_requests.AppointmentInsert, str] = Operation(
    "appointment_insert", Generation.V2, Kind.WRITE, encode_model, message,
    errors={16: ErrorName.USER_NOT_FOUND}, request_model=v2_requests.AppointmentInsert,
    summary="Create a standalone appointment in a user's calendar",
)
ticket_appointment_insert: Operation[v2_requests.TicketAppointmentInsert, str] = Operation(
    "ticket_appointment_insert", Generation.V2, Kind.WRITE, encode_model, message,
    errors={18: ErrorName.TICKET_ALREADY_HAS_APPOINTMENT}, request_model=v2_requests.TicketAppointmentInsert,
    summary="Schedule an appointment for a ticket",
)
ticket_item_insert: Operation[v2_requests.TicketItemInsert, v2_results.ItemId] = Operation(
    "ticket_item_insert", Generation.V2, Kind.WRITE, encode_model, one(v2_results.ItemId),
    errors={6: ErrorName.TICKET_NOT_FOUND}, request_model=v2_requests.TicketItemInsert,
    summary="Add a product or service to a ticket",
)
chat_messages: Operation[v2_requests.ChatMessages, str] = Operation(
    "chat_messages", Generation.V2, Kind.WRITE, encode_model, message,
    errors={16: ErrorName.TICKET_NOT_FOUND}, request_model=v2_requests.ChatMessages,
    summary="Record chat messages in tickets",
)
ticket_occurrence_insert: Operation[v2_requests.TicketOccurrenceInsert, v2_results.OccurrenceId] = Operation(
    "ticket_occurrence_insert", Generation.V2, Kind.WRITE, encode_model, one(v2_results.OccurrenceId),
    errors={18: ErrorName.USER_NOT_FOUND}, request_model=v2_requests.TicketOccurrenceInsert,
    summary="Add an occurrence (note) to a ticket",
)
# ---- 4.2 authentications -----------------------------------------------------------------------------------
authentication_insert: Operation[v2_requests.AuthenticationInsert, v2_results.IdResult] = Operation(
    "authentication_insert", Generation.V2, Kind.WRITE, encode_model, one(v2_results.IdResult),
    errors={19: ErrorName.AUTHENTICATION_USER_TAKEN}, request_model=v2_requests.AuthenticationInsert,
    summary="Create a subscriber authentication (login)",
)
authentication_update: Operation[v2_requests.AuthenticationUpdate, str] = Operation(
    "authentication_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={12: ErrorName.INVALID_FIELD}, request_model=v2_requests.AuthenticationUpdate,
    summary="Change a subscriber authentication",
)
authentication_delete: Operation[v2_requests.AuthenticationDelete, str] = Operation(
    "authentication_delete", Generation.V2, Kind.WRITE, encode_model, message,
    errors={9: ErrorName.AUTHENTICATION_NOT_FOUND}, request_model=v2_requests.AuthenticationDelete,
    summary="Delete a subscriber authentication",
)
# ---- 4.3 customers, contacts, groups, IPs ------------------------------------------------------------------
contact_create: Operation[v2_requests.ContactCreate, v2_results.IdResult] = Operation(
    "contact_create", Generation.V2, Kind.WRITE, encode_model, one(v2_results.IdResult),
    errors={12: ErrorName.INVALID_FIELD}, request_model=v2_requests.ContactCreate,
    summary="Create a contact of a customer or market",
)
contact_update: Operation[v2_requests.ContactUpdate, str] = Operation(
    "contact_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={9: ErrorName.CONTACT_HAS_NO_CUSTOMER}, request_model=v2_requests.ContactUpdate,
    summary="Change a contact",
)
contact_delete: Operation[v2_requests.ContactDelete, str] = Operation(
    "contact_delete", Generation.V2, Kind.WRITE, encode_model, message,
    errors={9: ErrorName.CONTACT_NOT_FOUND}, request_model=v2_requests.ContactDelete,
    summary="Delete a contact",
)
client_group_insert: Operation[v2_requests.ClientGroupInsert, str] = Operation(
    "client_group_insert", Generation.V2, Kind.WRITE, encode_model, message,
    errors={9: ErrorName.INVALID_GROUP_STATUS}, request_model=v2_requests.ClientGroupInsert,
    summary="Create a client group",
)
client_group_update: Operation[v2_requests.ClientGroupUpdate, str] = Operation(
    "client_group_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={13: ErrorName.GROUP_NOT_FOUND}, request_model=v2_requests.ClientGroupUpdate,
    summary="Change a client group",
)
ip_insert: Operation[v2_requests.IpInsert, v2_results.IpInsertResult] = Operation(
    "ip_insert", Generation.V2, Kind.WRITE, encode_model, one(v2_results.IpInsertResult),
    errors={16: ErrorName.IP_ALREADY_EXISTS}, request_model=v2_requests.IpInsert,
    summary="Give a contract its IPv4 (and IPv6) addressing",
)
get_online_customer: Operation[v2_requests.GetOnlineCustomer, list[v2_results.OnlineSession]] = Operation(
    "get_online_customer",
    Generation.V2,
    Kind.QUERY,
    encode_model,
    records(v2_results.OnlineSession),
    errors={3: ErrorName.INVALID_CUSTOMER},
    request_model=v2_requests.GetOnlineCustomer,
    summary="Online access sessions",
)
disconnect_online_customer: Operation[v2_requests.DisconnectOnlineCustomer, str] = Operation(
    "disconnect_online_customer", Generation.V2, Kind.WRITE, encode_model, message,
    errors={}, request_model=v2_requests.DisconnectOnlineCustomer,
    summary="Drop a customer's access session",
)
virtual_collector_costumer_list: Operation[v2_requests.VirtualCollectorCostumerList, list[v2_results.CollectorRule]] = (
    Operation(
        "virtual_collector_costumer_list",
        Generation.V2,
        Kind.QUERY,
        encode_model,
        records(v2_results.CollectorRule),
        errors={8: ErrorName.RULE_NOT_FOUND},
        request_model=v2_requests.VirtualCollectorCostumerList,
        summary="Customers of virtual-collector rules",
    )
)
consult_additional_data: Operation[v2_requests.ConsultAdditionalData, list[v2_results.AdditionalData]] = Operation(
    "consult_additional_data", Generation.V2, Kind.QUERY, encode_model, records(v2_results.AdditionalData),
    errors={4: ErrorName.INVALID_TYPE}, request_model=v2_requests.ConsultAdditionalData,
    summary="Additional data of customers, markets, contracts, services",
)
get_equipment_customer: Operation[v2_requests.GetEquipmentCustomer, list[v2_results.CustomerEquipment]] = Operation(
    "get_equipment_customer", Generation.V2, Kind.QUERY, encode_model, records(v2_results.CustomerEquipment),
    errors={8: ErrorName.INVALID_EQUIPMENT_STATUS}, request_model=v2_requests.GetEquipmentCustomer,
    summary="Equipment held by customers",
)
# ---- 4.4 mobile virtual operator (answers bare objects on success) -----------------------------------------
mvno_get_customer: Operation[v2_requests.MvnoGetCustomer, v2_results.MvnoCustomer] = Operation(
    "mvno_get_customer", Generation.V2, Kind.QUERY, encode_model, _mvno_customer,
    errors={8: ErrorName.UNIDENTIFIED_CUSTOMER}, request_model=v2_requests.MvnoGetCustomer, bare=True,
    summary="Mobile subscriber data of a customer",
)
mvno_get_simcard_balance: Operation[v2_requests.MvnoGetSimcardBalance, v2_results.SimcardBalance] = Operation(
    "mvno_get_simcard_balance", Generation.V2, Kind.QUERY, encode_model, one(v2_results.SimcardBalance),
    errors={13: ErrorName.UNIDENTIFIED_CONTRACT_LINE}, request_model=v2_requests.MvnoGetSimcardBalance, bare=True,
    summary="Balance of a mobile line's SIM card",
)
mvno_insert_recharge: Operation[v2_requests.MvnoInsertRecharge, v2_results.RechargeResult] = Operation(
    "mvno_insert_recharge", Generation.V2, Kind.WRITE, encode_model, one(v2_results.RechargeResult),
    errors={13: ErrorName.UNIDENTIFIED_CONTRACT_LINE}, request_model=v2_requests.MvnoInsertRecharge, bare=True,
    summary="Buy a recharge for a mobile line",
)
# ---- 4.5 contracts -----------------------------------------------------------------------------------------
contract_insert: Operation[v2_requests.ContractInsert, v2_results.ContractInsertResult] = Operation(
    "contract_insert", Generation.V2, Kind.WRITE, encode_model, one(v2_results.ContractInsertResult),
    errors={1: ErrorName.UNIDENTIFIED_PACKAGE}, request_model=v2_requests.ContractInsert,
    summary="Create a contract for a plan or a package",
)
contract_update: Operation[v2_requests.ContractUpdate, str] = Operation(
    "contract_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={26: ErrorName.CUSTOMER_NOT_FOUND}, request_model=v2_requests.ContractUpdate,
    summary="Change a contract",
)
contract_signature: Operation[v2_requests.ContractSignature, str] = Operation(
    "contract_signature", Generation.V2, Kind.WRITE, encode_model, message,
    errors={11: ErrorName.CONTRACT_ALREADY_SIGNED}, request_model=v2_requests.ContractSignature,
    summary="Mark a contract as signed",
)
contract_activate: Operation[v2_requests.ContractActivate, str] = Operation(
    "contract_activate", Generation.V2, Kind.WRITE, encode_model, message,
    errors={10: ErrorName.INVALID_CONTRACT_STATUS}, request_model=v2_requests.ContractActivate,
    summary="Activate a contract (from E, I or S)",
)
contract_block: Operation[v2_requests.ContractBlock, str] = Operation(
    "contract_block", Generation.V2, Kind.WRITE, encode_model, message,
    errors={10: ErrorName.INVALID_CONTRACT_STATUS}, request_model=v2_requests.ContractBlock,
    summary="Block an active contract",
)
contract_unblock: Operation[v2_requests.ContractUnblock, str] = Operation(
    "contract_unblock", Generation.V2, Kind.WRITE, encode_model, message,
    errors={10: ErrorName.INVALID_CONTRACT_STATUS}, request_model=v2_requests.ContractUnblock,
    summary="Unblock a blocked contract",
)
contract_cancel: Operation[v2_requests.ContractCancel, str] = Operation(
    "contract_cancel", Generation.V2, Kind.WRITE, encode_model, message,
    errors={38: ErrorName.CONTRACT_CANNOT_BE_CANCELLED}, request_model=v2_requests.ContractCancel,
    summary="Cancel a contract",
)
contract_suspend_temporary: Operation[v2_requests.ContractSuspendTemporary, str] = Operation(
    "contract_suspend_temporary", Generation.V2, Kind.WRITE, encode_model, message,
    errors={20: ErrorName.SUSPENSION_ALREADY_SCHEDULED}, request_model=v2_requests.ContractSuspendTemporary,
    summary="Schedule a temporary suspension of an active contract",
)
contract_suspend_temporary_cancel: Operation[v2_requests.ContractSuspendTemporaryCancel, str] = Operation(
    "contract_suspend_temporary_cancel", Generation.V2, Kind.WRITE, encode_model, message,
    errors={12: ErrorName.NO_SUSPENSION_FOUND}, request_model=v2_requests.ContractSuspendTemporaryCancel,
    summary="Cancel a scheduled temporary suspension",
)
promotional_contract_discount_update: Operation[v2_requests.PromotionalContractDiscountUpdate, str] = Operation(
    "promotional_contract_discount_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={21: ErrorName.DISCOUNT_ABOVE_CONTRACT_VALUE}, request_model=v2_requests.PromotionalContractDiscountUpdate,
    summary="Set a contract's promotional discount",
)
promotional_contract_discount_delete: Operation[v2_requests.PromotionalContractDiscountDelete, str] = Operation(
    "promotional_contract_discount_delete", Generation.V2, Kind.WRITE, encode_model, message,
    errors={12: ErrorName.CONTRACT_NOT_FOUND}, request_model=v2_requests.PromotionalContractDiscountDelete,
    summary="Remove a contract's promotional discount",
)
contract_generate_html: Operation[v2_requests.ContractGenerateHtml, list[v2_results.ContractHtml]] = Operation(
    "contract_generate_html", Generation.V2, Kind.WRITE, encode_model, records(v2_results.ContractHtml),
    errors={14: ErrorName.CONTRACT_NOT_OF_CUSTOMER}, request_model=v2_requests.ContractGenerateHtml,
    summary="Render a contract's documents (HTML, PDF link)",
)
contract_address: Operation[v2_requests.ContractAddress, str] = Operation(
    "contract_address", Generation.V2, Kind.WRITE, encode_model, message,
    errors={27: ErrorName.CONTRACT_NOT_OF_CUSTOMER}, request_model=v2_requests.ContractAddress,
    summary="Set the installation or billing address of a contract or package",
)
contract_transfer: Operation[v2_requests.ContractTransfer, v2_results.ContractTransferResult] = Operation(
    "contract_transfer", Generation.V2, Kind.WRITE, encode_model, one(v2_results.ContractTransferResult),
    errors={10: ErrorName.CONTRACT_STARTS_IN_FUTURE}, request_model=v2_requests.ContractTransfer,
    summary="Transfer a contract (or package) to a new plan or package",
)
reasons_for_transfer: Operation[Empty, list[v2_results.TransferReason]] = Operation(
    "reasons_for_transfer", Generation.V2, Kind.QUERY, encode_model, records(v2_results.TransferReason),
    errors={12: ErrorName.INTERNAL_SERVER_ERROR}, request_model=Empty,
    summary="Reasons a contract transfer may give",
)
# ---- 4.6 temporary (trial) plans ---------------------------------------------------------------------------
temporary_plan_insert: Operation[v2_requests.TemporaryPlanInsert, v2_results.IdResult] = Operation(
    "temporary_plan_insert", Generation.V2, Kind.WRITE, encode_model, one(v2_results.IdResult),
    errors={13: ErrorName.TEMPORARY_PLAN_EXISTS}, request_model=v2_requests.TemporaryPlanInsert,
    summary="Schedule a trial plan on a contract",
)
temporary_plan_update: Operation[v2_requests.TemporaryPlanUpdate, str] = Operation(
    "temporary_plan_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={5: ErrorName.TEMPORARY_PLAN_NOT_FOUND}, request_model=v2_requests.TemporaryPlanUpdate,
    summary="Change a trial plan that has not started",
)
temporary_plan_disable: Operation[v2_requests.TemporaryPlanDisable, str] = Operation(
    "temporary_plan_disable", Generation.V2, Kind.WRITE, encode_model, message,
    errors={6: ErrorName.TEMPORARY_PLAN_CANNOT_DISABLE}, request_model=v2_requests.TemporaryPlanDisable,
    summary="Disable a scheduled trial plan",
)
temporary_plan_list: Operation[v2_requests.TemporaryPlanList, list[v2_results.TemporaryPlan]] = Operation(
    "temporary_plan_list", Generation.V2, Kind.QUERY, encode_model, records(v2_results.TemporaryPlan),
    errors={5: ErrorName.TEMPORARY_PLAN_LIST_NEEDS_FILTER}, request_model=v2_requests.TemporaryPlanList,
    summary="Trial plans by id or start period",
)
# ---- 4.7 stock ---------------------------------------------------------------------------------------------
equipment_lending: Operation[v2_requests.EquipmentLending, v2_results.EquipmentLendingResult] = Operation(
    "equipment_lending", Generation.V2, Kind.WRITE, encode_model, one(v2_results.EquipmentLendingResult),
    errors={15: ErrorName.NO_STOCK_BALANCE}, request_model=v2_requests.EquipmentLending,
    summary="Lend a stock item to a customer's contract",
)
inventory_insert: Operation[v2_requests.InventoryInsert, v2_results.IdResult] = Operation(
    "inventory_insert", Generation.V2, Kind.WRITE, encode_model, one(v2_results.IdResult),
    errors={90: ErrorName.PRODUCT_CODE_EXISTS}, request_model=v2_requests.InventoryInsert,
    summary="Create a stock product",
)
V2_OPERATIONS: tuple[Operation[Any, Any], ...] = (
    ticket_appointment_update,
    ticket_update,
    ticket_checklist_update,
    ticket_os_status_update,
    consult_appointments,
    get_tickets_mode,
    ticket_assign,
    ticket_finish,
    generate_questionare_link,
    appointment_insert,
    ticket_appointment_insert,
    ticket_item_insert,
    chat_messages,
    ticket_occurrence_insert,
    authentication_insert,
    authentication_update,
    authentication_delete,
    contact_create,
    contact_update,
    contact_delete,
    client_group_insert,
    client_group_update,
    ip_insert,
    get_online_customer,
    disconnect_online_customer,
    virtual_collector_costumer_list,
    consult_additional_data,
    get_equipment_customer,
    mvno_get_customer,
    mvno_get_simcard_balance,
    mvno_insert_recharge,
    contract_insert,
    contract_update,
    contract_signature,
    contract_activate,
    contract_block,
    contract_unblock,
    contract_cancel,
    contract_suspend_temporary,
    contract_suspend_temporary_cancel,
    promotional_contract_discount_update,
    promotional_contract_discount_delete,
    contract_generate_html,
    contract_address,
    contract_transfer,
    reasons_for_transfer,
    temporary_plan_insert,
    temporary_plan_update,
    temporary_plan_disable,
    temporary_plan_list,
    equipment_lending,
    inventory_insert,
)
