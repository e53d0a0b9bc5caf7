"""What a step receives and answers (``Option``, ``Chosen``, ``Unexpected``), and how a flow declares
its steps (``Steps``): each step with where it can lead, in the spirit of python-telegram-bot's
``ConversationHandler(states=...)``.

    steps = Steps(
        begin=("choose", TO_MENU),                  # entering the flow: ask "choose", or the menu
        choose=("act", Switch("paid"), TO_MENU),    # a step of this flow, another flow, the menu
        describe=(WORDS, "confirm"),                # what the question takes: words, or a value
    )

A plain name is a step of the same flow (a method, waited in through ``ctx.reply.ask``/``ctx.reply.wait``);
``Switch(name)`` is ``ctx.switch(name)``; ``MENU_FLOWS`` is any flow of the role's menu; ``Takes``
(``WORDS``, ``FILES``, a kind of value: ``PERIOD``...) is drawn beside its step. Ending without a
question leads to the menu. The engine checks every move against the table and ``flows.diagrams``
draws it (``make diagrams``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from flows import values
from flows.events import Event

BEGIN = "begin"  # the entry of every flow: its ``begin`` method


@dataclass(frozen=True, slots=True)
class Option:
    """One button. The label is a template key (``key``) or text from the ISP (``text``); ``value``
    is any JSON value the flow wants back, kept server-side in the chat's state."""

    value: Any
    key: str | None = None
    text: str | None = None
    vars: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Chosen:
    """A button of the current question was pressed (or named in ``typed`` words): the value the flow
    attached to it."""

    value: Any
    label: str
    typed: str | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """Typed words read as the value the question takes (``Takes`` of a kind of ``flows.values``):
    "umas 6 semanas" at a ``PERIOD`` question is ``Answer(42, ...)``; a yes or no is True or False."""

    value: Any
    text: str
    kind: str


StepEvent = Event | Chosen | Answer


class Unexpected(Exception):
    """The step cannot use this event: the engine says ``hint`` (or a generic line) and asks again."""

    def __init__(self, hint: str | None = None, **variables: Any) -> None:
        super().__init__(hint or "")
        self.hint = hint
        self.variables = variables


@dataclass(frozen=True, slots=True)
class Takes:
    """What a question takes besides its buttons, decided by the engine before the step runs.

    Every question takes its options typed (names, typos, the number a text channel shows), and a
    clear request for another flow leaves it. A step that takes typed ``words`` as its answer (a
    description, a reason) keeps them, whatever they resemble, unless they ask for a flow of ``only``
    (None: any) that is not among ``but``; ``files``: a photo or document is this step's to read; a
    kind of value (``flows.values``: a date, a period, yes or no...): words that say one are the
    answer (``Answer``), before any request they may also resemble."""

    what: str
    only: frozenset[str] | None = None
    but: frozenset[str] = frozenset()

    def lets_go(self, request: str) -> bool:
        """Whether a request for the flow ``request`` leaves a question that takes this."""
        return (self.only is None or request in self.only) and request not in self.but


# An open question keeps the person's words: only a person asked for leaves it (and the leave words,
# "esquece", "menu", which the engine reads before any step).
WORDS = Takes("words", only=frozenset({"human"}))
FILES = Takes("files")
# A secret (a PPPoE password, later a Wi-Fi password): proof, never a request ("atendente" typed
# there is checked, not obeyed), and forgotten once the turn used it (``Flow.forgets``).
SECRET = Takes("secret", only=frozenset())
# The kinds of value a question may take, each read by its reader in ``flows.values``.
DATE_PAST = Takes(values.DATE_PAST)  # a day before today or today ("ontem", "sexta passada")
DATE_AHEAD = Takes(values.DATE_AHEAD)  # today or a day ahead ("segunda que vem", "dia 5")
PERIOD = Takes(values.PERIOD)  # a length in days ("umas 6 semanas", "até o fim de fevereiro")
YEAR = Takes(values.YEAR)  # "ano passado", "o de 23"
AMOUNT = Takes(values.AMOUNT)  # reais ("R$ 1.234,56", "cento e dois e trinta")
YES_NO = Takes(values.YES_NO)  # True or False ("sim, pode", "agora não")
COUNT = Takes(values.COUNT)  # a whole number ("meia dúzia", "nenhum": 0)
TAX_ID = Takes(values.TAX_ID)  # a CPF or CNPJ inside a sentence, check digits held
LOGIN = Takes(values.LOGIN)  # a PPPoE login inside a sentence
VALUES = frozenset(values.READERS)


@dataclass(frozen=True, slots=True)
class Switch:
    """A move to another flow (``ctx.switch(flow)``)."""

    flow: str


TO_MENU = Switch("menu")  # ``ctx.to_menu()``, or a step that ends without a question
MENU_FLOWS = Switch("*menu")  # any flow of the role's menu (the menu's own buttons)

Target = str | Switch
Entry = Target | Takes  # what a step's tuple holds: where it leads, and what its question takes


class Steps(Mapping[str, tuple[Entry, ...]]):
    """A flow's steps, ``begin`` first, each with the steps and flows it can lead to."""

    __slots__ = ("_table",)

    def __init__(self, **table: tuple[Entry, ...]) -> None:
        if BEGIN not in table:
            raise ValueError("a flow's steps start with begin")
        self._table = dict(table)

    def __getitem__(self, step: str) -> tuple[Entry, ...]:
        return self._table[step]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def __repr__(self) -> str:
        return f"Steps({self._table!r})"

    def but(self, **table: tuple[Entry, ...]) -> Steps:
        """These steps, with some leading elsewhere (a flow that shares another's steps)."""
        return Steps(**{**self._table, **table})

    def leads(self, origin: str, target: Target, menu: Collection[str] = ()) -> bool:
        """Whether ``origin`` may lead to ``target`` (``menu``: the role's menu); staying is always allowed."""
        if target == origin:
            return True
        targets = self._table.get(origin, ())
        return target in targets or (isinstance(target, Switch) and MENU_FLOWS in targets and target.flow in menu)

    def takes(self, step: str) -> tuple[Takes, ...]:
        """What the question of ``step`` takes besides its buttons (``Takes``)."""
        return tuple(t for t in self._table.get(step, ()) if isinstance(t, Takes))

    def kinds(self, step: str) -> tuple[str, ...]:
        """The kinds of value the question of ``step`` takes (``flows.values``), in the order declared."""
        return tuple(t.what for t in self.takes(step) if t.what in VALUES)

    def switches(self) -> set[str]:
        """The flows any step can switch to (``MENU_FLOWS`` left as it is)."""
        return {t.flow for targets in self._table.values() for t in targets if isinstance(t, Switch)}
