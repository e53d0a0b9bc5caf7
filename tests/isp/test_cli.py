"""``ispbot call`` over a real loopback HTTP server: exit codes, one line on stderr, no traceback."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from bot.cli import main

from tests.isp.standin import KEY, v1_fail, v1_ok, v2_ok

ANSWERS: dict[str, Any] = {
    "ConsultaTopicos": v1_ok([{"Codigo": "3", "Nome": "Sem conexão", "Central": "S", "Situacao": "A"}]),
    "ConsultaClientes": v1_fail(97, "Erro de integração", "Chave de integração inválida ou inativa"),
    "ticket_update": v2_ok("Atendimento alterado"),
}
RECEIVED: list[Any] = []


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        RECEIVED.append((self.path, dict(self.headers), body))
        (operation,) = body
        payload = json.dumps(ANSWERS[operation]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        """Quiet: the test reads what it needs from RECEIVED."""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv("ISPBOT_ISP_BASE_URL", url)
    monkeypatch.setenv("ISPBOT_ISP_KEY", KEY)
    RECEIVED.clear()
    yield url
    httpd.shutdown()
    httpd.server_close()


def test_success_prints_the_typed_result(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "ConsultaTopicos", "--filter", "Central = 'S'"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out[0]["Codigo"] == 3 and out[0]["Situacao"] == "A"
    path, _, body = RECEIVED[0]
    assert path == "/ws/server_json.php"
    assert body["ConsultaTopicos"]["Filtro"] == "(Central = 'S')"


def test_v2_with_json_params(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "ticket_update", "--json", '{"ticket_id": 5, "status": "on_hold"}']) == 0
    assert json.loads(capsys.readouterr().out) == "Atendimento alterado"
    _, headers, body = RECEIVED[0]
    assert headers["authentication_key"] == KEY
    assert body == {"ticket_update": {"ticket_id": 5, "status": "on_hold"}}


def test_isp_error_exits_1_with_one_line(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "ConsultaClientes"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "ConsultaClientes" in err and "97" in err and "Erro de integração" in err
    assert KEY not in err


@pytest.mark.parametrize(("argv", "field"), [
    (["call", "ticket_update", "--json", '{"ticket_id": 5, "priority": 150}'], "priority"),
    (["call", "ticket_update", "--json", '{"status": "on_hold"}'], "ticket_id"),
    (["call", "ticket_update", "--json", '{"ticket_id": 5, "status": "lost"}'], "status"),
])
def test_invalid_request_exits_2_naming_the_field(server: str, capsys: pytest.CaptureFixture[str],
                                                  argv: list[str], field: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert field in err and err.count("\n") == 1
    assert RECEIVED == []  # no request left the process


def test_unknown_operation_and_bad_json_exit_2(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "ConsultaNada"]) == 2
    assert main(["call", "ticket_update", "--json", "{oops"]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_transport_failure_exits_3(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("ISPBOT_ISP_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ISPBOT_ISP_KEY", KEY)
    monkeypatch.setenv("ISPBOT_ISP_RETRIES", "0")
    assert main(["call", "ConsultaTopicos"]) == 3
    err = capsys.readouterr().err
    assert "ConsultaTopicos" in err and "Traceback" not in err and err.count("\n") == 1


def test_missing_configuration_names_the_variable(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ISPBOT_ISP_BASE_URL", raising=False)
    monkeypatch.setenv("ISPBOT_ISP_KEY", KEY)
    assert main(["call", "ConsultaTopicos"]) == 2
    assert "ISPBOT_ISP_BASE_URL" in capsys.readouterr().err


def test_list_shows_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "--list"]) == 0
    out = capsys.readouterr().out
    assert "ConsutaFornecedores" in out and "chat_messages" in out
