"""The import graph of ``bot/``, ``flows/`` and ``bench/``: no import runs up the layers, no circle
joins two packages or two files of one package, the ground keeps to itself, each package uses only
the third-party packages listed for it, and nothing is imported by a name built at run time.

``LAYERS`` is the order, lowest first, written once. A package here is a prefix of it: a module
belongs to the longest prefix naming it, and may import its own layer and those below, never one
above. Every import counts, wherever it is written: at the top, inside a function, or under
``if TYPE_CHECKING:`` (a type-only import still ties the lower module to the higher one; hiding a
circle from the interpreter does not take it out of the design). ``importlib.import_module`` and
``__import__`` are refused: an import this test cannot read is one it cannot keep in its place.

The checks are functions of a folder, so the last tests feed each one a small tree of its own that
breaks its rule, and see it caught.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("bot", "flows", "bench")
TESTS = "tests"  # not read (it imports everything), but a module of it imported from SOURCES is placed
OURS = {*SOURCES, TESTS}

LAYERS: tuple[tuple[str, ...], ...] = (
    # Ground: nothing of ours below them (``GROUND`` says what each may import of the others).
    ("bot.heap", "bot.jsontext", "bot.yamltext", "bot.logs", "bot.languages", "bot.i18n", "bot.store", "bot.isp",
     "bot.sandbox", "bot.acs", "bot.receipts", "bot.wakeup"),
    ("bot.metrics",),  # counts the ISP client's calls
    ("flows",),  # the engine, the context and what every role's flows share
    ("flows.subscriber", "flows.technician", "flows.staff"),
    ("flows.diagrams",),  # draws every role's flows
    ("bot.settings", "bot.mirror", "bot.web"),
    ("bot.reads",),  # what a channel or a desk made of a stored update: below both, so neither imports the other
    ("bot.channels", "bot.channels.telegram", "bot.channels.whatsapp", "bot.channels.console"),
    # The staff desks, above the channels: the forum desk speaks the Bot API through the Telegram channel's
    # calls and reads the staff group's updates as it does. No channel knows a desk.
    ("bot.desks", "bot.desks.telegram", "bot.desks.chatwoot"),
    # The doctor checks the channels (the Bot API token): it sits above them.
    ("bot.doctor",),
    ("bot.runtime",),  # the composition root, and the entry points of `ispbot run` and `ispbot demo`
    # The commands: ``ispbot`` and its sub-commands, and the tools that write the docs from the code.
    ("bot.cli", "bot.commands", "bot.env_example", "bot.operations_doc"),
    # Measures the whole bot against its peers, with the tests' fakes; the tests are not read here (they
    # import everything), but an import of them counts: nothing below may lean on a test or its fakes.
    ("bench", "tests"),
)

# Within the ground, what each package may import of ours besides itself: the client and the
# sandbox nothing (each is checked against the other, so neither may lean on it), the store nothing.
GROUND: dict[str, tuple[str, ...]] = {
    "bot.heap": (), "bot.jsontext": (), "bot.yamltext": (), "bot.logs": ("bot.jsontext",), "bot.languages": (),
    "bot.i18n": ("bot.languages", "bot.yamltext"), "bot.store": ("bot.jsontext",),
    "bot.isp": (), "bot.sandbox": (), "bot.acs": (), "bot.receipts": (), "bot.wakeup": (),
}

# The processor knows a channel only by what the runtime asks of every channel (``bot.channels.base``):
# nothing else under ``bot.channels``, whichever channels come.
CHANNEL_FREE = ("bot.runtime.processor",)
CHANNEL_PORT = "bot.channels.base"

# The third-party packages each package may import (by top-level name; the longest prefix of a module
# names its entry). ``None``: any. Channel libraries stay in the channels and what composes them.
CHANNEL_LIBRARIES = frozenset({"telegram", "aiohttp", "httpx", "aiogram"})
THIRD_PARTY: dict[str, frozenset[str] | None] = {
    "bot": frozenset(),  # the root package's __init__.py
    "bot.heap": frozenset(),
    "bot.jsontext": frozenset({"orjson"}),
    "bot.yamltext": frozenset({"yaml"}),
    "bot.logs": frozenset(),
    "bot.i18n": frozenset({"babel", "jinja2"}),
    "bot.store": frozenset({"aiosqlite", "alembic", "asyncpg", "sqlalchemy"}),
    "bot.isp": frozenset({"cachetools", "httpx", "pydantic", "pydantic_core", "pydantic_settings", "tenacity"}),
    "bot.sandbox": frozenset({"fpdf", "httpx", "segno", "starlette", "uvicorn", "yaml"}),  # httpx: the fake ACS
    "bot.acs": frozenset({"httpx", "pydantic", "pydantic_settings"}),
    "bot.receipts": frozenset({"PIL", "pypdf"}),  # a receipt's text: images by Tesseract (a program), PDFs
    "bot.metrics": frozenset({"prometheus_client"}),
    "bot.languages": frozenset(),
    "flows": frozenset({"sqlalchemy", "yaml", "babel", "text_to_num", "cachetools"}),
    "flows.subscriber": frozenset({"fpdf", "markupsafe", "segno"}),
    "flows.technician": frozenset({"babel"}),
    "flows.staff": frozenset(),
    "flows.diagrams": frozenset(),
    "bot.settings": frozenset({"pydantic", "pydantic_settings", "yaml"}),
    "bot.mirror": frozenset({"pydantic", "sqlalchemy", "tenacity"}),
    "bot.web": frozenset({"starlette", "uvicorn"}),
    "bot.channels": frozenset({"sqlalchemy"}),
    "bot.channels.telegram": frozenset({"aiohttp", "pydantic", "pydantic_settings", "sqlalchemy", "telegram"}),
    "bot.channels.whatsapp": frozenset({"httpx", "pydantic", "pydantic_settings", "sqlalchemy", "yaml"}),
    "bot.channels.console": frozenset({"sqlalchemy"}),
    "bot.desks": frozenset({"sqlalchemy"}),
    "bot.desks.chatwoot": frozenset({"httpx", "pydantic", "pydantic_settings", "sqlalchemy", "starlette"}),
    "bot.doctor": frozenset({"httpx", "pydantic", "pydantic_settings", "sqlalchemy", "telegram"}),
    "bot.runtime": frozenset({"httpx", "sqlalchemy", "starlette", "telegram"}),
    "bot.runtime.processor": frozenset({"sqlalchemy"}),
    "bot.cli": frozenset(),
    "bot.commands": frozenset({"pydantic", "pydantic_settings", "sqlalchemy", "telegram", "uvicorn"}),
    "bot.env_example": frozenset({"pydantic_settings"}),
    "bot.operations_doc": frozenset(),
    "bench": None,
}

# Names that import a module named at run time: the graph above cannot see where they lead.
DYNAMIC = frozenset({
    "import_module", "__import__", "exec_module", "load_module", "run_module", "run_path", "resolve_name",
})
# Modules whose attributes include an importer: ``getattr`` on one with a name it cannot read
# (``getattr(builtins, "__imp" + "ort__")``) is refused like the importer itself.
IMPORTERS = frozenset({"builtins", "importlib", "pkgutil", "runpy", "__builtins__"})
# Built-ins that run code written in a string, an import among it.
RUNS_A_STRING = frozenset({"exec", "eval"})


@dataclass(frozen=True)
class Import:
    target: str  # a module of ours, or a third party's top-level package
    line: int
    ours: bool


def parsed(path: Path) -> ast.Module:
    """The file's syntax tree, read once per version of it (every check walks the whole tree)."""
    return _parsed(path, path.stat().st_mtime_ns)


