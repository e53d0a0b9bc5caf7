"""Which option a typed text names (``flows.answers``): what a person types for a button."""

from __future__ import annotations

import pytest
from flows.answers import typed_option

CARD = ["💠 PIX copia e cola", "🔳 QR code PIX", "📄 Boleto em PDF", "✅ Já paguei", "🧾 Outros boletos", "🏠 Menu"]
TOPICS = ["Sem conexão", "Lentidão", "Segunda via de boleto", "Mudança de plano", "💬 Outro"]


@pytest.mark.parametrize(("typed", "chosen"), [
    ("pix", "💠 PIX copia e cola"),  # the start of one label, a part of another
    ("PIX COPIA E COLA", "💠 PIX copia e cola"),
    ("qr code", "🔳 QR code PIX"),
    ("ja paguei", "✅ Já paguei"),
    ("já pagei", "✅ Já paguei"),  # a typo
    ("quero o boleto em pdf", "📄 Boleto em PDF"),  # the whole label among more words
    ("3", "📄 Boleto em PDF"),  # not here: numbers are asked for apart
])
def test_a_typed_name_chooses_its_button(typed: str, chosen: str) -> None:
    index = typed_option(typed, CARD)
    assert (CARD[index] if index is not None else None) == (None if typed.isdigit() else chosen)


BILLS = ["R$ 99,90 · 15/11/2026 (vencido)", "R$ 99,90 · 15/12/2026"]


@pytest.mark.parametrize("typed", ["o vencido", "quero o vencido", "the vencido one", "el vencido"])
def test_the_little_words_around_a_name_do_not_hide_it(typed: str) -> None:
    assert typed_option(typed, BILLS) == 0
    assert typed_option("segunda via de boleto", TOPICS) == 2  # a label's own little words still count


def test_the_number_shown_beside_an_option_chooses_it() -> None:
    assert typed_option("3", CARD, numbers=True) == 2
    assert typed_option("3.", CARD, numbers=True) == 2
    assert typed_option("9", CARD, numbers=True) is None
    assert typed_option("pix", CARD, numbers=True) is None


@pytest.mark.parametrize("typed", ["xyzzy", "", "bom dia", "?"])
def test_what_names_no_option_chooses_none(typed: str) -> None:
    assert typed_option(typed, CARD) is None
    assert typed_option(typed, TOPICS) is None


def test_two_options_named_alike_choose_none_rather_than_guess() -> None:
    assert typed_option("boleto", ["🧾 Boleto de março", "🧾 Boleto de abril"]) is None
    assert typed_option("boleto de abril", ["🧾 Boleto de março", "🧾 Boleto de abril"]) == 1


def test_accents_and_typos_name_a_topic() -> None:
    assert TOPICS[typed_option("lentidao", TOPICS) or 0] == "Lentidão"
    assert TOPICS[typed_option("sem conexao", TOPICS) or 0] == "Sem conexão"
    assert TOPICS[typed_option("outro", TOPICS) or 0] == "💬 Outro"


def test_strictly_only_the_label_or_its_start() -> None:
    """Where typed words are the answer, a sentence holding a label is a sentence."""
    menu = ["🧾 Segunda via", "📶 Minha conexão", "❓ Ajuda"]
    assert typed_option("o técnico pediu pra ver minha conexão", menu) == 1
    assert typed_option("o técnico pediu pra ver minha conexão", menu, strict=True) is None
    assert typed_option("minha conexão", menu, strict=True) == 1
