"""YAML text as the bot reads it (the texts, the vocabularies, the settings' files): with libyaml's
reader where PyYAML has it, which reads the locales in a tenth of the pure-Python reader's time (a
second of every start and of every test process); the same safe subset either way."""

from __future__ import annotations

from typing import IO, Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(source: str | bytes | IO[str]) -> Any:
    """The value of a YAML document (``yaml.safe_load``'s)."""
    return yaml.load(source, Loader=_LOADER)  # noqa: S506 - a safe loader, libyaml's or Python's
