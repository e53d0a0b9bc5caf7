"""Outside the 24-hour window WhatsApp takes only approved templates: a notice Meta refuses with
131047 goes again as the operator's template; without one it is held and counted, never sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from bot import metrics
from bot.channels.whatsapp.templates import load_templates
from bot.sandbox import Sandbox
from bot.store import Database
from bot.store.channels import WHATSAPP, ChannelIds
from bot.store.dead_letters import DeadLetters
from flows.replies import Message, Notice

from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import MARIA_WA_ID, RunningWhatsApp, running_whatsapp

TEMPLATES = """\
notice:
  name: aviso_atendimento
  languages: {pt_BR: pt_BR, en: en_US, es: es}
"""


async def _chat_id(bot: RunningWhatsApp, wa_id: str) -> int:
    async with bot.database.transaction() as session:
        return (await ChannelIds().chat_ids(session, WHATSAPP, [wa_id], bot.sandbox.clock()))[wa_id]


async def test_a_notice_outside_the_window_goes_as_the_template(
    database: Database, sandbox: Sandbox, tmp_path: Path,
) -> None:
    path = tmp_path / "templates.yaml"
    path.write_text(TEMPLATES, encoding="utf-8")
    async with running_whatsapp(database, sandbox, api=FakeCloudApi(window=True), whatsapp_templates=path) as bot:
        await bot.chat(MARIA_WA_ID).say("oi")  # answered: she wrote, the window is open
        bot.api.inbound_clear(MARIA_WA_ID)  # a day later
        chat_id = await _chat_id(bot, MARIA_WA_ID)
        notice = Notice(chat_id, Message("✅ A conexão voltou.\nObrigado pela paciência."))
        await bot.runtime.processor.send_notices([notice])
        sent = await bot.api.wait_for_sent(MARIA_WA_ID, 2)
        template = sent[-1].body["template"]
        assert template["name"] == "aviso_atendimento" and template["language"] == {"code": "pt_BR"}
        (parameter,) = template["components"][0]["parameters"]
        assert parameter["text"] == "✅ A conexão voltou. · Obrigado pela paciência."
        assert bot.api.errors == {131047: 1}


async def test_without_a_template_the_notice_is_held_and_counted(database: Database, sandbox: Sandbox) -> None:
    held = metrics.WHATSAPP_HELD._value.get()
    async with running_whatsapp(database, sandbox, api=FakeCloudApi(window=True)) as bot:
        await bot.chat(MARIA_WA_ID).say("oi")
        bot.api.inbound_clear(MARIA_WA_ID)
        chat_id = await _chat_id(bot, MARIA_WA_ID)
        await bot.runtime.processor.send_notices([Notice(chat_id, Message("A conexão voltou."))])
        await bot.channel.drain(5)
        assert len(bot.api.to(MARIA_WA_ID)) == 1  # only the answer while the window was open
        async with database.session() as session:
            (letter,) = await DeadLetters().all(session)
        assert "outside the 24-hour window" in letter.error and letter.chat_id == chat_id
    assert metrics.WHATSAPP_HELD._value.get() == held + 1


@pytest.mark.parametrize(("text", "problem"), [
    ("notice: {languages: {pt_BR: pt_BR}}", "notice.name"),
    ("notice: {name: Aviso Geral, languages: {pt_BR: pt_BR}}", "notice.name"),
    ("notice: {name: aviso}", "notice.languages"),
    ("outage: {name: aviso, languages: {pt_BR: pt_BR}}", "no 'notice' template"),
    ("[1, 2", "cannot read"),
])
def test_a_wrong_templates_file_is_named(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "templates.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=problem):
        load_templates(path)
