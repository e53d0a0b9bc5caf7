"""A sample call of every operation of the generation-2.0 finance group (third document): the
request, the ``result`` as the document's examples shape it, and what the typed value must be."""

from __future__ import annotations

import base64
from datetime import date
from decimal import Decimal
from typing import Any

from bot.isp.models import v2_finance as f
from bot.isp.pix import with_crc

from tests.isp.samples import Sample

SAMPLES: dict[str, Sample] = {}

PDF = b"%PDF-1.4\n% a tiny bill\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
LINE = "34191.79001 01043.510047 91020.150008 2 97070026000"
PIX = with_crc("00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865406"
               "129.905802BR5912PROVEDOR NET6009SAO PAULO62070503***")
CARD = "4111111111111111"
CVV = "737"


def sample(name: str, request: Any, result: Any, check: Any) -> None:
    SAMPLES[name] = Sample(request=request, result=result, check=check)


def _unpaid(value: list[f.UnpaidDocument]) -> None:
    (document,) = value
    assert document.id == 88123 and document.due_date == date(2024, 5, 10)
    assert document.value_init == Decimal("129.9") and document.value_up == Decimal("134.1")
    assert document.address is not None and document.address.city == "São Paulo"
    assert document.contracts == [881]


sample("get_unpaid_document", f.GetUnpaidDocument(customer_id=1532), [{
    "id": 88123, "account_number": 2, "due_date": "2024-05-10", "document_number": "000123",
    "bank_number": "00012345", "charge_type": "with registry", "historic": "Mensalidade", "comments": "",
    "source": "Billing", "bank": "341", "value_init": 129.9, "value_interest": 1.6, "value_fine": 2.6,
    "value_discount": 0, "value_up": 134.1,
    "address": {"street": "Rua A", "number": "10", "complement": "", "neighborhood": "Centro",
                "city": "São Paulo", "state": "SP", "district": "", "zipcode": "01001000", "country": "Brasil"},
    "contracts": [881]}], _unpaid)


def _billet(value: f.BankingBillet) -> None:
    assert value.link == "https://erp.example.net/tmp/boleto_88123.pdf" and value.available == 15
    assert value.pdf == PDF


sample("get_banking_billet", f.GetBankingBillet(document_id=88123), {
    "banking_billet_link": "https://erp.example.net/tmp/boleto_88123.pdf", "banking_billet_available": 15,
    "banking_billet_base64": base64.b64encode(PDF).decode()}, _billet)


def _line(value: str | None) -> None:
    assert value == LINE


sample("get_barcode", f.GetBarcode(banking_billet_id=88123), LINE, _line)


def _pix(value: str | None) -> None:
    assert value == PIX


sample("get_pix_copia_cola", f.GetPixCopiaCola(banking_billet_id=88123), PIX, _pix)


def _qr(value: bytes | None) -> None:
    assert value == PNG


sample("get_pix_qrcode", f.GetPixQrcode(banking_billet_id=88123), base64.b64encode(PNG).decode(), _qr)


def _notice(value: f.PaymentNotice) -> None:
    assert value.ticket_id == 48300 and value.message == "Notificação enviada"


sample("send_payment_notification", f.SendPaymentNotification.with_receipt(
    document_id=88123, customer_id=1532, payment_date=date(2024, 5, 9), name="comprovante.pdf", content=PDF),
    {"message": "Notificação enviada", "ticket_id": "48300"}, _notice)


def _text(expected: str) -> Any:
    def check(value: Any) -> None:
        assert value == expected

    return check


sample("send_banking_billet", f.SendBankingBillet(
    document_id=88123, due_date=date(2024, 5, 10), customer_id=1532, customer_email="ana@example.com",
    email_subject="Seu boleto", email_body="Segue o boleto.", email_gateway_id=1),
    "E-mail enviado", _text("E-mail enviado"))


def _invoices(value: list[f.Invoice]) -> None:
    (invoice,) = value
    assert invoice.id == 551 and invoice.value == Decimal("129.90") and invoice.issue == date(2024, 4, 30)
    assert invoice.items[0].net_value == Decimal("129.90") and invoice.document[0].due_date == date(2024, 5, 10)


