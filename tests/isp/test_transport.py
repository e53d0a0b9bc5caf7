"""Where the key goes, retries for reads only, the circuit breaker, the concurrency bound,
single-flight and the TTL cache."""

from __future__ import annotations

import asyncio
from datetime import datetime
from zoneinfo import ZoneInfo

import httpx
import pytest
from bot.isp import CircuitOpenError, F, IspHttpError, IspSettings, IspTimeout, IspUnreachable
from bot.isp.catalog import OPERATIONS
from bot.isp.errors import Generation
from bot.isp.resilience import CircuitBreaker, CircuitState, TtlCache
from bot.isp.transport import KEEP_IDLE, Transport
from pydantic import ValidationError

from tests.isp.samples_v1 import SAMPLES as V1
from tests.isp.samples_v2 import SAMPLES as V2
from tests.isp.standin import KEY, StandIn, v1_ok, v2_ok


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_v1_key_travels_in_the_body_and_v2_in_the_header(standin: StandIn) -> None:
    standin.answer("ConsultaTopicos", v1_ok([]))
    standin.answer("ticket_update", v2_ok("ok"))
    async with standin.client() as client:
        await client.ConsultaTopicos(F("Central") == "S")
        await client.call(OPERATIONS["ticket_update"], V2["ticket_update"].request)
    v1, v2 = standin.seen
    assert v1.path == "/ws/server_json.php"
    assert v1.body == {"ConsultaTopicos": {"Autenticacao": {"ChaveIntegracao": KEY}, "Filtro": "Central = 'S'"}}
    assert "authentication_key" not in v1.headers
    assert v2.path == "/ws_json/ws_json.php"
    assert v2.headers["authentication_key"] == KEY
    assert KEY not in str(v2.body)
    assert list(v2.body) == ["ticket_update"]


async def test_paths_are_settings(standin: StandIn) -> None:
    standin.answer("*", v1_ok([]))
    async with standin.client(v1_path="/routerbox/ws/rbx_server_json.php") as client:
        await client.ConsultaTopicos()
    assert standin.seen[0].path == "/routerbox/ws/rbx_server_json.php"


async def test_queries_are_retried_on_transient_failures(standin: StandIn) -> None:
    standin.answer("ConsultaTopicos", {"boom": 1}, status=502)
    standin.fail_with("ConsultaTopicos", httpx.ConnectTimeout("slow"))
    standin.answer("ConsultaTopicos", v1_ok([{"Codigo": "1"}]))
    async with standin.client(retries=2) as client:
        topics = await client.ConsultaTopicos()
    assert [t.Codigo for t in topics] == [1]
    assert standin.calls("ConsultaTopicos") == 3


async def test_queries_give_up_after_the_configured_retries(standin: StandIn) -> None:
    standin.answer("ConsultaTopicos", {"boom": 1}, status=500)
    async with standin.client(retries=1) as client:
        with pytest.raises(IspHttpError) as caught:
            await client.ConsultaTopicos()
    assert caught.value.status_code == 500
    assert standin.calls("ConsultaTopicos") == 2


@pytest.mark.parametrize("name", ["AtendimentoCadastro", "ticket_finish", "chat_messages"])
async def test_writes_are_never_retried_blindly(standin: StandIn, name: str) -> None:
    standin.answer(name, {"boom": 1}, status=503)
    async with standin.client(retries=3) as client:
        with pytest.raises(IspHttpError):
            await client.call(OPERATIONS[name], (V1 | V2)[name].request)
    assert standin.calls(name) == 1


async def test_a_timed_out_write_has_an_unknown_outcome(standin: StandIn) -> None:
    standin.fail_with("AtendimentoCadastro", httpx.ReadTimeout("slow"))
    async with standin.client() as client:
        with pytest.raises(IspTimeout) as caught:
            await client.call(OPERATIONS["AtendimentoCadastro"], V1["AtendimentoCadastro"].request)
    assert caught.value.outcome_unknown
    assert caught.value.operation == "AtendimentoCadastro"
    assert standin.calls("AtendimentoCadastro") == 1


async def test_refused_connection_is_unreachable(standin: StandIn) -> None:
    standin.fail_with("ConsultaTopicos", httpx.ConnectError("refused"))
    async with standin.client(retries=0) as client:
        with pytest.raises(IspUnreachable) as caught:
            await client.ConsultaTopicos()
    assert "127.0.0.1" in str(caught.value)


async def test_circuit_opens_fails_fast_and_recovers() -> None:
    clock = FakeClock()
    standin = StandIn()
    standin.answer("ConsultaTopicos", {"boom": 1}, status=500)
    client = standin.client(retries=0, breaker_threshold=3, breaker_reset=30)
    client.transport.breaker = CircuitBreaker(threshold=3, reset_after=30, clock=clock)
    for _ in range(3):
        with pytest.raises(IspHttpError):
            await client.ConsultaTopicos()
    assert client.transport.breaker.state is CircuitState.OPEN
    with pytest.raises(CircuitOpenError):
        await client.ConsultaTopicos()
    assert standin.calls("ConsultaTopicos") == 3  # failing fast sends nothing

    clock.now += 31  # half open: one trial goes through, fails, re-opens
    with pytest.raises(IspHttpError):
        await client.ConsultaTopicos()
    assert client.transport.breaker.state is CircuitState.OPEN
    assert standin.calls("ConsultaTopicos") == 4

    clock.now += 31
    standin.answers["ConsultaTopicos"].clear()
    standin.answer("ConsultaTopicos", v1_ok([]))
    assert await client.ConsultaTopicos() == []
    assert client.transport.breaker.state is CircuitState.CLOSED
    await client.aclose()


