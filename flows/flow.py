"""What a flow is: a small class whose methods are the steps of one conversation.

    class Bills(Flow):
        name = "bills"
        steps = Steps(begin=("choose", TO_MENU), choose=(Switch("paid"), TO_MENU))  # see flows.steps

        async def begin(self, ctx):                 # entering the flow
            ctx.reply.ask("choose", "bills.choose", options=[...])
        async def choose(self, ctx, event):         # the step named "choose"
            match event:
                case Chosen(value=document): ...
                case _: raise Unexpected

A step gets the event the chat waited for; a press arrives as the value its button carries
(``Chosen``), never a callback token. ``raise Unexpected``: the engine says so and asks again.
"""

from __future__ import annotations

import inspect
import pkgutil
import sys
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar

from flows.steps import (
    AMOUNT,
    BEGIN,
    COUNT,
    DATE_AHEAD,
    DATE_PAST,
    FILES,
    LOGIN,
    MENU_FLOWS,
    PERIOD,
    SECRET,
    TAX_ID,
    TO_MENU,
    WORDS,
    YEAR,
    YES_NO,
    Answer,
    Chosen,
    Option,
    StepEvent,
    Steps,
    Switch,
    Takes,
    Unexpected,
)

if TYPE_CHECKING:
    from flows.context import Context

# Set in a flow's data when its question was asked by a notice the bot wrote first (a bill's reminder):
# a bare "stop" there is about the notices, as at rest, not about leaving the question.
ASKED_BY_NOTICE = "asked_by_notice"

__all__ = [
    "AMOUNT", "ASKED_BY_NOTICE", "COUNT", "DATE_AHEAD", "DATE_PAST", "FILES", "LOGIN", "MENU_FLOWS", "PERIOD",
    "SECRET", "TAX_ID", "TO_MENU", "WORDS", "YEAR", "YES_NO", "Answer", "Chosen", "Flow", "Option", "StepEvent",
    "Steps", "Switch", "Takes", "Unexpected", "check_steps", "discover",
]


class Flow:
    name: ClassVar[str]
    # Subscriber flows that act on a customer record need a linked chat; the engine sends the others
    # to the link flow first.
    requires_link: ClassVar[bool] = True
    # Commands that begin the flow from anywhere (without the slash), e.g. ("boleto", "bills").
    commands: ClassVar[tuple[str, ...]] = ()
    # A flow the chat rests in (the menu, a ticket's follow-up): leaving it for the menu cancels nothing.
    resting: ClassVar[bool] = False
    # Steps of a flow that is not resting where nothing is under way yet (the link flow's first
    # question): leaving them cancels nothing either.
    resting_steps: ClassVar[frozenset[str]] = frozenset()
    # A flow that only tells (the ISP's facts): asked at another flow's question, what it says is said
    # and that question asked again, nothing left.
    aside: ClassVar[bool] = False
    # Steps whose text is passed on as it is (to a person): "cancelar" there is the person's words.
    verbatim_steps: ClassVar[frozenset[str]] = frozenset()
    # Steps whose answer is personal data needed for that turn only (a tax id, a login, a shared
    # contact): like a ``SECRET``'s, it is forgotten once the turn used it (``forgets``).
    private_steps: ClassVar[frozenset[str]] = frozenset()
    # A flow that works through the ISP's ACS (``ctx.acs``): off the menu when there is none.
    needs_acs: ClassVar[bool] = False
    # Every step and where it can lead (``flows.steps``): checked when the flow is found, drawn in docs/flows/.
    steps: ClassVar[Steps]

    def forgets(self, step: str | None) -> bool:
        """Whether what a person sends at ``step`` is used in its turn and then forgotten: kept in no
        table (the inbox, the chat's state, the mirror, the desk's jobs), logged nowhere, and deleted
        from the chat where the channel allows."""
        if step is None:
            return False
        return step in self.private_steps or self.secret_at(step)

    def secret_at(self, step: str | None) -> bool:
        """Whether ``step`` takes a secret (``SECRET``): its message is also deleted from the chat, where
        the channel can; other forgotten answers (a tax id) stay in the person's own chat."""
        return step is not None and any(t.what == SECRET.what for t in self.steps.takes(step))

    def rests_at(self, step: str | None) -> bool:
        """Whether leaving the flow at ``step`` cancels nothing (said as "left aside" otherwise)."""
        return self.resting or step in self.resting_steps

    async def begin(self, ctx: Context) -> None:
        raise NotImplementedError  # pragma: no cover - every flow defines its entry


def discover(package: ModuleType) -> list[Flow]:
    """One instance of every flow defined in the package's modules. The package imports each of its
    modules by name (the layers test reads every import; none is made from a name built here): a
    module it forgot is named here, not left silently without its flows."""
    found: dict[str, Flow] = {}
    for module_info in pkgutil.iter_modules(package.__path__):
        module = sys.modules.get(f"{package.__name__}.{module_info.name}")
        if module is None:
            raise ValueError(f"{package.__name__}.{module_info.name} is not imported by {package.__name__}: "
                             "import it in the package's __init__.py")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Flow) and cls is not Flow and cls.__module__ == module.__name__ and "name" in vars(cls):
                if cls.name in found:
                    raise ValueError(f"two flows named {cls.name!r} in {package.__name__}")
                check_steps(cls)
                found[cls.name] = cls()
    return list(found.values())


def step_methods(cls: type[Flow]) -> set[str]:
    """The steps a flow's code has: ``begin`` and its public coroutine methods taking ``(ctx, event)``."""
    found = {BEGIN}
    for name, member in inspect.getmembers(cls, inspect.iscoroutinefunction):
        if not name.startswith("_") and list(inspect.signature(member).parameters) == ["self", "ctx", "event"]:
            found.add(name)
    return found


def check_steps(cls: type[Flow]) -> None:
    """Fails loudly when a flow's declared steps and its step methods differ."""
    if not isinstance(getattr(cls, "steps", None), Steps):
        raise TypeError(f"flow {cls.name!r} declares no steps (steps = Steps(begin=...))")
    declared, methods = set(cls.steps), step_methods(cls)
    if declared != methods:
        raise TypeError(
            f"flow {cls.name!r}: steps declared without a method {sorted(declared - methods)}, "
            f"methods not declared as steps {sorted(methods - declared)}"
        )
    for origin, targets in cls.steps.items():
        unknown = [t for t in targets if isinstance(t, str) and t not in declared]
        if unknown:
            raise TypeError(f"flow {cls.name!r}: step {origin!r} leads to undeclared steps {unknown}")
    if not cls.private_steps <= declared:
        raise TypeError(f"flow {cls.name!r}: private steps not declared {sorted(cls.private_steps - declared)}")
    if not cls.verbatim_steps <= declared:
        raise TypeError(f"flow {cls.name!r}: verbatim steps not declared {sorted(cls.verbatim_steps - declared)}")
