"""Every flow's ``steps`` say what its code does: each step the code asks in is declared, each move
declared is one the code makes, the menus are in order, and the diagrams in docs/flows/ are current.

What the code does is read from its source (the flow's class and the helpers it calls, through
``flows``): a step is the first argument of ``ask``, ``ask_location``, ``ask_contact`` or ``wait``,
or a ``step`` parameter of a helper; a move to a flow is the argument of ``switch`` (``to_menu`` is
the menu). The engine checks each move as it happens (tests run with ``Engine.strict_steps``).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import pytest
import yaml
from bot.runtime.app import role_flows
from bot.store import Role
from flows.context import Context
from flows.engine import Engine, RoleFlows, UndeclaredMove
from flows.flow import MENU_FLOWS, TO_MENU, Flow, StepEvent, Steps, Switch, Takes, check_steps
from flows.intents import ELSEWHERE, LEAVE, ORDINARY, SHORT, SMALL_TALK, STOP, destination
from flows.subscriber import subscriber_flows
from flows.subscriber.bills import Bills

from flows import diagrams
from tests.flows.harness import Desk

ROOT = Path(__file__).resolve().parents[2]
ASKS = {"ask", "ask_location", "ask_contact", "wait"}
ALL_FLOWS = [(role, flow) for role, flows in role_flows().items() for flow in flows.flows.values()]


def _id(case: tuple[Role, Flow]) -> str:
    return f"{case[0].value}/{case[1].name}"


@dataclass
class Code:
    """What a flow's code asks in and switches to, read from its source."""

    asks: set[str] = field(default_factory=set)
    switches: set[str] = field(default_factory=set)
    dynamic_switch: bool = False  # a switch to a value the person picked (a menu's buttons)
    seen: set[object] = field(default_factory=set)

    def read(self, obj: Callable[..., Any] | type, namespace: dict[str, Any]) -> None:
        if obj in self.seen:
            return
        self.seen.add(obj)
        tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                self._call(node, namespace)

    def _call(self, node: ast.Call, namespace: dict[str, Any]) -> None:
        func = node.func
        method = func.attr if isinstance(func, ast.Attribute) else None
        if method in ASKS and node.args:
            self.asks |= {value} if (value := _constant(node.args[0], namespace)) else set()
        elif method == "switch" and node.args:
            value = _constant(node.args[0], namespace)
            self.switches |= {value} if value else set()
            self.dynamic_switch |= value is None
        elif method == "to_menu":
            self.switches.add("menu")
        helper = _helper(func, namespace)
        if helper is None:
            return
        parameters = list(inspect.signature(helper).parameters)
        if "step" in parameters:
            position = parameters.index("step")
            given = [kw.value for kw in node.keywords if kw.arg == "step"]
            given += node.args[position:position + 1]
            self.asks |= {value for arg in given if (value := _constant(arg, namespace))}
        self.read(helper, vars(inspect.getmodule(helper)))


