"""Free text typed at the menu, understood where it plainly names a flow ("segunda via", "caiu").

The words live in ``locales/intents/<language>.yaml`` (flow name → phrases), so an operator adds
"boleto atrasado" without touching Python. Matching forgives case, accents, punctuation and small
typos ("bolto", "intenet"): a one-word phrase matches a word of the text that is close enough, a
longer phrase matches when its words appear in order, each close enough.
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher
from functools import lru_cache
from pathlib import Path

import yaml
from bot.i18n import locales_dir

SIMILAR = 0.8  # SequenceMatcher ratio from which two words are the same word mistyped
SHORT = 4  # words this short must match exactly: "net" is not "nada"


def normalise(text: str) -> list[str]:
    """Lower case, accents and punctuation gone, split into words."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return re.findall(r"[a-z0-9]+", folded)


class Intents:
    def __init__(self, directory: Path | None = None) -> None:
        directory = directory or locales_dir() / "intents"
        self._phrases: dict[str, list[tuple[str, list[str]]]] = {}
        for path in sorted(directory.glob("*.yaml")):
            with path.open(encoding="utf-8") as handle:
                table = yaml.safe_load(handle) or {}
            self._phrases[path.stem] = [
                (flow, normalise(phrase)) for flow, phrases in table.items() for phrase in phrases
            ]

    def match(self, language: str, text: str) -> str | None:
        """The flow the text names, or None. The person's language first, then the others (a
        Portuguese speaker whose phone is in English still types "boleto")."""
        words = normalise(text)
        if not words:
            return None
        order = [language, *sorted(set(self._phrases) - {language})]
        for lang in order:
            best = max(
                ((_score(phrase, words), flow) for flow, phrase in self._phrases.get(lang, [])),
                default=(0.0, ""),
            )
            if best[0] > 0:
                return best[1]
        return None


def _same(a: str, b: str) -> float:
    if a == b:
        return 1.0
    if min(len(a), len(b)) < SHORT:
        return 0.0
    ratio = SequenceMatcher(None, a, b).ratio()
    return ratio if ratio >= SIMILAR else 0.0


def _score(phrase: list[str], words: list[str]) -> float:
    """How well the phrase's words appear, in order, among the text's words (0: not at all).
    Longer phrases win over shorter ones that also match ("sem internet" over "internet")."""
    if not phrase:
        return 0.0
    total, start = 0.0, 0
    for wanted in phrase:
        for index in range(start, len(words)):
            similarity = _same(wanted, words[index])
            if similarity:
                total, start = total + similarity, index + 1
                break
        else:
            return 0.0
    return total


@lru_cache(maxsize=1)
def default_intents() -> Intents:
    return Intents()
