"""A real ``ispbot run`` is killed (SIGKILL) mid-stream, with answers recorded but not yet sent, and
started again at once: the restarted process takes over the dead one's work as soon as its heartbeat
is stale (seconds), not when its leases run out (minutes): its first answer comes before the dead
process's lease would have freed a chat (a bound of the design, not of the machine's speed). Printed:
the time from the restart to the first answer, and the answers sent twice: those the dead process had
handed to Telegram (on the wire, or accepted) and not yet recorded, never more than the channel's
concurrency (``SEND_WORKERS``; the processor's ``_Gate``), however the records are batched.

Polling mode against the fake Bot API, the sandbox ISP over loopback HTTP; SQLite (a file) and, when
``ISPBOT_TEST_DATABASE_URL`` is set, a fresh PostgreSQL database."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot.channels.telegram.channel import SEND_WORKERS
from bot.runtime.processor import LEASE
from bot.sandbox import PRODUCTION_KEY, FixedClock, Sandbox
from bot.sandbox.server import SandboxServer, free_port

from tests.store.dbtools import postgresql_url, separate_database
from tests.telegram import fake_bot_api as tg
from tests.telegram.fake_bot_api import FakeBotApi

CHATS = [9_300_001 + n for n in range(30)]
SAID = 8  # "/idioma" from each chat: one answer each
LANGUAGE = "Em qual idioma"
KILL_AFTER = 60  # answers sent before the kill


def bot_env(settings: dict[str, str]) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("ISPBOT_")}, **settings}


def ispbot_run(env: dict[str, str], workdir: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "run"], env=env, cwd=workdir, stdout=sink, stderr=subprocess.STDOUT,
        )


@contextlib.asynccontextmanager
async def database_url(kind: str, workdir: Path) -> AsyncIterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{workdir / 'ispbot.sqlite3'}"
        return
    base = postgresql_url()
    if base is None:
        pytest.skip("set ISPBOT_TEST_DATABASE_URL for PostgreSQL")
    async with separate_database(base) as url:
        yield url


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
async def test_a_killed_process_is_restarted_and_answers_again_within_seconds(kind: str, tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    with SandboxServer(Sandbox.seeded(clock=FixedClock())) as isp:
        async with database_url(kind, tmp_path) as url, FakeBotApi() as api:
            env = bot_env({
                "ISPBOT_DATABASE_URL": url, "ISPBOT_TELEGRAM_TOKEN": api.token,
                "ISPBOT_TELEGRAM_API_URL": api.base_url, "ISPBOT_LISTEN_PORT": str(free_port()),
                "ISPBOT_ISP_BASE_URL": isp.url, "ISPBOT_ISP_KEY": PRODUCTION_KEY,
            })
            migrate = await asyncio.to_thread(
                subprocess.run, [sys.executable, "-m", "bot.cli", "migrate"], env=env, capture_output=True,
                timeout=120, check=False,
            )
            assert migrate.returncode == 0, migrate.stderr

            def answers() -> int:
                # A chat's answers waiting behind its 1-a-second limit go joined in one message: count answers.
                return sum((sent.text or "").count(LANGUAGE) for sent in api.outgoing())

            first = ispbot_run(env, tmp_path, log)
            second: subprocess.Popen[bytes] | None = None
            try:
                for _ in range(SAID):
                    for chat in CHATS:
                        api.push_update(tg.text_message(chat, "/idioma"))
                await api.wait_until(lambda: answers() >= KILL_AFTER, within=120)
                first.send_signal(signal.SIGKILL)
                first.wait(timeout=10)
                before = answers()

                second = ispbot_run(env, tmp_path, log)
                restarted = time.monotonic()
                # The chats answered at the kill were claimed seconds before it: their leases free them about
                # LEASE after. An answer within half of it is the stale heartbeat's takeover.
                await api.wait_until(lambda: answers() > before, within=LEASE.total_seconds() / 2)
                first_answer = time.monotonic() - restarted
                await api.wait_until(lambda: answers() >= len(CHATS) * SAID, within=180)
                await asyncio.sleep(2)  # anything sent a second time would have come by now
                twice = answers() - len(CHATS) * SAID
                print(f"{kind}: {before} answers before the kill; first answer {first_answer:.1f}s after the "
                      f"restart; {twice} sent twice")
                assert 0 <= twice <= SEND_WORKERS
                for chat in CHATS:
                    assert SAID <= sum((s.text or "").count(LANGUAGE) for s in api.sent(chat)) <= SAID + SEND_WORKERS
                assert "Traceback" not in log.read_text(errors="replace")
            except BaseException:
                print(log.read_text(errors="replace")[-6000:])
                raise
            finally:
                for process in (first, second):
                    if process is not None and process.poll() is None:
                        process.terminate()
                        try:
                            process.wait(timeout=20)
                        except subprocess.TimeoutExpired:
                            process.kill()
                            process.wait(timeout=10)
