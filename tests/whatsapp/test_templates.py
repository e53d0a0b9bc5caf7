"""Outside the 24-hour window WhatsApp takes only approved templates: each kind of notice goes as its
own template (its name, the person's language, its values in the file's order) when Meta refuses the
plain message with 131047, at once or in a ``failed`` status; a kind with no template is held (a
dead letter) and counted by kind, never sent against the rule. The operator's guide lists every
kind's bodies and the example file names a template for each."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from bot import metrics
from bot.channels.whatsapp.channel import HELD_NEWS
from bot.channels.whatsapp.templates import guide_section, kinds, load_templates, problems
from bot.i18n import default_translations
from bot.sandbox import Sandbox
from bot.store import Database, utcnow
from bot.store.channels import WHATSAPP, ChannelIds
from bot.store.dead_letters import HELD, DeadLetters
from flows.replies import Notice, notice

from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi
from tests.whatsapp.harness import MARIA_WA_ID, RunningWhatsApp, running_whatsapp

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "ops" / "whatsapp-templates.yaml"
SURVEY = "https://pesquisa.provedor.example.com.br/q/abc"
# Amounts as a notice round writes its template values (``flows.notices``: money, in the person's language).
MONEY = {amount: default_translations().money("en", Decimal(amount)) for amount in ("99.90", "103.12")}
# Each kind as the flows send it: the text's key and its variables.
SENT_AS: dict[str, tuple[str, dict[str, Any]]] = {
    "outage_over": ("outages.ended", {"up": datetime(2026, 11, 27, 14, 30)}),
    "technician_on_the_way": ("technician_status.customer_on_the_way", {"ticket": 70001,
                                                                        "subject": "Sem conexão"}),
    "visit_scheduled": ("technician_appointment.customer_visit", {"ticket": 70001,
                                                                  "day": date(2026, 11, 28), "time": time(14, 0)}),
    "visit_done": ("technician_work.visit_done", {"ticket": 70001, "survey": ""}),
    "staff_answer": ("human.from_staff", {"name": "Carla", "text": "Olá!\nJá vejo seu caso."}),
    "ticket_closed": ("human.closed", {"ticket": 70001, "survey": ""}),
    "survey": ("human.closed", {"ticket": 70001, "survey": SURVEY}),
    "back_to_bot": ("human.back_to_bot", {"survey": ""}),
    "queue_position": ("human.waiting", {"ahead": 2, "minutes": 10}),
    "restart_result": ("restart.not_back", {"seconds": 90}),
    "bill_due": ("bills.notice_due", {"value": Decimal("99.90"), "amount": MONEY["99.90"],
                                      "due": date(2026, 12, 2)}),
    "bill_overdue": ("bills.notice_overdue", {"value": Decimal("99.90"), "value_up": Decimal("103.12"),
                                              "amount": MONEY["103.12"], "due": date(2026, 11, 26), "blocked": "1201"}),
    "payment_received": ("bills.notice_paid", {"value": Decimal("99.90"), "amount": MONEY["99.90"],
                                               "due": date(2026, 11, 26)}),
    "outage_started": ("outages.started", {"since": datetime(2026, 11, 27, 9, 30)}),
}


async def _chat_id(bot: RunningWhatsApp, wa_id: str) -> int:
    async with bot.database.transaction() as session:
        return (await ChannelIds().chat_ids(session, WHATSAPP, [wa_id], bot.sandbox.clock()))[wa_id]


def _notice(chat_id: int, kind: str, language: str = "en") -> Notice:
    key, variables = SENT_AS[kind]
    return notice(default_translations(), chat_id, language, kind, key, **variables)


def test_every_kind_is_in_the_example_file_the_guide_and_these_tests() -> None:
    translations = default_translations()
    example = load_templates(EXAMPLE)
    assert set(kinds(translations)) == set(SENT_AS) == set(example)
    assert problems(example, translations) == []
    guide = (ROOT / "docs" / "operator-guide.md").read_text(encoding="utf-8")
    assert guide_section(translations, example) in guide, (
        "the operator's guide's template bodies differ from locales/*/whatsapp_templates.yaml: paste "
        "bot.channels.whatsapp.templates.guide_section(...) there")


async def test_each_kind_goes_as_its_own_template_in_the_persons_language(
    database: Database, sandbox: Sandbox,
) -> None:
    example = load_templates(EXAMPLE)
    async with running_whatsapp(database, sandbox, api=FakeCloudApi(window=True), whatsapp_templates=EXAMPLE) as bot:
        await bot.chat(MARIA_WA_ID).say("oi")  # answered: she wrote, the window is open
        bot.api.inbound_clear(MARIA_WA_ID)  # a day later
        chat_id = await _chat_id(bot, MARIA_WA_ID)
        for count, kind in enumerate(SENT_AS, start=2):
            sent = _notice(chat_id, kind)
            await bot.runtime.processor.send_notices([sent])
            template = (await bot.api.wait_for_sent(MARIA_WA_ID, count))[-1].body["template"]
            assert template["name"] == example[kind].name and template["language"] == {"code": "en"}
            parameters = [p["text"] for p in template.get("components", [{"parameters": []}])[0]["parameters"]]
            assert parameters == [sent.values[name].replace("\n", " · ") for name in example[kind].parameters], kind
        assert bot.api.errors == {131047: len(SENT_AS)}
    by_kind = {kind: [p["text"] for c in s.body["template"].get("components", []) for p in c["parameters"]]
               for kind, s in zip(SENT_AS, bot.api.to(MARIA_WA_ID)[1:], strict=True)}
    assert by_kind["staff_answer"] == ["Carla", "Olá! · Já vejo seu caso."]  # one line, as Meta requires
    assert by_kind["technician_on_the_way"] == ["70001", "Sem conexão"]
    assert by_kind["survey"] == [SURVEY] and by_kind["back_to_bot"] == []
    assert by_kind["visit_scheduled"][:2] == ["70001", "11/28/2026"] and "2:00" in by_kind["visit_scheduled"][2]
    assert "11/27/2026" in by_kind["outage_over"][0] and "2:30" in by_kind["outage_over"][0]
    assert by_kind["bill_due"] == ["R$\u00a099.90", "12/2/2026"]  # the amount as money, as the round writes it
    assert by_kind["bill_overdue"] == ["11/26/2026", "R$\u00a0103.12"]


async def test_a_notice_to_someone_silent_for_24_hours_goes_as_its_template_at_once(
    database: Database, sandbox: Sandbox,
) -> None:
    """The bot knows when each person last wrote (the inbox): a notice to someone who has not written
    in 24 hours goes as its template straight away, not first as a message Meta refuses (131047), a
    request and a slot of the number's throughput lost per notice of a round; to someone who wrote,
    the message as it is."""
    silent = "5511911112222"  # a subscriber who never wrote to this number
    async with running_whatsapp(database, sandbox, api=FakeCloudApi(window=True), whatsapp_templates=EXAMPLE) as bot:
        await bot.chat(MARIA_WA_ID).say("oi")
        maria, other = await _chat_id(bot, MARIA_WA_ID), await _chat_id(bot, silent)
        await bot.runtime.processor.send_notices([_notice(other, "bill_due"), _notice(maria, "bill_due")])
        (template,) = await bot.api.wait_for_sent(silent, 1)
        plain = (await bot.api.wait_for_sent(MARIA_WA_ID, 2))[-1]
        assert template.body["template"]["name"] == "ispbot_bill_due"
        assert plain.type == "text" and "99.90" in plain.text
        assert bot.api.errors == {}


async def test_a_kind_without_a_template_is_held_and_counted_by_kind(
    database: Database, sandbox: Sandbox, tmp_path: Path,
) -> None:
    path = tmp_path / "templates.yaml"
    path.write_text("staff_answer: {name: resposta, languages: {pt_BR: pt_BR}, parameters: [name, text]}\n",
                    encoding="utf-8")
    held = metrics.WHATSAPP_HELD.labels("outage_over")._value.get()
    async with running_whatsapp(database, sandbox, api=FakeCloudApi(window=True), whatsapp_templates=path) as bot:
        await bot.chat(MARIA_WA_ID).say("oi")
        bot.api.inbound_clear(MARIA_WA_ID)
        chat_id = await _chat_id(bot, MARIA_WA_ID)
        await bot.runtime.processor.send_notices([_notice(chat_id, "outage_over", "pt_BR")])
        await bot.channel.drain(5)
        assert len(bot.api.to(MARIA_WA_ID)) == 1  # only the answer while the window was open
        async with database.session() as session:
            (letter,) = await DeadLetters().all(session)
        assert "no template for outage_over" in letter.error and letter.chat_id == chat_id
        assert letter.params["notice"] == "outage_over" and "conexão" in letter.params["body"]["text"]["body"]
        # She writes again: the window is open, the held notice goes first, then the answer; once.
        was_held = letter.params["body"]["text"]["body"]
        answer = await bot.chat(MARIA_WA_ID).say("oi")
        texts = [sent.text for sent in bot.api.to(MARIA_WA_ID)[1:]]
        assert texts[0] == was_held and answer[-1].text == texts[-1] and len(texts) >= 2
        await bot.chat(MARIA_WA_ID).say("oi")
        assert [sent.text for sent in bot.api.to(MARIA_WA_ID)].count(was_held) == 1
        async with database.session() as session:
            assert await DeadLetters().all(session) == []
    assert metrics.WHATSAPP_HELD.labels("outage_over")._value.get() == held + 1


async def test_a_held_message_days_old_is_not_sent_when_the_person_writes(
    database: Database, sandbox: Sandbox,
) -> None:
    """Held longer than ``HELD_NEWS`` (an outage over days ago is no news): left for ``ispbot undelivered``."""
    async with running_whatsapp(database, sandbox, api=FakeCloudApi(window=True)) as bot:
        await bot.chat(MARIA_WA_ID).say("oi")
        chat_id = await _chat_id(bot, MARIA_WA_ID)
        old = _notice(chat_id, "outage_over", "pt_BR")
        async with database.transaction() as session:
            await DeadLetters().add(session, chat_id, "whatsapp.text", {
                "chat_id": chat_id, "kind": "message", "body": {"type": "text", "text": {"body": old.reply.text}},
                "to": MARIA_WA_ID, "notice": "outage_over", "template": None,
            }, error=f"{HELD} outside the 24-hour window", now=utcnow() - HELD_NEWS - timedelta(hours=1))
        await bot.chat(MARIA_WA_ID).say("oi")
        assert old.reply.text not in [sent.text for sent in bot.api.to(MARIA_WA_ID)]
        async with database.session() as session:
            assert len(await DeadLetters().all(session)) == 1


async def test_a_failed_status_outside_the_window_sends_the_kinds_template(
    database: Database, sandbox: Sandbox,
) -> None:
    """Meta may take the message and say only in its status that the window had closed (131047)."""
    async with running_whatsapp(database, sandbox, whatsapp_templates=EXAMPLE) as bot:
        await bot.chat(MARIA_WA_ID).say("oi")
        chat_id = await _chat_id(bot, MARIA_WA_ID)
        await bot.runtime.processor.send_notices([_notice(chat_id, "staff_answer", "pt_BR")])
        plain = (await bot.api.wait_for_sent(MARIA_WA_ID, 2))[-1]
        assert plain.type == "text" and "Carla" in plain.text
        await bot.post(wa.post(statuses=[wa.status(plain.wamid, MARIA_WA_ID, "failed", code=131047,
                                                   title="Re-engagement message")]))
        template = (await bot.api.wait_for_sent(MARIA_WA_ID, 3))[-1].body["template"]
        assert template["name"] == "ispbot_staff_answer" and template["language"] == {"code": "pt_BR"}
        async with database.session() as session:
            assert await DeadLetters().all(session) == []


@pytest.mark.parametrize(("text", "problem"), [
    ("outage_over: {languages: {pt_BR: pt_BR}}", "outage_over.name"),
    ("outage_over: {name: Aviso Geral, languages: {pt_BR: pt_BR}}", "outage_over.name"),
    ("outage_over: {name: aviso}", "outage_over.languages"),
    ("outage_over: {name: aviso, languages: {pt_BR: pt_BR}, parameters: up}", "outage_over.parameters"),
    ("[1, 2", "cannot read"),
])
def test_a_wrong_templates_file_is_named(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "templates.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=problem):
        load_templates(path)