@functools.cache
def _parsed(path: Path, _version: int) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of ours under ``root`` by dotted name (a package by its own name, for its ``__init__.py``)."""
    found = {}
    for source in SOURCES:
        for path in sorted((root / source).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: Mapping[str, Path]) -> Iterator[Import]:
    """What ``name`` imports: ``from a import b`` is ``a.b`` when that is a module of ours; the
    standard library is left out."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(parsed(path)):
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
            top = written.partition(".")[0]
            if top not in OURS:
                if top not in sys.stdlib_module_names:
                    yield Import(top, node.lineno, ours=False)
                continue
            target = written
            while target and target not in known:  # the nearest module of ours
                target = target.rpartition(".")[0]
            if not target and top == TESTS:  # the tests are not read: the module as written
                target = written
            if target and target != name:
                yield Import(target, node.lineno, ours=True)


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    known = modules(root)
    return {name: {each.target for each in imports(name, path, known) if each.ours} for name, path in known.items()}


def longest(module: str, prefixes: Mapping[str, object] | tuple[str, ...]) -> str | None:
    """The longest of ``prefixes`` naming ``module`` (itself or a package holding it), if any."""
    named = [prefix for prefix in prefixes if module == prefix or module.startswith(f"{prefix}.")]
    return max(named, key=len) if named else None


