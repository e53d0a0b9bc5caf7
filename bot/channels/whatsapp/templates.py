"""Approved message templates, for the notices the bot sends outside the 24-hour window (WhatsApp
accepts only templates there): one per kind of notice (``flows.replies.Notice.kind``), named in the
YAML file ``ISPBOT_WHATSAPP_TEMPLATES`` (example: ``ops/whatsapp-templates.yaml``):

    outage_over:                                  # the notice's kind
      name: ispbot_outage_over                    # the template's name in WhatsApp Manager
      languages: {pt_BR: pt_BR, en: en, es: es}   # our language: the template's language code
      parameters: [up]                            # the notice's values for {{1}}, {{2}}... in order

The kinds and each one's body in pt_BR, en and es are ``locales/*/whatsapp_templates.yaml``; the
operator's guide lists them ready to submit (``guide_section``, checked by the tests). A kind the
file leaves out is held (a dead letter) and counted, never sent against the rule. Adding a kind:
its texts there, its entry in the example file, and the notice sent with that kind.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bot import yamltext
from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, Translations

TOPIC = "whatsapp_templates"  # locales/<language>/whatsapp_templates.yaml: one body per kind
MAX_VARIABLE = 1000  # characters of a value a template carries
EMPTY = "-"  # Meta refuses an empty parameter
_NAME = re.compile(r"[a-z0-9_]{1,512}")


@dataclass(frozen=True, slots=True)
class Template:
    name: str
    languages: dict[str, str]  # ours (pt_BR) to the template's code (pt_BR, en_US...)
    parameters: tuple[str, ...] = ()  # the notice's values filling {{1}}, {{2}}...

    def message(self, language: str, values: Mapping[str, str]) -> dict[str, Any] | None:
        """The template message with the notice's ``values``; None when one it needs is missing."""
        if any(name not in values for name in self.parameters):
            return None
        code = self.languages.get(language) or next(iter(self.languages.values()))
        template: dict[str, Any] = {"name": self.name, "language": {"code": code}}
        if self.parameters:
            template["components"] = [{"type": "body", "parameters": [
                {"type": "text", "text": _one_line(values[name])} for name in self.parameters]}]
        return {"type": "template", "template": template}


def _one_line(value: str) -> str:
    """A value as Meta takes it: one line (no line breaks, tabs or runs of spaces), never empty."""
    line = re.sub(r"\s*\n\s*", " · ", value.strip())
    line = re.sub(r"[ \t]+", " ", line)
    if len(line) > MAX_VARIABLE:
        line = line[: MAX_VARIABLE - 1] + "…"
    return line or EMPTY


def load_templates(path: Path) -> dict[str, Template]:
    """The file's templates by kind; ``ValueError`` saying what to fix."""
    try:
        raw = yamltext.load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"cannot read the WhatsApp templates {path}: {exc}") from None
    if not isinstance(raw, dict) or not raw:
        raise ValueError(f"{path}: expected kinds (outage_over: …) each with a name, languages and parameters")
    templates = {}
    for kind, entry in raw.items():
        found = entry if isinstance(entry, dict) else {}
        name, languages, parameters = found.get("name"), found.get("languages"), found.get("parameters", [])
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(f"{path}: {kind}.name must be the template's name as Meta shows it (a-z, 0-9, _)")
        if not isinstance(languages, dict) or not languages or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in languages.items()):
            raise ValueError(f"{path}: {kind}.languages must map pt_BR, en, es to the template's language codes")
        if not isinstance(parameters, list) or not all(isinstance(p, str) for p in parameters):
            raise ValueError(f"{path}: {kind}.parameters must list the notice's values for {{{{1}}}}, {{{{2}}}}...")
        templates[str(kind)] = Template(name, dict(languages), tuple(parameters))
    return templates


def kinds(translations: Translations) -> dict[str, set[str]]:
    """Every kind of notice, with the values its body uses."""
    return {kind: translations.variables(f"{TOPIC}.{kind}") for kind in translations.topic(DEFAULT_LANGUAGE, TOPIC)}


def problems(templates: Mapping[str, Template], translations: Translations) -> list[str]:
    """What the operator's file leaves out or gets wrong, one line each (for ``ispbot doctor``)."""
    known = kinds(translations)
    found = [f"no template for {kind}: held outside 24 hours" for kind in known if kind not in templates]
    found += [f"{kind} is no kind of notice (known: {', '.join(known)})" for kind in templates if kind not in known]
    for kind, template in templates.items():
        strange = [name for name in template.parameters if kind in known and name not in known[kind]]
        if strange:
            found.append(f"{kind}.parameters: {', '.join(strange)} is not among its values "
                         f"({', '.join(sorted(known[kind])) or 'none'})")
    return found


def guide_section(translations: Translations, example: Mapping[str, Template]) -> str:
    """The operator's guide's list of bodies to submit, {{1}}... in the order of ``example``."""
    lines: list[str] = []
    for kind, variables in kinds(translations).items():
        order = list(example[kind].parameters) if kind in example else sorted(variables)
        placeholders = {name: f"{{{{{order.index(name) + 1}}}}}" for name in variables}
        lines += [f"**`{kind}`** (Utility; parameters: {', '.join(order) or 'none'})", "",
                  "| language | body |", "|---|---|"]
        lines += [f"| `{language}` | {translations.render(language, f'{TOPIC}.{kind}', **placeholders)} |"
                  for language in LANGUAGES]
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":  # the guide's list: python -m bot.channels.whatsapp.templates ops/whatsapp-templates.yaml
    import sys

    from bot.i18n import default_translations

    print(guide_section(default_translations(), load_templates(Path(sys.argv[1]))), end="")
