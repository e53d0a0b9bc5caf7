"""Which of a question's options a typed text names, so typing "pix" is tapping "💠 PIX copia e cola".

Case, accents, punctuation and emoji do not count; a word may be a typo away (``flows.words.near``);
the number a text-only channel shows beside an option ("2") chooses it. A text names an option when
it is the label, a part of it from its start or anywhere ("lentidao", "pix"), or holds the whole
label ("quero o boleto em pdf"). When two options fit equally the text names none: the question is
asked again rather than guessed.

``read_choice`` reads more, as people point at a list: by place ("o primeiro", "the last one", "a
terceira opção"), by age where the labels carry dates ("o mais antigo", "o de outubro") and by an
amount a label shows ("o de 102,30").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from flows import values
from flows.words import plain_words, within

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
    words = plain_words(text)
    if numbers:
        number = int(words[0]) if len(words) == 1 and words[0].isdecimal() else 0
        return number - 1 if 1 <= number <= len(labels) else None
    scored = sorted(((_fit(_plain(words, strict), _plain(plain_words(label), strict)), index)
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
    if len(words) == len(label) and within(words, label) == list(range(len(label))):
        return 4 + closeness
    if len(words) < len(label) and within(words, label[: len(words)]) == list(range(len(words))):
        return 3 + closeness
    if within(label, words):
        return 2 + closeness
    if within(words, label):
        return 1 + closeness
    return 0.0


_LABEL_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_LABEL_AMOUNT = re.compile(r"\d{1,3}(?:[.,]\d{3})*[.,]\d{2}\b")


def read_choice(text: str, labels: Sequence[str], language: str, today: date | None = None) -> int | None:
    """The index of the option ``text`` points at, by its number, place, age, month ("o do mês
    passado": ``today``'s), amount or name; what each way points at must agree ("o de setembro, de
    99,90"). None when it points at none or at several."""
    if "?" in text:
        return None  # a question back ("¿cuál vence primero?") points at nothing yet
    named = typed_option(text, labels, strict=True)
    if named is not None:
        return named  # the label itself, or its start
    said = values.Said.of(text, language)
    ways = [{index} for index in (_by_number(said, labels), _by_place(said, labels)) if index is not None]
    ways += [found for found in (_by_date(said, labels, today), _by_amount(said, labels), _by_price(said, labels))
             if found]
    if not ways:
        return typed_option(text, labels)
    agreed = set.intersection(*ways) - {NONE_OF_THEM}
    return agreed.pop() if len(agreed) == 1 else None


NONE_OF_THEM = -1  # a month or an amount no option has: no option, and no guess from the rest


def _by_number(said: values.Said, labels: Sequence[str]) -> int | None:
    """The number shown beside an option, typed alone or with a few words ("2 please", "i pick 1"), or
    said alone ("two"): "the last one" and "os dois de 99,90" name no number."""
    typed = [int(w) for w in re.findall(r"(?<![\d.,/])\d+(?![\d.,/])", said.text)]
    numbers = typed if typed else [int(w) for w in said.words if w.isdecimal()] if len(said.words) == 1 else []
    if len(numbers) != 1 or len(said.words) > 4 or not 1 <= numbers[0] <= len(labels):
        return None
    return numbers[0] - 1


def _by_price(said: values.Said, labels: Sequence[str]) -> set[int]:
    """ "o mais caro", "the most expensive": the option with the highest amount, if only one has it."""
    if not said.has("dearest"):
        return set()
    shown = {i: max((_amount(a) for a in _LABEL_AMOUNT.findall(label)), default=None) for i, label in enumerate(labels)}
    priced = {i: a for i, a in shown.items() if a is not None}
    if not priced:
        return set()
    top = max(priced.values())
    highest = {i for i, a in priced.items() if a == top}
    return highest if len(highest) == 1 else {NONE_OF_THEM}


def _by_place(said: values.Said, labels: Sequence[str]) -> int | None:
    """ "o primeiro", "the 2nd", "a terceira opção", "o último", "o do meio", "option 3"."""
    places = values.vocabulary(said.language).numbers.get("ordinals", {})
    found: set[int] = set()
    option_words = {i + 1 for start, end in said.spans("option") for i in range(start, end)}
    for index, word in enumerate(said.words):
        following = said.words[index + 1] if index + 1 < len(said.words) else ""
        if _is_time_word(said, following) or following == "via":
            continue  # "last year", "o último mês": a time; "2ª via": a copy of a bill
        place = places.get(word)
        ordinal = values._ORDINAL.match(word)
        if place is None and ordinal is not None:
            place = int(ordinal[1])
        if place is None and word.isdecimal() and index in option_words:
            place = int(word)
        if place is not None and 1 <= abs(place) <= len(labels):
            found.add(place - 1 if place > 0 else len(labels) + place)
    if said.has("middle") and len(labels) % 2 == 1:
        found.add(len(labels) // 2)
    dated = _dates(labels)
    if said.has("oldest"):
        found.add(min(dated, key=dated.__getitem__) if dated else 0)
    if said.has("newest"):
        found.add(max(dated, key=dated.__getitem__) if dated else len(labels) - 1)
    return found.pop() if len(found) == 1 else None


def _is_time_word(said: values.Said, word: str) -> bool:
    vocab = values.vocabulary(said.language)
    return word in vocab.numbers.get("units", {}) or word in vocab.months


def _dates(labels: Sequence[str]) -> dict[int, date]:
    found = {}
    for index, label in enumerate(labels):
        match = _LABEL_DATE.search(label)
        if match is not None:
            try:
                found[index] = date(int(match[3]), int(match[2]), int(match[1]))
            except ValueError:
                continue
    return found


def _by_date(said: values.Said, labels: Sequence[str], today: date | None) -> set[int]:
    """The options of a month named ("o de outubro", "september's", "o do mês passado") or of a day
    written ("10/10")."""
    vocab = values.vocabulary(said.language)
    months = {vocab.months.get(w) or vocab.short_months[w] for w in said.words
              if w in vocab.months or w in vocab.short_months}
    for category, shift in (("last_month", -1), ("this_month", 0), ("next_month", 1)):
        if today is not None and said.has(category):
            months.add((today.month + shift - 1) % 12 + 1)
    if today is not None:  # "o de dois meses atrás", "la de hace un mes"
        months |= {day.month for day in values.counted_days(said, today) if day is not None}
    words = said.words
    months |= {int(words[i + 1]) for i in range(len(words) - 1)
               if words[i] in ("mes", "month") and words[i + 1].isdecimal() and 1 <= int(words[i + 1]) <= 12}
    days = {(int(d), int(m)) for w in said.words if (p := w.split("/")) and len(p) in (2, 3)
            and all(x.isdecimal() for x in p) for d, m in [p[:2]]}
    if not months and not days:
        return set()
    dated = _dates(labels)
    fitting = {i for i, day in dated.items() if day.month in months or (day.day, day.month) in days}
    return fitting or {NONE_OF_THEM}


def _by_amount(said: values.Said, labels: Sequence[str]) -> set[int]:
    """ "o de 102,30", "the one with 102": the options showing that amount (its reais alone will do)."""
    amount = values.read_amount(said) if any(w[0].isdecimal() for w in said.words) else None
    whole = amount is not None and amount == amount.to_integral_value()
    if amount is None or (whole and (amount <= 31 or 1990 <= amount <= 2100)):  # a day, an option, a year
        return set()  # "1", "3": an option's number, not an amount
    shown = {i: [_amount(a) for a in _LABEL_AMOUNT.findall(label)] for i, label in enumerate(labels)}
    fitting = {i for i, amounts in shown.items()
               if amount in amounts or (whole and any(int(a) == amount for a in amounts))}
    return fitting or {NONE_OF_THEM}


def _amount(written: str) -> Decimal:
    return Decimal(re.sub(r"[.,]", "", written[:-3]) + "." + written[-2:])