def component(module: str) -> str:
    """The longest prefix of ``LAYERS`` naming ``module`` (the package it belongs to here); the module
    itself when none does (``unplaced`` names it)."""
    return longest(module, tuple(prefix for prefixes in LAYERS for prefix in prefixes)) or module


def layer(module: str) -> int:
    """The index of ``module``'s layer in ``LAYERS``; above them all when it has none."""
    if module == "bot":  # the root package's __init__.py: a docstring, nothing else
        return 0
    return next((index for index, prefixes in enumerate(LAYERS) if component(module) in prefixes), len(LAYERS))


def circles(edges: Mapping[str, set[str]]) -> list[list[str]]:
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


# ---- the checks: each a list of what breaks its rule under ``root`` ---------------------------------
def unplaced(root: Path = ROOT) -> list[str]:
    return sorted(name for name in modules(root) if layer(name) == len(LAYERS))


def upward(root: Path = ROOT) -> list[str]:
    return sorted(f"{module} -> {target}" for module, targets in graph(root).items() for target in targets
                  if layer(module) < layer(target))


def circles_between_packages(root: Path = ROOT) -> list[str]:
    edges = {(module, target) for module, targets in graph(root).items() for target in targets
             if component(module) != component(target)}
    between: dict[str, set[str]] = {}
    for module, target in edges:
        between.setdefault(component(module), set()).add(component(target))
    found = []
    for group in circles(between):
        found.append(" <-> ".join(group) + ":")
        found += sorted(f"  {module} -> {target}" for module, target in edges
                        if component(module) in group and component(target) in group)
    return found


def circles_within_packages(root: Path = ROOT) -> list[str]:
    """Files of one package that import each other, however far round (a package's ``__init__.py``
    is one of its files)."""
    within = {module: {target for target in targets if component(target) == component(module)}
              for module, targets in graph(root).items()}
    return [" -> ".join(group) for group in circles(within)]


def outside_the_ground(root: Path = ROOT) -> list[str]:
    """Imports of ours a ground package or a channel-free module may not make."""
    found = []
    for module, targets in graph(root).items():
        ground = longest(module, GROUND)
        for target in sorted(targets):
            if ground is not None and longest(target, (ground, *GROUND[ground])) is None:
                found.append(f"{module} -> {target} (the ground's {ground} imports only {GROUND[ground] or 'itself'})")
            if longest(module, CHANNEL_FREE) and longest(target, ("bot.channels",)) and target != CHANNEL_PORT:
                found.append(f"{module} -> {target} (a channel, where only bot.channels.base may be known)")
    return found


