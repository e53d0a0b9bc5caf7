"""What the bot writes into the ISP's system (a ticket's subject and description, an occurrence, a
ticket's solution) is a template of ``locales/`` rendered in the ISP's language (``ctx.isp_text``),
or the words a person typed: never words written in a flow, nor a text in the chat's language.

Read from the flows' code: every call that hands the ISP a text (``SINKS``) is followed back through
the names and the module's own helpers that make its argument."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from bot.i18n import DEFAULT_LANGUAGE
from bot.isp import F
from bot.sandbox import DEMO_IDENTITIES
from flows.chat import ISP_LANGUAGE

from tests.flows.harness import Desk

FLOWS_DIR = Path(__file__).resolve().parents[2] / "flows"
# The calls that hand the ISP a text, and where the text is: keyword names, positions.
SINKS: dict[str, tuple[frozenset[str], tuple[int, ...]]] = {
    "open_ticket": (frozenset({"subject", "description"}), ()),
    "add_occurrence": (frozenset({"description"}), (1,)),
    "finish_ticket": (frozenset({"solution"}), ()),
    "record_ticket": (frozenset({"subject", "text"}), ()),  # flows.subscriber.rights: opens a ticket
}
ISP_TEXT = "isp_text"
CHAT_TEXT = frozenset({"text", "text_or", "render_in"})  # the chat's language (or one chosen in the flow)


def _has_letters(value: object) -> bool:
    return isinstance(value, str) and any(c.isalpha() for c in value)


class _Module:
    def __init__(self, source: str) -> None:
        self.tree = ast.parse(source)
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.functions = {n.name: n for n in self.tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}

    def scope(self, node: ast.AST) -> ast.AST:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                return node
        return self.tree

    def assigned(self, scope: ast.AST, name: str) -> list[ast.expr]:
        """What ``name`` is given in ``scope`` (and at the module's top, where it is a constant)."""
        found: list[ast.expr] = []
        for where in (scope, self.tree) if scope is not self.tree else (self.tree,):
            nodes = ast.walk(where) if where is scope else iter(where.body)  # type: ignore[attr-defined]
            for node in nodes:
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign) else []
                if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
                    found.append(node.value)
        return found

    def written(self, expr: ast.expr, scope: ast.AST, seen: set[int]) -> list[str]:
        """Why ``expr`` is words written in the code, or in the chat's language ([]: it is neither)."""
        if id(expr) in seen:
            return []
        seen.add(id(expr))
        if isinstance(expr, ast.Constant):
            return [f"line {expr.lineno}: the words {expr.value!r}"] if _has_letters(expr.value) else []
        if isinstance(expr, ast.JoinedStr):
            words = [v.value for v in expr.values if isinstance(v, ast.Constant) and _has_letters(v.value)]
            if words:
                return [f"line {expr.lineno}: an f-string {''.join(map(str, words))!r}"]
            return [w for v in expr.values for w in self.written(v, scope, seen)]
        if isinstance(expr, ast.Call):
            called = expr.func.attr if isinstance(expr.func, ast.Attribute) else getattr(expr.func, "id", "")
            if called == ISP_TEXT:
                return []
            if called in CHAT_TEXT:
                return [f"line {expr.lineno}: a template in the chat's language ({called})"]
            arguments = [*expr.args, *(k.value for k in expr.keywords)]
            found = [w for arg in arguments for w in self.written(arg, scope, seen)]
            if isinstance(expr.func, ast.Attribute):  # "\n".join(...), words.strip()
                found += self.written(expr.func.value, scope, seen)
            helper = self.functions.get(called) if isinstance(expr.func, ast.Name) else None
            if helper is not None:
                returned = [n.value for n in ast.walk(helper) if isinstance(n, ast.Return) and n.value is not None]
                found += [w for value in returned for w in self.written(value, helper, seen)]
            return found
        if isinstance(expr, ast.Name):
            return [w for value in self.assigned(scope, expr.id) for w in self.written(value, scope, seen)]
        if isinstance(expr, ast.Subscript | ast.Attribute):
            return []  # what a person typed, what the ISP or the flow's data hold
        return [w for child in ast.iter_child_nodes(expr) if isinstance(child, ast.expr)
                for w in self.written(child, scope, seen)]


