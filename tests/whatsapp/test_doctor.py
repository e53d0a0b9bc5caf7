"""``ispbot doctor`` on WhatsApp: the token and the number checked at the Graph API, a refused token
said plainly, and a bot with WhatsApp alone not failed for lacking Telegram."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from bot.commands.doctor import diagnose
from bot.doctor import whatsapp as whatsapp_doctor
from bot.doctor.report import Finding, Status
from bot.doctor.whatsapp import whatsapp_findings

from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import whatsapp_settings

pytestmark = pytest.mark.asyncio
EXAMPLE = Path(__file__).resolve().parents[2] / "ops" / "whatsapp-templates.yaml"


async def findings(fake: FakeCloudApi, **overrides: str) -> list[Finding]:
    settings = whatsapp_settings(fake, **overrides)
    return await whatsapp_findings(settings, 5.0, "0.0.0.0:8080", transport=httpx.ASGITransport(app=fake.app))


async def test_an_accepted_token_and_number_are_named() -> None:
    number, webhook, _ = await findings(FakeCloudApi())
    assert number.status is Status.OK and "Provedor Teste" in number.text and "+55 11 4000-0000" in number.text
    assert webhook.status is Status.OK and "/whatsapp/webhook" in webhook.text and "0.0.0.0:8080" in webhook.text
    assert wa.TOKEN not in number.text + webhook.text and wa.APP_SECRET not in webhook.text


async def test_an_expired_token_is_said_plainly() -> None:
    number, _, _ = await findings(FakeCloudApi(expired=True))
    assert number.status is Status.FAIL
    assert "token refused by WhatsApp (code 190: expired or revoked)" in number.text
    assert "ISPBOT_WHATSAPP_TOKEN" in number.text and "permanent" in number.text


async def test_a_wrong_phone_number_id_is_named() -> None:
    number, _, _ = await findings(FakeCloudApi(), whatsapp_phone_number_id="999")
    assert number.status is Status.FAIL and "ISPBOT_WHATSAPP_PHONE_NUMBER_ID" in number.text


async def test_whatsapp_alone_is_a_bot_and_half_of_its_settings_are_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("ISPBOT_") and name != "ISPBOT_TEST_DATABASE_URL":
            monkeypatch.delenv(name)
    monkeypatch.setenv("ISPBOT_DATABASE_URL", f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    monkeypatch.setenv("ISPBOT_ISP_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("ISPBOT_ISP_KEY", "a-key")
    monkeypatch.setenv("ISPBOT_WHATSAPP_TOKEN", wa.TOKEN)
    checked: list[str] = []

    async def fake_findings(settings: object, seconds: float, listen: str) -> list[Finding]:
        checked.append(listen)
        return []

    monkeypatch.setattr(whatsapp_doctor, "whatsapp_findings", fake_findings)  # diagnose imports it when run
    found = await diagnose(1.0)
    lines = [f.line() for f in found if f.status is Status.FAIL and f.check in ("whatsapp", "telegram")]
    assert lines and all("ISPBOT_WHATSAPP_" in line for line in lines), lines  # the three it lacks, no Telegram
    monkeypatch.setenv("ISPBOT_WHATSAPP_PHONE_NUMBER_ID", wa.PHONE_NUMBER_ID)
    monkeypatch.setenv("ISPBOT_WHATSAPP_APP_SECRET", wa.APP_SECRET)
    monkeypatch.setenv("ISPBOT_WHATSAPP_VERIFY_TOKEN", wa.VERIFY_TOKEN)
    found = await diagnose(1.0)
    assert not [f for f in found if f.check in ("telegram", "whatsapp") and f.status is Status.FAIL]
    assert checked == ["127.0.0.1:8080"]


async def test_the_kinds_of_notice_without_a_template_are_named(tmp_path: Path) -> None:
    _, _, unset = await findings(FakeCloudApi())
    assert unset.status is Status.WARN and "ISPBOT_WHATSAPP_TEMPLATES is not set" in unset.text
    assert "outage_over" in unset.text and "staff_answer" in unset.text
    _, _, complete = await findings(FakeCloudApi(), whatsapp_templates=str(EXAMPLE))
    assert complete.status is Status.OK and "a template for every kind of notice" in complete.text
    partial = tmp_path / "templates.yaml"
    partial.write_text(
        "outage_over: {name: fim_da_falha, languages: {pt_BR: pt_BR}, parameters: [up]}\n"
        "outage: {name: falha, languages: {pt_BR: pt_BR}}\n"
        "survey: {name: pesquisa, languages: {pt_BR: pt_BR}, parameters: [link]}\n", encoding="utf-8")
    _, _, lacking = await findings(FakeCloudApi(), whatsapp_templates=str(partial))
    assert lacking.status is Status.WARN
    assert "no template for staff_answer" in lacking.text and "no template for outage_over" not in lacking.text
    assert "outage is no kind of notice" in lacking.text and "survey.parameters: link" in lacking.text
