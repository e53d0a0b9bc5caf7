"""Generation-2.0 operations (second document, part 4), spelled as the spec spells them.

Every operation's documented error codes are mapped onto ``ErrorName`` (codes are local to each
operation). Kinds:

* ``Kind.QUERY`` for pure reads, which are retried on transport failures and coalesced. That
  includes ``generate_questionare_link``: it hands out the link of a survey the ticket already has
  (error 11 when it has none), so asking twice changes nothing.
* ``Kind.WRITE`` for everything that changes state, never retried blindly. That includes
  ``contract_generate_html``: it may generate the PDF and, with ``resend_clicksign_contract``,
  send the contract to the electronic-signature provider again, so a retry could email the
  customer twice; and ``disconnect_online_customer``, which drops a live session.

The three ``mvno_*`` operations answer a bare object without envelope on success (``bare``).
``mvno_get_customer``'s shape is written ``result.subscriber`` in the spec, so its parser takes the
subscriber list either at the top of the body or inside ``result``.
"""

from __future__ import annotations

from typing import Any

from bot.isp.catalog.base import Kind, Operation, encode_model, message, one, records
from bot.isp.errors import ErrorName, Generation
from bot.isp.models import v2_requests as q
from bot.isp.models import v2_results as r
from bot.isp.models.base import Empty

_mvno_customer_object = one(r.MvnoCustomer)


def _mvno_customer(raw: Any) -> r.MvnoCustomer:
    if isinstance(raw, dict) and "subscriber" not in raw and isinstance(raw.get("result"), dict):
        raw = raw["result"]
    return _mvno_customer_object(raw)


