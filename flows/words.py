"""Reading text into words, and telling how near two words are: what every reader of people's text
stands on (``flows.answers``: the option a text names; ``flows.intents``: what free text asks for;
the flows that look a typed name up in a list).

A text's words are read case, accents and punctuation aside, an emoji a word of its own
(``normalise``; ``plain_words`` without the emoji). Two words are a typo apart (``distance``: inserts,
deletions, changes and two neighbours swapped); ``near`` forgives one edit, two in words of eight
letters or more, never in the first letter, and none in words shorter than four letters; ``within``
finds words in order among others, each the same word or near it.
"""

from __future__ import annotations

import re
import unicodedata

SHORT = 4  # words shorter than this are near only themselves
LONG = 8  # words this long forgive two edits
# Letters and digits make words; an emoji is a word of its own ("👍").
_WORD = re.compile(r"[a-z0-9]+|[\u2600-\u27bf\U0001f300-\U0001faff]")


def normalise(text: str) -> list[str]:
    """Lower case, accents and punctuation gone, split into words (emoji kept, one word each)."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return _WORD.findall(folded)


def plain_words(text: str) -> list[str]:
    """``normalise``'s words of letters and digits (no emoji)."""
    return [word for word in normalise(text) if word.isalnum()]


def distance(a: str, b: str) -> int:
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


def near(a: str, b: str) -> bool:
    """Whether two words are the same or a typo apart (see the module's rule)."""
    if a == b:
        return True
    if min(len(a), len(b)) < SHORT or a[0] != b[0] or abs(len(a) - len(b)) > 2:
        return False  # more letters apart than any typo forgives: no need to count (a 4,096-letter word)
    return distance(a, b) <= (2 if max(len(a), len(b)) >= LONG else 1)


def within(wanted: list[str], words: list[str]) -> list[int]:
    """Where ``wanted``'s words appear in ``words``, in order, each the same or ``near`` (empty: not all
    of them)."""
    found: list[int] = []
    start = 0
    for word in wanted:
        index = next((i for i in range(start, len(words)) if near(word, words[i])), None)
        if index is None:
            return []
        found.append(index)
        start = index + 1
    return found
