"""``ispbot undelivered`` lists and sends again WhatsApp's dead letters, as Telegram's: a message
Meta said ``failed`` for, and a notice held outside the 24-hour window. Sent again outside the window
a notice goes as its kind's template; one with no template stays held, said so, until the person
writes again."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from bot.channels.whatsapp.render import WaCall
from bot.channels.whatsapp.undelivered import resend
from bot.cli import build_parser
from bot.commands import undelivered as undelivered_cli
from bot.commands.support import run_action
from bot.i18n import default_translations
from bot.sandbox import Sandbox
from bot.store import Inbox, utcnow
from bot.store.channels import UPDATE_BASE, WHATSAPP, ChannelIds
from bot.store.dead_letters import DeadLetters
from flows.replies import notice

from tests.store.dbtools import ScratchDatabase
from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import MARIA_WA_ID, running_whatsapp, whatsapp_settings

TEMPLATES = "staff_answer: {name: resposta_equipe, languages: {pt_BR: pt_BR}, parameters: [name, text]}\n"



async def ispbot(*argv: str) -> int:
    return await run_action(undelivered_cli.PROG, build_parser().parse_args(list(argv)))


async def test_whatsapp_dead_letters_are_listed_and_sent_again_as_templates_or_kept_held(
    on: ScratchDatabase, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    templates = tmp_path / "templates.yaml"
    templates.write_text(TEMPLATES, encoding="utf-8")
    api = FakeCloudApi(window=True)
    async with api.serving() as url, running_whatsapp(on, sandbox, api=api, whatsapp_templates=templates) as bot:
        for name, value in (("TOKEN", api.token), ("PHONE_NUMBER_ID", api.phone_number_id),
                            ("APP_SECRET", api.app_secret), ("VERIFY_TOKEN", wa.VERIFY_TOKEN),
                            ("API_URL", url), ("API_VERSION", wa.VERSION), ("TEMPLATES", str(templates))):
            monkeypatch.setenv(f"ISPBOT_WHATSAPP_{name}", value)
        await bot.chat(MARIA_WA_ID).say("oi")
        async with on.transaction() as session:
            chat_id = (await ChannelIds().chat_ids(session, WHATSAPP, [MARIA_WA_ID], sandbox.clock()))[MARIA_WA_ID]
        texts = default_translations()
        answer = notice(texts, chat_id, "pt_BR", "staff_answer", "human.from_staff", name="Carla", text="Já vejo.")
        await bot.runtime.processor.send_notices([answer])  # taken, then said failed (Meta's own trouble)
        plain = (await api.wait_for_sent(MARIA_WA_ID, 2))[-1]
        await bot.post(wa.post(statuses=[wa.status(plain.wamid, MARIA_WA_ID, "failed", code=131026,
                                                   title="Message undeliverable")]))
        api.inbound_clear(MARIA_WA_ID)  # a day later the outage ends: no template for it, held
        over = notice(texts, chat_id, "pt_BR", "outage_over", "outages.ended", up=None)
        await bot.runtime.processor.send_notices([over])
        await bot.channel.drain(5)
        async with on.session() as session:
            failed, held = await DeadLetters().all(session)
        assert failed.method == held.method == "whatsapp.text"
        assert "131026" in failed.error and "no template for outage_over" in held.error

        assert await ispbot("undelivered", "list") == 0
        listed = capsys.readouterr().out
        assert "2 dead letters" in listed and str(chat_id) in listed and "Já vejo" not in listed

        assert await ispbot("undelivered", "resend") == 0  # the window still closed
        said = capsys.readouterr().out
        assert f"dead letter {failed.id}: outside the 24-hour window: sent as the staff_answer template" in said
        assert f"dead letter {held.id}: outside the 24-hour window and no template for outage_over: kept" in said
        assert "1 sent" in said and "1 kept" in said
        template = api.to(MARIA_WA_ID)[-1].body["template"]
        parameters = [p["text"] for p in template["components"][0]["parameters"]]
        assert template["name"] == "resposta_equipe" and parameters == ["Carla", "Já vejo."]

        api.inbound(MARIA_WA_ID)  # she wrote again: the window is open
        assert await ispbot("undelivered", "resend", "--id", str(held.id)) == 0
        assert "1 sent" in capsys.readouterr().out
        assert "falha na rede" in api.to(MARIA_WA_ID)[-1].text
        assert await ispbot("undelivered", "list") == 0
        assert "No dead letters" in capsys.readouterr().out


@pytest.mark.parametrize("template", [True, False])
async def test_a_letter_failed_outside_the_window_is_not_sent_plain_until_the_person_writes(
    database: ScratchDatabase, tmp_path: Path, template: bool,
) -> None:
    """Meta takes a plain message outside the window and only later says ``failed`` (131047): the
    resend reads the window itself, from when the person last wrote, and sends the notice's template
    or keeps the letter until the person writes again."""
    api = FakeCloudApi()  # takes every message, as Meta does before its ``failed`` status
    settings = whatsapp_settings(api)
    now = utcnow()
    async with database.transaction() as session:
        chat_id = (await ChannelIds().chat_ids(session, WHATSAPP, [MARIA_WA_ID], now))[MARIA_WA_ID]
        await Inbox().store(session, UPDATE_BASE + 1, chat_id, {"type": "text"}, now - timedelta(hours=30),
                            channel=WHATSAPP)  # she last wrote 30 hours ago
        kept = {"type": "template", "template": {"name": "resposta_equipe", "language": {"code": "pt_BR"}}}
        call = WaCall(chat_id, "message", {"type": "text", "text": {"body": "Já vejo."}}, MARIA_WA_ID, "staff_answer",
                      kept if template else None)
        await DeadLetters().add(session, chat_id, call.method, {**call.as_json(), "wamid": "wamid.OUT1"},
                                error="code 131047: Re-engagement message", now=now)
    said: list[str] = []
    transport = httpx.ASGITransport(app=api.app)
    async with database.session() as session:
        letters = await DeadLetters().all(session)
    sent, forgotten, stopped = await resend(settings, database, letters, said.append, transport=transport)
    assert stopped is None and forgotten == []
    if template:
        assert [s.type for s in api.sent] == ["template"] and sent == letters
        assert "sent as the staff_answer template" in said[0]
        return
    assert api.sent == [] and sent == [] and "kept until the person writes again" in said[0]
    async with database.transaction() as session:  # she writes: the window is open again
        await Inbox().store(session, UPDATE_BASE + 2, chat_id, {"type": "text"}, utcnow(), channel=WHATSAPP)
    sent, _, _ = await resend(settings, database, letters, said.append, transport=transport)
    assert sent == letters and [s.text for s in api.sent] == ["Já vejo."]
