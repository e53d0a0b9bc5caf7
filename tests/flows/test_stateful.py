"""Random conversations, whatever flows exist: every event a person can send gets an answer they can
read, and no step ever crashes (the engine would hide a crash behind "something went wrong", so the
test watches the engine's log for it instead of trusting the reply).

Hypothesis drives a linked chat (Maria) and an unlinked one with texts (unicode, blank, injection
attempts, identities), real and unknown commands, /start with and without payload, taps on the
current buttons and on forged tokens, own and foreign contacts, locations (0,0, out of range, near
the customer) and media. One sandbox, database and engine serve all examples (a dedicated event loop
runs them); each example gets new chats. Texts never hold NUL: Telegram does not deliver it.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from typing import TYPE_CHECKING

from bot.sandbox import DEMO_IDENTITIES, FixedClock, Sandbox
from flows.events import Choice, Command, Contact, Event, Location, Media, Start, Text
from flows.replies import AskContact, AskLocation, Document, Message, ToStaff
from flows.subscriber import subscriber_flows
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

from tests.flows.harness import Desk, make_desk
from tests.store.dbtools import make_database

if TYPE_CHECKING:  # imported at run time, pytest would try to collect the harness's TestChat
    from tests.flows.harness import TestChat

D = DEMO_IDENTITIES
CHATS = st.sampled_from(["linked", "unlinked"])
TEXTS = st.one_of(
    # What can reach a flow: the intake stores a NUL or a lone surrogate as U+FFFD (tests/telegram).
    st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=120),
    st.sampled_from([
        "", " ", "\u200b", "🙂", "segunda via", "sem internet", "boleto", "falar com atendente", "sim", "não",
        D.customer_cpf, "529.982.247-25", D.company_cnpj, D.pppoe_login, D.pppoe_password, "1", "99999",
        "<b>negrito</b> & <script>", "Codigo = 1 OR 1=1", "'; DROP TABLE links; --", "x" * 4096,
    ]),
)
REAL_COMMANDS = sorted({*subscriber_flows().commands, "start", "cancel", "menu", "help"})
COMMANDS = st.sampled_from([*REAL_COMMANDS, "frobnicate", "", "boleto@outrobot", "x" * 64, "ajuda2"])
PHONES = st.sampled_from(["+55" + D.customer_mobile, "55" + D.customer_mobile, D.customer_mobile, "", "+1 555 0100",
                          "11991234567", "abc"])
COORDINATE = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False, allow_infinity=False)
PLACES = st.one_of(
    st.sampled_from([(0.0, 0.0), (91.0, 181.0), (-90.0, -180.0), (-23.5869, -46.6353), (1e4, -1e4)]),
    st.tuples(COORDINATE, COORDINATE),
)
MEDIA = st.sampled_from(["photo", "document", "video", "voice", "sticker", "animation", "audio", "video_note"])


class StepFailures(logging.Handler):
    """The engine's "a step failed" records: a crash the person only saw as an apology."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def describe(self) -> str:
        record = self.records[0]
        return "".join(traceback.format_exception(*record.exc_info)) if record.exc_info else record.getMessage()


def conversations(desk: Desk, runner: asyncio.Runner, failures: StepFailures) -> type[RuleBasedStateMachine]:
    class Conversations(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            failures.records.clear()
            self.chats: dict[str, TestChat] = {"linked": runner.run(desk.linked_chat()), "unlinked": desk.chat()}
            assert not failures.records, failures.describe()

        def send(self, which: str, event: Event) -> None:
            failures.records.clear()
            replies = runner.run(self.chats[which].send(event))  # the harness asserts there is a reply
            assert not failures.records, f"a step crashed on {event!r}:\n{failures.describe()}"
            readable = [r for r in replies if isinstance(r, Message | AskContact | AskLocation | Document)]
            with_person = any(isinstance(r, ToStaff) for r in replies)  # a person answers, the bot is quiet
            assert readable or _live(event) or with_person, f"only {replies!r} for {event!r}: nothing a person can read"
            for reply in readable:
                assert (reply.caption if isinstance(reply, Document) else reply.text).strip(), f"blank {reply!r}"
                for row in reply.buttons if isinstance(reply, Message) else ():
                    for button in row:
                        assert button.label.strip(), f"a button without a label in {reply!r}"
                        assert len(button.token.encode()) <= 64, "Telegram's callback data holds 64 bytes"

        @rule(which=CHATS, text=TEXTS)
        def say(self, which: str, text: str) -> None:
            self.send(which, Text(text))

        @rule(which=CHATS, name=COMMANDS, args=st.sampled_from(["", "5001", "  x  ", "🙂"]))
        def command(self, which: str, name: str, args: str) -> None:
            self.send(which, Command(name, args))

        @rule(which=CHATS, payload=st.one_of(st.none(), st.sampled_from(["", "inv-nothing"]), st.text(max_size=64)))
        def start(self, which: str, payload: str | None) -> None:
            self.send(which, Start(payload))

        @rule(which=CHATS, pick=st.integers(min_value=0, max_value=40))
        def tap_a_current_button(self, which: str, pick: int) -> None:
            tokens = [b.token for r in self.chats[which].replies if isinstance(r, Message) for row in r.buttons
                      for b in row]
            self.send(which, Choice(tokens[pick % len(tokens)] if tokens else "no-buttons"))

        @rule(which=CHATS, token=st.text(max_size=70))
        def tap_a_forged_token(self, which: str, token: str) -> None:
            self.send(which, Choice(token))

        @rule(which=CHATS, phone=PHONES, own=st.booleans())
        def share_contact(self, which: str, phone: str, own: bool) -> None:
            self.send(which, Contact(phone, own))

        @rule(which=CHATS, place=PLACES, live=st.booleans())
        def share_location(self, which: str, place: tuple[float, float], live: bool) -> None:
            self.send(which, Location(place[0], place[1], live))

        @rule(which=CHATS, kind=MEDIA, caption=st.sampled_from(["", "olha o roteador", "<i>x</i>"]))
        def send_media(self, which: str, kind: str, caption: str) -> None:
            self.send(which, Media(kind, caption))

    return Conversations


def test_every_event_in_any_order_is_answered_and_no_step_crashes(database_url: str) -> None:
    failures = StepFailures()
    engine_log = logging.getLogger("flows.engine")
    with asyncio.Runner() as runner:
        database = runner.run(make_database(database_url))
        clock = FixedClock.this_morning()  # a suspension confirmed starts today: the request's model checks it
        desk = make_desk(Sandbox.seeded(clock=clock), database, clock)
        engine_log.addHandler(failures)
        try:
            run_state_machine_as_test(
                conversations(desk, runner, failures),
                settings=settings(
                    max_examples=25, stateful_step_count=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                ),
            )
        finally:
            engine_log.removeHandler(failures)
            runner.run(desk.client.aclose())
            runner.run(database.destroy())


def _live(event: Event) -> bool:
    """A live location's later positions may go unanswered (a step that wants none stays quiet)."""
    return isinstance(event, Location) and event.live
