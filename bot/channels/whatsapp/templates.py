"""Approved message templates, for what the bot sends outside the 24-hour window (WhatsApp accepts
only templates there): named in the YAML file ``ISPBOT_WHATSAPP_TEMPLATES``, e.g.

    notice:                       # whatever the bot sends on its own: an outage over, a technician
      name: aviso_atendimento     # on the way, a staff answer, the survey
      languages: {pt_BR: pt_BR, en: en, es: es}   # our language: the template's language code

The template's body has one variable, ``{{1}}``: the message, on one line (Meta refuses line breaks
in a variable). The operator's guide has the texts to submit. A message refused as outside the
window (131047) goes again as this template; without one it is held, counted, never sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

MAX_VARIABLE = 1000  # characters of the message a template carries
_NAME = re.compile(r"[a-z0-9_]{1,512}")


@dataclass(frozen=True, slots=True)
class Template:
    name: str
    languages: dict[str, str]  # ours (pt_BR) to the template's code (pt_BR, en_US...)

    def message(self, language: str, text: str) -> dict[str, Any]:
        """The template message carrying ``text`` (flattened to one line, cut to ``MAX_VARIABLE``)."""
        code = self.languages.get(language) or next(iter(self.languages.values()))
        line = re.sub(r"\s*\n\s*", " · ", text.strip())
        line = re.sub(r"[ \t]{2,}", " ", line)
        if len(line) > MAX_VARIABLE:
            line = line[: MAX_VARIABLE - 1] + "…"
        return {"type": "template", "template": {
            "name": self.name, "language": {"code": code},
            "components": [{"type": "body", "parameters": [{"type": "text", "text": line}]}],
        }}


def load_templates(path: Path) -> dict[str, Template]:
    """The file's templates by kind; ``ValueError`` saying what to fix."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"cannot read the WhatsApp templates {path}: {exc}") from None
    if not isinstance(raw, dict) or not raw:
        raise ValueError(f"{path}: expected kinds (notice: …) each with a name and languages")
    templates = {}
    for kind, entry in raw.items():
        name = entry.get("name") if isinstance(entry, dict) else None
        languages = entry.get("languages") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(f"{path}: {kind}.name must be the template's name as Meta shows it (a-z, 0-9, _)")
        if not isinstance(languages, dict) or not languages or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in languages.items()):
            raise ValueError(f"{path}: {kind}.languages must map pt_BR, en, es to the template's language codes")
        templates[str(kind)] = Template(name, dict(languages))
    if "notice" not in templates:
        raise ValueError(f"{path}: no 'notice' template (what the bot sends on its own outside 24 hours)")
    return templates
