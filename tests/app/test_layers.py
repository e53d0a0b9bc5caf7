"""The import graph of ``bot/`` and ``flows/``: no import runs up the layers, and no circle joins
two packages.

``LAYERS`` is the order, lowest first, written once. A package here is a prefix of it: a module
belongs to the longest prefix naming it, and may import its own layer and those below, never one
above. Packages of one layer may import each other as long as no circle forms; a circle between
files of one package is that package's own business. Every import counts, wherever it is written:
at the top, inside a function, or under ``if TYPE_CHECKING:`` (a type-only import still ties the
lower module to the higher one; hiding a circle from the interpreter does not take it out of the
design).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("bot", "flows")

LAYERS: tuple[tuple[str, ...], ...] = (
    # Ground: nothing of ours below them.
    ("bot.heap", "bot.logs", "bot.i18n", "bot.store", "bot.isp", "bot.sandbox"),
    # Ground that counts the ISP client's calls, or opens the store and the client for a command.
    ("bot.metrics", "bot.cli_support"),
    ("flows",),  # the engine, the context and what every role's flows share
    ("flows.subscriber", "flows.technician", "flows.staff"),
    ("flows.diagrams",),  # draws every role's flows
    ("bot.settings", "bot.mirror", "bot.web"),
    ("bot.channels", "bot.channels.telegram", "bot.channels.console"),
    # The doctor checks the channels (the Bot API token): it sits above them.
    ("bot.doctor",),
    ("bot.runtime",),  # the composition root, and the entry points of `ispbot run` and `ispbot demo`
    # The commands.
    (
        "bot.cli", "bot.intents_cli", "bot.invites_cli", "bot.locks_cli", "bot.contacts_cli", "bot.undelivered_cli",
        "bot.env_example",
        "bot.operations_doc", "bot.isp.cli", "bot.store.cli", "bot.mirror.cli", "bot.sandbox.cli", "bot.doctor.cli",
    ),
)

def modules() -> dict[str, Path]:
    """Every module of ours by dotted name (a package by its own name, for its ``__init__.py``)."""
    found = {}
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The modules of ours that ``name`` imports: ``from a import b`` is ``a.b`` when that is a module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for written in targets:
            target = written
            while target and target not in known:  # the nearest module of ours; none for a third party's
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: set(imports(name, path, known)) for name, path in known.items()}


def component(module: str) -> str:
    """The longest prefix of ``LAYERS`` naming ``module`` (the package it belongs to here); the module
    itself when none does (``test_every_module_has_a_layer`` names it)."""
    named = [prefix for prefixes in LAYERS for prefix in prefixes
             if module == prefix or module.startswith(f"{prefix}.")]
    return max(named, key=len) if named else module


def layer(module: str) -> int:
    """The index of ``module``'s layer in ``LAYERS``; above them all when it has none."""
    if module == "bot":  # the root package's __init__.py: a docstring, nothing else
        return 0
    return next((index for index, prefixes in enumerate(LAYERS) if component(module) in prefixes), len(LAYERS))


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of nodes that reach each other, of two or more (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(name for name in modules() if layer(name) == len(LAYERS))
    assert unplaced == [], "place these packages in LAYERS (tests/app/test_layers.py):\n" + "\n".join(unplaced)


def test_every_prefix_of_the_layers_names_a_module() -> None:
    known = modules()
    stale = sorted(prefix for prefixes in LAYERS for prefix in prefixes
                   if not any(name == prefix or name.startswith(f"{prefix}.") for name in known))
    assert stale == [], "LAYERS names packages that do not exist:\n" + "\n".join(stale)


def test_no_import_runs_up_the_layers() -> None:
    upward = sorted(
        (module, target) for module, targets in graph().items() for target in targets
        if layer(module) < layer(target)
    )
    assert upward == [], "imports from a higher layer:\n" + "\n".join(f"{a} -> {b}" for a, b in upward)


def test_no_circle_joins_two_packages() -> None:
    edges = {(module, target) for module, targets in graph().items() for target in targets
             if component(module) != component(target)}
    between: dict[str, set[str]] = {}
    for module, target in edges:
        between.setdefault(component(module), set()).add(component(target))
    found = []
    for group in circles(between):
        found.append(" <-> ".join(group) + ":")
        found += sorted(f"  {module} -> {target}" for module, target in edges
                        if component(module) in group and component(target) in group)
    assert found == [], "circles between packages, and the imports that make them:\n" + "\n".join(found)


