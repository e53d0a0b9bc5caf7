"""The Bot API's table of failure modes (tests/telegram/test_bot_api_failures.py), for the ISP's web
service: what each odd answer becomes for a query and for a write, over real HTTP.

A query is retried on what may pass (a lost or refused connection, a timeout, a 5xx) and not on
what will not (a 404: a wrong path; a page or a truncated body: not the web service); a write is
never retried, and its outcome is unknown exactly when the request may have reached the ISP (a
timeout, a connection lost once it went), so ``flows.writes`` reads it back. Each failed try is one
WARNING line naming the operation and the kind of failure, with no traceback and no page.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import NamedTuple

import pytest
from bot.isp import IspClient, IspSettings
from bot.isp.catalog import OPERATIONS
from bot.isp.errors import (
    IspBadResponse,
    IspHttpError,
    IspTimeout,
    IspTransportError,
    IspUnreachable,
    NotTheWebServiceError,
)
from bot.sandbox import PRODUCTION_KEY, FixedClock, Sandbox
from bot.sandbox.server import SandboxServer

from tests.isp.samples_v1 import SAMPLES as V1
from tests.telegram.odd_proxy import ODD, OddProxy

RETRIES = 2


class Case(NamedTuple):
    odd: str
    error: type[IspTransportError]
    query_tries: int | None  # None: the port is closed, nothing to count
    write_outcome_unknown: bool


TABLE = [
    Case("refused", IspUnreachable, None, False),
    Case("reset", IspUnreachable, 1 + RETRIES, True),
    Case("timeout", IspTimeout, 1 + RETRIES, True),
    Case("500 page", IspHttpError, 1 + RETRIES, False),
    Case("502 page", IspHttpError, 1 + RETRIES, False),
    Case("503 page", IspHttpError, 1 + RETRIES, False),
    Case("404", IspHttpError, 1, False),
    Case("html 200", NotTheWebServiceError, 1, False),
    Case("truncated json 200", IspBadResponse, 1, False),
]


@pytest.fixture(scope="module")
def isp() -> Iterator[SandboxServer]:
    with SandboxServer(Sandbox.seeded(clock=FixedClock())) as server:
        yield server


@pytest.mark.parametrize("case", TABLE, ids=[case.odd for case in TABLE])
async def test_each_odd_answer_of_the_isp_means_one_thing_for_a_query_and_for_a_write(
    isp: SandboxServer, case: Case, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    async with OddProxy(isp.url) as proxy:
        settings = IspSettings(base_url=proxy.base_url, key=PRODUCTION_KEY, retries=RETRIES, timeout=0.5,
                               breaker_threshold=100)
        async with IspClient(settings) as client:
            assert await client.ConsultaTopicos()  # through the proxy, all well
        async with proxy.answering(ODD[case.odd]), IspClient(settings) as client:
            with pytest.raises(case.error) as query:
                await client.ConsultaTopicos()
            tries = proxy.answered_oddly["server_json.php"]
            with pytest.raises(case.error) as write:
                await client.call(OPERATIONS["AtendimentoCadastro"], V1["AtendimentoCadastro"].request)
            write_tries = proxy.answered_oddly["server_json.php"] - tries
    if case.query_tries is not None:
        assert (tries, write_tries) == (case.query_tries, 1)
    assert not query.value.outcome_unknown
    assert write.value.outcome_unknown is case.write_outcome_unknown
    said = [r for r in caplog.records if r.name == "bot.isp" and r.levelno >= logging.WARNING]
    query_lines = 1 + RETRIES if case.query_tries is None else case.query_tries
    assert [r.getMessage().split()[1] for r in said] == ["ConsultaTopicos"] * query_lines + ["AtendimentoCadastro"]
    assert all(r.levelno == logging.WARNING and not r.exc_info for r in said)
    assert "<html" not in caplog.text.lower() and PRODUCTION_KEY not in caplog.text