# ---- 4.1 tickets -------------------------------------------------------------------------------------------
ticket_appointment_update: Operation[q.TicketAppointmentUpdate, str] = Operation(
    "ticket_appointment_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={15: ErrorName.TICKET_SEARCH_FAILED}, request_model=q.TicketAppointmentUpdate,
    summary="Reschedule a ticket's appointment or change its status",
)
ticket_update: Operation[q.TicketUpdate, str] = Operation(
    "ticket_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={13: ErrorName.TICKET_ALREADY_CLOSED}, request_model=q.TicketUpdate,
    summary="Change priority or status of an open ticket",
)
ticket_checklist_update: Operation[q.TicketChecklistUpdate, str] = Operation(
    "ticket_checklist_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={1: ErrorName.REQUIRED_FIELD_MISSING}, request_model=q.TicketChecklistUpdate,
    summary="Check or uncheck an item of a ticket's checklist",
)
ticket_os_status_update: Operation[q.TicketOsStatusUpdate, str] = Operation(
    "ticket_os_status_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={15: ErrorName.INVALID_OS_STATUS}, request_model=q.TicketOsStatusUpdate,
    summary="Move a ticket's service order to another status",
)
consult_appointments: Operation[q.ConsultAppointments, list[r.Appointment]] = Operation(
    "consult_appointments", Generation.V2, Kind.QUERY, encode_model, records(r.Appointment),
    errors={8: ErrorName.USER_NOT_FOUND}, request_model=q.ConsultAppointments,
    summary="Busy slots of a user on a day",
)
get_tickets_mode: Operation[Empty, list[r.TicketMode]] = Operation(
    "get_tickets_mode", Generation.V2, Kind.QUERY, encode_model, records(r.TicketMode),
    errors={12: ErrorName.INTERNAL_SERVER_ERROR}, request_model=Empty,
    summary="Ticket modes for opening and assigning",
)
ticket_assign: Operation[q.TicketAssign, str] = Operation(
    "ticket_assign", Generation.V2, Kind.WRITE, encode_model, message,
    errors={14: ErrorName.INVALID_TARGET}, request_model=q.TicketAssign,
    summary="Assign a ticket to a user or a group",
)
ticket_finish: Operation[q.TicketFinish, r.TicketFinishResult] = Operation(
    "ticket_finish", Generation.V2, Kind.WRITE, encode_model, one(r.TicketFinishResult),
    errors={7: ErrorName.USER_NOT_FOUND}, request_model=q.TicketFinish,
    summary="Close a ticket with a cause and a solution",
)
generate_questionare_link: Operation[q.GenerateQuestionareLink, list[r.QuestionnaireLink]] = Operation(
    "generate_questionare_link", Generation.V2, Kind.QUERY, encode_model, records(r.QuestionnaireLink),
    errors={11: ErrorName.TICKET_HAS_NO_SURVEY}, request_model=q.GenerateQuestionareLink,
    summary="Satisfaction-survey link of a ticket",
)
appointment_insert: Operation[q.AppointmentInsert, str] = Operation(
    "appointment_insert", Generation.V2, Kind.WRITE, encode_model, message,
    errors={16: ErrorName.USER_NOT_FOUND}, request_model=q.AppointmentInsert,
    summary="Create a standalone appointment in a user's calendar",
)
ticket_appointment_insert: Operation[q.TicketAppointmentInsert, str] = Operation(
    "ticket_appointment_insert", Generation.V2, Kind.WRITE, encode_model, message,
    errors={18: ErrorName.TICKET_ALREADY_HAS_APPOINTMENT}, request_model=q.TicketAppointmentInsert,
    summary="Schedule an appointment for a ticket",
)
ticket_item_insert: Operation[q.TicketItemInsert, r.ItemId] = Operation(
    "ticket_item_insert", Generation.V2, Kind.WRITE, encode_model, one(r.ItemId),
    errors={6: ErrorName.TICKET_NOT_FOUND}, request_model=q.TicketItemInsert,
    summary="Add a product or service to a ticket",
)
chat_messages: Operation[q.ChatMessages, str] = Operation(
    "chat_messages", Generation.V2, Kind.WRITE, encode_model, message,
    errors={16: ErrorName.TICKET_NOT_FOUND}, request_model=q.ChatMessages,
    summary="Record chat messages in tickets",
)
ticket_occurrence_insert: Operation[q.TicketOccurrenceInsert, r.OccurrenceId] = Operation(
    "ticket_occurrence_insert", Generation.V2, Kind.WRITE, encode_model, one(r.OccurrenceId),
    errors={18: ErrorName.USER_NOT_FOUND}, request_model=q.TicketOccurrenceInsert,
    summary="Add an occurrence (note) to a ticket",
)
# ---- 4.2 authentications -----------------------------------------------------------------------------------
authentication_insert: Operation[q.AuthenticationInsert, r.IdResult] = Operation(
    "authentication_insert", Generation.V2, Kind.WRITE, encode_model, one(r.IdResult),
    errors={19: ErrorName.AUTHENTICATION_USER_TAKEN}, request_model=q.AuthenticationInsert,
    summary="Create a subscriber authentication (login)",
)
authentication_update: Operation[q.AuthenticationUpdate, str] = Operation(
    "authentication_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={12: ErrorName.INVALID_FIELD}, request_model=q.AuthenticationUpdate,
    summary="Change a subscriber authentication",
)
authentication_delete: Operation[q.AuthenticationDelete, str] = Operation(
    "authentication_delete", Generation.V2, Kind.WRITE, encode_model, message,
    errors={9: ErrorName.AUTHENTICATION_NOT_FOUND}, request_model=q.AuthenticationDelete,
    summary="Delete a subscriber authentication",
)
# ---- 4.3 customers, contacts, groups, IPs ------------------------------------------------------------------
contact_create: Operation[q.ContactCreate, r.IdResult] = Operation(
    "contact_create", Generation.V2, Kind.WRITE, encode_model, one(r.IdResult),
    errors={12: ErrorName.INVALID_FIELD}, request_model=q.ContactCreate,
    summary="Create a contact of a customer or market",
)
contact_update: Operation[q.ContactUpdate, str] = Operation(
    "contact_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={9: ErrorName.CONTACT_HAS_NO_CUSTOMER}, request_model=q.ContactUpdate,
    summary="Change a contact",
)
contact_delete: Operation[q.ContactDelete, str] = Operation(
    "contact_delete", Generation.V2, Kind.WRITE, encode_model, message,
    errors={9: ErrorName.CONTACT_NOT_FOUND}, request_model=q.ContactDelete,
    summary="Delete a contact",
)
client_group_insert: Operation[q.ClientGroupInsert, str] = Operation(
    "client_group_insert", Generation.V2, Kind.WRITE, encode_model, message,
    errors={9: ErrorName.INVALID_GROUP_STATUS}, request_model=q.ClientGroupInsert,
    summary="Create a client group",
)
client_group_update: Operation[q.ClientGroupUpdate, str] = Operation(
    "client_group_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={13: ErrorName.GROUP_NOT_FOUND}, request_model=q.ClientGroupUpdate,
    summary="Change a client group",
)
ip_insert: Operation[q.IpInsert, r.IpInsertResult] = Operation(
    "ip_insert", Generation.V2, Kind.WRITE, encode_model, one(r.IpInsertResult),
    errors={16: ErrorName.IP_ALREADY_EXISTS}, request_model=q.IpInsert,
    summary="Give a contract its IPv4 (and IPv6) addressing",
)
get_online_customer: Operation[q.GetOnlineCustomer, list[r.OnlineSession]] = Operation(
    "get_online_customer", Generation.V2, Kind.QUERY, encode_model, records(r.OnlineSession),
    errors={3: ErrorName.INVALID_CUSTOMER}, request_model=q.GetOnlineCustomer,
    summary="Online access sessions",
)
disconnect_online_customer: Operation[q.DisconnectOnlineCustomer, str] = Operation(
    "disconnect_online_customer", Generation.V2, Kind.WRITE, encode_model, message,
    errors={}, request_model=q.DisconnectOnlineCustomer,
    summary="Drop a customer's access session",
)
virtual_collector_costumer_list: Operation[q.VirtualCollectorCostumerList, list[r.CollectorRule]] = Operation(
    "virtual_collector_costumer_list", Generation.V2, Kind.QUERY, encode_model, records(r.CollectorRule),
    errors={8: ErrorName.RULE_NOT_FOUND}, request_model=q.VirtualCollectorCostumerList,
    summary="Customers of virtual-collector rules",
)
consult_additional_data: Operation[q.ConsultAdditionalData, list[r.AdditionalData]] = Operation(
    "consult_additional_data", Generation.V2, Kind.QUERY, encode_model, records(r.AdditionalData),
    errors={4: ErrorName.INVALID_TYPE}, request_model=q.ConsultAdditionalData,
    summary="Additional data of customers, markets, contracts, services",
)
get_equipment_customer: Operation[q.GetEquipmentCustomer, list[r.CustomerEquipment]] = Operation(
    "get_equipment_customer", Generation.V2, Kind.QUERY, encode_model, records(r.CustomerEquipment),
    errors={8: ErrorName.INVALID_EQUIPMENT_STATUS}, request_model=q.GetEquipmentCustomer,
    summary="Equipment held by customers",
)
# ---- 4.4 mobile virtual operator (answers bare objects on success) -----------------------------------------
mvno_get_customer: Operation[q.MvnoGetCustomer, r.MvnoCustomer] = Operation(
    "mvno_get_customer", Generation.V2, Kind.QUERY, encode_model, _mvno_customer,
    errors={8: ErrorName.UNIDENTIFIED_CUSTOMER}, request_model=q.MvnoGetCustomer, bare=True,
    summary="Mobile subscriber data of a customer",
)
mvno_get_simcard_balance: Operation[q.MvnoGetSimcardBalance, r.SimcardBalance] = Operation(
    "mvno_get_simcard_balance", Generation.V2, Kind.QUERY, encode_model, one(r.SimcardBalance),
    errors={13: ErrorName.UNIDENTIFIED_CONTRACT_LINE}, request_model=q.MvnoGetSimcardBalance, bare=True,
    summary="Balance of a mobile line's SIM card",
)
mvno_insert_recharge: Operation[q.MvnoInsertRecharge, r.RechargeResult] = Operation(
    "mvno_insert_recharge", Generation.V2, Kind.WRITE, encode_model, one(r.RechargeResult),
    errors={13: ErrorName.UNIDENTIFIED_CONTRACT_LINE}, request_model=q.MvnoInsertRecharge, bare=True,
    summary="Buy a recharge for a mobile line",
)
# ---- 4.5 contracts -----------------------------------------------------------------------------------------
contract_insert: Operation[q.ContractInsert, r.ContractInsertResult] = Operation(
    "contract_insert", Generation.V2, Kind.WRITE, encode_model, one(r.ContractInsertResult),
    errors={1: ErrorName.UNIDENTIFIED_PACKAGE}, request_model=q.ContractInsert,
    summary="Create a contract for a plan or a package",
)
contract_update: Operation[q.ContractUpdate, str] = Operation(
    "contract_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={26: ErrorName.CUSTOMER_NOT_FOUND}, request_model=q.ContractUpdate,
    summary="Change a contract",
)
contract_signature: Operation[q.ContractSignature, str] = Operation(
    "contract_signature", Generation.V2, Kind.WRITE, encode_model, message,
    errors={11: ErrorName.CONTRACT_ALREADY_SIGNED}, request_model=q.ContractSignature,
    summary="Mark a contract as signed",
)
contract_activate: Operation[q.ContractActivate, str] = Operation(
    "contract_activate", Generation.V2, Kind.WRITE, encode_model, message,
    errors={10: ErrorName.INVALID_CONTRACT_STATUS}, request_model=q.ContractActivate,
    summary="Activate a contract (from E, I or S)",
)
contract_block: Operation[q.ContractBlock, str] = Operation(
    "contract_block", Generation.V2, Kind.WRITE, encode_model, message,
    errors={10: ErrorName.INVALID_CONTRACT_STATUS}, request_model=q.ContractBlock,
    summary="Block an active contract",
)
contract_unblock: Operation[q.ContractUnblock, str] = Operation(
    "contract_unblock", Generation.V2, Kind.WRITE, encode_model, message,
    errors={10: ErrorName.INVALID_CONTRACT_STATUS}, request_model=q.ContractUnblock,
    summary="Unblock a blocked contract",
)
contract_cancel: Operation[q.ContractCancel, str] = Operation(
    "contract_cancel", Generation.V2, Kind.WRITE, encode_model, message,
    errors={38: ErrorName.CONTRACT_CANNOT_BE_CANCELLED}, request_model=q.ContractCancel,
    summary="Cancel a contract",
)
contract_suspend_temporary: Operation[q.ContractSuspendTemporary, str] = Operation(
    "contract_suspend_temporary", Generation.V2, Kind.WRITE, encode_model, message,
    errors={20: ErrorName.SUSPENSION_ALREADY_SCHEDULED}, request_model=q.ContractSuspendTemporary,
    summary="Schedule a temporary suspension of an active contract",
)
contract_suspend_temporary_cancel: Operation[q.ContractSuspendTemporaryCancel, str] = Operation(
    "contract_suspend_temporary_cancel", Generation.V2, Kind.WRITE, encode_model, message,
    errors={12: ErrorName.NO_SUSPENSION_FOUND}, request_model=q.ContractSuspendTemporaryCancel,
    summary="Cancel a scheduled temporary suspension",
)
promotional_contract_discount_update: Operation[q.PromotionalContractDiscountUpdate, str] = Operation(
    "promotional_contract_discount_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={21: ErrorName.DISCOUNT_ABOVE_CONTRACT_VALUE}, request_model=q.PromotionalContractDiscountUpdate,
    summary="Set a contract's promotional discount",
)
promotional_contract_discount_delete: Operation[q.PromotionalContractDiscountDelete, str] = Operation(
    "promotional_contract_discount_delete", Generation.V2, Kind.WRITE, encode_model, message,
    errors={12: ErrorName.CONTRACT_NOT_FOUND}, request_model=q.PromotionalContractDiscountDelete,
    summary="Remove a contract's promotional discount",
)
contract_generate_html: Operation[q.ContractGenerateHtml, list[r.ContractHtml]] = Operation(
    "contract_generate_html", Generation.V2, Kind.WRITE, encode_model, records(r.ContractHtml),
    errors={14: ErrorName.CONTRACT_NOT_OF_CUSTOMER}, request_model=q.ContractGenerateHtml,
    summary="Render a contract's documents (HTML, PDF link)",
)
contract_address: Operation[q.ContractAddress, str] = Operation(
    "contract_address", Generation.V2, Kind.WRITE, encode_model, message,
    errors={27: ErrorName.CONTRACT_NOT_OF_CUSTOMER}, request_model=q.ContractAddress,
    summary="Set the installation or billing address of a contract or package",
)
contract_transfer: Operation[q.ContractTransfer, r.ContractTransferResult] = Operation(
    "contract_transfer", Generation.V2, Kind.WRITE, encode_model, one(r.ContractTransferResult),
    errors={10: ErrorName.CONTRACT_STARTS_IN_FUTURE}, request_model=q.ContractTransfer,
    summary="Transfer a contract (or package) to a new plan or package",
)
reasons_for_transfer: Operation[Empty, list[r.TransferReason]] = Operation(
    "reasons_for_transfer", Generation.V2, Kind.QUERY, encode_model, records(r.TransferReason),
    errors={12: ErrorName.INTERNAL_SERVER_ERROR}, request_model=Empty,
    summary="Reasons a contract transfer may give",
)
# ---- 4.6 temporary (trial) plans ---------------------------------------------------------------------------
temporary_plan_insert: Operation[q.TemporaryPlanInsert, r.IdResult] = Operation(
    "temporary_plan_insert", Generation.V2, Kind.WRITE, encode_model, one(r.IdResult),
    errors={13: ErrorName.TEMPORARY_PLAN_EXISTS}, request_model=q.TemporaryPlanInsert,
    summary="Schedule a trial plan on a contract",
)
temporary_plan_update: Operation[q.TemporaryPlanUpdate, str] = Operation(
    "temporary_plan_update", Generation.V2, Kind.WRITE, encode_model, message,
    errors={5: ErrorName.TEMPORARY_PLAN_NOT_FOUND}, request_model=q.TemporaryPlanUpdate,
    summary="Change a trial plan that has not started",
)
temporary_plan_disable: Operation[q.TemporaryPlanDisable, str] = Operation(
    "temporary_plan_disable", Generation.V2, Kind.WRITE, encode_model, message,
    errors={6: ErrorName.TEMPORARY_PLAN_CANNOT_DISABLE}, request_model=q.TemporaryPlanDisable,
    summary="Disable a scheduled trial plan",
)
temporary_plan_list: Operation[q.TemporaryPlanList, list[r.TemporaryPlan]] = Operation(
    "temporary_plan_list", Generation.V2, Kind.QUERY, encode_model, records(r.TemporaryPlan),
    errors={5: ErrorName.TEMPORARY_PLAN_LIST_NEEDS_FILTER}, request_model=q.TemporaryPlanList,
    summary="Trial plans by id or start period",
)
# ---- 4.7 stock ---------------------------------------------------------------------------------------------
equipment_lending: Operation[q.EquipmentLending, r.EquipmentLendingResult] = Operation(
    "equipment_lending", Generation.V2, Kind.WRITE, encode_model, one(r.EquipmentLendingResult),
    errors={15: ErrorName.NO_STOCK_BALANCE}, request_model=q.EquipmentLending,
    summary="Lend a stock item to a customer's contract",
)
inventory_insert: Operation[q.InventoryInsert, r.IdResult] = Operation(
    "inventory_insert", Generation.V2, Kind.WRITE, encode_model, one(r.IdResult),
    errors={90: ErrorName.PRODUCT_CODE_EXISTS}, request_model=q.InventoryInsert,
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
