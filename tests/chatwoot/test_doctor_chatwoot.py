"""``ispbot doctor``'s Chatwoot checks against the fake: each wrong setting fails naming what to fix,
and no token or secret is ever printed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bot.commands.doctor import diagnose
from bot.desks.chatwoot.intake import PATH
from bot.doctor.chatwoot import chatwoot_findings
from bot.doctor.report import Finding, Status

from tests.chatwoot.conftest import settings_for
from tests.chatwoot.fake_chatwoot import ACCOUNT_ID, INBOX_ID, TEAM_ID, FakeChatwoot


def lines(found: list[Finding]) -> dict[str, list[str]]:
    by_check: dict[str, list[str]] = {}
    for finding in found:
        by_check.setdefault(finding.check, []).append(f"{finding.status.value} {finding.text}")
    return by_check


async def test_all_well(chatwoot: FakeChatwoot) -> None:
    chatwoot.webhook_url = f"https://bot.example.net{PATH}"
    found = await chatwoot_findings(settings_for(chatwoot, team_id=TEAM_ID), 5)
    assert all(f.status is Status.OK for f in found), found
    by_check = lines(found)
    assert by_check["chatwoot"] == [f"ok token accepted: ispbot (user 11, agent of account {ACCOUNT_ID}) at "
                                    f"{chatwoot.url}"]
    assert by_check["chatwoot-inbox"] == [f"ok inbox {INBOX_ID} (ispbot) is an API channel"]
    assert by_check["chatwoot-team"] == [f"ok handoffs are assigned to team {TEAM_ID} (suporte)"]
    printed = "\n".join(f.line() for f in found)
    assert chatwoot.token not in printed and chatwoot.secret not in printed


async def test_a_wrong_token_fails_and_nothing_else_is_asked(chatwoot: FakeChatwoot) -> None:
    found = await chatwoot_findings(settings_for(chatwoot, api_token="wrong-token"), 5)
    assert [f.check for f in found] == ["chatwoot"]
    assert found[0].status is Status.FAIL and "ISPBOT_CHATWOOT_API_TOKEN" in found[0].text
    assert "wrong-token" not in found[0].text


async def test_another_account_fails(chatwoot: FakeChatwoot) -> None:
    found = await chatwoot_findings(settings_for(chatwoot, account_id=99), 5)
    assert found[0].status is Status.FAIL and "ISPBOT_CHATWOOT_ACCOUNT_ID" in found[0].text


async def test_an_inbox_that_is_not_an_api_channel_fails(chatwoot: FakeChatwoot) -> None:
    found = lines(await chatwoot_findings(settings_for(chatwoot, inbox_id=8), 5))
    assert found["chatwoot-inbox"][0].startswith("FAIL inbox 8 (site) is a Channel::WebWidget, not an API channel")


async def test_an_inbox_without_the_webhook_or_with_another_secret_fails(chatwoot: FakeChatwoot) -> None:
    chatwoot.webhook_url = None
    found = lines(await chatwoot_findings(settings_for(chatwoot, webhook_secret="not-the-inbox-secret"), 5))
    [kind, webhook, secret] = found["chatwoot-inbox"]
    assert kind.startswith("ok") and webhook.startswith("FAIL the inbox has no webhook URL")
    assert PATH in webhook
    assert secret.startswith("FAIL ISPBOT_CHATWOOT_WEBHOOK_SECRET is not the inbox's webhook secret")


async def test_a_team_that_does_not_exist_fails(chatwoot: FakeChatwoot) -> None:
    chatwoot.webhook_url = f"https://bot.example.net{PATH}"
    found = lines(await chatwoot_findings(settings_for(chatwoot, team_id=77), 5))
    assert found["chatwoot-team"][0].startswith("FAIL") and "ISPBOT_CHATWOOT_TEAM_ID" in found["chatwoot-team"][0]


async def test_missing_settings_are_named(chatwoot: FakeChatwoot) -> None:
    found = await chatwoot_findings(settings_for(chatwoot, inbox_id=None, api_token=None), 5)
    assert found[0].text == "ISPBOT_STAFF_DESK=chatwoot needs ISPBOT_CHATWOOT_INBOX_ID, ISPBOT_CHATWOOT_API_TOKEN"


async def test_chatwoot_down_fails_naming_its_address(chatwoot: FakeChatwoot) -> None:
    settings = settings_for(chatwoot)
    await chatwoot.stop()
    found = await chatwoot_findings(settings, 5)
    assert found[0].status is Status.FAIL and "did not answer" in found[0].text


async def test_ispbot_doctor_runs_them_with_the_chatwoot_desk(
    chatwoot: FakeChatwoot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's; the default SQLite file lands here
    for name in [n for n in os.environ if n.startswith("ISPBOT_") and n != "ISPBOT_TEST_DATABASE_URL"]:
        monkeypatch.delenv(name)  # no Telegram token, no ISP: only the desk is checked against something
    for name, value in chatwoot.environment(ISPBOT_STAFF_DESK="chatwoot").items():
        monkeypatch.setenv(name, value)
    chatwoot.webhook_url = f"https://bot.example.net{PATH}"
    found = lines(await diagnose(5))
    assert found["chatwoot"][0].startswith("ok token accepted") and found["chatwoot-inbox"][0].startswith("ok")
    monkeypatch.delenv("ISPBOT_CHATWOOT_INBOX_ID")
    found = lines(await diagnose(5))
    assert found["chatwoot"] == ["FAIL ISPBOT_STAFF_DESK=chatwoot needs ISPBOT_CHATWOOT_INBOX_ID"]
