"""The operator's view of a running bot: one log line per update (the chat hashed, where the
conversation stands, how long it took, how many ISP calls it made) and the Prometheus metrics of
ISP calls, conversation steps, the circuit breaker and the handoffs."""

from __future__ import annotations

import json
import logging

import httpx
import pytest
from bot.logs import JsonFormatter, RedactSecrets, chat_ref
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.store import Database, Handoffs
from bot.store.models import HandoffRow
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, running_bot
from tests.telegram.test_health_metrics import sample

CHAT = 987_654


def update_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    """The per-update records, as the production formatter and filter print them."""
    formatter, redact = JsonFormatter(), RedactSecrets()
    lines = []
    for record in caplog.records:
        if record.name == "bot.updates":
            redact.filter(record)
            lines.append(json.loads(formatter.format(record)))
    return lines


async def test_each_update_logs_one_line_with_the_chat_hashed_and_the_isp_calls_made(
    database: Database, sandbox: Sandbox, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.updates")
    async with running_bot(database, sandbox) as bot:
        await bot.maria(CHAT)

    lines = update_lines(caplog)
    assert [(line["kind"], line["outcome"]) for line in lines] == [
        ("start", "answered"), ("choice", "answered"), ("text", "answered"), ("contact", "answered")]
    for line in lines:
        assert line["chat"] == chat_ref(CHAT)
        assert str(CHAT) not in json.dumps(line)
        assert isinstance(line["latency_ms"], float) and line["latency_ms"] >= 0
        assert isinstance(line["update_id"], int) and line["msg"] == "update handled"
        assert line["level"] == "INFO" and "error" not in line
    start, choice, cpf, contact = lines
    assert start["isp_calls"] == 0  # the greeting needs nothing from the ISP
    assert (choice["flow"], cpf["flow"]) == ("link", "link")  # asking for the number, in the link flow
    assert cpf["step"] is not None and cpf["step"] != choice["step"]
    assert cpf["isp_calls"] >= 1  # the CPF was looked up
    assert contact["isp_calls"] >= 1  # the phone was checked against the customer's
    assert contact["flow"] != "link"  # linked: on to the menu
    assert D.customer_cpf not in json.dumps(lines) and "98765" not in json.dumps(lines)


async def test_an_update_that_fails_logs_its_line_at_error_with_the_exceptions_name(
    database: Database, sandbox: Sandbox, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.updates")
    async with running_bot(database, sandbox) as bot:
        async def broken(*args: object, **kwargs: object) -> object:
            raise ConnectionResetError("the database went away")

        monkeypatch.setattr(bot.processor, "_turn", broken)
        bot.api.push_update(tg.text_message(CHAT, "oi"))
        await bot.api.wait_until(lambda: any(r.name == "bot.updates" for r in caplog.records), within=5)
    failed = update_lines(caplog)[0]
    assert (failed["level"], failed["outcome"], failed["error"]) == ("ERROR", "error", "ConnectionResetError")
    assert failed["chat"] == chat_ref(CHAT) and failed["kind"] == "text"
    assert "went away" not in json.dumps(failed)  # the class, not the message (it may quote a person)


# ---- metrics -------------------------------------------------------------------------------------

async def scrape(bot: RunningBot) -> str:
    transport = httpx.ASGITransport(app=bot.runtime.web_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://bot.test") as web:
        response = await web.get("/metrics")
    assert response.status_code == 200
    return response.text


async def test_isp_calls_steps_and_the_circuit_show_in_metrics_after_a_turn(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        before = await scrape(bot)
        chat = bot.chat(CHAT)
        await chat.start()
        await chat.tap("CPF/CNPJ")
        await chat.say(D.customer_cpf)
        after = await scrape(bot)

    def delta(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    assert delta("ispbot_isp_calls_total", operation="ConsultaClientes", outcome="ok") >= 1
    assert delta("ispbot_isp_call_seconds_count", operation="ConsultaClientes") >= 1
    assert delta("ispbot_isp_call_seconds_count") == delta("ispbot_isp_calls_total")  # every call was sent
    assert delta("ispbot_step_seconds_count", flow="link") >= 2  # the choice and the CPF
    assert delta("ispbot_step_seconds_count") == 3  # one per turn of the engine
    assert sample(after, "ispbot_isp_circuit_state", state="closed") == 1
    assert sample(after, "ispbot_isp_circuit_state", state="open") == 0
    assert sample(after, "ispbot_isp_circuit_state", state="half_open") == 0
    for family in text_string_to_metric_families(after):
        for found in family.samples:
            values = set(found.labels.values())
            assert str(CHAT) not in values and D.customer_cpf not in values, found


async def test_open_handoffs_are_a_gauge(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox, staff_chat_id=tg.STAFF_GROUP_ID) as bot:
        await bot.runtime.housekeeping.refresh_metrics()
        assert sample(await scrape(bot), "ispbot_handoffs_open") == 0
        maria = await bot.maria(8301)
        await maria.say("/atendente")
        assert "Chamei uma pessoa" in maria.text
        await bot.runtime.housekeeping.refresh_metrics()
        assert sample(await scrape(bot), "ispbot_handoffs_open") == 1
        assert sample(await scrape(bot), "ispbot_desk_jobs", state="done") == 2  # the topic and its card
        assert sample(await scrape(bot), "ispbot_desk_jobs", state="dead") == 0

        async with bot.app.database.transaction() as session:
            row = (await session.execute(select(HandoffRow).where(HandoffRow.chat_id == 8301))).scalar_one()
            assert await Handoffs().close(session, row.id)
        await bot.runtime.housekeeping.refresh_metrics()
        assert sample(await scrape(bot), "ispbot_handoffs_open") == 0