def texts_written_for_the_isp(source: str) -> list[str]:
    """Every text handed to the ISP in ``source`` that is words of the code or the chat's language."""
    module = _Module(source)
    found: list[str] = []
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute | ast.Name):
            continue
        called = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        if called not in SINKS:
            continue
        names, positions = SINKS[called]
        given = [k.value for k in node.keywords if k.arg in names]
        given += [node.args[i] for i in positions if i < len(node.args)]
        scope = module.scope(node)
        found += [f"{called}: {why}" for arg in given for why in module.written(arg, scope, set())]
    return found


@pytest.mark.parametrize("path", sorted(p for p in FLOWS_DIR.rglob("*.py") if p.name != "coordinator.py"),
                         ids=lambda p: str(p.relative_to(FLOWS_DIR)))
def test_no_flow_hands_the_isp_words_of_its_own(path: Path) -> None:
    assert texts_written_for_the_isp(path.read_text(encoding="utf-8")) == []


PLANTED = '''
SUBJECT = "Atendimento pelo Telegram"

def subject(ctx):
    return SUBJECT.replace("Telegram", ctx.channel_name)

async def step(ctx, number):
    text = f"Suspensão do contrato {number} pedida no chat."
    await record_ticket(ctx, hints=(), contract=number, subject="Suspensão (chat)", text=text)
    await ctx.coordinator.open_ticket(customer=1, subject=subject(ctx), description=ctx.text("x.y"))
    await ctx.coordinator.add_occurrence(number, "OS abortada", "user")
    await ctx.coordinator.finish_ticket(number, cause=1, solution=ctx.isp_text("x.solved"), user="u")
    await ctx.coordinator.add_occurrence(number, ctx.data["words"].strip(), "user")
    await ctx.coordinator.open_ticket(customer=1, subject=ctx.isp_text("x.subject"),
                                      description="\\n".join([ctx.data["asked"], *ctx.staff.recent]))
'''


def test_the_check_catches_words_written_in_a_flow_and_lets_templates_and_a_persons_words_through() -> None:
    found = texts_written_for_the_isp(PLANTED)
    assert sorted(found) == sorted([
        "record_ticket: line 9: the words 'Suspensão (chat)'",
        "record_ticket: line 8: an f-string 'Suspensão do contrato  pedida no chat.'",
        "open_ticket: line 2: the words 'Atendimento pelo Telegram'",  # a module's constant, through a helper
        "open_ticket: line 5: the words 'Telegram'",
        "open_ticket: line 10: a template in the chat's language (text)",
        "add_occurrence: line 11: the words 'OS abortada'",
    ])  # lines 12 to 15: a template in the ISP's language, a person's words


async def test_the_isp_reads_what_an_english_speaking_subscriber_did_in_its_own_language(desk: Desk) -> None:
    assert ISP_LANGUAGE == DEFAULT_LANGUAGE
    chat = await desk.linked_chat(DEMO_IDENTITIES.blocked_customer, language="en")
    await chat.command("contracts")
    await chat.tap("Unblock in trust")
    await chat.tap("Yes, unblock")
    assert "contract 5002" in chat.text  # the subscriber hears English
    [ticket] = [t for t in desk.sandbox.store.where("tickets", CodigoCliente=DEMO_IDENTITIES.blocked_customer)
                if t["Assunto"] == "Desbloqueio em confiança (Telegram)"]  # the ISP's staff read Portuguese
    occurrences = await desk.client.ConsultaOcorrenciasAtendimentos(F("Atendimento") == ticket["Numero"])
    assert any("Desbloqueio em confiança do contrato 5002" in (o.Descricao or "") for o in occurrences)
