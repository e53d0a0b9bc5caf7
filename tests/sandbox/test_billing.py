"""The generation-2.0 finance group (third document) over raw HTTP: bills, slips, PIX, receipts, invoices."""

from __future__ import annotations

import base64
import binascii
import io
import re
import threading
import zlib
from typing import Any

import httpx
import pytest
import segno
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import HOMOLOGATION_KEY, FixedClock, Sandbox
from bot.sandbox import paperwork
from bot.sandbox.registry import OPERATIONS
from bot.sandbox.variants import FINANCE
from PIL import Image

from tests.sandbox.conftest import Api, fail2, ok2


def tlv(payload: str) -> dict[str, str]:
    """An EMV payload's top-level fields (tag -> value), read independently of the sandbox."""
    fields, at = {}, 0
    while at < len(payload):
        tag, size = payload[at : at + 2], int(payload[at + 2 : at + 4])
        fields[tag] = payload[at + 4 : at + 4 + size]
        at += 4 + size
    assert at == len(payload), payload
    return fields


def crc_ok(payload: str) -> bool:
    body, crc = payload[:-4], payload[-4:]
    return body.endswith("6304") and f"{binascii.crc_hqx(body.encode(), 0xFFFF):04X}" == crc


def pdf_text(pdf: bytes) -> str:
    """The PDF's content streams, inflated, as text (enough to find what the page prints)."""
    texts = []
    for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            texts.append(zlib.decompress(stream).decode("latin-1"))
        except zlib.error:
            texts.append(stream.decode("latin-1"))
    return "\n".join(texts)


async def bills(api: Api, customer: int) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = ok2(await api.v2("get_unpaid_document", {"customer_id": customer}))
    return result


async def no_pix_bill(api: Api) -> dict[str, Any]:
    return next(b for b in await bills(api, D.company) if D.no_pix_contract in b["contracts"])


def receipt(data: bytes = b"%PDF-1.4 comprovante") -> dict[str, str]:
    return {"name": "comprovante.pdf", "data": base64.b64encode(data).decode()}


# ---- open bills -----------------------------------------------------------------------------------
async def test_unpaid_documents_match_generation_one_and_add_what_is_due_today(api: Api, clock: FixedClock) -> None:
    listed = await bills(api, D.customer)
    opened = await api.rows("ConsultaDocumentosAbertos", f"CliFor = {D.customer}")
    assert sorted(b["id"] for b in listed) == sorted(int(row["Sequencia"]) for row in opened)
    for bill in listed:
        row = next(r for r in opened if int(r["Sequencia"]) == bill["id"])
        assert bill["due_date"] == row["Vencimento"] and bill["value_init"] == float(row["Valor"])
        assert bill["document_number"] == row["Documento"] and bill["contracts"] == [D.contract]
        assert bill["value_up"] == round(
            bill["value_init"] + bill["value_interest"] + bill["value_fine"] - bill["value_discount"], 2
        )
    overdue, upcoming = listed  # sorted by due date
    assert overdue["id"] == D.overdue_document and upcoming["id"] == D.open_document
    # 12 days late on R$ 99.90: a 2% fine and 1% a month by the day.
    assert (overdue["value_fine"], overdue["value_interest"], overdue["value_up"]) == (2.0, 0.4, 102.3)
    assert upcoming["value_up"] == upcoming["value_init"] == 99.9
    assert overdue["address"]["city"] and overdue["source"] == "Billing"
    clock.advance(days=18)
    later = await bills(api, D.customer)
    assert later[0]["value_interest"] == 1.0 and later[0]["value_up"] == 102.9


async def test_unpaid_documents_refusals_and_account_filter(api: Api) -> None:
    fail2(await api.v2("get_unpaid_document", {}), 3)
    fail2(await api.v2("get_unpaid_document", {"customer_id": 424242}), 7)
    assert await bills(api, D.customer)
    assert ok2(await api.v2("get_unpaid_document", {"customer_id": D.customer, "account_list": [3]})) == []
    company = ok2(await api.v2("get_unpaid_document", {"customer_id": D.company, "account_number": 3}))
    assert [b["bank"] for b in company] == [756]


# ---- PIX ------------------------------------------------------------------------------------------
async def test_pix_code_is_a_valid_br_code_for_the_amount_due_today(api: Api) -> None:
    code = ok2(await api.v2("get_pix_copia_cola", {"banking_billet_id": D.overdue_document}))
    assert code.startswith("000201") and crc_ok(code)
    fields = tlv(code)
    account = tlv(fields["26"])
    assert account["00"] == "br.gov.bcb.pix" and account["01"]
    assert fields["53"] == "986" and fields["58"] == "BR" and fields["52"] == "0000"
    assert fields["54"] == "102.30"  # value_up, not the original 99.90
    assert 0 < len(fields["59"]) <= 25 and 0 < len(fields["60"]) <= 15
    assert re.fullmatch(r"[A-Za-z0-9]{1,25}", tlv(fields["62"])["05"])
    tampered = code[:-10] + ("1" if code[-10] != "1" else "2") + code[-9:]
    assert not crc_ok(tampered)


