"""What people type at the menu reaches the flow they mean: a table per language of real-looking
phrasings (typos, no accents, slang) in ``locales/intents/examples/<language>.yaml``, each with the
flow (or small talk) it must reach, or "none" when no flow fits and the bot must not guess.

The model learns from these tables (``flows.intents``), so their accuracy is a check against
regressions, not a measure of new wording (that is ``test_heldout.py``). It is printed (``pytest -s``)
and must stay at or above ``FLOOR``. A wrong guess is worse than "I didn't get that", so a phrase
marked "none" that reaches a flow counts as a miss like any other.
"""

from __future__ import annotations

import pytest
import yaml
from bot.i18n import LANGUAGES, locales_dir
from flows.intents import EXAMPLES, SMALL_TALK, default_intents
from flows.subscriber import subscriber_flows

PHRASES = locales_dir() / "intents" / EXAMPLES
FLOOR = 0.95
NONE = "none"


def table(language: str) -> dict[str, str]:
    with (PHRASES / f"{language}.yaml").open(encoding="utf-8") as handle:
        loaded: dict[str, str] = yaml.safe_load(handle)
    return loaded


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_table_is_large_and_names_only_real_destinations(language: str) -> None:
    phrases = table(language)
    assert len(phrases) >= 100
    known = {*subscriber_flows().flows, *SMALL_TALK, NONE}
    assert sorted(set(phrases.values()) - known) == []
    assert list(phrases.values()).count(NONE) >= 5  # the table checks restraint too


@pytest.mark.parametrize("language", LANGUAGES)
def test_phrases_reach_the_flow_they_mean(language: str) -> None:
    intents = default_intents()
    phrases = table(language)
    missed = {text: (wanted, intents.match(language, text) or NONE) for text, wanted in phrases.items()
              if (intents.match(language, text) or NONE) != wanted}
    accuracy = 1 - len(missed) / len(phrases)
    print(f"\n{language}: {len(phrases) - len(missed)}/{len(phrases)} phrases understood ({accuracy:.1%})")
    assert accuracy >= FLOOR, f"{accuracy:.1%} < {FLOOR:.0%}; missed (wanted, got): {missed}"


def test_a_word_a_typo_away_in_its_first_letter_is_another_word() -> None:
    assert default_intents().match("pt_BR", "sentido") is None
    assert default_intents().match("pt_BR", "lentidao") == "connection"
    assert default_intents().match("pt_BR", "lentidaoo") == "connection"
