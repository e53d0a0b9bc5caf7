"""The sandbox over a real loopback uvicorn server on a free port, and the CLI's banner."""

from __future__ import annotations

import argparse

import httpx
import pytest
from bot.commands.sandbox import describe, register
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.sandbox.server import SandboxServer

from tests.sandbox.conftest import V1_PATH, V2_PATH


def test_real_http_both_generations_and_refused_when_down(sb: Sandbox) -> None:
    key = sb.add_production_key("operator-key").key
    server = SandboxServer(sb).start(timeout=10)
    try:
        with httpx.Client(base_url=server.url, timeout=5) as client:
            answer = client.post(
                V1_PATH,
                json={
                    "ConsultaClientes": {
                        "Autenticacao": {"ChaveIntegracao": key},
                        "Filtro": f"Codigo = {D.customer}",
                    }
                },
            )
            assert answer.status_code == 200 and answer.json()["result"][0]["Nome"] == D.customer_name
            assert answer.headers["content-type"].startswith("application/json")
            modes = client.post(V2_PATH, json={"get_tickets_mode": {}}, headers={"authentication_key": key})
            assert modes.json()["status"] == 1
            assert client.get("/sandbox/state").status_code == 404  # no route a real server lacks
            server.go_down()
            with pytest.raises(httpx.ConnectError):
                client.post(V1_PATH, json={})
            server.come_back()
            assert (
                client.post(
                    V2_PATH, json={"get_tickets_mode": {}}, headers={"authentication_key": key}
                ).json()["status"]
                == 1
            )
        assert sb.call_count("ConsultaClientes") == 1 and sb.call_count("get_tickets_mode") == 2
    finally:
        server.stop()


def test_temporary_links_point_at_the_served_sandbox(sb: Sandbox) -> None:
    with SandboxServer(sb) as server, httpx.Client(base_url=server.url, timeout=10) as client:
        headers = {"authentication_key": "sandbox-production-key"}
        body = {"get_banking_billet": {"document_id": D.overdue_document}}
        answer = client.post(V2_PATH, json=body, headers=headers).json()
        link = answer["result"]["banking_billet_link"]
        assert link.startswith(f"{server.url}/temp/")
        pdf = client.get(link)
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


def test_cli_registers_the_sandbox_command_and_prints_keys() -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sandbox", "--port", "9001", "--key", "k1"])
    assert args.port == 9001 and args.key == ["k1"] and args.host == "127.0.0.1"
    sb = Sandbox.seeded()
    sb.add_production_key("k1")
    banner = "\n".join(describe(sb, "127.0.0.1", 9001))
    assert "sandbox-production-key" in banner and "k1  production" in banner and "INACTIVE" in banner
    assert D.customer_cpf in banner and D.pppoe_login in banner
