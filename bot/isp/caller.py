"""The one primitive every typed operation method stands on."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TypeVar

from bot.isp.catalog.base import Operation

Req = TypeVar("Req")
Res = TypeVar("Res")


class Caller(ABC):
    @abstractmethod
    async def call(self, op: Operation[Req, Res], request: Req) -> Res:
        """Validate, send, unwrap the envelope and parse the result of one operation."""
