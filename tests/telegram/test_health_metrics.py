"""``/livez``, ``/readyz``, ``/healthz`` and ``/metrics`` of the running bot, as an orchestrator and
Prometheus see them."""

from __future__ import annotations

import httpx
from bot.sandbox import Sandbox
from bot.store import Database
from bot.store.migrate import head_revision
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text

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


async def probe(bot: RunningBot) -> dict[str, tuple[int, object]]:
    """Each health endpoint's status code and body."""
    assert bot.web is not None
    found: dict[str, tuple[int, object]] = {}
    for path in ("/livez", "/readyz", "/healthz"):
        response = await bot.web.get(path)
        found[path] = (response.status_code, response.json() if path != "/livez" else response.text)
    return found


async def test_an_isp_outage_is_reported_but_keeps_the_bot_live_and_ready(database: Database, sandbox: Sandbox) -> None:
    async with webhook_bot(database, sandbox) as bot:
        sandbox.faults.go_down()
        found = await probe(bot)
        assert found["/livez"] == (200, "ok")
        assert found["/readyz"] == (200, {"database": "ok"})
        status, report = found["/healthz"]
        assert status == 200  # an orchestrator keeps the bot: subscribers write in during an outage
        assert isinstance(report, dict) and report["database"] == "ok"
        assert report["isp"].startswith("unreachable")
        # A failure is not remembered: once the ISP is back, the next look says so.
        sandbox.faults.come_back()
        assert (await probe(bot))["/healthz"] == (200, {"database": "ok", "isp": "ok"})


async def test_an_unreachable_database_makes_the_bot_unready_but_not_dead(
    database: Database, sandbox: Sandbox,
) -> None:
    async with webhook_bot(database, sandbox) as bot:
        async with unreachable(database):
            found = await probe(bot)
        assert found["/livez"] == (200, "ok")  # restarting would not bring the database back
        assert found["/readyz"][0] == 503 and found["/healthz"][0] == 503
        report = found["/healthz"][1]
        assert isinstance(report, dict) and report["isp"] == "ok"
        assert report["database"].startswith("unreachable")
        assert "127.0.0.1" not in report["database"] and "/" not in report["database"]  # no address, no path
        assert found["/readyz"][1] == {"database": report["database"]}
        assert (await probe(bot))["/healthz"] == (200, {"database": "ok", "isp": "ok"})


async def test_a_database_behind_this_versions_migrations_is_not_ready(database: Database, sandbox: Sandbox) -> None:
    async with webhook_bot(database, sandbox) as bot:
        async with database.engine.begin() as connection:
            await connection.execute(text("UPDATE alembic_version SET version_num = '0001'"))
        status, report = (await probe(bot))["/readyz"]
        assert status == 503
        assert report == {"database": f"schema at revision 0001 but this ispbot needs {head_revision()}"}
        assert (await probe(bot))["/livez"] == (200, "ok")


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
        transport = httpx.ASGITransport(app=bot.runtime.web_app())
        async with httpx.AsyncClient(transport=transport, base_url="http://bot.test") as web:
            health = await web.get("/healthz")
            assert (health.status_code, health.json()) == (200, {"database": "ok", "isp": "ok"})
            assert "ispbot_inbox_received_total" in (await web.get("/metrics")).text
            posted = await web.post(bot.settings.webhook_path, json=numbered(1, tg.start(7601)))
            assert posted.status_code == 404
