"""An operator's own data set: ``export``/``dump`` write the store's shape, ``load`` reads it back
(JSON, or YAML for ``.yaml``/``.yml`` files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from bot.sandbox.store import Store

# libyaml when present: the seeded set is a few megabytes, which the pure-Python codec takes seconds on.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def export(store: Store) -> dict[str, Any]:
    return store.export()


def dump(store: Store, path: str | Path) -> None:
    target = Path(path)
    data = store.export()
    if target.suffix in (".yaml", ".yml"):
        text = yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False)
        target.write_text(text, encoding="utf-8")
    else:
        target.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def load(path: str | Path) -> Store:
    source = Path(path)
    text = source.read_text(encoding="utf-8")
    data = yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader, C or Python if source.suffix in (".yaml", ".yml") else json.loads(text)
    return Store.from_export(data)
