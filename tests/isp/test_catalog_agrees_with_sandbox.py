"""The client's catalog and the sandbox's registry are written apart on purpose (each checks the
other); this holds them to the same list of operations, generation and kind (query or write)."""

from __future__ import annotations

import bot.sandbox.rules  # noqa: F401  (registers every rule)
from bot.isp.catalog import OPERATIONS as CLIENT
from bot.isp.catalog import Kind
from bot.isp.errors import Generation
from bot.sandbox.registry import OPERATIONS as SANDBOX
from bot.sandbox.registry import V1, V2
from bot.sandbox.views import VIEWS

#: Operations whose kind differs on purpose, with the reason.
KIND_EXCEPTIONS: dict[str, str] = {
    "contract_generate_html": "changes nothing the sandbox stores, but on a real server it may send the contract "
                              "to the signature provider again: the client never retries it blindly",
}

#: name -> (generation, writes) as the sandbox serves it: generation-1.0 queries are views over its tables.
SERVED = {name: (V1, False) for name in VIEWS} | {name: (op.generation, op.writes) for name, op in SANDBOX.items()}
GENERATION = {Generation.V1: V1, Generation.V2: V2}


def test_both_name_the_same_operations() -> None:
    assert sorted(set(CLIENT) - set(SERVED)) == []
    assert sorted(set(SERVED) - set(CLIENT)) == []


def test_both_place_each_operation_in_the_same_generation() -> None:
    assert sorted(name for name, op in CLIENT.items() if GENERATION[op.generation] != SERVED[name][0]) == []


def test_both_agree_on_which_operations_write() -> None:
    differ = sorted(name for name, op in CLIENT.items()
                    if name not in KIND_EXCEPTIONS and (op.kind is Kind.WRITE) != SERVED[name][1])
    assert differ == []


def test_every_exception_is_still_an_exception() -> None:
    assert all((CLIENT[name].kind is Kind.WRITE) != SERVED[name][1] for name in KIND_EXCEPTIONS)
