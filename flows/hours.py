"""The hours the ISP's people answer (its phone and the staff desk), read from what the operator wrote
in ``ISPBOT_SUPPORT_HOURS`` the way people write it: "seg a sex, 8h às 18h; sáb, 8h às 12h",
"seg-sex 08:00-12:00, 13:00-18:00", "mon-fri 8:00-17:30", "todos os dias 8h às 22h", "Mon to Sat, 8 am to 8 pm", "24h".

Each part (split at ";" or a new line) is days, then the hours: days are named by their first three
letters in Portuguese, English or Spanish (accents and a full name welcome), a range with "a", "-",
"to", "até" or "hasta", a list with "," or "e"/"and"/"y"; "todos os dias", "diariamente", "every day",
"todos los días" name the seven. The hours are pairs of times ("8h", "8h30", "08:00"), opening then
closing, as many pairs as the day has (a lunch break is two). The text itself is what people are told;
the schedule read from it says whether the desk is open now and when it opens next, in the ISP's zone.
Holidays are not known: a holiday on a working day counts as open.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import lru_cache

EXAMPLE = "seg-sex 08:00-18:00; sáb 08:00-12:00"
_DAYS = {  # the first three letters, accents folded: Monday is 0
    "seg": 0, "ter": 1, "qua": 2, "qui": 3, "sex": 4, "sab": 5, "dom": 6,
    "mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6,
    "lun": 0, "mar": 1, "mie": 2, "jue": 3, "vie": 4,
}
_RANGE = frozenset({"a", "-", "to", "ate", "hasta", "al", "through", "thru"})
_LIST = frozenset({",", "e", "and", "y", "&"})
_EVERY_DAY = ("todos os dias", "diariamente", "every day", "daily", "todos los dias", "diario", "diariamente")
_FILLER = frozenset({"de", "das", "da", "do", "feira", "feiras", "from", "desde", "por"})
_TIME = re.compile(r"(\d{1,2})\s*(?:(?::|h)\s*(\d{2})?)?\s*(?:([ap])\.?\s?m\b\.?)?")
_ALL_DAY = re.compile(r"24\s*(?:h|horas|hours|hs)\b")
_SEPARATORS = re.compile(r"[;\n|]")
_DAY_WORD = re.compile(r"[a-z]+|[,&-]")


class HoursUnreadable(ValueError):
    """What the operator wrote is not a schedule; the message says which part and how to write it."""


@dataclass(frozen=True, slots=True)
class WeeklyHours:
    """Opening spans per weekday (Monday 0), each (opens, closes) as minutes from midnight."""

    days: tuple[tuple[tuple[int, int], ...], ...]

    def open_at(self, at: datetime) -> bool:
        """Whether the desk answers at ``at`` (a time in the ISP's zone)."""
        minute = at.hour * 60 + at.minute
        return any(opens <= minute < closes for opens, closes in self.days[at.weekday()])

    def next_opening(self, at: datetime) -> datetime | None:
        """When the desk opens next after ``at`` (same zone), or None when it never opens."""
        minute = at.hour * 60 + at.minute
        for ahead in range(8):
            day = at.date() + timedelta(days=ahead)
            for opens, _ in self.days[day.weekday()]:
                if ahead or opens > minute:
                    return _at(day, opens, at)
        return None


def _at(day: date, minute: int, like: datetime) -> datetime:
    return datetime.combine(day, time(minute // 60, minute % 60), like.tzinfo)


@lru_cache(maxsize=16)
def read_hours(text: str) -> WeeklyHours | None:
    """The schedule the text names (None for an empty text); ``HoursUnreadable`` when it names none."""
    days: list[list[tuple[int, int]]] = [[] for _ in range(7)]
    parts = [piece for part in _SEPARATORS.split(text) for piece in _split_after_hours(part)]
    if not parts:
        return None
    for part in parts:
        named, spans = _read_part(part)
        for day in named:
            days[day].extend(spans)
    return WeeklyHours(tuple(tuple(sorted(spans)) for spans in days))


def _split_after_hours(part: str) -> list[str]:
    """A part cut where days follow hours ("seg a sex 8h às 18h e sábado 8h às 12h": two parts)."""
    pieces, start, timed = [], 0, False
    for word in re.finditer(r"[^\W\d_]+|\d", part):
        if word[0].isdecimal():
            timed = True
        elif timed and len(word[0]) >= 3 and _fold(word[0])[:3] in _DAYS:
            pieces.append(part[start:word.start()])
            start, timed = word.start(), False
    pieces.append(part[start:])
    return [piece.strip(" ,;") for piece in pieces if piece.strip(" ,;")]


def _fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(c))


def _read_part(part: str) -> tuple[list[int], list[tuple[int, int]]]:
    folded = _fold(part)
    if _ALL_DAY.fullmatch(folded.strip()):  # "24h" alone: every day, all day
        return list(range(7)), [(0, 24 * 60)]
    digit = next((n for n, c in enumerate(folded) if c.isdecimal()), None)
    if digit is None:
        raise HoursUnreadable(f"no hours in {part!r}: write the days, then the hours, e.g. {EXAMPLE!r}")
    day_text, hour_text = folded[:digit], folded[digit:]
    named = _read_days(day_text, part)
    if _ALL_DAY.fullmatch(hour_text.strip()):
        return named, [(0, 24 * 60)]
    return named, _read_spans(re.sub(r"\b(e|and|y)\s*$", "", hour_text), part)


def _read_days(text: str, part: str) -> list[int]:
    if not text.strip(" ,:."):
        raise HoursUnreadable(f"no days in {part!r}: name them first, e.g. {EXAMPLE!r}")
    if any(every in text for every in _EVERY_DAY):
        return list(range(7))
    words = [w for w in _DAY_WORD.findall(text) if w not in _FILLER]
    named: list[int] = []
    ranging = False
    for word in words:
        if word in _RANGE:
            ranging = True
        elif word in _LIST:
            ranging = False
        elif (day := _DAYS.get(word[:3])) is not None and len(word) >= 3:
            if ranging and named:
                first = named[-1]
                named.extend((first + step) % 7 for step in range(1, (day - first) % 7 + 1))
            else:
                named.append(day)
            ranging = False
        else:
            raise HoursUnreadable(
                f"{word!r} in {part!r} is not a day: use seg, ter, qua, qui, sex, sáb, dom (or mon..sun), "
                f"e.g. {EXAMPLE!r}",
            )
    if not named:
        raise HoursUnreadable(f"no days in {part!r}: name them first, e.g. {EXAMPLE!r}")
    return sorted(set(named))


def _read_spans(text: str, part: str) -> list[tuple[int, int]]:
    times: list[int] = []
    for found in _TIME.finditer(text):
        hour, minute = int(found[1]), int(found[2] or 0)
        if found[3] and 1 <= hour <= 12:  # "8 am", "8 pm", "12 pm" is noon
            hour = hour % 12 + (12 if found[3] == "p" else 0)
        if hour > 24 or minute > 59 or (hour == 24 and minute):
            raise HoursUnreadable(f"{found[0].strip()!r} in {part!r} is not a time of day")
        times.append(hour * 60 + minute)
    if not times or len(times) % 2:
        raise HoursUnreadable(
            f"the hours in {part!r} must come in pairs, opening then closing, e.g. {EXAMPLE!r}",
        )
    spans = list(zip(times[::2], times[1::2], strict=True))
    for opens, closes in spans:
        if closes <= opens:
            raise HoursUnreadable(f"in {part!r} a closing time is not after its opening time")
    return spans
