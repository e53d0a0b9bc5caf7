"""What every operation is called with in the catalog-wide test, and what it must come back as."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Sample:
    #: What the typed client method takes: a Filter or None for generation-1.0 queries, a request
    #: model otherwise (None for operations without parameters).
    request: Any
    #: The ``result`` member of a success envelope, exactly as the spec shapes it (generation 1.0:
    #: every scalar a string). For the bare ``mvno_*`` operations: the whole bare body.
    result: Any
    #: Asserts on the typed value the client returned (raises AssertionError when wrong).
    check: Callable[[Any], None]
