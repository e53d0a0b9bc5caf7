"""Answers to the bot's questions as people write them (``tests/flows/values/<language>.yaml``), read
by ``flows.values``: each kind's table was written before the readers, by writers who had not read
them (today is 2026-11-25 in every table). Measured per kind and language; the floor is 95 %.

``pytest tests/flows/test_values.py -s`` prints each table's figure and, for a table under the floor,
the answers read wrong.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.i18n import LANGUAGES
from flows.answers import read_choice
from hypothesis import example, given, settings
from hypothesis import strategies as st

from flows import values

TABLES = Path(__file__).parent / "values"
TODAY = date(2026, 11, 25)
FLOOR = 0.95
KINDS = {"date_past": values.DATE_PAST, "date_future": values.DATE_AHEAD, "period": values.PERIOD,
         "year": values.YEAR, "amount": values.AMOUNT, "yes_no": values.YES_NO, "count": values.COUNT,
         "tax_id": values.TAX_ID, "login": values.LOGIN}
# The options the "choice" table's writers saw, as the bot labels three bills.
BILLS = {
    "pt_BR": ["Boleto de 10/09/2026 — R$ 99,90", "Boleto de 10/10/2026 — R$ 99,90", "Boleto de 10/11/2026 — R$ 102,30"],
    "en": ["Bill of 10/09/2026 — R$ 99.90", "Bill of 10/10/2026 — R$ 99.90", "Bill of 10/11/2026 — R$ 102.30"],
    "es": ["Factura del 10/09/2026 — R$ 99,90", "Factura del 10/10/2026 — R$ 99,90",
           "Factura del 10/11/2026 — R$ 102,30"],
}


def table(language: str) -> dict[str, dict[str, str]]:
    loaded: dict[str, dict[str, str]] = yaml.safe_load((TABLES / f"{language}.yaml").read_text(encoding="utf-8"))
    return loaded


def expected(name: str, written: str) -> Any:
    if written == "none":
        return None
    if name in ("date_past", "date_future"):
        return date.fromisoformat(written)
    if name in ("period", "year", "count", "choice"):
        return int(written)
    if name == "amount":
        return Decimal(written)
    if name == "yes_no":
        return written == "yes"
    return written


def reading(language: str, name: str, text: str) -> Any:
    if name == "choice":
        index = read_choice(text, BILLS[language], language, TODAY)
        return None if index is None else index + 1
    return values.read(KINDS[name], text, language, TODAY)


def measure(language: str, name: str) -> tuple[int, list[tuple[str, Any, Any]]]:
    answers = table(language)[name]
    wrong = [(text, want, got) for text, written in answers.items()
             if (got := reading(language, name, text)) != (want := expected(name, written))]
    return len(answers), wrong


CASES = [(language, name) for language in LANGUAGES for name in (*KINDS, "choice")]


@pytest.mark.parametrize(("language", "name"), CASES)
def test_answers_are_read_as_people_write_them(language: str, name: str) -> None:
    total, wrong = measure(language, name)
    right = total - len(wrong)
    print(f"\n{language} {name}: {right}/{total} read right ({right / total:.1%})")
    for text, want, got in wrong:
        print(f"  {text!r}: wanted {want!r}, read {got!r}")
    assert total >= 75 if name.startswith("date") else total >= 150
    assert right / total >= FLOOR


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_table_holds_answers_that_give_no_value(language: str) -> None:
    for name, answers in table(language).items():
        nones = sum(written == "none" for written in answers.values())
        assert nones >= 0.1 * len(answers), f"{language} {name}: {nones} of {len(answers)}"


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300), language=st.sampled_from(LANGUAGES))
@example(text="❶", language="pt_BR")  # a digit to str.isdigit(), not to int(): once found, now always tried
@example(text="dia ² de março, R$ 1❶,50", language="pt_BR")
@example(text="٣ días", language="es")
def test_any_text_is_read_without_failing(text: str, language: str) -> None:
    # An odd answer gets the question again, never "something went wrong": no reader raises.
    for kind in KINDS.values():
        value = values.read(kind, text, language, TODAY)
        assert value is None or isinstance(value, (date, int, bool, str, Decimal))
    assert read_choice(text, BILLS[language], language, TODAY) in (None, 0, 1, 2)
