"""The declarative catalog of every operation of the web service.

Each ``Operation`` says, for one operation name spelled exactly as the spec spells it: its
generation, whether it is a query (safe to retry and to coalesce) or a write, how a request is
encoded, how a result is parsed into typed records, and what its documented error codes mean. The
client, the sandbox and ``ispbot call`` all read it; ``OPERATIONS`` maps every name to its entry.
"""

from __future__ import annotations

from typing import Any

from bot.isp.catalog.base import Kind, Operation
from bot.isp.catalog.v1 import V1_OPERATIONS
from bot.isp.catalog.v2 import V2_OPERATIONS
from bot.isp.catalog.v2_finance import FINANCE_OPERATIONS

OPERATIONS: dict[str, Operation[Any, Any]] = {
    op.name: op for op in (*V1_OPERATIONS, *V2_OPERATIONS, *FINANCE_OPERATIONS)
}

__all__ = ["OPERATIONS", "Kind", "Operation"]
