"""Fixtures: a seeded sandbox on a pinned clock and an httpx client speaking raw HTTP to its app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from bot.sandbox import PRODUCTION_KEY, FixedClock, Sandbox

V1_PATH = "/ws/server_json.php"
V2_PATH = "/ws_json/ws_json.php"


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()  # 2025-03-10 09:30 in São Paulo


@pytest.fixture
def sb(clock: FixedClock) -> Sandbox:
    return Sandbox.seeded(clock=clock)


@pytest.fixture
async def http(sb: Sandbox) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sb.app), base_url="http://sandbox"
    ) as client:
        yield client


class Api:
    """Raw calls with the spec's request shapes; answers the parsed response body."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def v1(
        self, operation: str, params: dict[str, Any] | None = None, *, key: str = PRODUCTION_KEY
    ) -> Any:
        body = {operation: {"Autenticacao": {"ChaveIntegracao": key}, **(params or {})}}
        response = await self.http.post(V1_PATH, json=body)
        assert response.status_code == 200
        return response.json()

    async def query(self, operation: str, where: str | None = None, *, key: str = PRODUCTION_KEY) -> Any:
        return await self.v1(operation, {"Filtro": where} if where is not None else None, key=key)

    async def rows(self, operation: str, where: str | None = None) -> list[dict[str, str]]:
        answer = await self.query(operation, where)
        if answer["status"] == 0 and answer["erro_code"] == 1:
            return []
        assert answer["status"] == 1, answer
        rows: list[dict[str, str]] = answer["result"]
        return rows

    async def v2(self, operation: str, params: Any = None, *, key: str | None = PRODUCTION_KEY) -> Any:
        headers = {"authentication_key": key} if key is not None else {}
        response = await self.http.post(
            V2_PATH, json={operation: params if params is not None else {}}, headers=headers
        )
        assert response.status_code == 200
        return response.json()


@pytest.fixture
def api(http: httpx.AsyncClient) -> Api:
    return Api(http)


def ok2(answer: Any) -> Any:
    """The result of a successful 2.0 answer (fails the test with the answer otherwise)."""
    assert answer["status"] == 1 and answer["error_code"] == "", answer
    return answer["result"]


def fail2(answer: Any, code: int) -> str:
    assert answer["status"] == 0 and answer["error_code"] == code, answer
    description: str = answer["error_description"]
    return description
