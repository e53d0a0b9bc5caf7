"""Faults on demand, for the bot's reliability tests.

Each fault applies to one operation or to every operation (``operation=None``) and to the next
``times`` calls (None: until cleared). What the client then sees:

- ``http_error``: an HTTP 500 (or the status given) with a short text body;
- ``timeout``: the answer is held ``seconds`` (longer than the client's timeout), then sent;
- ``disconnect``: the response starts and the connection is dropped mid-body;
- ``not_json``: HTTP 200 with a body that is not JSON;
- ``html_login``: HTTP 200 with the HTML login page of the management system;
- ``down``: HTTP 503 for every call (a served sandbox can also refuse connections: see
  ``server.SandboxServer.go_down``).

Latency (``add_latency``) delays answers without failing them. Faults are matched newest first.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import StrEnum


class FaultKind(StrEnum):
    HTTP_ERROR = "http_error"
    TIMEOUT = "timeout"
    DISCONNECT = "disconnect"
    NOT_JSON = "not_json"
    HTML_LOGIN = "html_login"
    DOWN = "down"


@dataclass
class Fault:
    kind: FaultKind
    operation: str | None = None
    times: int | None = 1
    status: int = 500
    seconds: float = 30.0

    def matches(self, operation: str | None) -> bool:
        return self.operation is None or self.operation == operation


LOGIN_PAGE = """<!DOCTYPE html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Login - Sistema de Gestão</title></head>
<body><form method="post" action="/login.php"><h1>Acesso ao sistema</h1>
<label>Usuário <input name="usuario"></label><label>Senha <input type="password" name="senha"></label>
<button type="submit">Entrar</button></form></body></html>
"""
NOT_JSON = (
    "Warning: mysqli_connect(): (HY000/2002): Connection refused in /var/www/ws/server_json.php on line 12"
)


class Faults:
    def __init__(self) -> None:
        self._faults: list[Fault] = []
        self._latency: dict[str | None, float] = {}
        self._lock = threading.Lock()

    def add(self, fault: Fault) -> Fault:
        with self._lock:
            self._faults.append(fault)
        return fault

    # the Python API tests use
    def fail_next(self, times: int | None = 1, operation: str | None = None, status: int = 500) -> Fault:
        return self.add(Fault(FaultKind.HTTP_ERROR, operation, times, status=status))

    def timeout_next(
        self, times: int | None = 1, operation: str | None = None, seconds: float = 30.0
    ) -> Fault:
        return self.add(Fault(FaultKind.TIMEOUT, operation, times, seconds=seconds))

    def disconnect_next(self, times: int | None = 1, operation: str | None = None) -> Fault:
        return self.add(Fault(FaultKind.DISCONNECT, operation, times))

    def not_json_next(self, times: int | None = 1, operation: str | None = None) -> Fault:
        return self.add(Fault(FaultKind.NOT_JSON, operation, times))

    def html_login_next(self, times: int | None = 1, operation: str | None = None) -> Fault:
        return self.add(Fault(FaultKind.HTML_LOGIN, operation, times))

    def go_down(self, operation: str | None = None) -> Fault:
        return self.add(Fault(FaultKind.DOWN, operation, None, status=503))

    def come_back(self) -> None:
        with self._lock:
            self._faults = [f for f in self._faults if f.kind is not FaultKind.DOWN]

    def add_latency(self, seconds: float, operation: str | None = None) -> None:
        with self._lock:
            self._latency[operation] = seconds

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()
            self._latency.clear()

    # what the app asks per call
    def latency(self, operation: str | None) -> float:
        with self._lock:
            return self._latency.get(operation, self._latency.get(None, 0.0))

    def take(self, operation: str | None) -> Fault | None:
        """The fault this call suffers, counting it down; None when the call is answered normally."""
        with self._lock:
            for fault in reversed(self._faults):
                if fault.matches(operation):
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self._faults.remove(fault)
                    return fault
        return None
