"""A Mermaid state diagram per flow, drawn from its ``steps`` (``flows.steps``), under ``docs/flows/``.

``python -m flows.diagrams`` (``make diagrams``) writes them with an index, ``docs/flows/README.md``;
a test compares the committed files with what this module draws, so a diagram cannot drift from
the flow it shows.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from flows.engine import RoleFlows
from flows.flow import Flow
from flows.staff import staff_flows
from flows.steps import BEGIN, MENU_FLOWS, Entry, Switch, Takes, Target
from flows.subscriber import subscriber_flows
from flows.technician import technician_flows

ROOT = Path(__file__).resolve().parents[1]
DOCS = Path("docs") / "flows"
COMMAND = "make diagrams"


def roles() -> dict[str, RoleFlows]:
    return {"subscriber": subscriber_flows(), "technician": technician_flows(), "staff": staff_flows()}


def source(flow: Flow) -> Path:
    return Path(inspect.getfile(type(flow))).resolve().relative_to(ROOT)


def diagram(flow: Flow, menu: tuple[str, ...]) -> str:
    """The flow's ``stateDiagram-v2``: ``[*]`` is its beginning, ``→ name`` another flow it begins.
    Every state gets an id of its own (``s_``, ``f_``): a step named ``note`` is a word of Mermaid's."""
    edges: list[str] = []
    flows: list[str] = []
    for origin, targets in flow.steps.items():
        node = "[*]" if origin == BEGIN else f"s_{origin}"
        for target in _expanded(targets, menu):
            if isinstance(target, Switch):
                flows += [target.flow] if target.flow not in flows else []
                edges.append(f"    {node} --> f_{target.flow}")
            else:
                edges.append(f"    {node} --> s_{target}")
    lines = ["stateDiagram-v2"]
    lines += [f'    state "{_named(flow, step)}" as s_{step}' for step in flow.steps if step != BEGIN]
    lines += [f'    state "→ {name}" as f_{name}' for name in flows]
    lines += edges
    if flows:
        lines += ["    classDef flow font-style:italic,stroke-dasharray:4 2",
                  f"    class {','.join(f'f_{name}' for name in flows)} flow"]
    return "\n".join(lines) + "\n"


def _named(flow: Flow, step: str) -> str:
    """A step's name, with what its question takes besides its buttons ("describe · takes words")."""
    takes = [t.what for t in flow.steps.takes(step)]
    return f"{step} · takes {', '.join(takes)}" if takes else step


def _expanded(targets: tuple[Entry, ...], menu: tuple[str, ...]) -> list[Target]:
    """The targets with ``MENU_FLOWS`` as the menu's own flows, each once, in order (what a
    question takes is drawn on its state, not as a move)."""
    found: list[Target] = []
    for target in targets:
        if isinstance(target, Takes):
            continue
        for one in [Switch(name) for name in menu] if target == MENU_FLOWS else [target]:
            if one not in found:
                found.append(one)
    return found


def page(role: str, flow: Flow, menu: tuple[str, ...]) -> str:
    code = source(flow)
    depth = "../" * (len(DOCS.parts) + 1)
    return (
        f"# {role}: {flow.name}\n\n"
        f"The steps of `{type(flow).__name__}` in [{code}]({depth}{code.as_posix()}): `[*]` is where the flow begins,\n"
        f"`→ name` a flow it hands the chat to. Written by `{COMMAND}` from the flow's `steps`; do not edit.\n\n"
        f"```mermaid\n{diagram(flow, menu)}```\n"
    )


def index(all_roles: dict[str, RoleFlows]) -> str:
    lines = [
        "# The conversations",
        "",
        "One state diagram per flow, drawn from the `steps` each flow declares (see \"Adding a flow\" in",
        "[docs/development.md](../development.md#adding-a-flow)). Written by `make diagrams`; a test fails",
        "when one is stale. `[*]` is where a flow begins; `→ name` is another flow it hands the chat to",
        "(`→ menu`: the role's menu).",
        "",
        "Every question also takes its options typed (a name, a typo of it, the number a text channel shows",
        "beside it), and a clear request for another flow (a person, \"já paguei\", bills, cancelling, the",
        "connection) leaves it for that flow; anything else is asked again with the options and how to",
        "leave. A step marked `takes words` keeps typed text as its answer (only a person or a",
        "cancellation, or the requests it names, still leave); `takes files`: a photo or document is its to read.",
    ]
    for role, flows in all_roles.items():
        lines += ["", f"## {role}", ""]
        if flows.menu:
            lines += [f"The menu, in order: {', '.join(f'`{name}`' for name in flows.menu)}.", ""]
        lines += [f"- [{name}]({role}/{name}.md)" for name in sorted(flows.flows)]
    return "\n".join(lines) + "\n"


def documents() -> dict[Path, str]:
    """Every file of ``docs/flows/``, relative to the repository, with its text."""
    all_roles = roles()
    found = {DOCS / "README.md": index(all_roles)}
    for role, flows in all_roles.items():
        for name, flow in flows.flows.items():
            found[DOCS / role / f"{name}.md"] = page(role, flow, flows.menu)
    return found


def main() -> None:
    wanted = documents()
    for old in (ROOT / DOCS).rglob("*.md"):
        if old.relative_to(ROOT) not in wanted:
            old.unlink()
    for path, text in wanted.items():
        (ROOT / path).parent.mkdir(parents=True, exist_ok=True)
        (ROOT / path).write_text(text, encoding="utf-8")
    sys.stdout.write(f"{len(wanted)} files written under {DOCS}\n")


if __name__ == "__main__":
    main()
