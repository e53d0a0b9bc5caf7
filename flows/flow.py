"""What a flow is: a small class whose methods are the steps of one conversation.

    class Bills(Flow):
        name = "bills"

        async def begin(self, ctx):                 # entering the flow
            ...
            ctx.ask("choose", "bills.choose", options=[...])

        async def choose(self, ctx, event):         # the step named "choose"
            match event:
                case Chosen(value=document): ...
                case _: raise Unexpected

A step receives the event that arrived while the chat waited in it. Button presses arrive already
resolved to the value the flow attached (``Chosen``): flows never see callback tokens. Anything a
step cannot use, it answers with ``raise Unexpected`` (optionally naming a hint template): the engine
says so and asks the step's question again, so nobody meets silence.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from flows.events import Event

if TYPE_CHECKING:
    from flows.context import Context


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
    """A button of the current question was pressed: the value the flow attached to it."""

    value: Any
    label: str


StepEvent = Event | Chosen


class Unexpected(Exception):
    """The step cannot use this event: the engine says ``hint`` (or a generic line) and asks again."""

    def __init__(self, hint: str | None = None, **variables: Any) -> None:
        super().__init__(hint or "")
        self.hint = hint
        self.variables = variables


class Flow:
    name: ClassVar[str]
    # Subscriber flows that act on a customer record need a linked chat; the engine sends the others
    # to the link flow first.
    requires_link: ClassVar[bool] = True
    # Commands that begin the flow from anywhere (without the slash), e.g. ("boleto", "bills").
    commands: ClassVar[tuple[str, ...]] = ()
    # Place in the menu (None: not in the menu); the button's label is the template ``menu.<name>``.
    menu_order: ClassVar[int | None] = None
    # A flow the chat rests in (the menu, a ticket's follow-up): leaving it for the menu cancels nothing.
    resting: ClassVar[bool] = False
    # Steps whose text is passed on as it is (to a person): "cancelar" there is the person's words.
    verbatim_steps: ClassVar[frozenset[str]] = frozenset()

    async def begin(self, ctx: Context) -> None:
        raise NotImplementedError  # pragma: no cover - every flow defines its entry


def discover(package: ModuleType) -> list[Flow]:
    """One instance of every flow defined in the package's modules, so adding a flow is adding a file."""
    found: dict[str, Flow] = {}
    for module_info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{module_info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Flow) and cls is not Flow and cls.__module__ == module.__name__ and "name" in vars(cls):
                if cls.name in found:
                    raise ValueError(f"two flows named {cls.name!r} in {package.__name__}")
                found[cls.name] = cls()
    return list(found.values())
