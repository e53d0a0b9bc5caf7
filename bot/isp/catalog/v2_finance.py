"""The generation-2.0 finance group (third document): 10 operations a subscriber-facing bot uses and
6 back-office writes.

Kinds: the ``get_*`` and ``invoices_*`` operations are queries. ``send_payment_notification`` (opens
a ticket; code 21 on a second notice) and ``send_banking_billet`` (sends an e-mail) are writes, never
resent blindly, as are the back-office writes. ``document_payment``'s documented answers have no
envelope (a documentation fault), so it is ``bare``: any body without ``status`` is its result.
"""

from __future__ import annotations

from typing import Any

from bot.isp.catalog.base import Kind, Operation, encode_model, one, records
from bot.isp.errors import ErrorName, Generation
from bot.isp.models import v2_finance as models

_V2, _Q, _W = Generation.V2, Kind.QUERY, Kind.WRITE

# ---- 1. what a subscriber-facing bot uses -------------------------------------------------------
get_unpaid_document: Operation[models.GetUnpaidDocument, list[models.UnpaidDocument]] = Operation(
    "get_unpaid_document", _V2, _Q, encode_model, records(models.UnpaidDocument),
    errors={3: ErrorName.REQUIRED_FIELD_MISSING}, request_model=models.GetUnpaidDocument,
    summary="Open bills of a customer, with the amount due today",
)
get_banking_billet: Operation[models.GetBankingBillet, models.BankingBillet] = Operation(
    "get_banking_billet", _V2, _Q, encode_model, models.banking_billet,
    errors={5: ErrorName.NO_OPEN_DOCUMENT, 7: ErrorName.DUE_DATE_REFUSED}, request_model=models.GetBankingBillet,
    summary="A bill as a PDF (temporary link and/or the file)",
)
get_barcode: Operation[models.GetBarcode, str | None] = Operation(
    "get_barcode", _V2, _Q, encode_model, models.barcode,
    errors={6: ErrorName.DUE_DATE_IN_PAST}, request_model=models.GetBarcode,
    summary="Digitable line of a banking billet",
)
get_pix_copia_cola: Operation[models.GetPixCopiaCola, str | None] = Operation(
    "get_pix_copia_cola", _V2, _Q, encode_model, models.pix_code,
    errors={16: ErrorName.NO_PIX}, request_model=models.GetPixCopiaCola,
    summary="PIX copy-and-paste code of a banking billet",
)
get_pix_qrcode: Operation[models.GetPixQrcode, bytes | None] = Operation(
    "get_pix_qrcode", _V2, _Q, encode_model, models.pix_qrcode,
    errors={16: ErrorName.NO_PIX}, request_model=models.GetPixQrcode,
    summary="PIX QR code image (PNG) of a banking billet",
)
send_payment_notification: Operation[models.SendPaymentNotification, models.PaymentNotice] = Operation(
    "send_payment_notification", _V2, _W, encode_model, one(models.PaymentNotice),
    errors={21: ErrorName.PAYMENT_ALREADY_INFORMED}, request_model=models.SendPaymentNotification,
    summary="Tell the ISP a bill was paid, with the receipt (opens a ticket)",
)
send_banking_billet: Operation[models.SendBankingBillet, str] = Operation(
    "send_banking_billet", _V2, _W, encode_model, lambda raw: models.text_or_none(raw) or "",
    errors={25: ErrorName.DUE_DATE_BEFORE_TODAY}, request_model=models.SendBankingBillet,
    summary="E-mail a bill to the customer",
)
invoices_issued: Operation[models.InvoicesIssued, list[models.Invoice]] = Operation(
    "invoices_issued", _V2, _Q, encode_model, records(models.Invoice),
    errors={10: ErrorName.INVALID_FIELD}, request_model=models.InvoicesIssued,
    summary="Fiscal invoices issued to a customer",
)
invoices_issued_pdf: Operation[models.InvoicesIssuedPdf, list[models.InvoicePdf]] = Operation(
    "invoices_issued_pdf", _V2, _Q, encode_model, records(models.InvoicePdf),
    errors={9: ErrorName.INVOICE_NOT_ISSUED}, request_model=models.InvoicesIssuedPdf, per_item_errors=True,
    summary="PDF links of fiscal invoices (each item may carry its own error)",
)
get_service_invoice: Operation[models.GetServiceInvoice, models.ServiceInvoice] = Operation(
    "get_service_invoice", _V2, _Q, encode_model, models.service_invoice,
    errors={7: ErrorName.SERVICE_INVOICE_NOT_FOUND}, request_model=models.GetServiceInvoice,
    summary="Temporary link of a service invoice",
)
# ---- 2. back office ---------------------------------------------------------------------------------
document_insert: Operation[models.DocumentInsert, str] = Operation(
    "document_insert", _V2, _W, encode_model, lambda raw: models.text_or_none(raw) or "",
    errors={7: ErrorName.CUSTOMER_NOT_FOUND}, request_model=models.DocumentInsert,
    summary="Post new receivables for a customer (back office)",
)
document_delete: Operation[models.DocumentDelete, list[str]] = Operation(
    "document_delete", _V2, _W, encode_model, models.texts,
    errors={29: ErrorName.DOCUMENT_ALREADY_REVERSED}, request_model=models.DocumentDelete,
    summary="Reverse an open document (back office)",
)
document_payment: Operation[models.DocumentPayment, models.PaymentOutcome] = Operation(
    "document_payment", _V2, _W, encode_model, models.payment_outcome,
    errors={}, request_model=models.DocumentPayment, bare=True,
    summary="Settle a document (back office)",
)
document_payment_reversal: Operation[models.DocumentPaymentReversal, str] = Operation(
    "document_payment_reversal", _V2, _W, encode_model, lambda raw: models.text_or_none(raw) or "",
    errors={15: ErrorName.DOCUMENT_UNPAID}, request_model=models.DocumentPaymentReversal,
    summary="Undo a settlement (back office)",
)
payment_card_insert: Operation[models.PaymentCardInsert, models.StoredCard] = Operation(
    "payment_card_insert", _V2, _W, encode_model, one(models.StoredCard),
    errors={21: ErrorName.CARD_EXPIRED}, request_model=models.PaymentCardInsert,
    summary="Store a payment card (back office; never from a chat)",
)
pre_billing_insert: Operation[models.PreBillingInsert, models.PreBilling] = Operation(
    "pre_billing_insert", _V2, _W, encode_model, one(models.PreBilling),
    errors={16: ErrorName.CUSTOMER_OR_CONTRACT_NOT_FOUND}, request_model=models.PreBillingInsert,
    summary="Add an amount to a contract's next bill (back office)",
)

FINANCE_OPERATIONS: tuple[Operation[Any, Any], ...] = (
    get_unpaid_document,
    get_banking_billet,
    get_barcode,
    get_pix_copia_cola,
    get_pix_qrcode,
    send_payment_notification,
    send_banking_billet,
    invoices_issued,
    invoices_issued_pdf,
    get_service_invoice,
    document_insert,
    document_delete,
    document_payment,
    document_payment_reversal,
    payment_card_insert,
    pre_billing_insert,
)