def _constant(node: ast.expr, namespace: dict[str, Any]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and isinstance(namespace.get(node.id), str):
        return str(namespace[node.id])
    return None


def _helper(func: ast.expr, namespace: dict[str, Any]) -> Callable[..., Any] | None:
    """A module-level function of ``flows`` that a call names (``helper(...)``, ``module.helper(...)``)."""
    found: object = None
    if isinstance(func, ast.Name):
        found = namespace.get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = namespace.get(func.value.id)
        found = getattr(owner, func.attr, None) if isinstance(owner, ModuleType) else None
    if inspect.isfunction(found) and found.__module__.startswith("flows.") and "." not in found.__qualname__:
        return found
    return None


def code_of(flow: Flow) -> Code:
    code = Code()
    for cls in type(flow).__mro__:
        if issubclass(cls, Flow) and cls is not Flow:
            code.read(cls, vars(inspect.getmodule(cls)))
    return code


@pytest.mark.parametrize("case", ALL_FLOWS, ids=_id)
def test_every_step_the_code_asks_in_is_declared(case: tuple[Role, Flow]) -> None:
    _, flow = case
    code = code_of(flow)
    assert sorted(code.asks - set(flow.steps)) == [], f"{flow.name}: steps asked in but not declared"
    assert sorted(code.switches - flow.steps.switches()) == [], f"{flow.name}: flows switched to but not declared"


@pytest.mark.parametrize("case", ALL_FLOWS, ids=_id)
def test_every_move_declared_is_made_by_the_code(case: tuple[Role, Flow]) -> None:
    _, flow = case
    code = code_of(flow)
    unbacked = []
    for origin, targets in flow.steps.items():
        for target in targets:
            if isinstance(target, Takes):
                continue  # what the question takes, not a move
            if isinstance(target, Switch):
                backed = target.flow in code.switches or code.dynamic_switch
            else:
                backed = target == origin or target in code.asks
            unbacked += [] if backed else [f"{origin} -> {target}"]
    assert unbacked == [], f"{flow.name}: moves declared that its code never makes"


def test_the_menus_keep_their_order() -> None:
    flows = role_flows()
    assert flows[Role.SUBSCRIBER].menu == (
        "bills", "new_ticket", "my_tickets", "connection", "router", "contracts", "human", "my_contacts", "help",
        "language", "my_data", "unlink",
    )  # "router" shows only with an ACS (``Flow.needs_acs``): tests/flows/test_router.py
    assert flows[Role.TECHNICIAN].menu == ("agenda", "ticket")
    assert flows[Role.STAFF].menu == ()


def test_the_menu_declares_every_flow_free_text_can_reach() -> None:
    flows = subscriber_flows()
    menu = flows.flows["menu"]
    for path in sorted((ROOT / "locales" / "intents").glob("*.yaml")):
        named = {destination(name) for name in yaml.safe_load(path.read_text(encoding="utf-8")) or {}}
        named -= {*SMALL_TALK, LEAVE, STOP, ORDINARY, ELSEWHERE, SHORT}
        unreachable = [name for name in named if not menu.steps.leads("choose", Switch(name), flows.menu)]
        assert unreachable == [], f"{path.name} names flows the menu's steps do not lead to"


# ---- the declaration fails loudly ------------------------------------------------------------------
class _Two(Flow):
    name = "two"
    steps: ClassVar[Steps] = Steps(begin=("first",), first=(TO_MENU,))

    async def begin(self, ctx: Context) -> None: ...

    async def first(self, ctx: Context, event: StepEvent) -> None: ...


def test_a_step_without_a_method_fails_when_the_flow_is_found() -> None:
    class Misspelt(_Two):
        steps: ClassVar[Steps] = Steps(begin=("frist",), frist=(TO_MENU,))

    with pytest.raises(TypeError, match=r"without a method \['frist'\], methods not declared as steps \['first'\]"):
        check_steps(Misspelt)


def test_a_move_to_a_step_not_declared_fails_when_the_flow_is_found() -> None:
    class Stray(_Two):
        steps: ClassVar[Steps] = Steps(begin=("first", "second"), first=(TO_MENU,))

    with pytest.raises(TypeError, match=r"step 'begin' leads to undeclared steps \['second'\]"):
        check_steps(Stray)


def test_a_switch_to_a_flow_the_role_lacks_fails_when_the_role_is_built() -> None:
    class Lost(_Two):
        steps: ClassVar[Steps] = Steps(begin=("first", Switch("nowhere")), first=(TO_MENU,))

    with pytest.raises(ValueError, match="two -> nowhere"):
        RoleFlows.of([Lost(), *subscriber_flows().flows.values()])


def test_a_menu_naming_a_flow_the_role_lacks_fails_when_the_role_is_built() -> None:
    with pytest.raises(ValueError, match="flows this role does not have: bils"):
        RoleFlows.of(subscriber_flows().flows.values(), menu=("bils", "new_ticket"))


def test_a_flow_without_steps_fails_when_the_flow_is_found() -> None:
    class Bare(Flow):
        name = "bare"

    with pytest.raises(TypeError, match="declares no steps"):
        check_steps(Bare)


def test_leads_knows_staying_the_menu_flows_and_nothing_else() -> None:
    steps = Steps(begin=("choose",), choose=(MENU_FLOWS, Switch("paid")))
    assert steps.leads("choose", "choose")
    assert steps.leads("choose", Switch("bills"), menu=("bills",))
    assert steps.leads("choose", Switch("paid"))
    assert not steps.leads("choose", Switch("bills"))
    assert not steps.leads("begin", Switch("paid"))


# ---- the engine checks each move ------------------------------------------------------------------
MISDECLARED = Steps(begin=("choose", TO_MENU), choose=(TO_MENU,), act=("choose", Switch("paid"), TO_MENU))


async def test_a_move_the_steps_do_not_declare_fails_in_tests(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Bills, "steps", MISDECLARED)  # choosing a bill asks in "act"
    chat = await desk.linked_chat()
    await chat.command("boleto")
    with pytest.raises(UndeclaredMove, match="flow 'bills': step 'choose' led to 'act'"):
        await chat.tap("28/03/2025")


async def test_a_running_bot_logs_an_undeclared_move_and_carries_on(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(Bills, "steps", MISDECLARED)
    monkeypatch.setattr(Engine, "strict_steps", False)
    chat = await desk.linked_chat()
    await chat.command("boleto")
    await chat.tap("28/03/2025")
    assert "✅ Já paguei" in chat.buttons  # the answer is the flow's, as before
    assert "step 'choose' led to 'act', which its steps do not declare" in caplog.text


# ---- the diagrams ----------------------------------------------------------------------------------
def test_the_diagrams_in_docs_flows_are_current() -> None:
    wanted = diagrams.documents()
    stale = [str(path) for path, text in wanted.items()
             if not (ROOT / path).exists() or (ROOT / path).read_text(encoding="utf-8") != text]
    extra = [str(path.relative_to(ROOT)) for path in (ROOT / diagrams.DOCS).rglob("*.md")
             if path.relative_to(ROOT) not in wanted]
    assert stale + extra == [], f"docs/flows/ is stale: run `{diagrams.COMMAND}`"


def test_a_diagram_shows_every_step_and_where_it_leads() -> None:
    text = diagrams.diagram(subscriber_flows().flows["bills"], ())
    assert text.splitlines()[0] == "stateDiagram-v2"
    assert "    [*] --> s_choose" in text and "    s_act --> f_paid" in text and "    s_choose --> f_menu" in text
