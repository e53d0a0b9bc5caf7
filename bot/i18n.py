"""What the bot says, in the person's language: Jinja2 templates kept in ``locales/``.

Layout: ``locales/<language>/<topic>.yaml`` maps short keys to templates, so the key ``bills.none_open``
is the entry ``none_open`` of ``bills.yaml``. ``locales/samples/<topic>.yaml`` holds, per key, the
variables a test renders it with. Brazilian Portuguese (``pt_BR``) is the reference: every other
language must have exactly its keys (the locale tests check it).

Output is Telegram HTML: autoescaping is on, so a customer's name or a topic typed in the ISP system
can never inject markup. Dates, money and numbers are formatted per language with Babel
(``{{ value | money }}`` is ``R$ 1.234,56`` in pt_BR; a short date always has its four-digit year, as a
bill's due date must read the same in every language: ``3/28/2025``, ``28/3/2025``), and a count
picks its word by the language's plural rule (``{{ n | plural("item", "itens") }}``, CLDR's rule from
Babel). Variables a template uses but the caller did not pass raise instead of rendering as empty text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from datetime import date, datetime, time
from decimal import Decimal
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from babel import Locale
from babel.dates import format_date, format_datetime, format_time
from babel.numbers import format_decimal
from jinja2 import Environment, StrictUndefined, Template, meta, nodes

from bot import yamltext
from bot.languages import DEFAULT_LANGUAGE as DEFAULT_LANGUAGE  # noqa: PLC0414 - re-exported
from bot.languages import LANGUAGES as LANGUAGES  # noqa: PLC0414 - re-exported

# The texts shipped with the package (bot/_locales links to the top-level locales/ of a checkout).
LOCALES_DIR = Path(str(files("bot") / "_locales"))
CURRENCY_SYMBOL = "R$"
MONEY_FORMAT = "#,##0.00"

# Babel's own locale names for ours (es: the Latin-American Spanish the ISPs of the region speak).
_BABEL = {"pt_BR": "pt_BR", "en": "en_US", "es": "es_419"}


CHANNEL_NAMES = {"telegram": "Telegram", "whatsapp": "WhatsApp", "console": "Telegram"}


def pick_language(code: str | None) -> str:
    """Our language for a Telegram client's ``language_code`` (``pt-br``, ``en-GB``, ``es``…)."""
    if not code:
        return DEFAULT_LANGUAGE
    base = code.replace("-", "_").split("_")[0].lower()
    return {"pt": "pt_BR", "en": "en", "es": "es"}.get(base, DEFAULT_LANGUAGE)


_GLOBAL = object()  # a variable not given: the environment's own (not the same as one given as None)
_VARIES = object()  # a value that makes the text not worth keeping


def _kept_value(name: str, value: object) -> object:
    """What a kept text is kept by: the channel's name, a flag, or nothing given; else ``_VARIES``."""
    if value is _GLOBAL or value is None or value is True or value is False:
        return value
    return value if name == "channel" and type(value) is str else _VARIES


