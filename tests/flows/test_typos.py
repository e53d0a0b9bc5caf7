"""A typo lands only on a word that means one thing: "No typo match may land on a word that means
something else in any language's vocabulary" (issue 32), checked from the vocabularies themselves."""

from __future__ import annotations

import pytest
from bot.i18n import LANGUAGES
from flows.intents import TYPO, _allowed, default_intents
from flows.words import distance


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_word_of_any_vocabulary_is_never_taken_for_another(language: str) -> None:
    intents = default_intents()
    assert [word for word, _ in intents.words() if intents.resolve(language, word)[0] != word] == []


def _typos(word: str) -> set[str]:
    """A letter dropped, doubled or swapped with the next, never the first (the first is never a typo)."""
    found = set()
    for i in range(1, len(word)):
        found.add(word[:i] + word[i + 1:])
        found.add(word[:i] + word[i] + word[i:])
        if i + 1 < len(word):
            found.add(word[:i] + word[i + 1] + word[i] + word[i + 2:])
    return found - {word}


def _letters(word: str) -> int:
    return sum(1 << ord(letter) for letter in set(word))


def _surely_farther(typo: int, other: int, edits: int) -> bool:
    """Whether two words whose letters are ``typo`` and ``other`` (``_letters``) are more than ``edits``
    apart: each letter of one that the other lacks takes an edit of its own (a swap moves no letter
    in or out), so the letters one has alone are at most the edits. A cheap bound that only spares
    ``distance`` the pairs it would find too far anyway."""
    return max((typo & ~other).bit_count(), (other & ~typo).bit_count()) > edits


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_typo_lands_only_where_every_word_as_close_means_the_same(language: str) -> None:
    intents = default_intents()
    meanings = dict(intents.words())
    by_first: dict[str, list[tuple[str, int]]] = {}
    for word in meanings:
        by_first.setdefault(word[0], []).append((word, _letters(word)))
    wrong = []
    for typo in sorted({typo for word in meanings if len(word) >= TYPO for typo in _typos(word)} - set(meanings)):
        landed, _ = intents.resolve(language, typo)
        if landed == typo:
            continue
        edits, letters = distance(typo, landed), _letters(typo)
        rivals = [
            other for other, its_letters in by_first[typo[0]]
            if abs(len(other) - len(typo)) <= 2 and meanings[other] != meanings[landed]
            and not _surely_farther(letters, its_letters, within := min(edits, _allowed(len(other))))
            and distance(typo, other) <= within
        ]
        if rivals:
            wrong.append((typo, landed, rivals))
    assert wrong == []


@pytest.mark.parametrize(("language", "text", "wanted"), [
    ("pt_BR", "vc é um robo?", None),  # "robo" is not the Spanish "roto" (broken)
    ("pt_BR", "vou mudar de casa, como faço pra levar a internet", "human"),  # "faço" is not "fraco"
    ("pt_BR", "internet is super slow today", "connection"),  # "slow" is English, not a typo of "show"
    ("pt_BR", "bolto", "bills"),
    ("pt_BR", "intenet caiu", "connection"),
    ("en", "bil", None),  # too short to forgive
    ("pt_BR", "caiuuu", "connection"),  # a letter held down
    ("pt_BR", "kkkkkk", None),  # laughter, not "kk" (ok)
    ("pt_BR", "a antena ta quebrada", "new_ticket"),  # the stem of "quebrado"
    ("es", "facura vencida", "bills"),
])
def test_the_issues_typos(language: str, text: str, wanted: str | None) -> None:
    assert default_intents().match(language, text) == wanted