async def test_pix_qr_png_holds_the_same_code(api: Api) -> None:
    code = ok2(await api.v2("get_pix_copia_cola", {"banking_billet_id": D.overdue_document}))
    png = base64.b64decode(ok2(await api.v2("get_pix_qrcode", {"banking_billet_id": D.overdue_document})))
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    matrix = segno.make_qr(code, error="m").matrix
    image = Image.open(io.BytesIO(png)).convert("L")
    scale = image.width // (len(matrix) + 8)  # a 4-module quiet zone on each side
    assert image.width == image.height == scale * (len(matrix) + 8)
    read = [
        [image.getpixel(((4 + x) * scale + scale // 2, (4 + y) * scale + scale // 2)) < 128 for x in range(len(matrix))]
        for y in range(len(matrix))
    ]
    assert read == [[bool(dark) for dark in row] for row in matrix]


async def test_a_bank_without_pix_answers_16_but_still_has_line_and_slip(api: Api) -> None:
    bill = await no_pix_bill(api)
    fail2(await api.v2("get_pix_copia_cola", {"banking_billet_id": bill["id"]}), 16)
    fail2(await api.v2("get_pix_qrcode", {"banking_billet_id": bill["id"]}), 16)
    line = ok2(await api.v2("get_barcode", {"banking_billet_id": bill["id"]}))
    assert line.startswith("7569")
    slip = ok2(await api.v2("get_banking_billet", {"document_id": bill["id"]}))
    assert "Pague com PIX" not in pdf_text(base64.b64decode(slip["banking_billet_base64"]))
    fail2(await api.v2("get_pix_copia_cola", {"banking_billet_id": 999999}), 16)


async def test_pix_work_runs_off_the_event_loop(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[threading.Thread] = []
    real = paperwork.qr_png

    def spy(payload: str) -> bytes:
        threads.append(threading.current_thread())
        return real(payload)

    monkeypatch.setattr(paperwork, "qr_png", spy)
    ok2(await api.v2("get_pix_qrcode", {"banking_billet_id": D.overdue_document}))
    assert threads and threads[0] is not threading.current_thread()


# ---- digitable line and slip ------------------------------------------------------------------------
async def test_barcode_is_printed_in_groups_and_moves_to_a_new_due_date(api: Api, sb: Sandbox) -> None:
    printed = ok2(await api.v2("get_barcode", {"banking_billet_id": D.open_document}))
    assert re.fullmatch(r"\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}", printed)
    stored = sb.store.find("documents", Sequencia=D.open_document)
    assert stored is not None and re.sub(r"\D", "", printed) == stored["linha_digitavel"]
    fail2(await api.v2("get_barcode", {"banking_billet_id": D.overdue_document, "banking_billet_due_date": "2025-03-01"}), 6)
    moved = ok2(
        await api.v2("get_barcode", {"banking_billet_id": D.overdue_document, "banking_billet_due_date": "2025-03-15"})
    )
    assert moved.endswith("0000010247")  # 17 days late by then: 99.90 + 2.00 fine + 0.57 interest
    fail2(await api.v2("get_barcode", {"banking_billet_id": 999999}), 5)


async def test_barcode_by_sms_needs_phone_and_placeholder(api: Api, sb: Sandbox) -> None:
    ask = {"banking_billet_id": D.open_document, "send_barcode": True}
    fail2(await api.v2("get_barcode", ask), 3)
    fail2(await api.v2("get_barcode", {**ask, "cell_phone_number": "119", "send_content": "x |BARCODE|"}), 10)
    line = ok2(
        await api.v2("get_barcode", {**ask, "cell_phone_number": D.customer_mobile, "send_content": "Linha: |BARCODE|"})
    )
    assert sb.store.rows("sms_outbox")[-1] == {
        "phone": D.customer_mobile,
        "text": f"Linha: {line}",
        "sent": "2025-03-10 09:30:00",
    }


async def test_slip_pdf_names_the_amount_and_its_link_expires(
    api: Api, http: httpx.AsyncClient, clock: FixedClock
) -> None:
    slip = ok2(await api.v2("get_banking_billet", {"document_id": D.overdue_document}))
    assert slip["banking_billet_available"] == 15
    pdf = base64.b64decode(slip["banking_billet_base64"])
    assert pdf.startswith(b"%PDF") and b"%%EOF" in pdf[-10:]
    text = pdf_text(pdf)
    assert "R$ 102,30" in text and "R$ 99,90" in text
    assert "100001" in text and "Maria Aparecida da Silva" in text
    link = httpx.URL(slip["banking_billet_link"])
    assert link.host == "sandbox" and link.path.startswith("/temp/")
    fetched = await http.get(link.path)
    assert fetched.status_code == 200 and fetched.headers["content-type"] == "application/pdf"
    assert "R$ 102,30" in pdf_text(fetched.content)
    clock.advance(minutes=14)
    assert (await http.get(link.path)).status_code == 200
    clock.advance(minutes=2)
    assert (await http.get(link.path)).status_code == 404
    assert (await http.get("/temp/not-a-token.pdf")).status_code == 404


async def test_slip_refusals_and_a_second_new_due_date(api: Api) -> None:
    fail2(await api.v2("get_banking_billet", {}), 3)
    fail2(await api.v2("get_banking_billet", {"document_id": 999999}), 5)
    fail2(await api.v2("get_banking_billet", {"document_id": D.overdue_document, "due_date": "2025-03-01"}), 7)
    moved = ok2(await api.v2("get_banking_billet", {"document_id": D.overdue_document, "due_date": "2025-03-12"}))
    assert "12/03/2025" in pdf_text(base64.b64decode(moved["banking_billet_base64"]))
    fail2(await api.v2("get_banking_billet", {"document_id": D.overdue_document, "due_date": "2025-03-13"}), 7)
    ok2(await api.v2("get_banking_billet", {"document_id": D.overdue_document}))  # without due_date it still works