def foreign(root: Path = ROOT) -> list[str]:
    """Third-party imports a package's entry in ``THIRD_PARTY`` does not list."""
    known = modules(root)
    found = []
    for name, path in known.items():
        entry = longest(name, THIRD_PARTY)
        allowed = THIRD_PARTY[entry] if entry is not None else frozenset()
        if allowed is None:
            continue
        found += sorted({f"{name} imports {each.target} (line {each.line}): not listed for {entry}"
                         for each in imports(name, path, known) if not each.ours and each.target not in allowed})
    return found


def dynamic(root: Path = ROOT) -> list[str]:
    """Every mention of a name that imports at run time: a call, an alias of it, or its name in a string
    (``getattr(importlib, "import_module")``)."""
    found = []
    for name, path in modules(root).items():
        for node in ast.walk(parsed(path)):
            said = (
                node.attr if isinstance(node, ast.Attribute)
                else node.id if isinstance(node, ast.Name)
                else node.value if isinstance(node, ast.Constant) and isinstance(node.value, str)
                else next((alias.name for alias in node.names if alias.name in DYNAMIC), None)
                if isinstance(node, ast.ImportFrom) else None
            )
            if said in DYNAMIC or (isinstance(node, ast.Name) and node.id in RUNS_A_STRING):
                found.append(f"{name}, line {getattr(node, 'lineno', '?')}: {said}")
            elif _unread_attribute_of_an_importer(node):
                found.append(f"{name}, line {node.lineno}: {ast.unparse(node)}")
    return found


def _unread_attribute_of_an_importer(node: ast.AST) -> bool:
    """``getattr(builtins, name)`` or ``vars(importlib)[name]`` whose name is not written out (a name
    written out is caught above when it is an importer's)."""
    match node:
        case ast.Call(func=ast.Name(id="getattr"), args=[owner, attribute, *_]):
            return _importer(owner) and not isinstance(attribute, ast.Constant)
        case ast.Subscript(value=ast.Call(func=ast.Name(id="vars" | "getattr"), args=[owner, *_]), slice=key):
            return _importer(owner) and not isinstance(key, ast.Constant)
        case ast.Subscript(value=ast.Name(id="__builtins__"), slice=key):
            return not isinstance(key, ast.Constant)
    return False


def _importer(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id in IMPORTERS) or (
        isinstance(node, ast.Attribute) and node.attr in IMPORTERS)


# ---- this repository --------------------------------------------------------------------------------
def test_every_module_has_a_layer() -> None:
    assert unplaced() == [], "place these packages in LAYERS (tests/app/test_layers.py):\n" + "\n".join(unplaced())


def test_every_prefix_of_the_tables_names_a_module() -> None:
    known = modules()
    listed = {*(prefix for prefixes in LAYERS for prefix in prefixes), *GROUND, *CHANNEL_FREE, *THIRD_PARTY}
    stale = sorted(prefix for prefix in listed if prefix != TESTS and not any(
        name == prefix or name.startswith(f"{prefix}.") for name in known))
    assert stale == [], "tests/app/test_layers.py names packages that do not exist:\n" + "\n".join(stale)


def test_no_import_runs_up_the_layers() -> None:
    assert upward() == [], "imports from a higher layer:\n" + "\n".join(upward())


def test_no_circle_joins_two_packages() -> None:
    found = circles_between_packages()
    assert found == [], "circles between packages, and the imports that make them:\n" + "\n".join(found)


def test_no_circle_joins_files_of_one_package() -> None:
    found = circles_within_packages()
    assert found == [], "files of one package that import each other:\n" + "\n".join(found)


def test_the_ground_keeps_to_itself_and_the_processor_knows_no_channel() -> None:
    found = outside_the_ground()
    assert found == [], "\n".join(found)


def test_each_package_uses_only_the_third_party_packages_listed_for_it() -> None:
    found = foreign()
    assert found == [], "list them in THIRD_PARTY (tests/app/test_layers.py) or move the code:\n" + "\n".join(found)