class Translations:
    """All languages' templates, compiled once. ``render(language, key, **vars)`` → HTML text."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory = directory or locales_dir()
        self._sources: dict[str, dict[str, str]] = {lang: _load_language(directory / lang) for lang in LANGUAGES}
        if not self._sources[DEFAULT_LANGUAGE]:  # a broken install stops at start, not at every answer
            raise FileNotFoundError(
                f"no texts in {directory / DEFAULT_LANGUAGE}: reinstall ispbot or fix ISPBOT_LOCALES_DIR",
            )
        self._envs = {lang: _environment(lang) for lang in LANGUAGES}
        self._compiled: dict[tuple[str, str], Template] = {}
        # What each template reads, in a fixed order. Most read no variable, or only the channel's name
        # ("este Telegram") and yes-or-no flags (``linked``, ``human``): their text is kept once per
        # channel name and flags rather than rendered at every answer, a few texts per template.
        self._reads: dict[tuple[str, str], tuple[str, ...]] = {}
        self._kept: dict[tuple[object, ...], str] = {}

    def keys(self, language: str) -> set[str]:
        return set(self._sources[language])

    def topic(self, language: str, topic: str) -> dict[str, str]:
        """The raw templates of one topic file, by short key, in the file's order (not rendered)."""
        prefix = f"{topic}."
        return {key[len(prefix):]: text for key, text in self._sources[language].items() if key.startswith(prefix)}

    def variables(self, key: str) -> set[str]:
        """The variables the reference language's template ``key`` reads."""
        tree = self._envs[DEFAULT_LANGUAGE].parse(self._sources[DEFAULT_LANGUAGE][key])
        return set(meta.find_undeclared_variables(tree)) - {"channel"}

    def has(self, key: str) -> bool:
        return key in self._sources[DEFAULT_LANGUAGE]

    def render(self, language: str, key: str, /, **variables: Any) -> str:
        language = language if language in self._sources else DEFAULT_LANGUAGE
        reads = self._reads.get((language, key))
        if reads is None:
            reads = self._compile(language, key)
        kept = (language, key, *(_kept_value(name, variables.get(name, _GLOBAL)) for name in reads))
        if _VARIES not in kept:
            text = self._kept.get(kept)
            if text is None:
                text = self._kept[kept] = _tidy(self._compiled[(language, key)].render(**variables))
            return text
        return _tidy(self._compiled[(language, key)].render(**variables))

    def _compile(self, language: str, key: str) -> tuple[str, ...]:
        source = self._sources[language].get(key)
        if source is None:
            raise KeyError(f"no template {key!r} in locales/{language}")
        environment = self._envs[language]
        self._compiled[(language, key)] = environment.from_string(source)
        tree = environment.parse(source)
        # A global (``channel``) counts as a variable: a caller may pass its own.
        read_globals = {name.name for name in tree.find_all(nodes.Name) if name.name in environment.globals}
        reads = self._reads[(language, key)] = tuple(sorted(meta.find_undeclared_variables(tree) | read_globals))
        return reads

    def plain(self, language: str, value: Any) -> str:
        """A variable as plain text in ``language``, as the templates' filters write it (a moment, a
        day, a time of day, a decimal), for a message whose words are not ours (an approved template)."""
        filters = self._envs[language if language in self._envs else DEFAULT_LANGUAGE].filters
        if value is None:
            return ""
        if isinstance(value, datetime):
            return str(filters["datetime"](value))
        if isinstance(value, date):
            return str(filters["date"](value))
        if isinstance(value, time):
            return str(filters["time"](value))
        if isinstance(value, float | Decimal):
            return str(filters["number"](value))
        return str(value)  # a protocol or a count as written in the texts, without grouping

    def money(self, language: str, value: Decimal | None) -> str:
        """An amount in reais as the texts' ``money`` filter writes it, as plain text (a template's value)."""
        filters = self._envs[language if language in self._envs else DEFAULT_LANGUAGE].filters
        return str(filters["money"](value))

    def samples(self) -> dict[str, dict[str, Any]]:
        """The sample variables of every key that takes any (``locales/samples``)."""
        found: dict[str, dict[str, Any]] = {}
        for path in sorted((self.directory / "samples").glob("*.yaml")):
            for name, variables in (_read_yaml(path) or {}).items():
                found[f"{path.stem}.{name}"] = dict(variables or {})
        return found


# The operator's folder of texts (``ISPBOT_LOCALES_DIR``), set by whoever reads the settings: the
# settings sit above this module (they import the flows, which read the texts), so they pass it down.
_chosen_dir: Path | None = None


def use_locales_dir(directory: Path | None) -> None:
    """The texts to read from now on: ``directory`` (the ``locales_dir`` setting), None for the shipped ones."""
    global _chosen_dir  # noqa: PLW0603 - one folder per process, like the settings it comes from
    _chosen_dir = directory


