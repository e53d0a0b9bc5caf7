"""Answer variants of the generation-2.0 finance group (third document, section 4), switched on demand.

Real installations answer the finance operations in shapes that differ by version and issuing bank;
a client must read them all. By default the sandbox answers as the document's tables say; each switch
of ``Variants`` (each field says what it changes) makes every finance operation (``FINANCE``) answer
in one of the variants instead, until ``clear()``. Switches combine. The other operations never
change shape.

Usage: ``sb.variants.pix_key = "emv"``; ``sb.variants.set(data_prefix=True, single_object=True)``;
``sb.variants.clear()``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

#: The operations of the third document: the only ones the switches reshape.
FINANCE = frozenset(
    {
        "get_unpaid_document",
        "get_banking_billet",
        "get_barcode",
        "get_pix_copia_cola",
        "get_pix_qrcode",
        "send_payment_notification",
        "send_banking_billet",
        "invoices_issued",
        "invoices_issued_pdf",
        "get_service_invoice",
        "document_insert",
        "document_delete",
        "document_payment",
        "document_payment_reversal",
        "payment_card_insert",
        "pre_billing_insert",
    }
)

#: Keys whose JSON numbers turn into strings under ``numbers_as_text``.
_NUMBERS = frozenset(
    {
        "id",
        "account_number",
        "bank",
        "value_init",
        "value_interest",
        "value_fine",
        "value_discount",
        "value_up",
        "banking_billet_available",
        "service_invoice_available",
        "card_id",
    }
)
#: Keys whose strings turn into JSON numbers under ``text_as_numbers``.
_TEXTS = frozenset(
    {
        "ticket_id",
        "value",
        "quantity",
        "unit_value",
        "gross_value",
        "discount",
        "other_expenses",
        "net_value",
        "document_value",
    }
)
_MEDIA = {"get_pix_qrcode": "image/png", "get_banking_billet": "application/pdf"}


@dataclass
class Variants:
    #: What ``error_code`` holds on success: ``""`` (default), ``0`` or ``"0"``.
    success_error_code: Any = ""
    #: The empty ``result`` of a failure: ``""``, ``[]`` or ``{}`` (None: the operation's own);
    #: invoices_issued_pdf's per-item errors keep their items.
    failure_result: Any = None
    #: The names of the PDF link and PDF data in get_banking_billet (``banking_billet_link`` or ``link``
    #: or ``url``; ``banking_billet_base64`` or ``pdf_base64`` or ``base64``).
    link_key: str = "banking_billet_link"
    base64_key: str = "banking_billet_base64"
    #: None answers the digitable line as a bare string (default); else an object with the line under
    #: this key (``barcode``, ``line``, ``digitable_line``, ``linha_digitavel``).
    barcode_key: str | None = None
    #: The same for the PIX code (``pix_copia_cola``, ``copia_cola``, ``emv``, ``payload``).
    pix_key: str | None = None
    #: Base-64 PNG and PDF data carry a ``data:<type>;base64,`` prefix.
    data_prefix: bool = False
    #: The PIX code comes with surrounding spaces and a line break.
    pix_whitespace: bool = False
    #: Amounts, ids and ``*_available`` minutes that are JSON numbers come as strings.
    numbers_as_text: bool = False
    #: The numbers the document shows as strings (invoice values, ``ticket_id``) come as JSON numbers.
    text_as_numbers: bool = False
    #: A list result holding one item comes as that item alone.
    single_object: bool = False
    #: document_payment answers its request body without an envelope (the vendor's documented examples do).
    bare_payment: bool = False

    def set(self, **switches: Any) -> Variants:
        known = {f.name for f in fields(self)}
        for name, value in switches.items():
            if name not in known:
                raise TypeError(f"unknown variant {name!r}; known: {', '.join(sorted(known))}")
            setattr(self, name, value)
        return self

    def clear(self) -> None:
        self.set(**{f.name: f.default for f in fields(self)})

    # ---- what the service asks per answer --------------------------------------------------------
    def shape(self, operation: str, answer: Any, request: Any) -> Any:
        """The answer of ``operation`` as this installation would give it."""
        if operation not in FINANCE or not isinstance(answer, dict) or "status" not in answer:
            return answer
        if operation == "document_payment" and self.bare_payment:
            return {operation: request}
        answer = dict(answer)
        if answer["status"] != 1:
            if self.failure_result is not None and answer["result"] in ("", [], {}):
                answer["result"] = self.failure_result  # invoices_issued_pdf's items are kept
            return answer
        answer["error_code"] = self.success_error_code
        answer["result"] = self._result(operation, answer["result"])
        return answer

    def _result(self, operation: str, result: Any) -> Any:
        if operation == "get_banking_billet":
            result = {
                self.link_key: result["banking_billet_link"],
                "banking_billet_available": result["banking_billet_available"],
                self.base64_key: self._data(operation, result["banking_billet_base64"]),
            }
        elif operation == "get_pix_qrcode":
            result = self._data(operation, result)
        elif operation == "get_barcode" and self.barcode_key is not None:
            result = {self.barcode_key: result}
        elif operation == "get_pix_copia_cola":
            code = f"  {result}\n" if self.pix_whitespace else result
            result = code if self.pix_key is None else {self.pix_key: code}
        result = self._types(result)
        if self.single_object and isinstance(result, list) and len(result) == 1:
            return result[0]
        return result

    def _data(self, operation: str, data: str) -> str:
        return f"data:{_MEDIA[operation]};base64,{data}" if self.data_prefix else data

    def _types(self, value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: self._types(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._types(v, key) for v in value]
        if self.numbers_as_text and key in _NUMBERS and isinstance(value, int | float):
            return f"{value:.2f}" if isinstance(value, float) else str(value)
        if self.text_as_numbers and key in _TEXTS and isinstance(value, str) and _numeric(value):
            return float(value) if "." in value else int(value)
        return value


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
