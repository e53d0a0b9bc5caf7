"""One typed method per operation of the generation-2.0 finance group (third document)."""

from __future__ import annotations

from bot.isp.caller import Caller
from bot.isp.catalog import v2_finance as operations
from bot.isp.models import v2_finance as models


class FinanceMethods(Caller):
    async def get_unpaid_document(self, request: models.GetUnpaidDocument) -> list[models.UnpaidDocument]:
        """Open bills of a customer, with the amount due today."""
        return await self.call(operations.get_unpaid_document, request)

    async def get_banking_billet(self, request: models.GetBankingBillet) -> models.BankingBillet:
        """A bill as a PDF (temporary link and/or the file)."""
        return await self.call(operations.get_banking_billet, request)

    async def get_barcode(self, request: models.GetBarcode) -> str | None:
        """Digitable line of a banking billet."""
        return await self.call(operations.get_barcode, request)

    async def get_pix_copia_cola(self, request: models.GetPixCopiaCola) -> str | None:
        """PIX copy-and-paste code of a banking billet."""
        return await self.call(operations.get_pix_copia_cola, request)

    async def get_pix_qrcode(self, request: models.GetPixQrcode) -> bytes | None:
        """PIX QR code image (PNG) of a banking billet."""
        return await self.call(operations.get_pix_qrcode, request)

    async def send_payment_notification(self, request: models.SendPaymentNotification) -> models.PaymentNotice:
        """Tell the ISP a bill was paid, with the receipt (opens a ticket)."""
        return await self.call(operations.send_payment_notification, request)

    async def send_banking_billet(self, request: models.SendBankingBillet) -> str:
        """E-mail a bill to the customer."""
        return await self.call(operations.send_banking_billet, request)

    async def invoices_issued(self, request: models.InvoicesIssued) -> list[models.Invoice]:
        """Fiscal invoices issued to a customer."""
        return await self.call(operations.invoices_issued, request)

    async def invoices_issued_pdf(self, request: models.InvoicesIssuedPdf) -> list[models.InvoicePdf]:
        """PDF links of fiscal invoices (each item may carry its own error)."""
        return await self.call(operations.invoices_issued_pdf, request)

    async def get_service_invoice(self, request: models.GetServiceInvoice) -> models.ServiceInvoice:
        """Temporary link of a service invoice."""
        return await self.call(operations.get_service_invoice, request)

    async def document_insert(self, request: models.DocumentInsert) -> str:
        """Post new receivables for a customer (back office)."""
        return await self.call(operations.document_insert, request)

    async def document_delete(self, request: models.DocumentDelete) -> list[str]:
        """Reverse an open document (back office)."""
        return await self.call(operations.document_delete, request)

    async def document_payment(self, request: models.DocumentPayment) -> models.PaymentOutcome:
        """Settle a document (back office)."""
        return await self.call(operations.document_payment, request)

    async def document_payment_reversal(self, request: models.DocumentPaymentReversal) -> str:
        """Undo a settlement (back office)."""
        return await self.call(operations.document_payment_reversal, request)

    async def payment_card_insert(self, request: models.PaymentCardInsert) -> models.StoredCard:
        """Store a payment card (back office; never from a chat)."""
        return await self.call(operations.payment_card_insert, request)

    async def pre_billing_insert(self, request: models.PreBillingInsert) -> models.PreBilling:
        """Add an amount to a contract's next bill (back office)."""
        return await self.call(operations.pre_billing_insert, request)
