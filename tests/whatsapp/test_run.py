"""``ispbot run`` with WhatsApp alone: no Telegram token, the web server on its port, Meta's signed
post answered through the Graph API; and with no channel at all, a refusal naming the settings."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import httpx
import pytest
from bot import cli
from bot.commands.run import load_settings
from bot.runtime.run import run
from bot.sandbox import PRODUCTION_KEY, FixedClock, Sandbox
from bot.sandbox.server import SandboxServer, free_port
from bot.store.migrate import upgrade

from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import MARIA_WA_ID


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("ISPBOT_") and name != "ISPBOT_TEST_DATABASE_URL":
            monkeypatch.delenv(name)
    return monkeypatch


def test_no_channel_is_refused_naming_both(clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    clean.setenv("ISPBOT_ISP_BASE_URL", "http://127.0.0.1:9")
    clean.setenv("ISPBOT_ISP_KEY", "a-key")
    assert cli.main(["run"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "no channel is configured" in line and "ISPBOT_TELEGRAM_TOKEN" in line and "ISPBOT_WHATSAPP_TOKEN" in line


async def test_ispbot_run_with_whatsapp_alone_answers_a_signed_post(clean: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = FakeCloudApi()
    port = free_port()
    url = f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"
    await upgrade(url)
    with SandboxServer(Sandbox.seeded(clock=FixedClock())) as isp:
        async with fake.serving() as graph:
            for name, value in {
                "ISPBOT_DATABASE_URL": url, "ISPBOT_ISP_BASE_URL": isp.url, "ISPBOT_ISP_KEY": PRODUCTION_KEY,
                "ISPBOT_LISTEN_PORT": str(port), "ISPBOT_WHATSAPP_TOKEN": wa.TOKEN,
                "ISPBOT_WHATSAPP_PHONE_NUMBER_ID": wa.PHONE_NUMBER_ID, "ISPBOT_WHATSAPP_APP_SECRET": wa.APP_SECRET,
                "ISPBOT_WHATSAPP_VERIFY_TOKEN": wa.VERIFY_TOKEN, "ISPBOT_WHATSAPP_API_URL": graph,
            }.items():
                clean.setenv(name, value)
            settings = load_settings()
            assert settings.telegram is None and settings.whatsapp is not None
            stop = asyncio.Event()
            bot = asyncio.create_task(run(settings, stop))
            try:
                body = wa.encoded(wa.post(wa.text(MARIA_WA_ID, "oi")))
                async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as web:
                    for _ in range(200):  # until the web server listens
                        try:
                            answer = await web.post("/whatsapp/webhook", content=body,
                                                    headers={"X-Hub-Signature-256": wa.sign(body)})
                            break
                        except httpx.ConnectError:
                            await asyncio.sleep(0.05)
                    assert answer.status_code == 200
                    (greeting,) = await fake.wait_for_sent(MARIA_WA_ID, 1, within=10)
                    assert "titular" in greeting.text
                    assert (await web.get("/readyz")).status_code == 200
            finally:
                stop.set()
                await asyncio.wait_for(bot, 30)


async def test_ispbot_run_starts_while_the_graph_api_is_unreachable_and_answers_once_it_is_back(
    clean: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """A restart during a Meta or network outage keeps the webhook up: Meta's posts are kept, /readyz
    says what is missing, and the answers go once the Graph API answers."""
    fake, port, graph_port = FakeCloudApi(), free_port(), free_port()
    url = f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"
    await upgrade(url)
    with SandboxServer(Sandbox.seeded(clock=FixedClock())) as isp:
        for name, value in {
            "ISPBOT_DATABASE_URL": url, "ISPBOT_ISP_BASE_URL": isp.url, "ISPBOT_ISP_KEY": PRODUCTION_KEY,
            "ISPBOT_LISTEN_PORT": str(port), "ISPBOT_WHATSAPP_TOKEN": wa.TOKEN,
            "ISPBOT_WHATSAPP_PHONE_NUMBER_ID": wa.PHONE_NUMBER_ID, "ISPBOT_WHATSAPP_APP_SECRET": wa.APP_SECRET,
            "ISPBOT_WHATSAPP_VERIFY_TOKEN": wa.VERIFY_TOKEN, "ISPBOT_WHATSAPP_API_URL": f"http://127.0.0.1:{graph_port}",
        }.items():
            clean.setenv(name, value)
        stop = asyncio.Event()
        bot = asyncio.create_task(run(load_settings(), stop))
        try:
            body = wa.encoded(wa.post(wa.text(MARIA_WA_ID, "oi")))
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as web:
                for _ in range(200):  # until the web server listens
                    assert not bot.done(), bot.exception()
                    try:
                        answer = await web.post("/whatsapp/webhook", content=body,
                                                headers={"X-Hub-Signature-256": wa.sign(body)})
                        break
                    except httpx.ConnectError:
                        await asyncio.sleep(0.05)
                assert answer.status_code == 200
                ready = await web.get("/readyz")
                assert ready.status_code == 200 and ready.json()["whatsapp"].startswith("unreachable")
                async with fake.serving(graph_port):
                    (greeting,) = await fake.wait_for_sent(MARIA_WA_ID, 1, within=60)
                    assert "titular" in greeting.text
                    for _ in range(200):
                        if (await web.get("/readyz")).json()["whatsapp"] == "ok":
                            break
                        await asyncio.sleep(0.05)
                    assert (await web.get("/readyz")).json()["whatsapp"] == "ok"
        finally:
            stop.set()
            await asyncio.wait_for(bot, 30)
