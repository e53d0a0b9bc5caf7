"""``GET /healthz`` and ``GET /metrics`` of the running bot, as an orchestrator and Prometheus see them."""

from __future__ import annotations

import httpx
from bot.sandbox import Sandbox
from bot.store import Database
from prometheus_client.parser import text_string_to_metric_families

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, running_bot
from tests.telegram.test_webhook import numbered, unreachable, webhook_bot


def sample(exposition: str, name: str, **labels: str) -> float:
    """The sum of the samples called ``name`` whose labels include ``labels`` (0 when none)."""
    return sum(
        found.value
        for family in text_string_to_metric_families(exposition)
        for found in family.samples
        if found.name == name and all(found.labels.get(key) == value for key, value in labels.items())
    )


async def scrape(bot: RunningBot) -> str:
    assert bot.web is not None
    response = await bot.web.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")  # the text format
    return response.text


async def test_healthz_is_200_when_the_database_and_the_isp_answer(database: Database, sandbox: Sandbox) -> None:
    async with webhook_bot(database, sandbox) as bot:
        assert bot.web is not None
        response = await bot.web.get("/healthz")
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        assert response.json() == {"database": "ok", "isp": "ok"}


async def test_healthz_is_503_naming_the_isp_while_it_is_down(database: Database, sandbox: Sandbox) -> None:
    async with webhook_bot(database, sandbox) as bot:
        assert bot.web is not None
        sandbox.faults.go_down()
        response = await bot.web.get("/healthz")
        assert response.status_code == 503
        report = response.json()
        assert report["database"] == "ok"
        assert report["isp"].startswith("unreachable")
        # A failure is not remembered: once the ISP is back, the next look says so.
        sandbox.faults.come_back()
        response = await bot.web.get("/healthz")
        assert (response.status_code, response.json()) == (200, {"database": "ok", "isp": "ok"})


async def test_healthz_is_503_naming_the_database_while_it_is_unreachable(
    database: Database, sandbox: Sandbox,
) -> None:
    async with webhook_bot(database, sandbox) as bot:
        assert bot.web is not None
        async with unreachable(database):
            response = await bot.web.get("/healthz")
        assert response.status_code == 503
        report = response.json()
        assert report["isp"] == "ok"
        assert report["database"].startswith("unreachable")
        assert "127.0.0.1" not in report["database"] and "/" not in report["database"]  # no address, no path
        response = await bot.web.get("/healthz")
        assert (response.status_code, response.json()) == (200, {"database": "ok", "isp": "ok"})


async def test_metrics_count_updates_received_and_processed(database: Database, sandbox: Sandbox) -> None:
    async with webhook_bot(database, sandbox) as bot:
        before = await scrape(bot)
        update = numbered(500, tg.start(7501))
        assert (await bot.post(update)).status_code == 200
        await bot.handled(500)
        assert (await bot.post(update)).status_code == 200  # Telegram's redelivery
        after = await scrape(bot)

    def delta(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    assert delta("ispbot_inbox_received_total", mode="webhook", result="new") == 1
    assert delta("ispbot_inbox_received_total", mode="webhook", result="duplicate") == 1
    assert delta("ispbot_updates_total", outcome="answered") == 1
    assert delta("ispbot_updates_total") == 1  # processed once, whatever the kind
    assert delta("ispbot_update_seconds_count") == 1
    # Labels are closed vocabularies: no chat id or update id ever becomes a label value.
    for family in text_string_to_metric_families(after):
        for found in family.samples:
            assert not {"7501", "500"} & set(found.labels.values()), found


async def test_a_polling_bot_serves_healthz_and_metrics_but_no_webhook(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox) as bot:
        transport = httpx.ASGITransport(app=bot.channel.web_app())
        async with httpx.AsyncClient(transport=transport, base_url="http://bot.test") as web:
            health = await web.get("/healthz")
            assert (health.status_code, health.json()) == (200, {"database": "ok", "isp": "ok"})
            assert "ispbot_inbox_received_total" in (await web.get("/metrics")).text
            posted = await web.post(bot.settings.webhook_path, json=numbered(1, tg.start(7601)))
            assert posted.status_code == 404
