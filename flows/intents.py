"""Free text understood where it plainly names something ("segunda via", "caiu", "obrigado").

The words live in ``locales/intents/<language>.yaml`` (name → phrases), so an operator adds
"boleto atrasado" without touching Python. A name is a flow, a kind of small talk (``SMALL_TALK``:
answered kindly, then the menu) or ``LEAVE``: the words that, sent alone, leave any question for
the menu ("cancelar", "voltar").

Matching forgives case, accents, punctuation and small typos ("bolto", "intenet"): a phrase matches
when its words appear in the text in order, each the same word or one a typo away (one edit, two
in words of eight letters or more, never in the first letter: "sentido" is not "lentidão"). Short
words must match exactly ("net" is not "nada"). Small talk counts only when no flow fits ("bom dia,
estou sem internet" is about the connection), and a text that fits nothing stays unmatched: the
menu says so rather than guess.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import yaml
from bot.i18n import locales_dir

SHORT = 4  # words this short must match exactly
LONG = 8  # words this long forgive two typos
LEAVE = "leave"
SMALL_TALK = frozenset({"greeting", "thanks", "ok"})
# Letters and digits make words; an emoji is a word of its own ("👍").
_WORD = re.compile(r"[a-z0-9]+|[\u2600-\u27bf\U0001f300-\U0001faff]")


def normalise(text: str) -> list[str]:
    """Lower case, accents and punctuation gone, split into words (emoji kept, one word each)."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return _WORD.findall(folded)


class Intents:
    def __init__(self, directory: Path | None = None) -> None:
        directory = directory or locales_dir() / "intents"
        self._phrases: dict[str, list[tuple[str, list[str]]]] = {}
        for path in sorted(directory.glob("*.yaml")):
            with path.open(encoding="utf-8") as handle:
                table = yaml.safe_load(handle) or {}
            self._phrases[path.stem] = [
                (name, normalise(phrase)) for name, phrases in table.items() for phrase in phrases
            ]

    def match(self, language: str, text: str) -> str | None:
        """The flow (or small talk) the text names, or None. The person's language first, then the
        others (a Portuguese speaker whose phone is in English still types "boleto"). Small talk is
        set aside first, so "bom dia, estou sem internet" is about the connection and "obrigado pela
        ajuda" is thanks, not help."""
        words = normalise(text)
        talk: str | None = None
        for lang in self._order(language):
            typos = lang == language  # another language's "dale" is not a typo of "date"
            for name, phrase in sorted(self._phrases[lang], key=lambda entry: -len(entry[1])):
                while name in SMALL_TALK and (found := _positions(phrase, words, typos=typos)):
                    talk = talk or name
                    words = [word for index, word in enumerate(words) if index not in found]
        for lang in self._order(language):
            # The best phrase; between equals, the one the text names first ("cancel my plan").
            best = max(
                ((*_score(phrase, words), name) for name, phrase in self._phrases[lang]
                 if name not in SMALL_TALK and name != LEAVE),
                default=(0.0, 0, ""),
            )
            if best[0] > 0:
                return best[2]
        return talk

    def leaves(self, language: str, text: str) -> bool:
        """Whether the whole text is a word that leaves the question ("cancelar", "voltar", "menu")."""
        words = normalise(text)
        return any(
            phrase == words for lang in self._order(language) for name, phrase in self._phrases[lang] if name == LEAVE
        )

    def _order(self, language: str) -> list[str]:
        return [lang for lang in [language, *sorted(set(self._phrases) - {language})] if lang in self._phrases]


def _distance(a: str, b: str) -> int:
    """Edits (insert, delete, change, swap two neighbours) that make ``a`` into ``b``."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, previous2[j - 2] + 1)
            current.append(cost)
        previous2, previous = previous, current
    return previous[-1]


def _same(wanted: str, word: str) -> float:
    """1 for the same word, a little less for a typo of it, 0 for another word."""
    if wanted == word:
        return 1.0
    if min(len(wanted), len(word)) < SHORT or wanted[0] != word[0]:
        return 0.0
    edits = _distance(wanted, word)
    return 1.0 - edits / 10 if edits <= (2 if len(wanted) >= LONG else 1) else 0.0


def _positions(phrase: list[str], words: list[str], *, typos: bool = True) -> list[int]:
    """Where the phrase's words appear, in order, among the text's words (empty: not all of them)."""
    found: list[int] = []
    start = 0
    for wanted in phrase:
        index = next(
            (i for i in range(start, len(words)) if (_same(wanted, words[i]) if typos else wanted == words[i])), None,
        )
        if index is None:
            return []
        found.append(index)
        start = index + 1
    return found


def _score(phrase: list[str], words: list[str]) -> tuple[float, int]:
    """How well the phrase's words appear, in order, among the text's words (0: not at all), and how
    early (minus the first word's place). Longer phrases win over shorter ones that also match ("sem
    internet" over "internet")."""
    found = _positions(phrase, words)
    if not found:
        return 0.0, 0
    return sum(_same(wanted, words[index]) for wanted, index in zip(phrase, found, strict=True)), -found[0]


def default_intents() -> Intents:
    """The phrases of ``locales_dir()``, read once per folder."""
    return _intents_in(locales_dir())


@lru_cache(maxsize=2)
def _intents_in(directory: Path) -> Intents:
    return Intents(directory / "intents")
