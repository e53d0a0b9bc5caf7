"""ISP call metrics and the circuit breaker's state, as Prometheus scrapes them (``bot.metrics``)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from bot import metrics
from bot.isp import CircuitOpenError, IspClient, IspSettings, IspTransportError
from bot.sandbox import PRODUCTION_KEY, FixedClock, Sandbox

from tests.telegram.test_health_metrics import sample


def scrape() -> str:
    return metrics.exposition().decode()


@pytest.fixture
async def watched() -> tuple[IspClient, Sandbox]:
    sandbox = Sandbox.seeded(clock=FixedClock())
    client = IspClient(
        IspSettings(base_url="http://127.0.0.1", key=PRODUCTION_KEY, retries=0, breaker_threshold=1,
                    breaker_reset=3600),
        http_transport=httpx.ASGITransport(app=sandbox.app),
    )
    metrics.watch_isp(client)
    return client, sandbox


async def test_calls_are_counted_by_operation_and_outcome_and_timed(watched: tuple[IspClient, Sandbox]) -> None:
    client, sandbox = watched
    before = scrape()
    tally = metrics.count_isp_calls()
    await client.ConsultaTopicos()
    sandbox.faults.go_down()
    with pytest.raises(IspTransportError) as failed:
        await client.ConsultaTopicos()
    with pytest.raises(CircuitOpenError):
        await client.ConsultaTopicos()
    after = scrape()

    def delta(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    assert delta("ispbot_isp_calls_total", operation="ConsultaTopicos", outcome="ok") == 1
    assert delta("ispbot_isp_calls_total", operation="ConsultaTopicos", outcome=type(failed.value).__name__) == 1
    assert delta("ispbot_isp_calls_total", operation="ConsultaTopicos", outcome="CircuitOpenError") == 1
    # Two requests were sent (timed, and counted for the update); the open circuit sent none.
    assert delta("ispbot_isp_call_seconds_count", operation="ConsultaTopicos") == 2
    assert tally.calls == 2
    await client.aclose()


async def test_the_circuit_state_is_read_at_each_scrape(watched: tuple[IspClient, Sandbox]) -> None:
    client, sandbox = watched
    assert sample(scrape(), "ispbot_isp_circuit_state", state="closed") == 1
    sandbox.faults.go_down()
    with pytest.raises(IspTransportError):
        await client.ConsultaTopicos()
    exposition = scrape()
    assert sample(exposition, "ispbot_isp_circuit_state", state="open") == 1
    assert sample(exposition, "ispbot_isp_circuit_state", state="closed") == 0
    await client.aclose()


async def test_calls_of_other_tasks_are_not_counted_for_this_update(watched: tuple[IspClient, Sandbox]) -> None:
    client, _ = watched
    outside = metrics.count_isp_calls()

    async def one_update() -> int:
        tally = metrics.count_isp_calls()
        await client.ConsultaTopicos()
        await client.ConsultaUsuarios()
        return tally.calls

    assert await asyncio.create_task(one_update()) == 2
    assert outside.calls == 0
    await client.aclose()
