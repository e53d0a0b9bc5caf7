"""The coordinator is the one door to the ISP: nothing but ``flows/coordinator.py`` reaches its client.

Read from the code (every ``.py`` of ``bot``, ``flows``, ``bench`` and ``tests``), two rules:

- anywhere, ``.client`` reached through a coordinator or a flow's context (``ctx.coordinator.client``,
  ``desk.coordinator.client``, ``coordinator.client``, ``getattr(coordinator, "client")``) is refused;
- in ``flows/``, which has no other client to speak of, any ``.client`` is refused (also through an
  alias: ``isp = ctx.coordinator; isp.client``), and so is importing the client or the filter builder:
  a query is the coordinator's, named for what it means.

A third rule covers ``bot/``: outside the client's own package, naming one of the client's operations
(``client.ConsultaUsuarios()``, a method passed on uncalled too) or importing the filter builder is
refused, but in the files of ``EXCEPTIONS``, each with why it talks to the web service itself. An
exception that no longer exists or no longer needs to fails the test, so the list stays the truth.

``flows/coordinator.py`` is the door itself; ``flows/writes.py`` may need the client for a rule of
its own. Each kind of bypass has a test below showing the check catches it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from bot.isp import IspClient

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("bot", "flows", "bench", "tests")
DOORS = ("flows/coordinator.py", "flows/writes.py")
# Names a coordinator or a flow's context goes by where the code holds one.
HOLDERS = frozenset({"coordinator", "_coordinator", "isp_coordinator", "ctx", "context"})
# What builds a call to the ISP's client by hand: only the coordinator does.
CLIENT_MODULES = frozenset({"bot.isp.client", "bot.isp.filters", "bot.isp.transport"})
CLIENT_NAMES = frozenset({"IspClient", "F", "Filter", "unsafe_raw_filter"})
# What only builds a query: the filter builder (bot/ may build a client to hand it to the coordinator).
FILTER_NAMES = frozenset({"F", "Filter", "unsafe_raw_filter"})
# The client's operations, as its methods are named (``call`` sends one by name; ``aclose`` and the
# cache are not calls to the ISP).
OPERATIONS = frozenset(name for name in dir(IspClient) if not name.startswith("_")) - {"aclose", "ttl_cache"}
# Where ``bot/`` talks to the web service around the coordinator, on purpose.
EXCEPTIONS: dict[str, str] = {
    "bot/doctor/isp.py": "the doctor probes the web service itself (the key, each generation, the tickets "
                         "named), uncached, to say what an operator must fix",
    "bot/doctor/operations.py": "the doctor tries each operation the bot uses with a filter matching nothing",
    "bot/commands/call.py": "`ispbot call` sends the operation the operator names, with their filter, as typed",
    "bot/mirror/worker.py": "the transcript mirror delivers the chat_messages outbox with retries and backoff "
                            "of its own; a write with no read-back or cache for the coordinator to keep",
}


def _holder(node: ast.expr) -> bool:
    """Whether ``node`` names a coordinator or a context (``coordinator``, ``ctx``, ``x.coordinator``)."""
    match node:
        case ast.Name(id=name) | ast.Attribute(attr=name):
            return name in HOLDERS
    return False


def bypasses(source: str, path: str) -> list[str]:
    """The ways ``source`` (the file at ``path``, relative to the project) goes around the door,
    as ``path:line: what``."""
    if path in DOORS:
        return []
    in_flows = path.startswith("flows/")
    found = []
    for node in ast.walk(ast.parse(source, path)):
        if isinstance(node, ast.Attribute) and node.attr == "client" and (in_flows or _holder(node.value)):
            found.append((node.lineno, f"{ast.unparse(node)}"))
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "client"
            and (in_flows or _holder(node.args[0]))
        ):
            found.append((node.lineno, ast.unparse(node)))
        elif in_flows and isinstance(node, ast.ImportFrom) and node.module in ("bot.isp", *CLIENT_MODULES):
            names = [alias.name for alias in node.names
                     if node.module in CLIENT_MODULES or alias.name in CLIENT_NAMES]
            found.extend((node.lineno, f"from {node.module} import {name}") for name in names)
        elif in_flows and isinstance(node, ast.Import):
            found.extend((node.lineno, f"import {alias.name}") for alias in node.names if alias.name in CLIENT_MODULES)
    if path.startswith("bot/") and not path.startswith("bot/isp/") and path not in EXCEPTIONS:
        found.extend(_around_the_door(source, path))
    return [f"{path}:{line}: {what}" for line, what in sorted(found)]


def _around_the_door(source: str, path: str) -> list[tuple[int, str]]:
    """In ``bot/``: an operation of the client named, or the filter builder imported."""
    found = []
    for node in ast.walk(ast.parse(source, path)):
        if isinstance(node, ast.Attribute) and node.attr in OPERATIONS and (
            node.attr != "call" or "client" in ast.unparse(node.value).lower()  # ``raw.call``: the Bot API's
        ):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom) and node.module in ("bot.isp", *CLIENT_MODULES):
            found.extend((node.lineno, f"from {node.module} import {alias.name}") for alias in node.names
                         if node.module == "bot.isp.filters" or alias.name in FILTER_NAMES)
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, f"import {alias.name}") for alias in node.names
                         if alias.name == "bot.isp.filters")
    return found


def test_the_exceptions_exist_and_each_still_goes_around_the_door() -> None:
    stale = [f"{path}: no such file (DOORS)" for path in DOORS if not (ROOT / path).exists()]
    for path in EXCEPTIONS:
        file = ROOT / path
        if not file.exists():
            stale.append(f"{path}: no such file")
        elif not _around_the_door(file.read_text(encoding="utf-8"), path):
            stale.append(f"{path}: goes through the coordinator now")
    assert stale == [], "take these out of DOORS or EXCEPTIONS (tests/flows/test_one_door.py):\n" + "\n".join(stale)


def test_nothing_but_the_coordinator_reaches_the_isp_client() -> None:
    found = []
    for source in SOURCES:
        for file in sorted((ROOT / source).rglob("*.py")):
            path = file.relative_to(ROOT).as_posix()
            found.extend(bypasses(file.read_text(encoding="utf-8"), path))
    assert found == [], "calls around the coordinator (add a named method to flows/coordinator.py):\n" + "\n".join(
        found
    )


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("flows/technician/work.py", "async def f(ctx):\n    await ctx.coordinator.client.ticket_finish(r)\n"),
        ("bot/channels/telegram/staff/commands.py", "async def f(desk):\n    await desk.coordinator.client.x(r)\n"),
        ("bot/desks/chatwoot.py", "async def f(coordinator):\n    await coordinator.client.ticket_update(r)\n"),
        ("bot/runtime/app.py", "def f(self):\n    return self._coordinator.client\n"),
        ("flows/staff/desk.py", "async def f(ctx):\n    return getattr(ctx.coordinator, 'client')\n"),
        ("bench/overhead.py", "def f(engine):\n    return getattr(engine.coordinator, 'client')\n"),
        ("flows/staff/desk.py", "async def f(ctx):\n    isp = ctx.coordinator\n    await isp.client.x(r)\n"),
        ("flows/subscriber/bills.py", "from bot.isp import F, IspError\n"),
        ("flows/subscriber/bills.py", "from bot.isp.client import IspClient\n"),
        ("flows/subscriber/bills.py", "import bot.isp.filters\n"),
        ("tests/flows/test_x.py", "async def f(desk):\n    await desk.engine.coordinator.client.ConsultaClientes(w)\n"),
        ("bot/commands/invites.py", "async def f(client):\n    return await client.ConsultaUsuarios()\n"),
        ("bot/runtime/app.py", "def f(self):\n    return self.isp.ConsultaTopicos\n"),  # passed on, not called
        ("bot/desks/chatwoot/desk.py", "async def f(isp_client):\n    await isp_client.call('ConsultaClientes', r)\n"),
        ("bot/desks/telegram/desk.py", "from bot.isp import F\n"),
        ("bot/web.py", "import bot.isp.filters\n"),
    ],
)
def test_each_way_around_the_door_is_caught(path: str, source: str) -> None:
    assert bypasses(source, path)


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("flows/coordinator.py", "async def f(self):\n    return await self.client.ConsultaTopicos(w)\n"),
        ("bot/mirror/worker.py", "async def f(self):\n    await self.client.chat_messages(r)\n"),
        ("bot/doctor/isp.py", "def f(prober):\n    return prober.client.settings\n"),
        ("bot/isp/client.py", "async def f(self):\n    return await self.call('ConsultaClientes', r)\n"),
        ("bot/commands/undelivered.py", "async def f(raw, bot):\n    await raw.call(bot, 'sendMessage', {})\n"),
        ("bot/runtime/app.py", "from bot.isp import IspClient, IspSettings\n"),  # built for the coordinator
        ("flows/subscriber/bills.py", "from bot.isp import IspApiError, quotable\n"),
        ("flows/engine.py", "# ctx.coordinator.client is refused here, in a comment it is only words\n"),
    ],
)
def test_what_is_not_a_way_around_the_door_passes(path: str, source: str) -> None:
    assert bypasses(source, path) == []
