"""Every sentence in every language: the same keys everywhere, each renders with its samples, money
looks Brazilian, a customer's name cannot inject markup, and the words and keys flows use exist."""

from __future__ import annotations

import ast
import re
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, LOCALES_DIR, Translations, default_translations
from flows.intents import ELSEWHERE, LEAVE, NEEDS, ORDINARY, SHORT, SMALL_TALK, STOP
from flows.subscriber import subscriber_flows
from jinja2 import Environment, meta

TRANSLATIONS = Translations()
REFERENCE = sorted(TRANSLATIONS.keys(DEFAULT_LANGUAGE))
SAMPLES = TRANSLATIONS.samples()
FLOWS_DIR = Path(__file__).resolve().parents[2] / "flows"
# Only parsed, never rendered: the filters need names, not the Babel formatting.
_PARSER = Environment(autoescape=True)
_PARSER.filters.update({name: str for name in ("money", "number", "date", "datetime", "time")})


def _variables(key: str) -> set[str]:
    """The variables a pt_BR template uses (what its samples must give)."""
    topic, name = key.split(".", 1)
    template = yaml.safe_load((LOCALES_DIR / DEFAULT_LANGUAGE / f"{topic}.yaml").read_text(encoding="utf-8"))[name]
    # ``channel`` is every template's (a global of bot.i18n's environment): no sample needed.
    return meta.find_undeclared_variables(_PARSER.parse(template)) - {"channel"}


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE])
def test_every_language_has_exactly_the_reference_keys(language: str) -> None:
    keys = TRANSLATIONS.keys(language)
    assert sorted(set(REFERENCE) - keys) == [], f"missing in locales/{language}"
    assert sorted(keys - set(REFERENCE)) == [], f"in locales/{language} but not in pt_BR"


# One test a language, not one a template (2,000 tests of a few milliseconds each were 43% of the
# suite): each lists every template of its language that fails, by key.
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_template_renders_with_its_samples(language: str) -> None:
    failed = []
    for key in REFERENCE:
        # Rendering is strict: a variable the samples do not give raises here instead of rendering blank.
        try:
            text = TRANSLATIONS.render(language, key, **SAMPLES.get(key, {}))
        except Exception as exc:
            failed.append(f"{key}: {type(exc).__name__}: {exc}")
            continue
        if not text.strip():
            failed.append(f"{key}: renders empty")
    assert failed == [], f"locales/{language}:\n" + "\n".join(failed)


def test_every_template_with_variables_has_samples_for_all_of_them() -> None:
    missing = []
    for key in REFERENCE:
        topic, name = key.split(".", 1)
        if not (needed := _variables(key)):
            continue
        if key not in SAMPLES:
            missing.append(f"locales/samples/{topic}.yaml has no entry {name}")
        elif lacking := needed - set(SAMPLES[key]):
            missing.append(f"samples of {key} lack {sorted(lacking)}")
    assert missing == []


def test_samples_name_only_templates_that_exist() -> None:
    assert sorted(set(SAMPLES) - set(REFERENCE)) == []


def _tiny_locales(tmp_path: Path, template: str) -> Translations:
    for language in LANGUAGES:
        (tmp_path / language).mkdir()
        (tmp_path / language / "t.yaml").write_text(f"x: {template!r}\n", encoding="utf-8")
    return Translations(tmp_path)


def test_money_is_written_the_brazilian_way_in_portuguese(tmp_path: Path) -> None:
    rendered = _tiny_locales(tmp_path, "{{ v | money }}").render("pt_BR", "t.x", v=Decimal("1234.56"))
    assert rendered == "R$\u00a01.234,56"  # a no-break space keeps the symbol with its amount


def test_money_is_in_reais_in_every_language_with_the_language_s_digits(tmp_path: Path) -> None:
    # Babel alone would write "BRL1,234.56" in Latin-American Spanish.
    translations = _tiny_locales(tmp_path, "{{ v | money }}")
    shown = {language: translations.render(language, "t.x", v=Decimal("1234.5")) for language in LANGUAGES}
    assert shown == {"pt_BR": "R$\u00a01.234,50", "en": "R$\u00a01,234.50", "es": "R$\u00a01,234.50"}


def test_a_customer_name_with_markup_is_escaped() -> None:
    text = default_translations().render("pt_BR", "menu.prompt", name="<b>Zé</b> & Cia", contract="", blocked=None,
                                         owed=None, standing=None)
    assert "&lt;b&gt;Zé&lt;/b&gt; &amp; Cia" in text
    assert text.count("<b>") == 1  # only the template's own bold around the name


def test_the_intents_name_only_flows_that_exist() -> None:
    flows = {*subscriber_flows().flows, *SMALL_TALK, LEAVE, STOP, ORDINARY, ELSEWHERE, SHORT, *NEEDS}
    assert sorted(set(NEEDS.values()) - {*subscriber_flows().flows, *SMALL_TALK}) == []
    for path in sorted((LOCALES_DIR / "intents").glob("*.yaml")):
        named = set(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
        assert sorted(named - flows) == [], f"{path.name} names flows that do not exist"


def test_every_flow_in_the_menu_has_its_button_label() -> None:
    for name in subscriber_flows().menu:
        assert TRANSLATIONS.has(f"menu.{name}"), f"no menu.{name} for the {name} flow's button"


# ---- keys the flows' code uses ---------------------------------------------------------------------
KEY_FIRST = {"say", "text", "document", "isp_text"}  # ctx.reply.say("bills.none_open", ...)
KEY_SECOND = {"ask", "ask_location", "ask_contact"}  # ctx.reply.ask("step", "bills.choose", ...)


def _keys_used(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        position = 0 if name in KEY_FIRST | {"Unexpected"} else 1 if name in KEY_SECOND else None
        candidates = [node.args[position]] if position is not None and len(node.args) > position else []
        if name == "Option":
            candidates += [kw.value for kw in node.keywords if kw.arg == "key"]
        found += [
            (arg.lineno, arg.value) for arg in candidates
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and "." in arg.value
        ]
    return found


@pytest.mark.parametrize("path", sorted(FLOWS_DIR.rglob("*.py")), ids=lambda p: str(p.relative_to(FLOWS_DIR)))
def test_every_key_a_flow_names_exists(path: Path) -> None:
    missing = [f"line {line}: {key}" for line, key in _keys_used(path) if not TRANSLATIONS.has(key)]
    assert missing == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_dates_keep_four_digit_years_and_a_time_ending_a_sentence_one_period(language: str) -> None:
    # en and es read "3/28/25" and "a las 10:00 p.m.." before; a bill's year must not be guessed.
    texts = [TRANSLATIONS.render(language, key, **SAMPLES.get(key, {})) for key in REFERENCE]
    assert [t for t in texts if re.search(r"\b\d{1,2}/\d{1,2}/\d{2}\b", t)] == []
    assert [t for t in texts if re.search(r"[ap]\.\s?m\.\.", t)] == []
    visit = TRANSLATIONS.render(language, "technician_appointment.customer_visit",
                                **SAMPLES["technician_appointment.customer_visit"])
    assert "/2025" in visit