async def test_isp_errors_do_not_open_the_circuit(standin: StandIn) -> None:
    standin.answer("ticket_update", {"status": 0, "error_code": 13, "error_description": "closed", "result": ""})
    async with standin.client(breaker_threshold=2) as client:
        for _ in range(5):
            with pytest.raises(Exception, match="code 13"):
                await client.call(OPERATIONS["ticket_update"], V2["ticket_update"].request)
        assert client.transport.breaker.state is CircuitState.CLOSED


async def test_concurrent_calls_are_bounded(standin: StandIn) -> None:
    standin.delay = 0.01
    standin.answer("ticket_update", v2_ok("ok"))
    async with standin.client(max_concurrency=3) as client:
        request = V2["ticket_update"].request
        await asyncio.gather(*(client.call(OPERATIONS["ticket_update"], request) for _ in range(12)))
    assert standin.calls("ticket_update") == 12
    assert standin.max_in_flight == 3


async def test_identical_queries_in_flight_are_sent_once(standin: StandIn) -> None:
    standin.delay = 0.01
    standin.answer("ConsultaTopicos", v1_ok([{"Codigo": "1"}]))
    async with standin.client() as client:
        same = [client.ConsultaTopicos(F("Central") == "S") for _ in range(20)]
        other = client.ConsultaTopicos(F("Central") == "N")
        results = await asyncio.gather(*same, other)
    assert all(r[0].Codigo == 1 for r in results)
    assert standin.calls("ConsultaTopicos") == 2


async def test_identical_writes_are_each_sent(standin: StandIn) -> None:
    standin.delay = 0.01
    standin.answer("ticket_update", v2_ok("ok"))
    async with standin.client() as client:
        request = V2["ticket_update"].request
        await asyncio.gather(*(client.call(OPERATIONS["ticket_update"], request) for _ in range(5)))
    assert standin.calls("ticket_update") == 5


async def test_ttl_cache_loads_once_until_it_expires() -> None:
    clock = FakeClock()
    cache: TtlCache[list[int]] = TtlCache(60, clock=clock)
    loads = 0

    async def load() -> list[int]:
        nonlocal loads
        loads += 1
        await asyncio.sleep(0)
        return [loads]

    values = await asyncio.gather(*(cache.get_or_load("topics", load) for _ in range(10)))
    assert values == [[1]] * 10 and loads == 1
    clock.now += 59
    assert await cache.get_or_load("topics", load) == [1]
    clock.now += 2
    assert await cache.get_or_load("topics", load) == [2]


async def test_dates_are_sent_in_the_isp_time_zone(standin: StandIn) -> None:
    standin.answer("ticket_finish", v2_ok({"messages": [{"message": "ok"}], "new_tickets": []}))
    request = V2["ticket_finish"].request.model_copy(
        update={"datetime": datetime(2026, 11, 22, 15, 0, tzinfo=ZoneInfo("UTC"))})
    async with standin.client(timezone="America/Sao_Paulo") as client:
        await client.call(OPERATIONS["ticket_finish"], request)
    assert standin.seen[0].body["ticket_finish"]["datetime"] == "2026-11-22 12:00:00"


@pytest.mark.parametrize("url", ["http://erp.example.net", "ftp://erp.example.net", "erp.example.net"])
def test_plain_http_only_for_loopback(url: str) -> None:
    with pytest.raises(ValidationError, match="base_url"):
        IspSettings(base_url=url, key="k")


@pytest.mark.parametrize("url", ["https://erp.example.net/", "http://127.0.0.1:8077", "http://localhost",
                                 "http://[::1]:9000"])
def test_accepted_base_urls(url: str) -> None:
    assert IspSettings(base_url=url, key="k").v1_url.endswith("/ws/server_json.php")


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISPBOT_ISP_BASE_URL", "https://erp.example.net")
    monkeypatch.setenv("ISPBOT_ISP_KEY", "k")
    monkeypatch.setenv("ISPBOT_ISP_V2_PATH", "/routerbox/ws_json/ws_json.php")
    monkeypatch.setenv("ISPBOT_ISP_TIMEZONE", "America/Manaus")
    monkeypatch.setenv("ISPBOT_ISP_TIMEOUT", "4.5")
    settings = IspSettings()  # type: ignore[call-arg]
    assert settings.v2_url == "https://erp.example.net/routerbox/ws_json/ws_json.php"
    assert (settings.timezone, settings.timeout) == ("America/Manaus", 4.5)
    monkeypatch.setenv("ISPBOT_ISP_TIMEZONE", "Mars/Olympus")
    with pytest.raises(ValidationError, match="timezone"):
        IspSettings()  # type: ignore[call-arg]


async def test_a_connection_idle_nearly_as_long_as_servers_keep_one_is_not_reused(free_tcp_port: int) -> None:
    """Apache (by default), uvicorn and Node close a connection idle 5 s: one idle that long may be
    closing as a call goes into it, so a write's outcome would be unknown. A fresh one is opened."""
    connections = 0

    async def keep_alive_server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        body = b'{"ok": true}'
        while (line := await reader.readline()) != b"":
            length = 0
            while line not in (b"\r\n", b""):  # the request's headers
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                line = await reader.readline()
            await reader.readexactly(length)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(keep_alive_server, "127.0.0.1", free_tcp_port)
    transport = Transport(IspSettings(base_url=f"http://127.0.0.1:{free_tcp_port}", key="k"))
    try:
        await transport.send(Generation.V2, "ConsultaPlanos", {}, idempotent=True)
        await transport.send(Generation.V2, "ConsultaPlanos", {}, idempotent=True)
        assert connections == 1  # reused while fresh
        await asyncio.sleep(KEEP_IDLE + 0.5)
        await transport.send(Generation.V2, "ConsultaPlanos", {}, idempotent=True)
        assert connections == 2
    finally:
        await transport.aclose()
        server.close()