def locales_dir() -> Path:
    """The folder ``use_locales_dir`` chose, else the shipped texts."""
    return _chosen_dir or LOCALES_DIR


def default_translations() -> Translations:
    """The texts of ``locales_dir()``, compiled once per folder."""
    return _translations_in(locales_dir())


@lru_cache(maxsize=2)
def _translations_in(directory: Path) -> Translations:
    return Translations(directory)


def plain_text(markup: str) -> str:
    """Telegram HTML → plain text (a terminal, a mirrored chat_messages entry)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


# A time that ends its sentence: "a las 10:00 p.m." takes no second period (Spanish "a.m."/"p.m.").
_DOUBLE_PERIOD = re.compile(r"(\b[ap]\.\s?m\.)\.")


def _tidy(text: str) -> str:
    """No trailing spaces, at most one blank line where optional lines rendered empty, and one period
    after a time written with "a.m."/"p.m." that ends a sentence."""
    lines = [line.rstrip() for line in text.strip().splitlines()]
    return _DOUBLE_PERIOD.sub(r"\1", re.sub(r"\n{3,}", "\n\n", "\n".join(lines)))


def _read_yaml(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return yamltext.load(handle)


def _load_language(folder: Path) -> dict[str, str]:
    templates: dict[str, str] = {}
    for path in sorted(folder.glob("*.yaml")):
        entries = _read_yaml(path) or {}
        if not isinstance(entries, Mapping):
            raise ValueError(f"{path}: expected a mapping of key: template")
        for name, source in entries.items():
            if not isinstance(source, str):
                raise ValueError(f"{path}: {name} must be a string template")
            templates[f"{path.stem}.{name}"] = source
    return templates


_YEAR_OF_TWO = re.compile(r"(?<!y)yy(?!y)")


def _environment(language: str) -> Environment:
    babel_locale = _BABEL[language]
    env = Environment(autoescape=True, undefined=StrictUndefined)
    # The channel a person talks on, as they name it ("Telegram", "WhatsApp"): a flow's context
    # passes its chat's; texts rendered elsewhere read the first channel's name.
    env.globals["channel"] = CHANNEL_NAMES["telegram"]

    def money(value: Decimal | float | int | str | None) -> str:
        # The amount is always in reais: the symbol stays "R$" in every language (Babel would write
        # "BRL1,234.50" in Latin-American Spanish); the digits follow the person's locale.
        if value is None:
            return ""
        return f"{CURRENCY_SYMBOL}\u00a0{format_decimal(Decimal(str(value)), MONEY_FORMAT, locale=babel_locale)}"

    def number(value: Decimal | float | int | None) -> str:
        return "" if value is None else format_decimal(value, locale=babel_locale)

    rules = Locale.parse(babel_locale)
    # Babel's short dates of en and es have two-digit years ("3/28/25"); ours keep all four.
    short_date = _YEAR_OF_TWO.sub("y", rules.date_formats["short"].pattern)

    def day(value: date | datetime | None, style: str = "short") -> str:
        if value is None:
            return ""
        pattern = short_date if style == "short" else style
        return format_date(value.date() if isinstance(value, datetime) else value, pattern, locale=babel_locale)

    def moment(value: datetime | None, style: str = "short") -> str:
        if value is None:
            return ""
        if style != "short":
            return format_datetime(value, style, locale=babel_locale)
        when = str(rules.datetime_formats["short"])
        hour = format_time(value, "short", locale=babel_locale)
        return when.replace("{1}", format_date(value, short_date, locale=babel_locale)).replace("{0}", hour)

    def clock(value: Any, style: str = "short") -> str:
        return "" if value is None else format_time(value, style, locale=babel_locale)

    def plural(count: int | Decimal, one: str, other: str) -> str:
        return one if rules.plural_form(abs(Decimal(count))) == "one" else other

    env.filters.update(money=money, number=number, date=day, datetime=moment, time=clock, plural=plural)
    return env
