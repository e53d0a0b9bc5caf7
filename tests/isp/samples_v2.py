"""A sample call of every generation-2.0 operation: the request, the spec-shaped ``result`` (for the
``mvno_*`` operations the whole body) and what the typed value must come back as."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

from bot.isp.models import v2_requests, v2_results

from tests.isp.samples import Sample

SAMPLES: dict[str, Sample] = {}

Check = TypeVar("Check", bound=Callable[[Any], None])

OK_TEXT = "Operação realizada com sucesso"


def sample(name: str, request: Any, result: Any) -> Callable[[Check], Check]:
    """Registers the decorated check under ``name``."""

    def register(check: Check) -> Check:
        SAMPLES[name] = Sample(request=request, result=result, check=check)
        return check

    return register


def success_text(name: str, request: Any, text: str = OK_TEXT) -> None:
    """Operations that answer a success text."""

    def check(value: Any) -> None:
        assert value == text

    SAMPLES[name] = Sample(request=request, result=text, check=check)


# ---- 4.1 tickets -------------------------------------------------------------------------------
success_text("ticket_appointment_update", v2_requests.TicketAppointmentUpdate(
    ticket_id=48213, appointment_date=date(2024, 5, 6), appointment_time="14:00", duration="01:30",
    appointment_status=v2_requests.AppointmentStatus.CONFIRMED))
success_text(
    "ticket_update",
    v2_requests.TicketUpdate(ticket_id=48213, priority=80, status=v2_requests.TicketStatus.ON_HOLD),
    "Atendimento alterado com sucesso",
)
success_text("ticket_checklist_update", v2_requests.TicketChecklistUpdate(
    ticket_id=48213, checklist_id=3, checklist_set=v2_requests.ChecklistSet.CHECK, user="mariana.souza"))
success_text("ticket_os_status_update", v2_requests.TicketOsStatusUpdate(
    ticket_id=48213, new_status=v2_requests.OsStatus.RUNNING,
    coordinates=v2_requests.OsCoordinates(latitude=Decimal("-23.5505199"), longitude=Decimal("-46.6333094"))))


@sample("consult_appointments",
        v2_requests.ConsultAppointments(user="carlos.tecnico", appointment_date=date(2024, 5, 6)),
        [{"start_time": "2024-05-06 08:00:00", "end_time": "2024-05-06 09:30:00"},
         {"start_time": "2024-05-06 14:00:00", "end_time": ""}])
def _consult_appointments(value: list[v2_results.Appointment]) -> None:
    assert [a.start_time for a in value] == [datetime(2024, 5, 6, 8), datetime(2024, 5, 6, 14)]
    assert value[0].end_time == datetime(2024, 5, 6, 9, 30) and value[1].end_time is None


@sample("get_tickets_mode", None,
        [{"code": "1", "description": "Suporte técnico"}, {"code": "COM", "description": "Comercial"}])
def _get_tickets_mode(value: list[v2_results.TicketMode]) -> None:
    assert [(m.code, m.description) for m in value] == [("1", "Suporte técnico"), ("COM", "Comercial")]


success_text("ticket_assign", v2_requests.TicketAssign(
    ticket_id=48213, mode_assign="1", target_type=v2_requests.TargetType.GROUP, target_id=7))


@sample("ticket_finish", v2_requests.TicketFinish(ticket_id=48213, cause_id=4, solution="Conector trocado",
                                        datetime=datetime(2024, 5, 6, 15, 10), user="carlos.tecnico"),
        {"messages": [{"message": "Atendimento encerrado"}], "new_tickets": [{"ticket_id": "48230"}]})
def _ticket_finish(value: v2_results.TicketFinishResult) -> None:
    assert [m.message for m in value.messages] == ["Atendimento encerrado"]
    assert [t.ticket_id for t in value.new_tickets] == [48230]


@sample("generate_questionare_link", v2_requests.GenerateQuestionareLink(ticket=48213),
        [{"Description": "Pesquisa de satisfação",
          "generate_questionare_link": "https://erp.example.net/pesquisa/?t=abc123"}])
def _generate_questionare_link(value: list[v2_results.QuestionnaireLink]) -> None:
    (link,) = value
    assert link.Description == "Pesquisa de satisfação"
    assert link.generate_questionare_link == "https://erp.example.net/pesquisa/?t=abc123"


success_text("appointment_insert", v2_requests.AppointmentInsert(
    description="Visita técnica", customer_id=1532, appointment_date=date(2024, 5, 7),
    appointment_time="10:00", duration="01:00", user="carlos.tecnico", recurrence=v2_requests.YesNo.YES,
    period=v2_requests.RecurrencePeriod.WEEKLY, event_color="#1e90ff", reminder=v2_requests.Reminder.MINUTES_10,
    status=v2_requests.AppointmentStatus.TO_CONFIRM))
success_text("ticket_appointment_insert", v2_requests.TicketAppointmentInsert(
    ticket_id=48213, appointment_date=date(2024, 5, 7), appointment_time="09:00", duration="00:45"))


@sample("ticket_item_insert", v2_requests.TicketItemInsert(
    ticket_id=48213, customer_id=1532, type=v2_requests.ItemType.PRODUCT, operation=v2_requests.ItemOperation.SALE,
    contract_id=881, item_id=52, location_id=3, quantity=Decimal("2"), sale_price=Decimal("60.00"),
    discount_amount=Decimal("20.00"), installments_quantity=2,
    installments_detail=[
        v2_requests.ItemInstallment(description="Parcela 1/2", amount=Decimal("50.00"),
                          reference_period=date(2024, 6, 1)),
        v2_requests.ItemInstallment(description="Parcela 2/2", amount=Decimal("50.00"),
                          reference_period=date(2024, 7, 1)),
    ]), {"item_id": 9921})
def _ticket_item_insert(value: v2_results.ItemId) -> None:
    assert value.item_id == 9921


success_text("chat_messages", v2_requests.ChatMessages.model_validate([
    {"record": datetime(2024, 5, 6, 10, 0, 5), "customer": 1532, "ticket_id": 48213,
     "attendant": "mariana.souza", "content": "Bom dia! Como posso ajudar?", "origin": "A"},
    {"record": datetime(2024, 5, 6, 10, 1, 0), "customer": 1532, "ticket_id": 48213,
     "attendant": "mariana.souza", "content": "Estou sem internet", "origin": "C", "contact": 77},
]))


@sample("ticket_occurrence_insert", v2_requests.TicketOccurrenceInsert(
    ticket_id=48213, description="<p>Cliente ausente</p>", latitude=Decimal("-23.55"),
    longitude=Decimal("-46.63")), {"occurrence_id": "3310"})
def _ticket_occurrence_insert(value: v2_results.OccurrenceId) -> None:
    assert value.occurrence_id == 3310


# ---- 4.2 authentications -----------------------------------------------------------------------
@sample("authentication_insert", v2_requests.AuthenticationInsert(
    customer_id=1532, contract_id=881, nas="10.0.0.1", port="-1", user="joao.silva",
    password="troque-me", mac="AA:BB:CC:DD:EE:FF", allow_access_subscriber_center=True,
    allow_update_password=True, force_password_update=False, status=v2_results.ActiveCode.ACTIVE), {"id": "4410"})
def _authentication_insert(value: v2_results.IdResult) -> None:
    assert value.id == 4410


success_text("authentication_update", v2_requests.AuthenticationUpdate(id=4410, status=v2_results.ActiveCode.INACTIVE))
success_text("authentication_delete", v2_requests.AuthenticationDelete(id=4410))


# ---- 4.3 customers, contacts, groups, IPs ------------------------------------------------------
@sample("contact_create", v2_requests.ContactCreate(
    person_type=v2_requests.PersonType.CUSTOMER, person_id=1532, name="Ana Silva", document_number="012.345.678-90",
    email="ana@example.com", phone_1="(11) 98765-4321", birthday=date(1990, 4, 2), type=v2_requests.ContactType.G,
    status=v2_results.ActiveCode.ACTIVE), {"id": 87})
def _contact_create(value: v2_results.IdResult) -> None:
    assert value.id == 87


success_text("contact_update", v2_requests.ContactUpdate(contact_id=87, phone_2="1133334444"))
success_text("contact_delete", v2_requests.ContactDelete(contact_id=87))
success_text("client_group_insert", v2_requests.ClientGroupInsert(name="Condomínio Sol", priority=10,
                                                         status=v2_results.ActiveCode.ACTIVE))
success_text("client_group_update", v2_requests.ClientGroupUpdate(group_id=12, status=v2_results.ActiveCode.INACTIVE))


@sample("ip_insert", v2_requests.IpInsert(
    customer_id=1532, contract_id=881,
    ipv4=v2_requests.Ipv4Settings(ip_address="200.10.20.30", mask="255.255.255.252", gateway="200.10.20.29"),
    ipv6=v2_requests.Ipv6Settings(wan_pool_id="pool-v6-wan", delegated_pool_id="pool-v6-pd"),
    status=v2_results.ActiveCode.ACTIVE), {"ip_id": "551"})
def _ip_insert(value: v2_results.IpInsertResult) -> None:
    assert value.ip_id == 551


@sample("get_online_customer", v2_requests.GetOnlineCustomer(customer_id=1532),
        [{"session_id": "8a7f-01", "customer_id": "1532", "customer_name": "João da Silva",
          "contract_id": 881, "plan_id": "12", "plan_description": "Fibra 300M",
          "authentication_username": "joao.silva",
          "framed_ipv4_address": "100.64.1.20", "framed_ipv6_address": "",
          "delegated_ipv6_prefix": "2804:abcd:1200::/56", "session_start_time": "2024-05-06 07:59:12",
          "session_up_time": "26:03:44", "nas_port_id": "ether5", "calling_station_id": "AA:BB:CC:DD:EE:FF",
          "input_octets": "123456789", "output_octets": 987654321, "server": "BNG-01",
          "nas_ip_address": "10.0.0.1"}])
def _get_online_customer(value: list[v2_results.OnlineSession]) -> None:
    (session,) = value
    assert session.customer_id == 1532 and session.contract_id == 881 and session.plan_id == 12
    assert session.session_start_time == datetime(2024, 5, 6, 7, 59, 12)
    assert session.session_up_time == timedelta(hours=26, minutes=3, seconds=44)
    assert session.input_octets == 123456789 and session.output_octets == 987654321
    assert session.framed_ipv6_address is None


success_text("disconnect_online_customer", v2_requests.DisconnectOnlineCustomer(
    customer_id=1532, server_id=2, nas_ip_address="10.0.0.1", session_id="8a7f-01"),
    "Conexão derrubada")


@sample("virtual_collector_costumer_list", v2_requests.VirtualCollectorCostumerList(regra=[3]),
        [{"Regra": "3", "Prioridade": "1", "Atraso_Max": "60", "Atraso_Min": "15",
          "Clientes": [{"Codigo": "1532", "Nome": "João da Silva", "Endereco": "Rua das Flores",
                        "Numero": "S/N", "Bairro": "Centro", "Complemento": "", "Distrito": "",
                        "Cidade": "São Paulo", "UF": "SP", "TelComercial": "", "TelResidencial": "",
                        "TelCelular": "(11) 98765-4321", "Bloqueavel": "S", "Acessos": "2",
                        "ContratoNumero": "881", "Contrato": "881 - Fibra 300M"}]}])
def _virtual_collector_costumer_list(value: list[v2_results.CollectorRule]) -> None:
    (rule,) = value
    assert (rule.Regra, rule.Atraso_Min, rule.Atraso_Max) == (3, 15, 60)
    (customer,) = rule.Clientes
    assert customer.Codigo == 1532 and customer.Numero == "S/N" and customer.Acessos == 2
    assert customer.TelCelular == "11987654321" and customer.Complemento is None


@sample("consult_additional_data", v2_requests.ConsultAdditionalData(type=[v2_requests.AdditionalDataType.CONTRACTS]),
        [{"id": 5, "table": "contracts", "complement": "Torre", "complement_value": "B",
          "market_id": "", "customer": "1532"}])
def _consult_additional_data(value: list[v2_results.AdditionalData]) -> None:
    (data,) = value
    assert data.id == 5 and data.customer == 1532 and data.market_id is None and data.complement_value == "B"


@sample("get_equipment_customer",
        v2_requests.GetEquipmentCustomer(customer_id=1532, equipment_status=v2_results.ActiveState.ACTIVE),
        [{"id": "71", "customer_id": "1532", "customer_name": "João da Silva", "contract_id": "881",
          "source": "lending", "serial": "ZTEG12345678", "product_code": "ONU-F601",
          "activate_date": "2024-01-10", "deactivation_date": "", "deactivation_reason": "",
          "quantity": "1.00", "unit_price": "250.00", "total_price": "250.00", "controller_ip": "10.0.5.2",
          "controller_port": "1/1/3", "status": "active", "additional_data": []}])
def _get_equipment_customer(value: list[v2_results.CustomerEquipment]) -> None:
    (equipment,) = value
    assert equipment.status is v2_results.ActiveState.ACTIVE and equipment.total_price == Decimal("250.00")
    assert equipment.activate_date == datetime(2024, 1, 10) and equipment.deactivation_date is None


# ---- 4.4 mobile virtual operator (bodies without envelope) -------------------------------------
@sample("mvno_get_customer", v2_requests.MvnoGetCustomer(customer_id=1532),
        {"status": 1, "error_code": "", "error_description": "", "result": {"subscriber": [{
            "id": 9, "mvno_customer_code": "C-77", "mvno_person_type": "F",
            "mvno_person_name": "João da Silva",
            "mvno_document_number": "01234567890", "insert_date": "2024-02-01 10:00:00",
            "contract_line": {"id": 31, "contract_id": 881, "mvno_contract_code": "L-31",
                              "mvno_plan_code": "P10",
                              "iccid": "8955******1234", "msisdn": "5511987654321", "status": "active",
                              "insert_date": "2024-02-01 10:00:00", "last_update": "2024-05-01 08:00:00",
                              "portability": [], "recharge_avaliable": [{"id": 4, "value": 20}]},
            "recharge_purchase": []}]}})
def _mvno_get_customer(value: v2_results.MvnoCustomer) -> None:
    (subscriber,) = value.subscriber
    assert subscriber.mvno_document_number == "01234567890"
    assert subscriber.contract_line is not None and subscriber.contract_line.id == 31
    assert subscriber.contract_line.recharge_avaliable == [{"id": 4, "value": 20}]


@sample("mvno_get_simcard_balance", v2_requests.MvnoGetSimcardBalance(customer_id=1532, contract_line_id=31),
        {"balance": "12.50"})
def _mvno_get_simcard_balance(value: v2_results.SimcardBalance) -> None:
    assert value.balance == Decimal("12.50")


@sample("mvno_insert_recharge", v2_requests.MvnoInsertRecharge(customer_id=1532, contract_line_id=31, recharge_id=4),
        {"recharge_purchase": {"id": 610, "banking_billet_id": 7781, "value": 20.0, "due_date": "10/05/2024",
                               "barcode": "34191790010104351004791020150008291070026000",
                               "pix": "00020126580014BR.GOV.BCB.PIX0136abc"}})
def _mvno_insert_recharge(value: v2_results.RechargeResult) -> None:
    purchase = value.recharge_purchase
    assert purchase is not None and purchase.id == 610 and purchase.value == Decimal("20.0")
    assert purchase.due_date == date(2024, 5, 10) and purchase.pix is not None


# ---- 4.5 contracts -----------------------------------------------------------------------------
@sample("contract_insert", v2_requests.ContractInsert(
    customer_id=1532, seller_name="Paula Vendas", type=v2_requests.ContractKind.PLAN,
    plan_data=v2_requests.PlanData(id=12, quantity=1, qos_id=3, group_contract="yes",
                         online_signature=v2_requests.OnlineSignature(option=v2_requests.SignatureOption.REQUIRED,
                                                            templates="4,5")),
    due_date_id=2, signature_date=date(2024, 5, 6), start_date=date(2024, 5, 6), signature=v2_requests.YesNo.NO,
    installation_address=v2_requests.InstallationAddress(
        country="Brasil", zipcode="01310-100", street="Av. Paulista", number=1000, neighborhood="Bela Vista",
        additional_details="", state="SP", city="São Paulo", maps_lat=Decimal("-23.56"),
        maps_lng=Decimal("-46.65"), billing_address=v2_requests.YesNo.YES)),
    {"new_contracts": [{"id": "882", "plan": "12"}]})
def _contract_insert(value: v2_results.ContractInsertResult) -> None:
    assert [(c.id, c.plan) for c in value.new_contracts] == [(882, "12")]


success_text("contract_update", v2_requests.ContractUpdate(customer_id=1532, contract_id=881, group_contract=5,
                                                 online_signature=v2_requests.OnlineSignatureList(option="no")))
success_text("contract_signature",
             v2_requests.ContractSignature(customer_id=1532, contract_id=881, update_start_date=True))
success_text("contract_activate", v2_requests.ContractActivate(customer_id=1532, contract_id=881))
success_text("contract_block", v2_requests.ContractBlock(customer_id=1532, contract_id=881))
success_text("contract_unblock", v2_requests.ContractUnblock(customer_id=1532, contract_id=881))
success_text("contract_cancel", v2_requests.ContractCancel(
    customer_id=1532, contract_id=881, reason_id=2,
    billing=v2_requests.CancelBilling(future_cancel=True, cancellation_period_action=v2_requests.PeriodAction.CANCEL,
                            reason_id=5),
    pre_billing=v2_requests.CancelPreBilling(cancel=True, cancellation_period_action=v2_requests.PreBillingAction.NONE),
    fine=v2_requests.CancelFine(account_id=10, historic_id=20),
    os=v2_requests.WithdrawalOrder(open=True, target_type=v2_requests.OsTargetType.TOPIC, target_id=33)))
success_text("contract_suspend_temporary", v2_requests.ContractSuspendTemporary(
    customer_id=1532, contract_id=881, duration=30, start_date=date.today() + timedelta(days=2)))
success_text("contract_suspend_temporary_cancel",
             v2_requests.ContractSuspendTemporaryCancel(customer_id=1532, contract_id=881))
success_text("promotional_contract_discount_update", v2_requests.PromotionalContractDiscountUpdate(
    customer=1532, contract_number=881, discount_period=3, discount_value=Decimal("20.00")))
success_text("promotional_contract_discount_delete", v2_requests.PromotionalContractDiscountDelete(
    customer=1532, contract_number=881))


@sample("contract_generate_html",
        v2_requests.ContractGenerateHtml(customer_id=1532, contract_id=881, generate_link=True),
        [{"contract_model_id": "4", "contract_model_html": "PGgxPkNvbnRyYXRvPC9oMT4=",
          "contract_link_download": "https://erp.example.net/contratos/881.pdf"}])
def _contract_generate_html(value: list[v2_results.ContractHtml]) -> None:
    (doc,) = value
    assert doc.contract_model_id == 4 and doc.html == "<h1>Contrato</h1>"
    assert doc.contract_link_download == "https://erp.example.net/contratos/881.pdf"


success_text("contract_address", v2_requests.ContractAddress(
    customer_id=1532, contract_id=881, address="Rua das Flores", number=42, neighborhood="Centro",
    city_id=3550308, state="SP", zip_code="01001-000"))


@sample("contract_transfer", v2_requests.ContractTransfer(
    customer_id=1532, contract_id=881, type=v2_requests.TransferScope.PLAN,
    new=v2_requests.TransferTarget(type=v2_requests.TransferScope.PLAN, plan_data=v2_requests.TransferPlanData(
        id="14", qos_id="3", sla_id="1", due_date_id="2", duration=12,
        promotional_discount_option=v2_requests.PromotionalDiscountOption.KEEP,
        online_signature=v2_requests.OnlineSignature(option=v2_requests.SignatureOption.NO),
        billing=v2_requests.TransferBilling(keep=True))),
    fine=v2_requests.TransferFine(account_id="10", historic_id="20"), reason_id=1),
    {"new_contracts": ["883"], "package_id": None, "messages": ["Contrato transferido"]})
def _contract_transfer(value: v2_results.ContractTransferResult) -> None:
    assert value.new_contracts == [883] and value.package_id is None
    assert value.messages == ["Contrato transferido"]


@sample("reasons_for_transfer", None,
        [{"id": "1", "name": "Upgrade", "description": "Cliente pediu mais velocidade", "status": "A"},
         {"id": "2", "name": "Mudança", "description": "", "status": "I"}])
def _reasons_for_transfer(value: list[v2_results.TransferReason]) -> None:
    assert [(x.id, x.status) for x in value] == [(1, v2_results.ActiveCode.ACTIVE), (2, v2_results.ActiveCode.INACTIVE)]


# ---- 4.6 temporary (trial) plans ---------------------------------------------------------------
@sample("temporary_plan_insert", v2_requests.TemporaryPlanInsert(
    customer_id=1532, contract_id=881, temporary_plan_id=40, start_period=None,
    finish_period=datetime(2024, 6, 6, 23, 59, 59)), {"id": 15})
def _temporary_plan_insert(value: v2_results.IdResult) -> None:
    assert value.id == 15


success_text("temporary_plan_update", v2_requests.TemporaryPlanUpdate(
    id=15, temporary_plan_id=41, start_period=datetime(2024, 5, 10, 0, 0),
    finish_period=datetime(2024, 6, 10, 23, 59, 59)))
success_text("temporary_plan_disable", v2_requests.TemporaryPlanDisable(id=15))


@sample("temporary_plan_list", v2_requests.TemporaryPlanList(start_period=datetime(2024, 5, 1)),
        [{"id": "15", "customer_id": "1532", "contract_id": "881", "temporary_plan_id": "41",
          "start_period": "2024-05-10 00:00:00", "finish_period": "2024-06-10 23:59:59",
          "status": "scheduled"}])
def _temporary_plan_list(value: list[v2_results.TemporaryPlan]) -> None:
    (plan,) = value
    assert plan.id == 15 and plan.status == v2_results.TEMPORARY_PLAN_SCHEDULED
    assert plan.start_period == datetime(2024, 5, 10)


# ---- 4.7 stock ---------------------------------------------------------------------------------
@sample("equipment_lending", v2_requests.EquipmentLending(
    product_id=52, customer_id=1532, contract_id=881, activation_date=date(2024, 5, 6), quantity=1,
    serial_number="ZTEG12345678",
    complementary_fields=[v2_requests.ComplementaryField(name="vlan", value="100")],
    provisioning=v2_requests.Provisioning(controller_id=2, controller_port_id=9, scripts=[1, 4])),
    {"equipament_id": "71", "produt_movement_id": "3390"})
def _equipment_lending(value: v2_results.EquipmentLendingResult) -> None:
    assert (value.equipament_id, value.produt_movement_id) == (71, 3390)


@sample("inventory_insert", v2_requests.InventoryInsert.model_validate({
    "company_id": 1, "code": 1001, "description": "ONU GPON", "model_id": 3, "serial_controlled": True,
    "unit_id": 1, "sale_price": "250.00", "allow_discount": False, "operation_type_workforce": "consumption",
    "ncm": 85176277, "allows_movement": True, "status": "A", "tax_group_id": None,
    "invoice": {"nfe_oper_venda": {"id_nat_oper": 5, "cfop": 5102,
                                   "icms": {"cst": "00", "aliquota": 18, "st": {"aliquota": 0}},
                                   "pis": {"sit_trib": "01", "quantidade": None, "valor": None}}},
}), {"id": "2001"})
def _inventory_insert(value: v2_results.IdResult) -> None:
    assert value.id == 2001
