"""The response envelopes of both generations, with their quirks."""

from __future__ import annotations

from typing import Any

from bot.sandbox.views import scalar


def v1_strings(value: Any, name: str = "") -> Any:
    """Every generation-1.0 scalar is a string in results, at any depth."""
    if isinstance(value, dict):
        return {k: v1_strings(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [v1_strings(v, name) for v in value]
    return scalar(name, value)


def v1_ok(result: Any) -> dict[str, Any]:
    return {
        "status": 1,
        "erro_code": "",
        "erro_inf": "",
        "erro_desc": "",
        "erro_detail": "",
        "result": v1_strings(result),
    }


def v1_fail(code: int, desc: str, detail: str = "", inf: str = "") -> dict[str, Any]:
    return {
        "status": 0,
        "erro_code": code,
        "erro_inf": inf,
        "erro_desc": desc,
        "erro_detail": detail,
        "result": "",
    }


def v2_ok(result: Any, *, string_status: bool = False) -> dict[str, Any]:
    return {
        "status": "1" if string_status else 1,
        "error_code": "",
        "error_description": "",
        "result": result,
    }


def v2_fail(code: int, description: str, result: Any = "", *, string_status: bool = False) -> dict[str, Any]:
    return {
        "status": "0" if string_status else 0,
        "error_code": code,
        "error_description": description,
        "result": result,
    }