def test_the_conversations_and_the_processor_may_use_no_channel_library() -> None:
    # Written apart from the table, so widening the table for flows/ or the processor fails here.
    for prefix, allowed in THIRD_PARTY.items():
        if prefix == "flows" or prefix.startswith("flows.") or prefix in CHANNEL_FREE:
            assert allowed is not None
            assert not allowed & CHANNEL_LIBRARIES, prefix


def test_nothing_is_imported_by_a_name_built_at_run_time() -> None:
    assert dynamic() == [], "imports this test cannot follow:\n" + "\n".join(dynamic())


# ---- each check catches what it is there for -------------------------------------------------------
def tree(root: Path, files: dict[str, str]) -> Path:
    """A small source tree under ``root``: a file per path, and an empty ``__init__.py`` wherever one is missing."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for relative in files:
        for folder in (root / relative).parents:
            if folder == root:
                break
            (folder / "__init__.py").touch()
    return root


def test_the_checks_pass_a_tree_that_keeps_the_rules(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        "bot/isp/client.py": "import httpx\nfrom bot.isp import errors\n",
        "bot/isp/errors.py": "import json\n",
        "flows/engine.py": "import yaml\nfrom bot.isp import client\n",
        "bot/runtime/processor.py": "from bot.channels.base import Channel\n",
        "bot/channels/base.py": "",
        "bench/overhead.py": "import aiogram\nfrom bot.runtime import processor\n",
    })
    assert [unplaced(root), upward(root), circles_between_packages(root), circles_within_packages(root),
            outside_the_ground(root), foreign(root), dynamic(root)] == [[]] * 7


def test_telegram_in_the_engine_is_caught(tmp_path: Path) -> None:
    root = tree(tmp_path, {"flows/engine.py": "def f():\n    import telegram\n    from aiohttp import web\n"})
    assert foreign(root) == [
        "flows.engine imports aiohttp (line 3): not listed for flows",
        "flows.engine imports telegram (line 2): not listed for flows",
    ]


def test_a_channel_in_the_processor_is_caught(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        "bot/runtime/processor.py": "from bot.channels.telegram.settings import DEFAULT_CONCURRENCY\nimport httpx\n"
                                    "from bot.channels import whatsapp\nfrom bot.channels.base import Channel\n",
        "bot/channels/telegram/settings.py": "",
        "bot/channels/whatsapp.py": "",
        "bot/channels/base.py": "",
    })
    assert outside_the_ground(root) == [
        "bot.runtime.processor -> bot.channels.telegram.settings"
        " (a channel, where only bot.channels.base may be known)",
        "bot.runtime.processor -> bot.channels.whatsapp (a channel, where only bot.channels.base may be known)",
    ]
    assert foreign(root) == ["bot.runtime.processor imports httpx (line 2): not listed for bot.runtime.processor"]


def test_the_client_importing_the_store_is_caught(tmp_path: Path) -> None:
    root = tree(tmp_path, {"bot/isp/client.py": "from bot.store import Database\n", "bot/store/__init__.py": ""})
    assert upward(root) == []  # one layer: only the ground's own list keeps them apart
    assert outside_the_ground(root) == ["bot.isp.client -> bot.store (the ground's bot.isp imports only itself)"]


def test_the_sandbox_importing_the_client_is_caught(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        "bot/sandbox/app.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.isp import client\n",
        "bot/isp/client.py": "",
    })
    assert outside_the_ground(root) == [
        "bot.sandbox.app -> bot.isp.client (the ground's bot.sandbox imports only itself)",
    ]


@pytest.mark.parametrize("text", [
    "import importlib\nimportlib.import_module('bot.runtime.app')\n",
    "from importlib import import_module as load\nload('bot.runtime.app')\n",
    "__import__('bot.runtime.app')\n",
    "import importlib\ngetattr(importlib, 'import_module')('bot.runtime.app')\n",
    "import importlib.util as u\nu.spec_from_file_location('x', 'x.py').loader.exec_module(None)\n",
    "exec('import telegram')\n",
    "import pkgutil\npkgutil.resolve_name('bot.runtime.app:build_app')\n",
    "from pkgutil import resolve_name\nresolve_name('bot.runtime.app:build_app')\n",
    "import builtins\ngetattr(builtins, '__import__')('bot.runtime.app')\n",
    "import builtins\ngetattr(builtins, '__imp' + 'ort__')('bot.runtime.app')\n",
    "import builtins\nname = '__import__'\nvars(builtins)[name]('bot.runtime.app')\n",
])
def test_an_import_by_a_name_built_at_run_time_is_caught(tmp_path: Path, text: str) -> None:
    root = tree(tmp_path, {"flows/engine.py": text})
    assert len(dynamic(root)) >= 1
    assert all(line.startswith("flows.engine, line ") for line in dynamic(root))


def test_an_import_up_the_layers_is_caught_wherever_it_is_written(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        "bot/store/chats.py": "def later():\n    from bot.runtime.app import build_app\n",
        "bot/runtime/app.py": "def build_app(): ...\n",
    })
    assert upward(root) == ["bot.store.chats -> bot.runtime.app"]


def test_a_circle_between_files_of_one_package_is_caught(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        "flows/engine.py": "from flows import context\n",
        "flows/context.py": "if TYPE_CHECKING:\n    from flows.coordinator import C\n",
        "flows/coordinator.py": "from flows.engine import Engine\n",
    })
    assert circles_within_packages(root) == ["flows.context -> flows.coordinator -> flows.engine"]


def test_a_circle_between_packages_is_caught(tmp_path: Path) -> None:
    root = tree(tmp_path, {"bot/settings.py": "from bot import web\n", "bot/web.py": "from bot import mirror\n",
                           "bot/mirror/__init__.py": "from bot.settings import X\n"})
    assert circles_between_packages(root)[0] == "bot.mirror <-> bot.settings <-> bot.web:"


def test_bench_is_read_too(tmp_path: Path) -> None:
    root = tree(tmp_path, {"bench/new.py": "import importlib\nimportlib.import_module('bot.cli')\n",
                           "bot/store/x.py": "from bench import new\n"})
    assert dynamic(root) == ["bench.new, line 2: import_module"]
    assert upward(root) == ["bot.store.x -> bench.new"]


def test_the_store_importing_the_tests_is_caught(tmp_path: Path) -> None:
    root = tree(tmp_path, {
        "bot/store/chats.py": "from tests.store.dbtools import make_database\n",
        "bot/store/inbox.py": "import tests.store.dbtools\n",
        "bot/store/outbox.py": "from tests import leakscan\n",
    })
    assert upward(root) == [
        "bot.store.chats -> tests.store.dbtools", "bot.store.inbox -> tests.store.dbtools",
        "bot.store.outbox -> tests",
    ]


def test_a_flow_importing_a_test_fake_is_caught(tmp_path: Path) -> None:
    # The fake Bot API brings uvicorn into flows: the import itself is refused, whatever it brings.
    root = tree(tmp_path, {
        "flows/subscriber/bills.py": "def f():\n    from tests.telegram.fake_bot_api import FakeBotApi\n",
    })
    assert upward(root) == ["flows.subscriber.bills -> tests.telegram.fake_bot_api"]


def test_bench_may_drive_the_tests_fakes(tmp_path: Path) -> None:
    root = tree(tmp_path, {"bench/overhead.py": "from tests.telegram.fake_bot_api import FakeBotApi\n"})
    assert upward(root) == []


def test_a_module_outside_the_layers_is_caught(tmp_path: Path) -> None:
    assert unplaced(tree(tmp_path, {"bot/nowhere.py": ""})) == ["bot.nowhere"]
