"""Serving a sandbox over real HTTP on loopback, in a background thread (tests) or in the foreground
(``ispbot sandbox``).

``SandboxServer.go_down()`` closes the listening socket, so the client meets a refused connection
(the harshest "down"); ``come_back()`` listens again on the same port.
"""

from __future__ import annotations

import asyncio
import contextlib
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


class PromptServer(uvicorn.Server):
    """uvicorn's server, stopped in milliseconds rather than a fifth of a second: uvicorn looks at
    ``should_exit`` every 0.1 s, then sleeps 0.1 s before waiting for the connections in steps of 0.1 s.
    Here setting ``should_exit`` (from any thread) wakes the loop at once, and the shutdown waits for
    the same things in steps of 5 ms. The tests start and stop thousands of servers."""

    _STEP = 0.005
    _woken: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    @property
    def should_exit(self) -> bool:
        return bool(self.__dict__.get("_should_exit", False))

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        self.__dict__["_should_exit"] = value
        if value and self._woken is not None and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already closed: nothing to wake
                self._loop.call_soon_threadsafe(self._woken.set)

    async def main_loop(self) -> None:
        self._loop, self._woken = asyncio.get_running_loop(), asyncio.Event()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):  # a tick every 0.1 s, as uvicorn's (the Date header)
                await asyncio.wait_for(self._woken.wait(), 0.1)
            should_exit = await self.on_tick(counter)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        try:
            await asyncio.wait_for(self._wait_tasks_to_complete(), timeout=self.config.timeout_graceful_shutdown)
        except TimeoutError:
            for task in self.server_state.tasks:
                task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
        if not self.force_exit:
            await self.lifespan.shutdown()

    async def _wait_tasks_to_complete(self) -> None:
        # uvicorn's state has no event to wait on: its sets are looked at, as uvicorn does, more often.
        while (self.server_state.connections or self.server_state.tasks) and not self.force_exit:  # noqa: ASYNC110
            await asyncio.sleep(self._STEP)
        for server in self.servers:
            await server.wait_closed()


class SandboxServer:
    def __init__(self, sandbox: Sandbox, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.sandbox = sandbox
        self.host = host
        self.port = port or free_port(host)
        self._server: PromptServer | None = None
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
        self._server = PromptServer(config)
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
