"""The one exception a rule raises to refuse a request; the app turns it into the generation's envelope."""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """The service says no: ``code`` and ``description`` go into the failure envelope.

    ``detail`` and ``inf`` fill generation 1.0's ``erro_detail``/``erro_inf``; ``result`` replaces the
    empty-string result where the spec shows another empty shape (``{"ip_id": ""}``, empty lists).
    """

    def __init__(
        self, code: int, description: str, *, detail: str = "", inf: str = "", result: Any = ""
    ) -> None:
        super().__init__(f"{code}: {description}")
        self.code = code
        self.description = description
        self.detail = detail
        self.inf = inf
        self.result = result
