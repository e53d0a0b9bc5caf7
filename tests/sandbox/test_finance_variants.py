"""The answer variants of the finance group (third document, section 4), switched on ``sb.variants``."""

from __future__ import annotations

import base64

import pytest
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox

from tests.sandbox.conftest import Api

OVERDUE = {"banking_billet_id": D.overdue_document}


@pytest.mark.parametrize("code", [0, "0", ""])
async def test_error_code_on_success(api: Api, sb: Sandbox, code: object) -> None:
    sb.variants.success_error_code = code
    answer = await api.v2("get_barcode", OVERDUE)
    assert answer["status"] == 1 and answer["error_code"] == code


@pytest.mark.parametrize("empty", ["", [], {}])
async def test_failure_result(api: Api, sb: Sandbox, empty: object) -> None:
    sb.variants.failure_result = empty
    answer = await api.v2("get_banking_billet", {"document_id": 999999})
    assert answer["status"] == 0 and answer["error_code"] == 5 and answer["result"] == empty


@pytest.mark.parametrize(("link", "data"), [("link", "pdf_base64"), ("url", "base64")])
async def test_slip_keys_and_data_prefix(api: Api, sb: Sandbox, link: str, data: str) -> None:
    sb.variants.set(link_key=link, base64_key=data, data_prefix=True)
    result = (await api.v2("get_banking_billet", {"document_id": D.overdue_document}))["result"]
    assert set(result) == {link, data, "banking_billet_available"}
    prefix, payload = result[data].split(",", 1)
    assert prefix == "data:application/pdf;base64" and base64.b64decode(payload).startswith(b"%PDF")
    assert result[link].startswith("http://")


@pytest.mark.parametrize("key", ["barcode", "line", "digitable_line", "linha_digitavel"])
async def test_digitable_line_under_a_key(api: Api, sb: Sandbox, key: str) -> None:
    bare = (await api.v2("get_barcode", OVERDUE))["result"]
    sb.variants.barcode_key = key
    assert (await api.v2("get_barcode", OVERDUE))["result"] == {key: bare}


@pytest.mark.parametrize("key", ["pix_copia_cola", "copia_cola", "emv", "payload"])
async def test_pix_code_under_a_key_with_whitespace(api: Api, sb: Sandbox, key: str) -> None:
    bare = (await api.v2("get_pix_copia_cola", OVERDUE))["result"]
    sb.variants.set(pix_key=key, pix_whitespace=True)
    wrapped = (await api.v2("get_pix_copia_cola", OVERDUE))["result"]
    assert list(wrapped) == [key] and wrapped[key] != bare and wrapped[key].strip() == bare


async def test_qr_with_data_prefix(api: Api, sb: Sandbox) -> None:
    sb.variants.data_prefix = True
    image = (await api.v2("get_pix_qrcode", OVERDUE))["result"]
    assert image.startswith("data:image/png;base64,")
    assert base64.b64decode(image.removeprefix("data:image/png;base64,")).startswith(b"\x89PNG")


async def test_numbers_as_text_and_one_object_for_a_list_of_one(api: Api, sb: Sandbox) -> None:
    sb.variants.set(numbers_as_text=True, single_object=True)
    bill = (await api.v2("get_unpaid_document", {"customer_id": D.company, "account_number": 3}))["result"]
    assert isinstance(bill, dict) and bill["bank"] == "756"
    assert isinstance(bill["value_up"], str) and float(bill["value_up"]) == float(bill["value_init"])
    assert bill["id"].isdigit() and bill["account_number"] == "3"
    several = (await api.v2("get_unpaid_document", {"customer_id": D.customer}))["result"]
    assert isinstance(several, list) and several[0]["value_up"] == "102.30"
    slip = (await api.v2("get_banking_billet", {"document_id": D.overdue_document}))["result"]
    assert slip["banking_billet_available"] == "15"


async def test_text_as_numbers(api: Api, sb: Sandbox) -> None:
    sb.variants.text_as_numbers = True
    invoices = (await api.v2("invoices_issued", {"customer_id": D.company}))["result"]
    assert isinstance(invoices[0]["value"], float) and isinstance(invoices[0]["items"][0]["net_value"], float)
    receipt = {"name": "comprovante.png", "data": base64.b64encode(b"\x89PNG receipt").decode()}
    notice = {"document_id": D.open_document, "customer_id": D.customer, "payment_date": "2025-03-10", "file": receipt}
    answer = (await api.v2("send_payment_notification", notice))["result"]
    assert isinstance(answer["ticket_id"], int)


async def test_document_payment_in_the_vendor_example_shape(api: Api, sb: Sandbox) -> None:
    sb.variants.bare_payment = True
    request = {"document_id": D.open_document, "payment_type": "cash"}
    assert await api.v2("document_payment", request) == {"document_payment": request}
    assert sb.store.find("documents", Sequencia=D.open_document)["DataBaixa"] == "2025-03-10"  # it did settle


async def test_switches_touch_only_the_finance_group_and_clear(api: Api, sb: Sandbox) -> None:
    sb.variants.set(success_error_code="0", failure_result={}, single_object=True)
    assert (await api.v2("get_tickets_mode", {}))["error_code"] == ""
    sb.variants.clear()
    assert (await api.v2("get_barcode", OVERDUE))["error_code"] == ""
    with pytest.raises(TypeError, match="unknown variant"):
        sb.variants.set(colour="blue")


async def test_per_item_errors_keep_their_items_whatever_the_failure_shape(api: Api, sb: Sandbox) -> None:
    sb.variants.failure_result = ""
    answer = await api.v2("invoices_issued_pdf", {"id": [D.cancelled_invoice]})
    assert answer["status"] == 0 and answer["result"][0]["error_code"] == 9
