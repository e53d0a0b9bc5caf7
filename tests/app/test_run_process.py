"""``ispbot run`` as an operator starts it: its own process, in an empty folder whose ``.env`` holds
the settings, while the ISP cannot be reached. It must be live and ready (an orchestrator keeps it
and sends it traffic), say in ``/healthz`` that the ISP is down, answer a subscriber with real text,
and stop on SIGTERM with exit code 0.

``ISPBOT_TEST_COMMAND`` names the ``ispbot`` executable to start (``.ci/wheel-smoke`` points it at a
wheel installed outside the checkout); by default this interpreter's ``python -m bot.cli``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
from bot.i18n import default_translations, plain_text
from bot.sandbox.server import free_port

from tests.telegram import fake_bot_api as tg
from tests.telegram.fake_bot_api import FakeBotApi

WITHIN = 90.0  # seconds the bot may take to start or answer on a loaded machine
CHAT = 4242


def ispbot() -> list[str]:
    given = os.environ.get("ISPBOT_TEST_COMMAND")
    return shlex.split(given) if given else [sys.executable, "-m", "bot.cli"]


def clean_env() -> dict[str, str]:
    """This environment without ``ISPBOT_*``: the bot's settings come from the folder's ``.env`` only."""
    return {name: value for name, value in os.environ.items() if not name.startswith("ISPBOT_")}


@contextlib.contextmanager
def ispbot_run(folder: Path) -> Iterator[subprocess.Popen[bytes]]:
    with (folder / "bot.log").open("wb") as log:
        process = subprocess.Popen(  # noqa: S603 - the command under test
            [*ispbot(), "run"], cwd=folder, env=clean_env(), stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)


def log_of(folder: Path) -> str:
    return (folder / "bot.log").read_text(errors="replace")


async def until_live(http: httpx.AsyncClient, process: subprocess.Popen[bytes], folder: Path) -> None:
    async with asyncio.timeout(WITHIN):
        while True:
            assert process.poll() is None, f"ispbot run exited:\n{log_of(folder)[-3000:]}"
            with contextlib.suppress(httpx.TransportError):
                if (await http.get("/livez")).status_code == 200:
                    return
            await asyncio.sleep(0.2)


async def test_ispbot_run_from_an_empty_folder_with_the_isp_unreachable(tmp_path: Path) -> None:
    port, isp_port = free_port(), free_port()  # nothing listens on the ISP's port
    async with FakeBotApi() as api:
        (tmp_path / ".env").write_text(
            f"ISPBOT_TELEGRAM_TOKEN={api.token}\n"
            f"ISPBOT_TELEGRAM_API_URL={api.base_url}\n"
            f"ISPBOT_ISP_BASE_URL=http://127.0.0.1:{isp_port}\n"
            "ISPBOT_ISP_KEY=a-key-nobody-checks\n"
            "ISPBOT_ISP_RETRIES=0\n"
            "ISPBOT_DATABASE_URL=sqlite:///bot.sqlite3\n"
            f"ISPBOT_LISTEN_PORT={port}\n",
            encoding="utf-8",
        )
        migrated = await asyncio.to_thread(
            subprocess.run, [*ispbot(), "migrate"], cwd=tmp_path, env=clean_env(), capture_output=True, text=True,
            timeout=WITHIN, check=False,
        )
        assert migrated.returncode == 0, migrated.stderr
        assert (tmp_path / "bot.sqlite3").is_file()  # the database .env names, in the folder it runs from

        with ispbot_run(tmp_path) as process:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
                await until_live(http, process, tmp_path)
                ready = await http.get("/readyz")
                assert (ready.status_code, ready.json()) == (200, {"database": "ok"})
                health = await http.get("/healthz")
                assert health.status_code == 200
                assert health.json()["database"] == "ok" and health.json()["isp"].startswith("unreachable")

            api.push_update(tg.text_message(CHAT, "/ajuda"))
            answers = await api.wait_for_sent(CHAT, within=WITHIN)
            failure = plain_text(default_translations().render("pt_BR", "common.internal_error"))
            assert answers[0].text and plain_text(answers[0].text) != failure

            process.terminate()
            assert await asyncio.to_thread(process.wait, WITHIN) == 0
    log = log_of(tmp_path)
    assert "Traceback" not in log, log[-3000:]
    assert api.token not in log and "a-key-nobody-checks" not in log
