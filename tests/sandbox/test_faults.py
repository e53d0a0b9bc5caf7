"""Faults on demand, each observable by a client, and the per-operation call counter."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.sandbox.server import SandboxServer

from tests.sandbox.conftest import V1_PATH, V2_PATH, Api

BODY = {"ConsultaPlanos": {"Autenticacao": {"ChaveIntegracao": "sandbox-production-key"}}}


async def test_http_500_for_the_next_calls_of_one_operation(api: Api, sb: Sandbox) -> None:
    sb.faults.fail_next(2, "ConsultaPlanos")
    assert (await api.http.post(V1_PATH, json=BODY)).status_code == 500
    assert (await api.http.post(V1_PATH, json=BODY)).status_code == 500
    assert (await api.query("ConsultaQoS"))["status"] == 1  # other operations unaffected
    assert (await api.http.post(V1_PATH, json=BODY)).json()["status"] == 1
    assert sb.call_count("ConsultaPlanos") == 3 and sb.call_count() == 4


async def test_not_json_and_html_login_page(api: Api, sb: Sandbox) -> None:
    sb.faults.not_json_next()
    sb.faults.html_login_next(operation="ticket_update")
    answer = await api.http.post(V1_PATH, json=BODY)
    assert answer.status_code == 200
    with pytest.raises(ValueError):
        answer.json()
    page = await api.http.post(
        V2_PATH,
        json={"ticket_update": {"ticket_id": D.ticket}},
        headers={"authentication_key": "sandbox-production-key"},
    )
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<form" in page.text


async def test_timeout_hangs_longer_than_the_client_waits(api: Api, sb: Sandbox) -> None:
    sb.faults.timeout_next(seconds=5)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(api.http.post(V1_PATH, json=BODY), timeout=0.2)
    assert sb.call_count("ConsultaPlanos") == 1


async def test_disconnect_breaks_the_answer(api: Api, sb: Sandbox) -> None:
    sb.faults.disconnect_next()
    with pytest.raises(ConnectionResetError):
        await api.http.post(V1_PATH, json=BODY)
    assert (await api.http.post(V1_PATH, json=BODY)).json()["status"] == 1


async def test_down_until_it_comes_back_and_latency(api: Api, sb: Sandbox) -> None:
    sb.faults.go_down()
    for _ in range(3):
        assert (await api.http.post(V1_PATH, json=BODY)).status_code == 503
    sb.faults.come_back()
    sb.faults.add_latency(0.15)
    started = time.monotonic()
    assert (await api.http.post(V1_PATH, json=BODY)).status_code == 200
    assert time.monotonic() - started >= 0.15
    sb.faults.clear()
    sb.reset_calls()
    assert sb.call_count() == 0


def test_client_timeout_over_http_is_a_transport_error(sb: Sandbox) -> None:
    sb.faults.timeout_next(seconds=1)
    with SandboxServer(sb) as server, httpx.Client(base_url=server.url, timeout=0.3) as client:
        with pytest.raises(httpx.ReadTimeout):
            client.post(V1_PATH, json=BODY)
        sb.faults.disconnect_next()
        with pytest.raises(httpx.RemoteProtocolError):
            client.post(V1_PATH, json=BODY)
