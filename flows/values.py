"""Values as people say them at the bot's questions: one reader per kind, in pt_BR, en and es.

A question declares the kind it takes (``flows.steps``: ``DATE_PAST``, ``PERIOD``, ``YES_NO``...); the
engine reads the text with that kind's reader and hands the step an ``Answer`` with the value, so
"umas 6 semanas" at "Por quantos dias?" is 42 and "segunda que vem" at "A partir de quando?" a date.

- Numbers in words become digits with text2num (``alpha2digit``: "cento e dois e trinta" is "102 e 30",
  in the three languages, in microseconds); month and weekday names come from Babel's locale data;
  the rest (relative days, yes and no, units, ordinals) is data in ``locales/values/<language>.yaml``.
- dateparser was tried and left out: it costs more than the millisecond an answer may (bench/RESULTS.md),
  and it read none of "segunda que vem", "daqui a 10 dias", "dia 20", "hoje cedo" or "depois de
  amanhã" in Portuguese, so a layer of our own was needed anyway.
- Only the first ``LIMIT`` characters are read, each word once: the cost is linear and capped.
- A reader returns None when the text does not plainly hold one value of its kind (two different
  dates, "sim e não"): the question is asked again rather than guessed.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from babel.dates import get_day_names, get_month_names
from bot import yamltext
from bot.i18n import locales_dir
from text_to_num import alpha2digit

from flows.identity import normalise_tax_id

LIMIT = 200  # characters of an answer that are read: a value is said near its start
MAX_AMOUNT = Decimal("1e12")  # reais: more than any bill, and within what two decimals can be kept
DATE_PAST, DATE_AHEAD, PERIOD, YEAR = "date_past", "date_ahead", "period", "year"
AMOUNT, YES_NO, COUNT, TAX_ID, LOGIN = "amount", "yes_no", "count", "tax_id", "login"
_TEXT2NUM = {"pt_BR": "pt", "en": "en", "es": "es"}
# A number with the separators dates and amounts use ("25/11", "1.234,56"); an ordinal ("20th", "2ª",
# folded "2a"); a word; an emoji, one word each.
_TOKEN = re.compile(
    r"(?<![0-9])\d+(?:[.,/\-]\d+)*(?:st|nd|rd|th|ra|da|ro|do|er|to|o|a)?(?![a-z0-9])|[a-z]+"
    r"|[%\u2600-\u27bf\U0001f300-\U0001faff]")
_ORDINAL = re.compile(r"(\d+)(st|nd|rd|th|ra|da|ro|do|er|to|o|a)$")
_LOGIN = re.compile(r"[0-9A-Za-z][0-9A-Za-z._@\-]{2,63}")
_POSSESSIVE = re.compile(r"(?<=[a-z0-9])'s\b")
# Words text2num would take for numbers where they are not ("umas 6 semanas": some; "22 de dez": December).
_NOT_ONE = re.compile(r"\b(uns|umas|unos|unas|(?<=de )dez(?![/\w]))\b")
_UNIT_AFTER = re.compile(r"\b(\d+)(x|un|und|pcs|pc|u)\b")  # "2x", "2un": the number and its unit
_LETTER_HELD = re.compile(r"([a-z])\1+")


def fold(text: str) -> str:
    """Lower case, accents gone, a possessive's "'s" and apostrophes dropped ("october's" is "october",
    "don't" is "dont"); º and ª become o and a."""
    text = _POSSESSIVE.sub("", text.casefold().replace("’", "'")).replace("'", "")
    folded = unicodedata.normalize("NFKD", text)
    return "".join(c for c in folded if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(_UNIT_AFTER.sub(r"\1 \2", fold(text)))


def spoken(text: str, language: str) -> list[str]:
    """The words of ``text`` with numbers in words as digits ("cento e dois" is "102")."""
    if language in _TEXT2NUM:
        parts = _NOT_ONE.split(text.casefold())  # the words kept as they are at odd places
        try:
            parts = [part if index % 2 else alpha2digit(part, _TEXT2NUM[language], threshold=0)
                     for index, part in enumerate(parts)]
        except Exception:
            parts = [text]
        text = " ".join(parts)
    return tokens(text)


@dataclass(frozen=True)
class Vocabulary:
    """One language's words: each category's phrases, indexed by their first word."""

    phrases: dict[str, list[tuple[tuple[str, ...], str]]]
    numbers: dict[str, dict[str, int]]  # units (days), ordinals
    holidays: dict[tuple[str, ...], tuple[int, int]]  # a day of the year by its name: (month, day)
    months: dict[str, int]  # full names, any position
    short_months: dict[str, int]  # abbreviations, only beside a day number ("20 nov")
    weekdays: dict[str, int]  # Monday 0
    known: frozenset[str] = frozenset()  # every word of the phrases and names

    @classmethod
    def load(cls, language: str, path: Path) -> Vocabulary:
        table: dict[str, Any] = yamltext.load(path.read_text(encoding="utf-8"))
        phrases: dict[str, list[tuple[tuple[str, ...], str]]] = defaultdict(list)
        numbers: dict[str, dict[str, int]] = {}
        holidays: dict[tuple[str, ...], tuple[int, int]] = {}
        for category, entries in table.items():
            if category == "holidays":
                holidays = {tuple(tokens(k)): (int(v[:2]), int(v[3:])) for k, v in entries.items()}
            elif isinstance(entries, dict):
                numbers[category] = {fold(k): int(v) for k, v in entries.items()}
            for phrase in list(entries):
                words = tuple(spoken(str(phrase), language))
                if words:
                    phrases[words[0]].append((words, category))
        for candidates in phrases.values():
            candidates.sort(key=lambda c: -len(c[0]))
        months = {fold(name): number for number, name in get_month_names("wide", locale=language).items()}
        names = get_month_names("abbreviated", locale=language)
        short = {fold(name).rstrip("."): number for number, name in names.items()}
        short |= {"sept": 9, "set": 9, "setiembre": 9} if language != "en" else {"sept": 9}
        weekdays: dict[str, int] = {}
        for width in ("wide", "abbreviated"):
            for number, name in get_day_names(width, locale=language).items():
                weekdays[tokens(name)[0]] = number
        if language == "pt_BR":  # "terca", "sabado" folded; "2a feira" is Monday: read as ordinals below
            weekdays |= {"terca": 1, "sabado": 5, "sab": 5}
        known = {w for candidates in phrases.values() for phrase, _ in candidates for w in phrase}
        known |= {*months, *short, *weekdays, *(w for name in holidays for w in name)}
        return cls(dict(phrases), numbers, holidays, months, short, weekdays, frozenset(known))


@cache
def vocabulary(language: str) -> Vocabulary:
    return Vocabulary.load(language, locales_dir() / "values" / f"{language}.yaml")


@dataclass
class Said:
    """An answer prepared once for every reader: its words with numbers in words as digits, and where
    each category's phrases are among them (``spans``)."""

    language: str
    text: str  # what was typed, capped
    words: list[str]
    marks: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    covered: dict[tuple[str, ...], set[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, text: str, language: str) -> Said:
        text = text[:LIMIT]
        vocab = vocabulary(language)
        # "siiim", "nãoo", "okk": a word held down is read as the vocabulary's word it stretches.
        words = [w if w in vocab.known else _LETTER_HELD.sub(r"\1", w) for w in spoken(text, language)]
        said = cls(language, text, words)
        said.marks = _marks(said.words, vocab)
        return said

    def spans(self, category: str) -> list[tuple[int, int]]:
        return self.marks.get(category, [])

    def has(self, category: str) -> bool:
        return bool(self.marks.get(category))

    def numbers(self) -> list[tuple[int, int]]:
        """(position, value) of every plain whole number."""
        return [(i, int(w)) for i, w in enumerate(self.words) if w.isdecimal()]


def _marks(words: list[str], vocab: Vocabulary) -> dict[str, list[tuple[int, int]]]:
    """Each category's phrases found in ``words``: the longest at each place, not overlapping."""
    found: dict[str, list[tuple[int, int]]] = defaultdict(list)
    ends: dict[str, int] = {}
    for start, word in enumerate(words):
        for phrase, category in vocab.phrases.get(word, ()):
            end = start + len(phrase)
            if end <= len(words) and tuple(words[start:end]) == phrase and ends.get(category, 0) <= start:
                found[category].append((start, end))
                ends[category] = end
    return dict(found)


def _covered(said: Said, *categories: str) -> set[int]:
    """The places of the words of these categories' phrases (kept: readers ask for them word by word)."""
    known = said.covered.get(categories)
    if known is None:
        known = said.covered[categories] = {i for c in categories for s, e in said.spans(c) for i in range(s, e)}
    return known


# ---- days ----------------------------------------------------------------------------------------------
def read_date(said: Said, today: date, *, past: bool) -> date | None:
    """One day, as typed ("25/11", "20 de novembro", "dia 5 do mês que vem") or said relative to
    today ("ontem", "segunda que vem", "daqui a 10 dias"); ``past``: a day or month alone is the last
    such, else the next such. None when nothing, or more than one different day, is said."""
    if _vague(said):
        return None  # "amanhã talvez", "dia 5 ou 6"
    found = {day for day in _days(said, today, past=past) if day is not None}
    return found.pop() if len(found) == 1 else None


def _days(said: Said, today: date, *, past: bool) -> Iterable[date | None]:
    shifts = {"today": 0, "yesterday": -1, "before_yesterday": -2, "tomorrow": 1, "after_tomorrow": 2}
    longer = {(s, e) for c in (*shifts, "from_now", "time_of_day") for s, e in said.spans(c)}
    for category, shift in shifts.items():
        spans = [(s, e) for s, e in said.spans(category)
                 if not any(o != (s, e) and o[0] <= s and e <= o[1] for o in longer)]  # "day before yesterday"
        if spans:
            yield today + timedelta(days=shift)
    yield from _holidays(said, today, past=past)
    numbered = [day for day in _numbered_days(said, today, past=past)]
    yield from numbered
    yield from counted_days(said, today)
    if numbered:
        return  # "monday the 16th", "6ª, dia 20": the weekday only describes the day written
    weeks = {i for i, w in enumerate(said.words) if _unit_days(said, i) == 7}
    for index in range(len(said.words)):
        weekday = _weekday(said, index)
        if weekday is None:
            continue
        near = set(range(index + 1, index + 4)) | set(range(max(0, index - 3), index))
        week = weeks & (near | {i + 1 for i in near} | {i - 1 for i in near})
        if _covered(said, "previous") & (near | {i + 1 for i in week}):
            direction = -1
        elif _covered(said, "following") & (near | {i + 1 for i in week}):
            direction = 1
        else:
            direction = -1 if past else 1
        if week or said.has("this_week"):  # "next week on thursday", "segunda dessa semana": Monday first
            monday = today - timedelta(days=today.weekday()) + timedelta(days=7 * direction if week else 0)
            yield monday + timedelta(days=weekday)
        else:
            yield _next_weekday(today, weekday, direction)


def _holidays(said: Said, today: date, *, past: bool) -> Iterable[date | None]:
    words, holidays = said.words, vocabulary(said.language).holidays
    found: list[tuple[int, int, tuple[int, int]]] = []
    firsts = {name[0] for name in holidays}
    for start in (i for i, word in enumerate(words) if word in firsts):
        for name, month_day in holidays.items():
            if tuple(words[start:start + len(name)]) == name:
                found.append((start, start + len(name), month_day))
    for start, end, (month, day) in found:
        if not any(o[0] <= start and end <= o[1] and (o[1] - o[0]) > (end - start) for o in found):
            yield _day(today, day, month, None, past=past)


def _weekday(said: Said, index: int) -> int | None:
    word, vocab = said.words[index], vocabulary(said.language)
    if word in vocab.weekdays:
        return vocab.weekdays[word]
    ordinal = _ORDINAL.match(word)
    if said.language == "pt_BR" and ordinal and ordinal[2] == "a" and 2 <= int(ordinal[1]) <= 6:
        return int(ordinal[1]) - 2  # "segunda" (2ª) is Monday, "sexta" (6ª) Friday
    return None


def _next_weekday(today: date, weekday: int, direction: int) -> date:
    step = (weekday - today.weekday()) % 7 if direction > 0 else -((today.weekday() - weekday) % 7)
    if step == 0:
        step = 7 * direction
    return today + timedelta(days=step)


def _numbered_days(said: Said, today: date, *, past: bool) -> Iterable[date | None]:
    """Days written with a number: "25/11", "5/11/2026", "20 de novembro", "nov 20th", "dia 20"."""
    words, vocab = said.words, vocabulary(said.language)
    month_shift = _month_shift(said)
    used: set[int] = set()
    yield from _written_days(said, today, used, past=past)
    for index, word in enumerate(words):
        month = vocab.months.get(word)
        if month is None:
            continue
        day = _day_number_near(said, index, used, short=False)
        if day is None:
            if _covered(said, "month_end") & set(range(max(0, index - 3), index)):
                yield _month_end(today, month, past=past)
            continue
        yield _day(today, day, month, _year_after(said, index), past=past)
    for index, word in enumerate(words):
        month = vocab.short_months.get(word)
        if month is not None and word not in vocab.months:
            day = _day_number_near(said, index, used, short=True)
            if day is not None:
                yield _day(today, day, month, None, past=past)
    if not any(word in vocab.months or word in vocab.short_months for word in words):
        yield from _days_alone(said, today, used, month_shift, past=past)


def _days_alone(said: Said, today: date, used: set[int], month_shift: int | None, *,
                past: bool) -> Iterable[date | None]:
    """A day of no month named: "dia 20", "the 5th", "dia 5 do mês que vem"."""
    words = said.words
    for index, word in enumerate(words):
        if index in used:
            continue
        number = _day_number(word)
        if number is None or not 1 <= number <= 31:
            continue
        before = words[index - 1] if index else ""
        ordinal = _ORDINAL.match(word) is not None
        after_weekday = index > 0 and _weekday(said, index - 1) is not None  # "el viernes 13"
        if before in _DAY_BEFORE or ordinal or after_weekday or month_shift is not None:
            if month_shift is not None:
                yield _shifted(today, month_shift, number)
            else:
                yield _day(today, number, None, None, past=past)
        elif said.has("month_end") and said.has("this_month"):
            yield _month_end(today, today.month, past=past)


def _written_days(said: Said, today: date, used: set[int], *, past: bool) -> Iterable[date | None]:
    """Days written in digits: "25/11", "5/11/2026", "2026-11-10", "11/20" (month first: one reading),
    "23 do 11"."""
    words = said.words
    for index in range(len(words) - 2):
        if words[index].isdecimal() and words[index + 1] in ("do", "del") and words[index + 2].isdecimal() \
                and 1 <= int(words[index + 2]) <= 12 and len(words[index]) <= 2:
            used |= {index, index + 2}
            yield _day(today, int(words[index]), int(words[index + 2]), None, past=past)
    for index, word in enumerate(said.words):
        parts = re.split(r"[/.\-]", word)
        if len(parts) in (2, 3) and all(p.isdecimal() for p in parts) and "," not in word:
            used.add(index)
            if len(parts[0]) == 4:  # "2026-11-10", "2026/11/19"
                parts = [*reversed(parts)] if len(parts) == 3 else parts
            day, month = int(parts[0]), int(parts[1])
            if month > 12 >= day:  # "11/20": written month first, and only one way it can be a day
                day, month = month, day
            year = int(parts[2]) + (2000 if len(parts[2]) == 2 else 0) if len(parts) == 3 else None
            yield _day(today, day, month, year, past=past)


_DAY_BEFORE = frozenset({"dia", "day", "el", "the", "on", "del", "desde", "from", "proximo", "next", "since", "no"})
_BETWEEN_DAY_AND_MONTH = frozenset({"de", "of", "del", "dia", "day", "the", "el", "do", "da"})


def _day_number(word: str) -> int | None:
    if word.isdecimal() and len(word) <= 2:
        return int(word)
    ordinal = _ORDINAL.match(word)
    # A day is masculine ("dia primeiro", "el primero"): a feminine ordinal is a weekday ("6ª") or an option.
    return int(ordinal[1]) if ordinal and ordinal[2] != "a" and len(ordinal[1]) <= 2 else None


def _day_number_near(said: Said, index: int, used: set[int], *, short: bool) -> int | None:
    """The day number beside a month's name: "20 de novembro", "november 20th", "20 nov", "o primeiro
    dia de dezembro", "setembro, dia 10", "the 3rd of jan"."""
    words = said.words
    for step in (-1, 1):
        other = index + step
        while 0 <= other < len(words) and abs(other - index) <= 3 and words[other] in _BETWEEN_DAY_AND_MONTH:
            other += step
        if 0 <= other < len(words) and abs(other - index) <= 3 and other not in used:
            number = _day_number(words[other])
            if number is not None and 1 <= number <= 31:
                used.add(other)
                return number
    return None


def _year_after(said: Said, index: int) -> int | None:
    for word in said.words[index + 1: index + 3]:
        if word.isdecimal() and len(word) == 4:
            return int(word)
    return None


def _month_shift(said: Said) -> int | None:
    if said.has("next_month"):
        return 1
    if said.has("last_month"):
        return -1
    if said.has("this_month"):
        return 0
    return None


def _shifted(today: date, months: int, day: int) -> date | None:
    month = today.month + months
    year, month = today.year + (month - 1) // 12, (month - 1) % 12 + 1
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _day(today: date, day: int, month: int | None, year: int | None, *, past: bool) -> date | None:
    """The day meant: with no year (and no month), the last such day for ``past``, else the next."""
    try:
        if year is not None and month is not None:
            return date(year, month, day)
        if month is None:
            candidates = [_shifted(today, shift, day) for shift in ((0, -1, -2) if past else (0, 1, 2))]
        else:
            candidates = [_safe(today.year + shift, month, day) for shift in ((0, -1) if past else (0, 1))]
    except ValueError:
        return None
    fitting = [c for c in candidates if c is not None and (c <= today if past else c >= today)]
    return fitting[0] if fitting else None


def _safe(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_end(today: date, month: int, *, past: bool) -> date | None:
    year = today.year if (month >= today.month) != past or month == today.month else today.year + (-1 if past else 1)
    following = date(year + month // 12, month % 12 + 1, 1)
    return following - timedelta(days=1)


def counted_days(said: Said, today: date) -> Iterable[date | None]:
    """ "daqui a 10 dias", "in 2 weeks", "a month from now", "3 dias atrás", "hace 2 días"."""
    ago, ahead = _covered(said, "ago", "ago_before"), _covered(said, "ahead", "from_now")
    for index in range(len(said.words)):
        days = _unit_days(said, index)
        if days is None:
            continue
        count, start = _count_before(said, index)
        if count is None:
            continue
        around = set(range(start - 3, start)) | {index + 1, index + 2, index + 3}
        if ago & around:
            yield _calendar(today, -count, days)
        elif ahead & around:
            yield _calendar(today, count, days)


def _calendar(today: date, count: float, days: int) -> date | None:
    """``count`` units of ``days`` from today; months and years by the calendar ("a month ago": the
    same day of last month)."""
    if days in (30, 365) and count == int(count):
        return _shifted(today, int(count) * (1 if days == 30 else 12), today.day)
    return today + timedelta(days=round(count * days))


def _unit_days(said: Said, index: int) -> int | None:
    return vocabulary(said.language).numbers.get("units", {}).get(said.words[index])


_ARTICLES = frozenset({"a", "an", "one", "um", "uma", "un", "una", "1", "o", "el", "la", "per"})
_JOINERS = frozenset({"e", "and", "y", "a", "of", "de", "del", "whole", "full", "entire", "inteiro", "inteira",
                      "entero", "entera", "certinho", "justo", "justos", "so", "solo"})


def _count_before(said: Said, index: int) -> tuple[float | None, int]:
    """The number of units before a unit word and where it starts: "6 semanas" (6), "uma semana" (1),
    "meio ano" (0.5), "3 and a half months" (3.5), "a couple of weeks" (2), "4,5 meses"; None for
    "alguns dias", "a few weeks" or a unit with no count."""
    words = said.words
    halves, pairs = _covered(said, "half"), _covered(said, "pair")
    start = index - 1
    while start >= 0 and words[start] in _JOINERS and start not in halves | pairs:
        start -= 1  # "a couple of weeks", "3 and a half months": the words between count nothing
    if start < 0 or not (start in halves | pairs or _number(words[start]) is not None):
        start = index - 1  # no count further back: the word before the unit ("a month", "dias")
    if start < 0:
        return 1.0, index  # "mês e meio", "semana que vem": a unit said first is one
    if start in halves:
        before = start - 1
        while before >= 0 and words[before] in _JOINERS:
            before -= 1
        whole = _number(words[before]) if before >= 0 else None
        return (whole + 0.5, before) if whole is not None else (0.5, start)
    if start in pairs:
        return 2.0, start
    if start in _covered(said, "vague"):
        return None, start
    number = _number(words[start])
    if number is not None:
        return number, start
    return (1.0, index) if words[index - 1] in _ARTICLES else (None, index)


def _number(word: str) -> float | None:
    if word.isdecimal():
        return float(word)
    if re.fullmatch(r"\d+[.,]\d", word):
        return float(word.replace(",", "."))
    return None


# ---- periods -------------------------------------------------------------------------------------------
def read_period(said: Said, today: date) -> int | None:
    """A length in days: "45", "umas 6 semanas" (42), "um mês e meio" (45), "meio ano" (180), or
    "até o fim de fevereiro" (the days from today to that day). A month is 30 days, a year 365.
    Several lengths joined ("1 mês e 15 dias") add up; said apart they must agree, or the last said
    after a "no" stands ("duas semanas não, 15 dias")."""
    if _vague(said):
        return None
    if said.has("until"):
        end = _until(said, today)
        if end is not None:
            return (end - today).days if end > today else None
    units = vocabulary(said.language).numbers.get("units", {})
    halves, noes = _covered(said, "half"), _covered(said, "no")
    groups: list[tuple[int, int, float]] = []  # (where a length starts, where it ends, its days)
    for index, word in enumerate(said.words):
        if word not in units:
            continue
        count, start = _count_before(said, index)
        if count is None:
            continue  # "fim de semana": a unit with no count is no length
        days = _times(count, units[word])
        if {index + 1, index + 2} & halves and not {index - 1} & halves:
            days += _times(0.5, units[word])  # "um mês e meio"
        if groups and start - groups[-1][1] == 2 and said.words[start - 1] in _JOINERS:
            groups[-1] = (groups[-1][0], index, groups[-1][2] + days)  # "1 mês e 15 dias"
        else:
            groups.append((start, index, days))
    if not groups:
        plain = [n for _, n in said.numbers()]
        typed = any(c.isdecimal() for c in said.text) or len(said.words) == 1
        bare = len(plain) == 1 and len(said.words) <= 4 and plain[0] < 1000 and typed and not said.has("currency")
        return plain[0] if bare else None
    lengths = [round(days) for _, _, days in groups]
    if len(set(lengths)) > 1 and noes & set(range(groups[0][1], groups[-1][0])):
        return lengths[-1] or None
    return lengths[0] if len(set(lengths)) == 1 and lengths[0] > 0 else None


def _until(said: Said, today: date) -> date | None:
    """The day a length runs to: "até 15/02", "até o fim de fevereiro", "until the end of the month"."""
    start = min(s for s, _ in said.spans("until"))
    end = read_date(_said_from(said, start), today, past=False) or read_date(said, today, past=False)
    if end is None and said.has("month_end"):  # "até o fim do mês (que vem)", "until the end of the year"
        years = [i for i, w in enumerate(said.words) if _unit_days(said, i) == 365]
        shift = 1 if said.has("next_month") else 0
        end = date(today.year, 12, 31) if years else _month_end(today, (today.month + shift - 1) % 12 + 1,
                                                                   past=False)
    return end


def _vague(said: Said) -> bool:
    """Whether the words leave no one value: "entre 30 e 60", "mais de 5", "two weeks, maybe three",
    "alguns dias" (but "umas 6 semanas": a number follows), "2 or 3" (but "mais ou menos": no numbers)."""
    words = said.words
    for start, end in said.spans("vague"):
        if end - start == 1 and words[start] in ("or", "ou", "o"):
            if start > 0 and end < len(words) and words[start - 1][0].isdecimal() and words[end][0].isdecimal():
                return True
            continue
        return True
    return any(not (end < len(words) and words[end][0].isdecimal()) for _, end in said.spans("some"))


def _said_from(said: Said, start: int) -> Said:
    rest = Said(said.language, said.text, said.words[start:], {})
    rest.marks = _marks(rest.words, vocabulary(said.language))
    return rest


def _times(count: float, unit: int) -> float:
    """``count`` units in days (a half at most: "3 meses e meio"); half a year is six months of 30 days."""
    half = 180 if unit == 365 else unit / 2
    return int(count) * unit + (half if count % 1 else 0)


# ---- years ---------------------------------------------------------------------------------------------
def read_year(said: Said, today: date) -> int | None:
    """A year: "2024", "o de 23", "ano passado", "ano retrasado", "este ano", "twenty twenty-two",
    "dois anos atrás"."""
    found: set[int] = set()
    if said.has("year_before_last"):
        found.add(today.year - 2)
    elif said.has("last_year"):
        found.add(today.year - 1)
    if said.has("this_year") and not found:
        found.add(today.year)
    ago = _covered(said, "ago", "ago_before")
    for index in range(len(said.words)):
        if _unit_days(said, index) == 365 and ago & {index - 3, index - 2, index + 1}:
            count, _ = _count_before(said, index)  # "dois anos atrás", "hace 3 años", "two years back"
            if count is not None:
                found.add(today.year - int(count))
    found |= _years_written(said, today)
    return found.pop() if len(found) == 1 else None


def _years_written(said: Said, today: date) -> set[int]:
    """Years in digits or said as numbers: "2024", "2.024", "2000 e 22", "20 22", "o de 23"."""
    words = [w.replace(".", "") if len(w) == 5 and w[1] == "." and w.replace(".", "").isdecimal() else w
             for w in said.words]  # "2.024"
    found: set[int] = set()
    for index, word in enumerate(words):
        following = words[index + 1] if index + 1 < len(words) else ""
        if not word.isdecimal():
            continue
        if word == "2000" and following:  # "dois mil e vinte e dois": "2000 e 22"
            rest = words[index + 2] if following in ("e", "y", "and") and index + 2 < len(words) else following
            if rest.isdecimal() and int(rest) < 100:
                found.add(2000 + int(rest))
                continue
        if len(word) == 4 and 1990 <= int(word) <= today.year + 5:
            found.add(int(word))
        elif len(word) == 2 and following.isdecimal() and len(following) == 2:
            found.add(int(word + following))  # "twenty twenty-two": "20 22"
        elif len(word) == 2 and (not index or words[index - 1] != "20"):
            year = 2000 + int(word)
            said_as_a_year = index and words[index - 1] in _words_of(said, "year_words")  # "o de 23"
            if year <= today.year + 1 and (len(words) <= 3 or said_as_a_year):
                found.add(year)
    return found


@cache
def _all_phrases(language: str) -> tuple[tuple[tuple[str, ...], str], ...]:
    return tuple(p for candidates in vocabulary(language).phrases.values() for p in candidates)


# ---- amounts -------------------------------------------------------------------------------------------
_MONEY = re.compile(r"^\d{1,3}(?:([.,])\d{3})*(?:([.,])(\d{1,2}))?$|^\d+(?:([.,])(\d{1,2}))?$")


def read_amount(said: Said) -> Decimal | None:
    """An amount in reais: "R$ 1.234,56", "102,30", "1,234.56", "cento e dois e trinta", "cem reais",
    "cinquenta centavos"; of several numbers, the one with cents or beside "reais" ("uma conta de 130
    reais"). None for "mais de cem reais" or two amounts."""
    if _vague(said):
        return None
    words = said.words
    found: list[tuple[int, Decimal]] = []
    index = 0
    while index < len(words):
        value = _money(words[index]) if words[index][0].isdecimal() else None
        if value is None:
            index += 1
            continue
        after = index + 1
        nxt = next((i for i in range(after, min(after + 4, len(words))) if words[i].isdecimal()), None)
        if value == value.to_integral_value() and nxt is not None and (cents := _cents_after(said, index, nxt)):
            value, after = value + cents, nxt + 1
        elif after < len(words) and words[after] in _words_of(said, "cents") and value < 100:
            value = value / 100  # "cinquenta centavos"
        found.append((index, value))
        index = after
    if len(found) > 1:
        money = _words_of(said, "currency")
        found = [(i, v) for i, v in found if v != v.to_integral_value()
                 or {words[j] for j in (i - 1, i + 1) if 0 <= j < len(words)} & money]
    if len(found) != 1 or found[0][1] >= MAX_AMOUNT:
        return None  # two amounts, or one no bill could have
    return found[0][1].quantize(Decimal("0.01"))


def _money(word: str) -> Decimal | None:
    if _ORDINAL.match(word) or "/" in word or "-" in word:
        return None
    if not _MONEY.match(word):
        return None
    separators = [c for c in word if c in ".,"]
    if not separators:
        return Decimal(word)
    last = word.rfind(separators[-1])
    decimals = len(word) - last - 1
    if decimals in (1, 2) and (len(separators) == 1 or separators[-1] != separators[0]):
        whole = re.sub(r"[.,]", "", word[:last])
        return Decimal(f"{whole}.{word[last + 1:]}")
    if decimals == 3 and len(set(separators)) == 1:
        return Decimal(re.sub(r"[.,]", "", word))
    return None


def _cents_after(said: Said, first: int, second: int) -> Decimal | None:
    """ "102 e 30", "99 reais e 90 centavos", "102 con 30": the cents said after the whole."""
    between = said.words[first + 1: second]
    allowed = _words_of(said, "currency", "amount_joiners")
    cents = said.words[second]
    if not cents.isdecimal() or len(cents) > 2 or any(w not in allowed for w in between):
        return None
    return Decimal(int(cents)) / 100


def _words_of(said: Said, *categories: str) -> frozenset[str]:
    return _category_words(said.language, categories)


@cache
def _category_words(language: str, categories: tuple[str, ...]) -> frozenset[str]:
    """Every word of these categories' phrases: built once, asked for at each answer's every word."""
    return frozenset(w for phrase, category in _all_phrases(language) if category in categories for w in phrase)


# ---- yes or no -----------------------------------------------------------------------------------------
def read_yes_no(said: Said) -> bool | None:
    """Yes or no, with words around it: "sim, pode", "pode apagar tudo", "não quero não", "claro que
    não", "não tem problema" (yes); None for "talvez", "sim e não", a question back, or neither."""
    if said.has("unsure") or "?" in said.text:
        return None
    yes, no = said.spans("yes"), said.spans("no")
    yes = [y for y in yes if not any(_inside(y, n) for n in no)]  # "claro que não"
    no = [n for n in no if not any(_inside(n, y) for y in yes)]  # "não tem problema"
    negators = _covered(said, "negators") - {i for s, e in no for i in range(s, e)}
    negated = [y for y in yes if {y[0] - 1, y[0] - 2, y[1], y[1] + 1} & negators]  # "não pode", "sure not"
    answers = {False} if no or negated else set()
    if len(negated) < len(yes):
        answers.add(True)
    return answers.pop() if len(answers) == 1 else None


def _inside(inner: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1] and outer != inner


# ---- counts --------------------------------------------------------------------------------------------
def read_count(said: Said) -> int | None:
    """How many: "2", "duas", "uns 3", "um par", "dois pares", "meia dúzia", "uma dúzia e meia",
    "nenhum" (0); a number said per thing is not the count ("três, uma pra cada filho"); None for
    "alguns", "mais de 5" or money."""
    if said.has("currency") or _vague(said) or "?" in said.text or re.search(r"-\s*\d", said.text):
        return None  # money, no one number, a question back, a number below zero
    words, found, counted = said.words, set(), set()
    halves = _covered(said, "half")
    for start, end in said.spans("half_dozen"):
        found.add(6)
        counted |= set(range(start, end))
    for category, size in (("dozen", 12), ("pair", 2)):
        for start, end in said.spans(category):
            if start in counted:
                continue
            times = _number(words[start - 1]) if start else None
            half = size // 2 if {end, end + 1} & halves else 0  # "uma dúzia e meia"
            found.add(int(times or 1) * size + half)
            counted |= set(range(start - (1 if times else 0), end))
    each = {s - 1 for s, _ in said.spans("each")}  # "uma pra cada", "one for each"
    counted |= {i for s, e in said.spans("zero") for i in range(s, e)}  # "ni una"
    if any(w in vocabulary(said.language).months for w in words) or any(len(w) > 6 for w in words if w.isdecimal()):
        return None  # a date, a document: no count
    found |= {n for i, n in said.numbers() if i not in counted and i not in each}
    if len(found) > 1 and 1 in found and not re.search(r"(?<!\d)1(?!\d)", said.text):
        found.discard(1)  # "setenta, es para un hotel": an article, not a count
    if said.has("one") and not found:
        found.add(1)
    if not found and said.has("zero"):
        found.add(0)
    return found.pop() if len(found) == 1 else None


# ---- who the person is ---------------------------------------------------------------------------------
# Digits with the punctuation and spaces people put between their groups ("529.982.247-25", "623 895 686 02").
_TAX_ID_RUN = re.compile(r"(?<![0-9])[0-9](?:[0-9]|[ .\-/](?=[0-9])){10,22}(?![0-9])")


def read_tax_id(text: str) -> str | None:
    """A CPF or CNPJ inside a sentence ("meu cpf é 529.982.247-25"), check digits held. A text with a
    character no one types (a control or invisible one) or a number glued to a letter ("52998224725ã")
    holds none: proof is read only as plainly written."""
    text = text[:LIMIT]
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co") or c == "\ufffd" for c in text):
        return None
    found = {tax_id for run in _TAX_ID_RUN.finditer(text)
             if _apart(text, run.start(), run.end()) and (tax_id := _tax_id_in(run[0])) is not None}
    return found.pop() if len(found) == 1 else None


def _apart(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] stands apart: at an end of the text, or beside a space or punctuation."""
    return all(i < 0 or i >= len(text) or text[i].isspace() or text[i] in ",;:!?()[]\"'."
               for i in (start - 1, end))


def _tax_id_in(run: str) -> str | None:
    digits = re.sub(r"[^0-9]", "", run)
    if len(digits) not in (11, 14) or len(set(digits)) == 1:  # 000.000.000-00 passes the check digits
        return None
    return normalise_tax_id(digits)


def read_login(said: Said) -> str | None:
    """A PPPoE login inside a sentence ("meu login é maria.silva"), as typed. A word that looks like
    one (a dot, digit, @, _, - or a capital inside it) wins when it is the only such word; a plain
    word only when every other word is one of the sentence's own ("login: carlos")."""
    words = [w.strip(".,;:!?\"'()[]") for w in said.text.split()]
    words = [w for w in words if w]
    leads = _words_of(said, "login_leads")
    candidates = [w for w in words if fold(w) not in leads and _LOGIN.fullmatch(w)]
    marked = [w for w in candidates if re.search(r"[._@0-9\-]", w) or re.search(r"[a-z][A-Z]", w)]
    marked = [w for w in marked if not re.fullmatch(r"[0-9.,\-/]+", w)]  # a number is no login
    if len(marked) == 1:
        return marked[0]
    if marked:
        return None
    refuse = _words_of(said, "not_login")
    if len(candidates) == 1 and all(w == candidates[0] or fold(w) in leads for w in words) \
            and fold(candidates[0]) not in refuse:
        return candidates[0]
    return None


# ---- one door ------------------------------------------------------------------------------------------
Reader = Callable[[Said, date], Any]
READERS: dict[str, Reader] = {
    DATE_PAST: lambda said, today: read_date(said, today, past=True),
    DATE_AHEAD: lambda said, today: read_date(said, today, past=False),
    PERIOD: read_period,
    YEAR: read_year,
    AMOUNT: lambda said, today: read_amount(said),
    YES_NO: lambda said, today: read_yes_no(said),
    COUNT: lambda said, today: read_count(said),
    TAX_ID: lambda said, today: read_tax_id(said.text),
    LOGIN: lambda said, today: read_login(said),
}


def read(kind: str, text: str, language: str, today: date) -> Any:
    """The value of kind ``kind`` that ``text`` says (None: none, or not plainly one)."""
    return READERS[kind](Said.of(text, language), today)
