"""Which of a question's options a typed text names, so typing "pix" is tapping "💠 PIX copia e cola".

Case, accents, punctuation and emoji do not count; a word may be a typo away (one edit, two in words
of eight letters or more, never in the first letter, and words shorter than four letters exactly);
the number a text-only channel shows beside an option ("2") chooses it. A text names an option when
it is the label, a part of it from its start or anywhere ("lentidao", "pix"), or holds the whole
label ("quero o boleto em pdf"). When two options fit equally the text names none: the question is
asked again rather than guessed.
"""

from __future__ import annotations

from collections.abc import Sequence

from flows.intents import distance, normalise

SHORT = 4
LONG = 8
STRONG = 3  # a fit that is the label or its start (see ``_fit``)
# Little words around an option's name ("o vencido", "the first", "el de diciembre"): not part of it.
FILLERS = frozenset({
    "o", "a", "os", "as", "um", "uma", "de", "do", "da", "no", "na", "esse", "essa", "este", "esta", "quero",
    "the", "an", "one", "of", "my", "that", "this", "want", "el", "la", "los", "las", "un", "una", "del",
    "ese", "esa", "quiero",
})


def typed_option(text: str, labels: Sequence[str], *, numbers: bool = False, strict: bool = False) -> int | None:
    """The index of the option ``text`` names among ``labels`` (in the order shown), or None;
    ``numbers``: only by the number shown beside it ("2"); ``strict``: only the label or its start,
    where typed words are an answer of their own ("minha conexão caiu de novo" is a detail, not the
    button "Minha conexão")."""
    words = [w for w in normalise(text) if w.isalnum()]
    if numbers:
        number = int(words[0]) if len(words) == 1 and words[0].isdigit() else 0
        return number - 1 if 1 <= number <= len(labels) else None
    scored = sorted(((_fit(_plain(words, strict), _plain([w for w in normalise(label) if w.isalnum()], strict)), index)
                     for index, label in enumerate(labels)), reverse=True)
    if not scored or scored[0][0] < (STRONG if strict else 1) or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]


def _plain(words: list[str], strict: bool) -> list[str]:
    """The words without the little ones around a name (all of them when nothing else is left)."""
    return words if strict else [w for w in words if w not in FILLERS] or words


def _fit(words: list[str], label: list[str]) -> float:
    """How plainly ``words`` name ``label``: 4 the same, 3 a start of it, 2 all of it among more
    words, 1 a part of it; 0 not at all. Closer lengths win between equals."""
    if not words or not label:
        return 0.0
    closeness = 1 / (1 + abs(len(label) - len(words)))
    if len(words) == len(label) and _within(words, label) == list(range(len(label))):
        return 4 + closeness
    if len(words) < len(label) and _within(words, label[: len(words)]) == list(range(len(words))):
        return 3 + closeness
    if _within(label, words):
        return 2 + closeness
    if _within(words, label):
        return 1 + closeness
    return 0.0


def _within(wanted: list[str], words: list[str]) -> list[int]:
    """Where ``wanted``'s words appear in ``words``, in order (empty: not all of them)."""
    found: list[int] = []
    start = 0
    for word in wanted:
        index = next((i for i in range(start, len(words)) if _near(word, words[i])), None)
        if index is None:
            return []
        found.append(index)
        start = index + 1
    return found


def _near(a: str, b: str) -> bool:
    if a == b:
        return True
    if min(len(a), len(b)) < SHORT or a[0] != b[0] or abs(len(a) - len(b)) > 2:
        return False  # more letters apart than any typo forgives: no need to count (a 4,096-letter word)
    return distance(a, b) <= (2 if max(len(a), len(b)) >= LONG else 1)
