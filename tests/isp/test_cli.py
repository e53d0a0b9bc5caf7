"""``ispbot call`` over a real loopback HTTP server: exit codes, one line on stderr, no traceback."""

from __future__ import annotations

import base64
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from bot.cli import main

from tests.isp.standin import KEY, v1_fail, v1_ok, v2_ok

PNG = b"\x89PNG\r\n\x1a\n\x00\xff qr"
PDF = b"%PDF-1.4\n\xe2\xe3\xcf\xd3 bill"
ANSWERS: dict[str, Any] = {
    "ConsultaTopicos": v1_ok([{"Codigo": "3", "Nome": "Sem conexão", "Central": "S", "Situacao": "A"}]),
    "ConsultaClientes": v1_fail(97, "Erro de integração", "Chave de integração inválida ou inativa"),
    "ticket_update": v2_ok("Atendimento alterado"),
    "get_pix_qrcode": v2_ok({"pix_qrcode": base64.b64encode(PNG).decode()}),
    "get_banking_billet": v2_ok({"banking_billet_link": "https://isp.example/b/1.pdf", "banking_billet_available": 15,
                                 "banking_billet_base64": base64.b64encode(PDF).decode()}),
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


def test_a_qr_code_is_printed_as_base64_as_the_wire_carries_it(
    server: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["call", "get_pix_qrcode", "--json", '{"banking_billet_id": 300001}']) == 0
    out, err = capsys.readouterr()
    assert base64.b64decode(json.loads(out)) == PNG and "b'" not in out and err == ""


def test_a_bill_with_its_pdf_prints_the_pdf_as_base64_not_a_traceback(
    server: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["call", "get_banking_billet", "--json", '{"document_id": 300001}']) == 0
    out, err = capsys.readouterr()
    shown = json.loads(out)
    assert shown["link"] == "https://isp.example/b/1.pdf" and shown["available"] == 15
    assert base64.b64decode(shown["pdf"]) == PDF and "Traceback" not in err


def test_out_writes_the_binary_result_to_a_file(
    server: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    qr = ["get_pix_qrcode", "--json", '{"banking_billet_id": 1}']
    bill = ["get_banking_billet", "--json", '{"document_id": 1}']
    assert main(["call", *qr, "--out", str(tmp_path / "qr.png")]) == 0
    assert (tmp_path / "qr.png").read_bytes() == PNG
    assert json.loads(capsys.readouterr().out) == {"file": str(tmp_path / "qr.png"), "bytes": len(PNG)}
    assert main(["call", *bill, "--out", str(tmp_path / "b.pdf")]) == 0
    assert (tmp_path / "b.pdf").read_bytes() == PDF
    assert json.loads(capsys.readouterr().out)["pdf"] == {"file": str(tmp_path / "b.pdf"), "bytes": len(PDF)}
    assert main(["call", "ticket_update", "--json", '{"ticket_id": 5}', "--out", str(tmp_path / "x")]) == 0
    assert "was not written" in capsys.readouterr().err and not (tmp_path / "x").exists()
    assert main(["call", *qr, "--out", str(tmp_path / "no/qr.png")]) == 2  # no such folder
    err = capsys.readouterr().err
    assert "--out" in err and err.count("\n") == 1


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