sample("invoices_issued", f.InvoicesIssued(model="21", issue=date(2024, 4, 30), customer_id=1532), [{
    "id": "551", "model": "21", "serial": "1", "number": "1203", "access_key": "", "issue": "2024-04-30",
    "customer_id": "1532", "nature_of_operation": "Prestação de serviço de comunicação", "value": "129.90",
    "status": "Emitida",
    "items": [{"item": "1", "code": "INT100", "description": "Internet 100 Mega", "cfop": "5307", "unit": "UN",
               "quantity": "1.0000", "unit_value": "129.90", "gross_value": "129.90", "discount": "0.00",
               "other_expenses": "0.00", "net_value": "129.90"}],
    "document": [{"document_number": "000123", "due_date": "2024-05-10", "document_value": "129.90",
                  "document_status": "Aberto"}]}], _invoices)


def _invoice_pdfs(value: list[f.InvoicePdf]) -> None:
    good, bad = value
    assert good.ok and good.url == "https://erp.example.net/tmp/nf_551.pdf"
    assert not bad.ok and bad.error_code == 9 and bad.url is None


sample("invoices_issued_pdf", f.InvoicesIssuedPdf(id=[551, 552]), [
    {"id": 551, "url": "https://erp.example.net/tmp/nf_551.pdf", "error_code": 0, "error_description": ""},
    {"id": 552, "url": "", "error_code": 9,
     "error_description": "invoice does not exist or is not typed, authorised or issued"}], _invoice_pdfs)


def _service_invoice(value: f.ServiceInvoice) -> None:
    assert value.link == "https://erp.example.net/tmp/nfse_77.pdf" and value.available == 15


sample("get_service_invoice", f.GetServiceInvoice(service_invoice_id=77),
       {"service_invoice_link": "https://erp.example.net/tmp/nfse_77.pdf", "service_invoice_available": "15"},
       _service_invoice)

sample("document_insert", f.DocumentInsert(
    type="C", id=1532, account_id=2, historic_id=5, contract_id=[881], installments=[f.Installment(
        due_date=date(2024, 6, 10), punctuality_discount=f.PunctualityDiscount(
            discount_type=f.DiscountKind.VALUE, discount_value=Decimal("5.00")),
        items=[f.InstallmentItem(description="Taxa de instalação", value=Decimal("100.00"))])]),
    "Documento inserido", _text("Documento inserido"))


def _deleted(value: list[str]) -> None:
    assert value == ["Documento estornado", "Nota fiscal cancelada"]


sample("document_delete", f.DocumentDelete(document_id=88123, reason_id=3, user="financeiro",
                                           invoices_issued=f.LinkedInvoiceAction.CANCEL),
       ["Documento estornado", "Nota fiscal cancelada"], _deleted)


def _payment(value: f.PaymentOutcome) -> None:
    assert value.message == "Baixa realizada"


sample("document_payment", f.DocumentPayment(
    payment_type="cash", document_id=88123, payment_account_id=1, payment_date=date(2024, 5, 9),
    unblock_customer=True), {"message": "Baixa realizada"}, _payment)
sample("document_payment_reversal", f.DocumentPaymentReversal(document_id=88123, reason_id=2, user="financeiro"),
       "Baixa estornada", _text("Baixa estornada"))


def _card(value: f.StoredCard) -> None:
    assert value.card_id == 12 and value.generated_token is not None
    assert "tok_abc" not in repr(value)


sample("payment_card_insert", f.PaymentCardInsert.model_validate({
    "person": {"type": "customer", "id": 1532},
    "card": {"number": CARD, "holder": "ANA SILVA", "expiration_date": "12/2030", "brand": "visa",
             "type": "credit", "security_code": CVV}}), {"card_id": "12", "generated_token": "tok_abc"}, _card)


def _pre_billing(value: f.PreBilling) -> None:
    assert value.id == 31 and value.comments == "Lançado"


sample("pre_billing_insert", f.PreBillingInsert(
    customer_id=1532, contract_id=881, period="202406", type="increase", description="Roteador extra",
    value=Decimal("15.00")), {"id": "31", "comments": "Lançado"}, _pre_billing)
