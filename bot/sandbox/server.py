"""Serving a sandbox over real HTTP on loopback, in a background thread (tests) or in the foreground
(``ispbot sandbox``).

``SandboxServer.go_down()`` closes the listening socket, so the client meets a refused connection
(the harshest "down"); ``come_back()`` listens again on the same port.
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType

import uvicorn

from bot.sandbox.sandbox import Sandbox


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


class SandboxServer:
    def __init__(self, sandbox: Sandbox, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.sandbox = sandbox
        self.host = host
        self.port = port or free_port(host)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> SandboxServer:
        config = uvicorn.Config(
            self.sandbox.app,
            host=self.host,
            port=self.port,
            log_level="warning",
            access_log=False,
            lifespan="off",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="sandbox-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the sandbox server did not start on {self.url}")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        self._server = None
        self._thread = None

    def go_down(self) -> None:
        """Stop listening: calls are refused until ``come_back``."""
        self.stop()

    def come_back(self) -> None:
        self.start()

    def __enter__(self) -> SandboxServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
