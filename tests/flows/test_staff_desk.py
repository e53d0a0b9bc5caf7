"""The staff desk in the engine, seen through the desk port as any desk sees it (the Telegram forum's
topics, a shared inbox): a handoff becomes desk jobs carried out after the turn, in order, retried
when the desk is away; what staff do comes back as staff events run for the subscriber's chat."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from bot.channels.telegram.render import ApiCall
from bot.cli import build_parser
from bot.commands import desk as desk_cli
from bot.commands.support import run_action
from bot.desks.base import DeskRefused, DeskUnavailable
from bot.desks.telegram.desk import TelegramForumDesk
from bot.desks.worker import DeskWorker
from bot.i18n import plain_text
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox
from bot.store import DeskJobState, utcnow
from bot.store.models import DeskJobRow, HandoffRow, OutboxRow
from flows.desk import DeskChat, DeskPost, PostKind, StaffMember
from flows.events import Incoming, Resolved, StaffCommand, StaffEvent, StaffReply
from flows.replies import Notice
from sqlalchemy import select

from tests.flows.harness import Desk, LoseAnswers, TestChat, losing_answers, make_desk
from tests.flows.test_cancel_plan import policy as cancel_policy
from tests.store.dbtools import ScratchDatabase

CARLA = StaffMember("Carla", system_user="atendente.carla")  # an agent the desk vouches for


class RecordingDesk:
    """A desk behind the port that records what it was asked; ``fail`` makes the next calls of a
    kind raise (an exception instance each)."""

    name = "recording"
    follows_every_chat = False

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.fail: dict[str, list[Exception]] = {}

    def _maybe_fail(self, what: str) -> None:
        if self.fail.get(what):
            raise self.fail[what].pop(0)

    async def open(self, chat: DeskChat, title: str, reason: str) -> str:
        self._maybe_fail("open")
        self.calls.append(("open", chat.chat_id, reason))
        return f"conversation-{chat.chat_id}"

    async def post(self, ref: str | None, chat: DeskChat, post: DeskPost) -> None:
        self._maybe_fail(post.kind.value)
        self.calls.append(("post", ref, post.kind, plain_text(post.text)))

    async def close(self, ref: str, chat: DeskChat, *, resolved: bool) -> None:
        self.calls.append(("close", ref, resolved))

    async def notify(self, chat: DeskChat, text: str) -> None:
        self._maybe_fail("notify")
        self.calls.append(("notify", chat.chat_id, chat.customer_code, plain_text(text)))


class Clock:
    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
async def staffed(desk: Desk) -> Desk:
    desk.engine.policy = replace(desk.engine.policy, staff_desk=True)
    return desk


async def staff_does(desk: Desk, event: StaffEvent) -> list[Notice]:
    """A staff event run by the engine; the notices it sends (to the subscriber's channel)."""
    told: list[Notice] = []

    async def keep(_: Any, replies: list[Any], notices: list[Notice]) -> None:
        assert replies == []  # nothing is said at the desk's own chat: the desk hears through jobs
        told.extend(notices)

    await desk.engine.handle(Incoming(-100, event), within=keep)
    return told


def said(notices: list[Notice]) -> str:
    return "\n".join(plain_text(getattr(n.reply, "text", "")) for n in notices)


async def jobs(desk: Desk) -> list[tuple[str, str]]:
    async with desk.database.session() as session:
        rows = (await session.execute(select(DeskJobRow).order_by(DeskJobRow.id))).scalars().all()
        return [(row.kind, row.state) for row in rows]


async def asked_for_a_person(desk: Desk) -> tuple[TestChat, str]:
    """Maria, handed to the staff, her conversation opened at the desk; and its reference."""
    chat = await desk.linked_chat()
    await chat.command("atendente")
    assert "Chamei uma pessoa" in chat.text
    fake = RecordingDesk()
    await DeskWorker(desk.database, fake).round()
    async with desk.database.session() as session:
        ref = (await session.execute(select(HandoffRow.desk_ref))).scalar_one()
    assert ref == f"conversation-{chat.chat_id}"
    return chat, ref


async def test_a_handoff_reaches_the_desk_after_its_turn_and_the_staff_answer_through_it(staffed: Desk) -> None:
    desk = staffed
    chat = await desk.linked_chat()
    fake = RecordingDesk()
    worker = DeskWorker(desk.database, fake)
    await chat.command("atendente")
    assert "Chamei uma pessoa" in chat.text
    assert fake.calls == []  # the turn called no desk: it wrote what the desk must do
    assert await jobs(desk) == [("open", "pending"), ("post", "pending")]
    async with desk.database.session() as session:
        opening = (await session.execute(select(DeskJobRow.payload).order_by(DeskJobRow.id))).scalars().first()
    assert opening is not None
    shown = dict(opening["chat"]["attributes"])
    digits = "".join(c for c in D.customer_cpf if c.isdigit())
    assert shown["tax_id"] == f"***{digits[3:-2]}**"  # masked for the desk
    assert digits not in str(opening)

    await worker.round()
    ref = f"conversation-{chat.chat_id}"
    assert [c[:3] for c in fake.calls] == [("open", chat.chat_id, "asked"), ("post", ref, PostKind.CARD)]
    assert "Boletos em aberto: 2" in fake.calls[1][3]

    await chat.say("ainda estou sem internet")
    assert [type(r).__name__ for r in chat.replies] == ["ToStaff"]  # the bot keeps quiet
    await worker.round()
    assert fake.calls[-1] == ("post", ref, PostKind.SUBSCRIBER, "ainda estou sem internet")

    notices = await staff_does(desk, StaffReply(ref, CARLA, "Olá! Vou verificar."))
    assert [n.chat_id for n in notices] == [chat.chat_id]
    assert "Carla" in said(notices) and "Olá! Vou verificar." in said(notices)
    async with desk.database.session() as session:
        mirrored = (await session.execute(select(OutboxRow).where(OutboxRow.origin == "A"))).scalar_one()
    assert (mirrored.content, mirrored.attendant) == ("Olá! Vou verificar.", "atendente.carla")

    occurrences = desk.sandbox.call_count("ticket_occurrence_insert")
    assert await staff_does(desk, StaffCommand(ref, CARLA, "note", "cliente reiniciou a ONU")) == []  # private
    assert desk.sandbox.call_count("ticket_occurrence_insert") == occurrences + 1
    await worker.round()
    assert fake.calls[-1][2] is PostKind.NOTE and "Nota interna" in fake.calls[-1][3]

    notices = await staff_does(desk, Resolved(ref, CARLA))  # the desk's own "resolve"
    assert "Voltei a atender" in said(notices)
    await worker.round()
    assert fake.calls[-1] == ("close", ref, False)
    await chat.command("menu")
    assert "Como posso ajudar" in chat.text  # the bot's again
    assert await staff_does(desk, StaffReply(ref, CARLA, "ainda aí?")) == []  # a closed conversation


async def test_a_desk_away_delays_the_conversation_in_order_and_loses_nothing(staffed: Desk) -> None:
    desk = staffed
    chat = await desk.linked_chat()
    fake, clock = RecordingDesk(), Clock()
    worker = DeskWorker(desk.database, fake, clock=clock)
    fake.fail["open"] = [DeskUnavailable("the desk answered 503")]
    await chat.command("atendente")
    await chat.say("alô?")
    clock.now = utcnow()
    assert await worker.round() == 3
    assert fake.calls == []  # the card and the words wait behind the opening
    assert await worker.round() == 0  # not due yet

    clock.now += timedelta(minutes=10)
    await worker.round()
    assert [(c[0], c[2]) for c in fake.calls] == [
        ("open", "asked"), ("post", PostKind.CARD), ("post", PostKind.SUBSCRIBER),
    ]
    assert await jobs(desk) == [("open", "done"), ("post", "done"), ("post", "done")]


async def test_a_post_the_desk_refuses_is_set_aside_and_the_conversation_goes_on(staffed: Desk) -> None:
    desk = staffed
    chat = await desk.linked_chat()
    fake = RecordingDesk()
    fake.fail["card"] = [DeskRefused("the card is too long for this desk")]
    await chat.command("atendente")
    await chat.say("alô?")
    await DeskWorker(desk.database, fake).round()
    assert [c[0] for c in fake.calls] == ["open", "post"] and fake.calls[-1][3] == "alô?"
    assert await jobs(desk) == [("open", "done"), ("post", "dead"), ("post", "done")]
    async with desk.database.session() as session:
        reasons = (await session.execute(select(DeskJobRow.last_error).where(
            DeskJobRow.state == DeskJobState.DEAD.value))).scalars().all()
    assert reasons == ["refused: the card is too long for this desk"]


async def test_only_linked_staff_act_at_a_desk_whose_people_are_bot_chats(staffed: Desk) -> None:
    desk = staffed
    _, ref = await asked_for_a_person(desk)
    stranger = StaffMember("Zé", chat_id=4242)  # in the staff group, never invited
    assert await staff_does(desk, StaffReply(ref, stranger, "oi")) == []
    assert await staff_does(desk, StaffCommand(ref, stranger, "bot")) == []
    async with desk.database.session() as session:
        assert (await session.execute(select(HandoffRow.closed_at))).scalar_one() is None


async def test_a_closing_whose_answer_was_lost_is_read_back_and_told_as_done(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    lossy = LoseAnswers(httpx.ASGITransport(app=sandbox.app), "ticket_finish")
    desk = make_desk(sandbox, database, clock, http_transport=lossy)
    try:
        desk.engine.policy = replace(desk.engine.policy, staff_desk=True)
        _, ref = await asked_for_a_person(desk)
        fake = RecordingDesk()
        worker = DeskWorker(desk.database, fake)
        await staff_does(desk, StaffCommand(ref, CARLA, "close"))
        await worker.round()
        listing = fake.calls[-1][3]
        code = re.search(r"• (\d+):", listing)
        assert code is not None, listing
        notices = await staff_does(desk, StaffCommand(ref, CARLA, "close", f"{code.group(1)} ONU reiniciada"))
        assert lossy.times == 0  # the ISP closed it, and its answer was lost
        assert "foi encerrado" in said(notices)  # read back: closed, so told as done
        await worker.round()
        assert "encerrado" in fake.calls[-2][3] and fake.calls[-1] == ("close", ref, True)
    finally:
        await desk.client.aclose()


async def test_a_note_whose_answer_was_lost_is_reported_as_maybe_done_not_sent_again(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    async with losing_answers(sandbox, database, clock, "ticket_occurrence_insert") as desk:
        desk.engine.policy = replace(desk.engine.policy, staff_desk=True)
        _, ref = await asked_for_a_person(desk)
        fake = RecordingDesk()
        await staff_does(desk, StaffCommand(ref, CARLA, "note", "ligar amanhã"))
        await DeskWorker(desk.database, fake).round()
        assert "pode ter sido feito" in fake.calls[-1][3]
        assert sandbox.call_count("ticket_occurrence_insert") == 1


async def test_a_desk_that_follows_every_chat_gets_the_whole_conversation(staffed: Desk) -> None:
    desk = staffed
    desk.engine.policy = replace(desk.engine.policy, desk_follows_every_chat=True)
    chat = await desk.linked_chat()
    fake = RecordingDesk()
    fake.follows_every_chat = True  # type: ignore[misc]
    await DeskWorker(desk.database, fake).round()
    kinds = [(c[1], c[2]) for c in fake.calls]
    assert kinds[0] == (None, PostKind.SUBSCRIBER) and fake.calls[0][3] == "/menu"
    assert (None, PostKind.BOT) in kinds and any("Como posso ajudar" in c[3] for c in fake.calls)
    assert await jobs(desk) and chat.replies



async def test_a_desk_slow_to_answer_keeps_its_jobs_from_a_second_worker(staffed: Desk) -> None:
    desk = staffed
    chat = await desk.linked_chat()
    await chat.command("atendente")
    slow, other = RecordingDesk(), RecordingDesk()
    started = asyncio.Event()
    real_open = slow.open

    async def open_slowly(chat: DeskChat, title: str, reason: str) -> str:
        started.set()
        await asyncio.sleep(1.5)  # past the lease, which the worker keeps meanwhile
        return await real_open(chat, title, reason)

    slow.open = open_slowly  # type: ignore[method-assign]
    lease = timedelta(seconds=0.6)
    first = asyncio.create_task(DeskWorker(desk.database, slow, lease=lease).round())
    await started.wait()
    await asyncio.sleep(1.0)
    assert await DeskWorker(desk.database, other, lease=lease).round() == 0  # still in the first one's hands
    assert await first == 2
    assert [c[0] for c in slow.calls] == ["open", "post"] and other.calls == []


# ---- ispbot desk: jobs refused for good, shown and put back in line ----------------------------------

async def ispbot(*argv: str) -> int:
    return await run_action(desk_cli.PROG, build_parser().parse_args(list(argv)))


async def test_a_refused_card_is_shown_without_its_text_and_carried_out_once_retried(
    staffed: Desk, on: ScratchDatabase, capsys: pytest.CaptureFixture[str],
) -> None:
    chat = await staffed.linked_chat()
    fake = RecordingDesk()
    fake.fail["card"] = [DeskRefused("Chatwoot refused the token: check ISPBOT_CHATWOOT_API_TOKEN")]
    await chat.command("atendente")
    await chat.say("minha senha do wifi é segredo123")
    await DeskWorker(staffed.database, fake).round()
    assert await jobs(staffed) == [("open", "done"), ("post", "dead"), ("post", "done")]

    assert await ispbot("desk", "status") == 0
    out = capsys.readouterr().out
    assert "0 pending, 2 done, 1 dead" in out
    assert str(chat.chat_id) in out and "ISPBOT_CHATWOOT_API_TOKEN" in out
    assert "segredo123" not in out and "Boletos" not in out  # never what a post says

    assert await ispbot("desk", "retry", "--chat", str(chat.chat_id + 1)) == 0
    assert "No dead job of chat" in capsys.readouterr().out
    assert await ispbot("desk", "retry") == 0
    assert "1 dead job back in line" in capsys.readouterr().out
    await DeskWorker(staffed.database, fake).round()
    assert await jobs(staffed) == [("open", "done"), ("post", "done"), ("post", "done")]
    assert [call[2] for call in fake.calls if call[0] == "post"][-1] is PostKind.CARD  # late, but there
    assert await ispbot("desk", "status") == 0
    assert "0 dead" in capsys.readouterr().out


@pytest.fixture
async def cancelling(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> AsyncIterator[Desk]:
    desk = make_desk(sandbox, database, clock, replace(cancel_policy(sandbox), staff_desk=True))
    yield desk
    await desk.client.aclose()


async def test_a_cancel_in_the_chat_reaches_the_desk_as_a_notice(cancelling: Desk) -> None:
    desk = cancelling
    chat = await desk.linked_chat()
    fake = RecordingDesk()
    await chat.say("quero cancelar meu plano")
    await chat.tap("Preço")
    await chat.tap("Prefiro não dizer")
    await chat.tap("Sim, cancelar agora")
    assert "Chamado nº" in chat.text
    assert fake.calls == [] and await jobs(desk) == [("notice", "pending")]  # written with the turn
    await DeskWorker(desk.database, fake).round()
    [(what, chat_id, customer, text)] = fake.calls
    assert (what, chat_id, customer) == ("notify", chat.chat_id, D.customer)
    assert "Cancelamento pelo chat" in text and f"cliente {D.customer} cancelou o contrato {D.contract}" in text
    assert "Motivo: Preço" in text
    assert await jobs(desk) == [("notice", "done")]


async def test_without_a_desk_a_cancel_writes_no_desk_job(sandbox: Sandbox, database: ScratchDatabase,
                                                          clock: FixedClock) -> None:
    desk = make_desk(sandbox, database, clock, cancel_policy(sandbox))
    try:
        chat = await desk.linked_chat()
        await chat.say("quero cancelar meu plano")
        await chat.tap("Preço")
        await chat.tap("Prefiro não dizer")
        await chat.tap("Sim, cancelar agora")
        assert "Chamado nº" in chat.text and await jobs(desk) == []  # the cancel's ticket is the staff's record
    finally:
        await desk.client.aclose()


async def test_the_forum_desk_posts_a_notice_in_the_staff_group_s_general_topic(cancelling: Desk) -> None:
    sent: list[ApiCall] = []

    async def submit(call: ApiCall) -> asyncio.Future[Any]:
        sent.append(call)
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        done.set_result({"message_id": len(sent)})
        return done

    forum = TelegramForumDesk(submit, -1001234, cancelling.engine.translations)
    chat = await cancelling.linked_chat()
    await chat.say("quero cancelar meu plano")
    await chat.tap("Preço")
    await chat.tap("Prefiro não dizer")
    await chat.tap("Sim, cancelar agora")
    await DeskWorker(cancelling.database, forum).round()
    [call] = sent
    assert call.method == "sendMessage" and call.params["chat_id"] == -1001234
    assert "message_thread_id" not in call.params  # nobody's topic: the group's general one
    assert "Cancelamento pelo chat" in call.params["text"] and call.params["parse_mode"] == "HTML"
