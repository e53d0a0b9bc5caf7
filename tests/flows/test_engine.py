"""The engine's promises, whatever the flow: a reply to everything, buttons that cannot be forged,
plain words when the ISP fails, and state that survives a restart."""

from __future__ import annotations

import asyncio
import gc
import logging
import weakref
from dataclasses import replace
from typing import Any

import httpx
import pytest
from bot.sandbox import DEMO_IDENTITIES, FixedClock, Sandbox
from bot.store import ChatState, ChatStates, Link, Origin, Outbox, Role
from flows.context import Context
from flows.engine import Engine
from flows.events import Choice, Incoming, Location, Text
from flows.policy import Policy
from sqlalchemy.ext.asyncio import AsyncSession

from tests.flows.harness import Desk, make_desk
from tests.store.dbtools import ScratchDatabase


async def test_menu_greets_the_linked_customer_by_name_with_a_button_per_flow(desk: Desk) -> None:
    chat = await desk.linked_chat()
    assert DEMO_IDENTITIES.customer_name in chat.text
    assert "Como posso ajudar" in chat.text


async def test_a_sticker_at_the_menu_is_answered_and_the_menu_asked_again(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.send_media("sticker")
    assert "Não consigo ler figurinhas" in chat.text and "Eu leio texto" in chat.text  # what it reads instead
    assert "Como posso ajudar" in chat.text


async def test_an_unknown_command_is_named_and_the_question_repeated(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("frobnicate")
    assert "comando eu não conheço" in chat.text
    assert "Como posso ajudar" in chat.text


async def test_a_button_token_from_another_chat_reaches_nothing(desk: Desk) -> None:
    maria = await desk.linked_chat()
    other = await desk.linked_chat(customer=DEMO_IDENTITIES.blocked_customer)
    stolen = maria.button("")  # any of Maria's buttons
    replies = await desk.engine.handle(Incoming(other.chat_id, Choice(stolen), client_language="pt-br"))
    other.replies = replies
    assert "não vale mais" in other.text
    assert DEMO_IDENTITIES.customer_name not in other.text


async def test_cancel_works_anywhere_and_returns_to_the_menu(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("idioma")
    await chat.command("cancel")
    assert "cancelei" in chat.text
    assert "Como posso ajudar" in chat.text


async def test_english_client_gets_english(desk: Desk) -> None:
    chat = await desk.linked_chat(language="en-GB")
    assert "How can I help" in chat.text


async def test_the_menu_still_answers_when_the_isp_is_down(desk: Desk) -> None:
    chat = await desk.linked_chat()
    desk.expire_caches()
    desk.sandbox.faults.go_down()
    await chat.command("menu")
    assert "Como posso ajudar" in chat.text


async def test_a_restart_resumes_mid_conversation(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("idioma")
    token = chat.button("English")
    restarted = make_desk(desk.sandbox, desk.database, desk.clock)  # a new process: new engine, same database
    try:
        replies = await restarted.engine.handle(Incoming(chat.chat_id, Choice(token), client_language="pt-br"))
    finally:
        await restarted.client.aclose()
    chat.replies = replies
    assert "we'll talk in English" in chat.text


async def test_repeated_misunderstandings_bring_a_person(desk: Desk) -> None:
    desk.engine.policy = replace(desk.engine.policy, staff_desk=True)
    chat = await desk.linked_chat()
    await chat.command("idioma")
    for _ in range(Policy().give_up_after - 1):
        await chat.say("klingon")
        assert not chat.handoffs
        assert "Escolha um dos idiomas" in chat.text
    await chat.say("klingon")
    assert chat.handoffs and chat.handoffs[0].reason == "asked"
    assert chat.handoffs[0].ticket is not None  # the conversation got a ticket for the staff to answer on
    await chat.say("alguém aí?")
    assert [type(r).__name__ for r in chat.replies] == ["ToStaff"]  # relayed; the bot keeps quiet


async def test_without_a_staff_desk_asking_for_a_person_opens_a_ticket(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("atendente")
    assert "Registrei seu pedido no chamado nº" in chat.text
    assert not chat.handoffs
    assert "Para outra coisa, escolha abaixo" in chat.text  # and the bot goes on helping
    assert chat.buttons


async def test_messages_of_a_conversation_with_a_ticket_are_queued_for_the_mirror(desk: Desk) -> None:
    chat = await desk.linked_chat()
    async with desk.database.transaction() as session:
        state = await ChatStates().load(session, chat.chat_id)
        state.current_ticket = DEMO_IDENTITIES.ticket
        await ChatStates().save(session, state)
    await chat.say("a internet caiu de novo <script>")
    async with desk.database.transaction() as session:
        entries = await Outbox().claim_batch(session, 50)
    said = [(entry.message.origin, entry.message.content) for entry in entries]
    assert said[0] == (Origin.CUSTOMER, "a internet caiu de novo <script>")
    assert all(entry.message.ticket_id == DEMO_IDENTITIES.ticket for entry in entries)
    assert all(entry.message.customer == DEMO_IDENTITIES.customer for entry in entries)
    assert [origin for origin, _ in said[1:]] and all(origin is Origin.SYSTEM for origin, _ in said[1:])
    assert not any("<b>" in content for _, content in said)  # the mirror gets plain text, not Telegram HTML


async def test_concurrent_events_of_one_chat_are_taken_one_after_the_other(desk: Desk) -> None:
    chat = await desk.linked_chat()
    results = await asyncio.gather(*(
        desk.engine.handle(Incoming(chat.chat_id, Text(f"mensagem {n}"), client_language="pt-br")) for n in range(8)
    ))
    assert all(results)
    async with desk.database.transaction() as session:
        state = await ChatStates().load(session, chat.chat_id)
    assert state.version >= 1 + 8  # every event saved once, none lost to a version conflict


async def test_a_crashing_step_gets_an_apology_and_its_message_stays_out_of_the_logs(
    desk: Desk, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
) -> None:
    chat = await desk.linked_chat()

    async def crash(ctx: object) -> None:
        raise ValueError(f"input {DEMO_IDENTITIES.customer_cpf} was bad")

    monkeypatch.setattr(desk.engine.flows[Role.SUBSCRIBER].flows["help"], "begin", crash)
    with caplog.at_level(logging.DEBUG):
        await chat.command("ajuda")
    assert "algo deu errado" in chat.text
    assert "Como posso ajudar" in chat.text  # the question it was at, asked again
    assert "ValueError" in caplog.text
    assert DEMO_IDENTITIES.customer_cpf not in caplog.text


async def test_a_live_location_moving_where_no_step_wants_one_is_not_answered(desk: Desk) -> None:
    chat = await desk.linked_chat()
    menu = chat.text
    replies = await desk.engine.handle(Incoming(chat.chat_id, Location(-23.5, -46.6, live=True)))
    assert replies == []  # a live location sends a position every few seconds: no reply to each
    await chat.send(Location(-23.5, -46.6))  # a position shared once is answered like any odd input
    assert chat.text != menu and chat.replies


async def test_a_handoff_on_a_conversation_whose_ticket_was_closed_gets_a_new_ticket(desk: Desk) -> None:
    desk.engine.policy = replace(desk.engine.policy, staff_desk=True)
    closed = next(t for t in desk.sandbox.store.where("tickets", CodigoCliente=DEMO_IDENTITIES.customer)
                  if t["Encerramento_DataHora"])
    chat = await desk.linked_chat()
    async with desk.database.transaction() as session:
        state = await ChatStates().load(session, chat.chat_id)
        state.current_ticket = int(closed["Numero"])
        await ChatStates().save(session, state)
    await chat.command("atendente")
    [handoff] = chat.handoffs
    assert handoff.ticket is not None and handoff.ticket != int(closed["Numero"])


class _Gate(httpx.AsyncBaseTransport):
    """Passes each ISP call on while ``open``; ``reached`` once a call waits at it."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.open = asyncio.Event()
        self.open.set()
        self.reached = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not self.open.is_set():
            self.reached.set()
            await self.open.wait()
        return await self.inner.handle_async_request(request)


async def test_a_turn_asking_the_isp_holds_its_chat_against_other_processes_until_it_ends(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    """A turn reads its chat without a lock and holds it at its first ISP call: another process's turn
    of the same chat (here its locked read) waits for it, and then sees where it left the chat."""
    gate = _Gate(httpx.ASGITransport(app=sandbox.app))
    desk = make_desk(sandbox, database, clock, http_transport=gate)
    try:
        chat = await desk.linked_chat()
        gate.open.clear()
        asking = asyncio.create_task(chat.command("boleto"))  # the bills: the ISP is asked
        await gate.reached.wait()

        async def other_process() -> str | None:
            async with database.transaction() as session:
                return (await ChatStates().load_locked(session, chat.chat_id))[0].flow

        other = asyncio.create_task(other_process())
        await asyncio.sleep(0.3)
        if database.dialect == "postgresql":
            assert not other.done()  # held: SQLite lets one writer in at a time instead
        gate.open.set()
        await asking
        flow = await other
        assert "R$" in chat.text
        if database.dialect == "postgresql":
            assert flow == "bills"
    finally:
        await desk.client.aclose()


async def test_a_turn_that_only_answers_runs_again_when_another_process_saved_its_chat_meanwhile(
    desk: Desk, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Such a turn is not held (two statements on PostgreSQL): the save's version check catches the
    other save, and the turn runs again on what it saved (here: English chosen meanwhile)."""
    chat = await desk.linked_chat()
    await chat.command("ajuda")
    in_portuguese = chat.text
    states = desk.engine.states
    load = states.load_for_turn
    raced: list[int] = []

    async def load_then_another_process_saves(session: AsyncSession, chat_id: int) -> tuple[ChatState, Link | None]:
        loaded = await load(session, chat_id)
        if not raced:
            raced.append(chat_id)
            async with desk.database.transaction() as other:
                await states.save(other, replace(await states.load(other, chat_id), language="en"))
        return loaded

    monkeypatch.setattr(states, "load_for_turn", load_then_another_process_saves)
    await chat.command("ajuda")
    assert raced == [chat.chat_id]
    assert chat.text != in_portuguese  # answered once, in the language saved meanwhile
    async with desk.database.session() as session:
        assert (await states.load(session, chat.chat_id)).language == "en"


async def test_a_turns_context_is_freed_when_the_turn_ends_without_the_garbage_collector(
    desk: Desk, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A context its parts held back (a cycle) lived until a collection: every turn's state and replies
    # with it, and the collector's walks cost the bot its rate against the stateful peer (bench/RESULTS.md).
    made: list[weakref.ref[Context]] = []
    context = Engine._context

    def kept(self: Engine, *args: Any, **kwargs: Any) -> Context:
        ctx = context(self, *args, **kwargs)
        made.append(weakref.ref(ctx))
        return ctx

    monkeypatch.setattr(Engine, "_context", kept)
    chat = await desk.linked_chat(DEMO_IDENTITIES.customer)
    gc.disable()
    try:
        await chat.say("segunda via")
        await chat.command("ajuda")
        assert made and all(ref() is None for ref in made), "a turn's context outlived its turn"
    finally:
        gc.enable()
