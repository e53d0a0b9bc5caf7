"""One typed method per generation-2.0 operation, named exactly as the spec names it."""

from __future__ import annotations

from bot.isp.caller import Caller
from bot.isp.catalog import v2
from bot.isp.models import v2_requests, v2_results
from bot.isp.models.base import Empty


class V2Methods(Caller):
    async def ticket_appointment_update(self, request: v2_requests.TicketAppointmentUpdate) -> str:
        """Reschedule a ticket's appointment or change its status."""
        return await self.call(v2.ticket_appointment_update, request)

    async def ticket_update(self, request: v2_requests.TicketUpdate) -> str:
        """Change priority or status of an open ticket."""
        return await self.call(v2.ticket_update, request)

    async def ticket_checklist_update(self, request: v2_requests.TicketChecklistUpdate) -> str:
        """Check or uncheck an item of a ticket's checklist."""
        return await self.call(v2.ticket_checklist_update, request)

    async def ticket_os_status_update(self, request: v2_requests.TicketOsStatusUpdate) -> str:
        """Move a ticket's service order to another status."""
        return await self.call(v2.ticket_os_status_update, request)

    async def consult_appointments(self, request: v2_requests.ConsultAppointments) -> list[v2_results.Appointment]:
        """Busy slots of a user on a day."""
        return await self.call(v2.consult_appointments, request)

    async def get_tickets_mode(self) -> list[v2_results.TicketMode]:
        """Ticket modes for opening and assigning."""
        return await self.call(v2.get_tickets_mode, Empty())

    async def ticket_assign(self, request: v2_requests.TicketAssign) -> str:
        """Assign a ticket to a user or a group."""
        return await self.call(v2.ticket_assign, request)

    async def ticket_finish(self, request: v2_requests.TicketFinish) -> v2_results.TicketFinishResult:
        """Close a ticket with a cause and a solution."""
        return await self.call(v2.ticket_finish, request)

    async def generate_questionare_link(
        self, request: v2_requests.GenerateQuestionareLink
    ) -> list[v2_results.QuestionnaireLink]:
        """Satisfaction-survey link of a ticket."""
        return await self.call(v2.generate_questionare_link, request)

    async def appointment_insert(self, request: v2_requests.AppointmentInsert) -> str:
        """Create a standalone appointment in a user's calendar."""
        return await self.call(v2.appointment_insert, request)

    async def ticket_appointment_insert(self, request: v2_requests.TicketAppointmentInsert) -> str:
        """Schedule an appointment for a ticket."""
        return await self.call(v2.ticket_appointment_insert, request)

    async def ticket_item_insert(self, request: v2_requests.TicketItemInsert) -> v2_results.ItemId:
        """Add a product or service to a ticket."""
        return await self.call(v2.ticket_item_insert, request)

    async def chat_messages(self, request: v2_requests.ChatMessages) -> str:
        """Record chat messages in tickets."""
        return await self.call(v2.chat_messages, request)

    async def ticket_occurrence_insert(self, request: v2_requests.TicketOccurrenceInsert) -> v2_results.OccurrenceId:
        """Add an occurrence (note) to a ticket."""
        return await self.call(v2.ticket_occurrence_insert, request)

    async def authentication_insert(self, request: v2_requests.AuthenticationInsert) -> v2_results.IdResult:
        """Create a subscriber authentication (login)."""
        return await self.call(v2.authentication_insert, request)

    async def authentication_update(self, request: v2_requests.AuthenticationUpdate) -> str:
        """Change a subscriber authentication."""
        return await self.call(v2.authentication_update, request)

    async def authentication_delete(self, request: v2_requests.AuthenticationDelete) -> str:
        """Delete a subscriber authentication."""
        return await self.call(v2.authentication_delete, request)

    async def contact_create(self, request: v2_requests.ContactCreate) -> v2_results.IdResult:
        """Create a contact of a customer or market."""
        return await self.call(v2.contact_create, request)

    async def contact_update(self, request: v2_requests.ContactUpdate) -> str:
        """Change a contact."""
        return await self.call(v2.contact_update, request)

    async def contact_delete(self, request: v2_requests.ContactDelete) -> str:
        """Delete a contact."""
        return await self.call(v2.contact_delete, request)

    async def client_group_insert(self, request: v2_requests.ClientGroupInsert) -> str:
        """Create a client group."""
        return await self.call(v2.client_group_insert, request)

    async def client_group_update(self, request: v2_requests.ClientGroupUpdate) -> str:
        """Change a client group."""
        return await self.call(v2.client_group_update, request)

    async def ip_insert(self, request: v2_requests.IpInsert) -> v2_results.IpInsertResult:
        """Give a contract its IPv4 (and IPv6) addressing."""
        return await self.call(v2.ip_insert, request)

    async def get_online_customer(self, request: v2_requests.GetOnlineCustomer) -> list[v2_results.OnlineSession]:
        """Online access sessions."""
        return await self.call(v2.get_online_customer, request)

    async def disconnect_online_customer(self, request: v2_requests.DisconnectOnlineCustomer) -> str:
        """Drop a customer's access session."""
        return await self.call(v2.disconnect_online_customer, request)

    async def virtual_collector_costumer_list(
        self, request: v2_requests.VirtualCollectorCostumerList
    ) -> list[v2_results.CollectorRule]:
        """Customers of virtual-collector rules."""
        return await self.call(v2.virtual_collector_costumer_list, request)

    async def consult_additional_data(
        self, request: v2_requests.ConsultAdditionalData
    ) -> list[v2_results.AdditionalData]:
        """Additional data of customers, markets, contracts, services."""
        return await self.call(v2.consult_additional_data, request)

    async def get_equipment_customer(
        self, request: v2_requests.GetEquipmentCustomer
    ) -> list[v2_results.CustomerEquipment]:
        """Equipment held by customers."""
        return await self.call(v2.get_equipment_customer, request)

    async def mvno_get_customer(self, request: v2_requests.MvnoGetCustomer) -> v2_results.MvnoCustomer:
        """Mobile subscriber data of a customer."""
        return await self.call(v2.mvno_get_customer, request)

    async def mvno_get_simcard_balance(self, request: v2_requests.MvnoGetSimcardBalance) -> v2_results.SimcardBalance:
        """Balance of a mobile line's SIM card."""
        return await self.call(v2.mvno_get_simcard_balance, request)

    async def mvno_insert_recharge(self, request: v2_requests.MvnoInsertRecharge) -> v2_results.RechargeResult:
        """Buy a recharge for a mobile line."""
        return await self.call(v2.mvno_insert_recharge, request)

    async def contract_insert(self, request: v2_requests.ContractInsert) -> v2_results.ContractInsertResult:
        """Create a contract for a plan or a package."""
        return await self.call(v2.contract_insert, request)

    async def contract_update(self, request: v2_requests.ContractUpdate) -> str:
        """Change a contract."""
        return await self.call(v2.contract_update, request)

    async def contract_signature(self, request: v2_requests.ContractSignature) -> str:
        """Mark a contract as signed."""
        return await self.call(v2.contract_signature, request)

    async def contract_activate(self, request: v2_requests.ContractActivate) -> str:
        """Activate a contract (from E, I or S)."""
        return await self.call(v2.contract_activate, request)

    async def contract_block(self, request: v2_requests.ContractBlock) -> str:
        """Block an active contract."""
        return await self.call(v2.contract_block, request)

    async def contract_unblock(self, request: v2_requests.ContractUnblock) -> str:
        """Unblock a blocked contract."""
        return await self.call(v2.contract_unblock, request)

    async def contract_cancel(self, request: v2_requests.ContractCancel) -> str:
        """Cancel a contract."""
        return await self.call(v2.contract_cancel, request)

    async def contract_suspend_temporary(self, request: v2_requests.ContractSuspendTemporary) -> str:
        """Schedule a temporary suspension of an active contract."""
        return await self.call(v2.contract_suspend_temporary, request)

    async def contract_suspend_temporary_cancel(self, request: v2_requests.ContractSuspendTemporaryCancel) -> str:
        """Cancel a scheduled temporary suspension."""
        return await self.call(v2.contract_suspend_temporary_cancel, request)

    async def promotional_contract_discount_update(self, request: v2_requests.PromotionalContractDiscountUpdate) -> str:
        """Set a contract's promotional discount."""
        return await self.call(v2.promotional_contract_discount_update, request)

    async def promotional_contract_discount_delete(self, request: v2_requests.PromotionalContractDiscountDelete) -> str:
        """Remove a contract's promotional discount."""
        return await self.call(v2.promotional_contract_discount_delete, request)

    async def contract_generate_html(self, request: v2_requests.ContractGenerateHtml) -> list[v2_results.ContractHtml]:
        """Render a contract's documents (HTML, PDF link)."""
        return await self.call(v2.contract_generate_html, request)

    async def contract_address(self, request: v2_requests.ContractAddress) -> str:
        """Set the installation or billing address of a contract or package."""
        return await self.call(v2.contract_address, request)

    async def contract_transfer(self, request: v2_requests.ContractTransfer) -> v2_results.ContractTransferResult:
        """Transfer a contract (or package) to a new plan or package."""
        return await self.call(v2.contract_transfer, request)

    async def reasons_for_transfer(self) -> list[v2_results.TransferReason]:
        """Reasons a contract transfer may give."""
        return await self.call(v2.reasons_for_transfer, Empty())

    async def temporary_plan_insert(self, request: v2_requests.TemporaryPlanInsert) -> v2_results.IdResult:
        """Schedule a trial plan on a contract."""
        return await self.call(v2.temporary_plan_insert, request)

    async def temporary_plan_update(self, request: v2_requests.TemporaryPlanUpdate) -> str:
        """Change a trial plan that has not started."""
        return await self.call(v2.temporary_plan_update, request)

    async def temporary_plan_disable(self, request: v2_requests.TemporaryPlanDisable) -> str:
        """Disable a scheduled trial plan."""
        return await self.call(v2.temporary_plan_disable, request)

    async def temporary_plan_list(self, request: v2_requests.TemporaryPlanList) -> list[v2_results.TemporaryPlan]:
        """Trial plans by id or start period."""
        return await self.call(v2.temporary_plan_list, request)

    async def equipment_lending(self, request: v2_requests.EquipmentLending) -> v2_results.EquipmentLendingResult:
        """Lend a stock item to a customer's contract."""
        return await self.call(v2.equipment_lending, request)

    async def inventory_insert(self, request: v2_requests.InventoryInsert) -> v2_results.IdResult:
        """Create a stock product."""
        return await self.call(v2.inventory_insert, request)
