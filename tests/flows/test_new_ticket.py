"""Opening a ticket: a known outage is told first, the ticket lands in the ISP with the Telegram mode
and the contract, the conversation follows it, and a timed-out opening is never doubled."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from bot.sandbox import DEMO_IDENTITIES, FixedClock, Sandbox
from bot.store import ChatStates
from flows.policy import Policy

from tests.flows import harness
from tests.flows.harness import Desk
from tests.store.dbtools import ScratchDatabase

MARIA = DEMO_IDENTITIES.customer


def quiet_customer(sandbox: Sandbox) -> int:
    """An online customer no open failover event affects (by name or by its NAS)."""
    events = [e for e in sandbox.store.rows("failover") if e["Status"] == "O"]
    named = {code for e in events for code in e["AffectedCustomers"].split(",")}
    hosts = {e["Host"] for e in events}
    return next(
        s["customer_id"] for s in sandbox.store.rows("sessions")
        if str(s["customer_id"]) not in named and s["nas_ip_address"] not in hosts
    )


def tickets_of(sandbox: Sandbox, customer: int) -> list[dict[str, Any]]:
    """What the ISP itself answers to ConsultaAtendimentos for the customer."""
    answer = sandbox.v1("ConsultaAtendimentos", {"Filtro": f"CodigoCliente = {customer}"})
    return list(answer["result"] or [])


def stored_ticket(sandbox: Sandbox, number: int) -> dict[str, Any]:
    row = sandbox.store.find("tickets", Numero=number)
    assert row is not None
    return row


async def describe_no_connection(chat: harness.TestChat) -> None:
    await chat.tap("Sem conexão")
    assert "conte em poucas palavras" in chat.text
    await chat.say("Sem internet desde as 8h, a luz LOS está vermelha")
    assert "Confira o seu chamado" in chat.text
    assert "a luz LOS está vermelha" in chat.text


async def test_an_outage_is_told_once_the_topic_is_the_connection_and_no_ticket_is_opened(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    before = len(tickets_of(desk.sandbox, MARIA))
    await chat.command("chamado")
    assert "Sobre o que é" in chat.text
    assert "falha na nossa rede" not in chat.text  # the topic is not known yet
    await chat.tap("Sem conexão")
    assert "falha na nossa rede que afeta a sua conexão" in chat.text
    assert any("Me avise" in b for b in chat.buttons)
    assert any("mesmo assim" in b for b in chat.buttons)

    await chat.tap("Me avise")
    assert "te aviso por aqui" in chat.text
    assert len(tickets_of(desk.sandbox, MARIA)) == before
    async with desk.database.transaction() as session:
        assert await desk.engine.repos.watches.is_watching(session, chat.chat_id, 1)


async def test_an_outage_is_not_told_for_a_topic_it_does_not_concern(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.command("chamado")
    await chat.tap("Mudança de plano")
    assert "falha na nossa rede" not in chat.text
    assert "conte em poucas palavras" in chat.text


async def test_open_anyway_lands_in_the_isp_with_telegram_mode_contract_and_description(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    before = {t["Numero"] for t in tickets_of(desk.sandbox, MARIA)}
    await chat.command("chamado")
    assert "Instalação" not in chat.buttons  # not shown in the subscriber center
    await chat.tap("Sem conexão")
    await chat.tap("mesmo assim")
    assert "conte em poucas palavras" in chat.text
    await chat.say("Sem internet desde as 8h, a luz LOS está vermelha")
    await chat.tap("Abrir chamado")

    new = [t for t in tickets_of(desk.sandbox, MARIA) if t["Numero"] not in before]
    assert len(new) == 1
    assert new[0]["Assunto"] == "Sem conexão" and new[0]["Topico"] == "Sem conexão"
    assert f"chamado nº {new[0]['Numero']}" in chat.text
    row = stored_ticket(desk.sandbox, int(new[0]["Numero"]))
    assert row["modo"] == DEMO_IDENTITIES.telegram_mode
    assert row["contrato"] == DEMO_IDENTITIES.contract
    assert row["iniciativa"] == "C"
    assert row["Abertura_Usuario"] == DEMO_IDENTITIES.bot_user
    occurrence = desk.sandbox.store.find("occurrences", Atendimento_Numero=row["Numero"])
    assert occurrence is not None and "luz LOS está vermelha" in occurrence["Descricao"]
    async with desk.database.transaction() as session:
        assert (await ChatStates().load(session, chat.chat_id)).current_ticket == row["Numero"]


async def test_without_an_outage_the_topics_come_first_and_a_captioned_photo_describes(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.command("ticket")
    assert "falha na nossa rede" not in chat.text
    assert "Sobre o que é" in chat.text
    await chat.tap("Lentidão")
    await chat.send_media("photo")
    assert "descrição em texto" in chat.text
    assert "conte em poucas palavras" in chat.text  # the question, again
    await chat.send_media("photo", "Velocidade de 20 Mega no teste")
    assert "Velocidade de 20 Mega no teste" in chat.text
    await chat.tap("Abrir chamado")
    assert "Chamado aberto" in chat.text
    (ticket,) = [t for t in tickets_of(desk.sandbox, quiet_customer(desk.sandbox)) if t["Assunto"] == "Lentidão"]
    assert stored_ticket(desk.sandbox, int(ticket["Numero"]))["modo"] == DEMO_IDENTITIES.telegram_mode


async def test_cancelling_opens_nothing(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    before = len(tickets_of(desk.sandbox, quiet_customer(desk.sandbox)))
    await chat.command("chamado")
    await chat.tap("Lentidão")
    await chat.say("Lenta toda noite")
    await chat.tap("Cancelar")
    assert "não abri nenhum chamado" in chat.text
    assert "Como posso ajudar" in chat.text
    assert len(tickets_of(desk.sandbox, quiet_customer(desk.sandbox))) == before


async def test_a_problem_typed_at_the_topic_question_is_kept_and_only_the_topic_asked(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer)
    await chat.command("chamado")
    await chat.say("minha internet cai toda noite")
    assert "Anotei: “minha internet cai toda noite”" in chat.text
    assert "Escolha o assunto nos botões" not in chat.text
    await chat.say("lentidao")  # the topic typed, without its accent
    assert "Confira o seu chamado" in chat.text and "minha internet cai toda noite" in chat.text
    await chat.say("abrir")  # the button "Abrir chamado", typed
    assert "Chamado aberto" in chat.text
    assert any(t["Assunto"] == "Lentidão" for t in tickets_of(desk.sandbox, customer))


async def test_a_greeting_at_the_topic_question_is_greeted_and_the_question_asked_again(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.command("chamado")
    await chat.say("bom dia")
    assert "Olá" in chat.text and "Sobre o que é" in chat.text
    assert "Escolha o assunto nos botões" not in chat.text and "Anotei" not in chat.text


async def test_other_is_offered_and_without_a_general_topic_a_person_reads_it(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.command("chamado")
    assert "💬 Outro" in chat.buttons
    await chat.tap("Outro")
    assert "o que você precisa" in chat.text
    await chat.say("Quero mudar o roteador de cômodo")
    assert "pessoa da nossa equipe" in chat.text


async def test_other_opens_on_the_isps_general_topic_where_there_is_one(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    code = desk.sandbox.store.next_id("topics", "Codigo")
    desk.sandbox.store.insert("topics", {**desk.sandbox.store.find("topics", Codigo=8), "Codigo": code,
                                         "Nome": "Outros assuntos"})
    chat = await desk.linked_chat(customer)
    await chat.command("chamado")
    assert "Outros assuntos" not in chat.buttons  # offered as "Outro"
    await chat.say("outro")
    await chat.say("Quero mudar o roteador de cômodo")
    await chat.tap("Abrir chamado")
    assert "Chamado aberto" in chat.text
    assert any(t["Assunto"] == "Outros assuntos" for t in tickets_of(desk.sandbox, customer))


async def test_a_bill_topic_leads_to_the_bills_not_to_a_ticket(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    before = len(tickets_of(desk.sandbox, customer))
    chat = await desk.linked_chat(customer)
    await chat.command("chamado")
    await chat.tap("Segunda via")
    assert "não precisa abrir chamado" in chat.text
    assert "boleto" in chat.text.casefold()
    assert len(tickets_of(desk.sandbox, customer)) == before


async def test_isp_down_at_confirmation_is_said_plainly_and_the_question_kept(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.command("chamado")
    await describe_no_connection(chat)
    desk.sandbox.faults.go_down()
    await chat.tap("Abrir chamado")
    assert "fora do ar" in chat.text
    assert "Posso abrir?" in chat.text
    desk.sandbox.faults.come_back()
    await chat.tap("Abrir chamado")
    assert "Chamado aberto" in chat.text
    assert len(opened_by_the_bot(desk.sandbox)) == 1


async def test_english_speakers_open_tickets_in_english(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox), language="en")
    await chat.command("ticket")
    assert "What is it about?" in chat.text
    await chat.tap("Lentidão")
    await chat.say("Slow every night")
    await chat.tap("Open ticket")
    assert "Ticket opened! It is ticket no." in chat.text


# ---- a timed-out opening ---------------------------------------------------------------------------
class LostAnswer(httpx.AsyncBaseTransport):
    """The ISP's answer to the next AtendimentoCadastro never arrives: the client times out. The
    request itself reaches the ISP at once (``landed``), later (``deliver``), or never."""

    def __init__(self, inner: httpx.AsyncBaseTransport, *, landed: bool) -> None:
        self.inner = inner
        self.landed = landed
        self.armed = True
        self.held: httpx.Request | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.armed and b'"AtendimentoCadastro"' in request.content:
            self.armed = False
            if self.landed:
                await (await self.inner.handle_async_request(request)).aread()
            else:
                self.held = request
            raise httpx.ReadTimeout("no answer in time", request=request)
        return await self.inner.handle_async_request(request)

    async def deliver(self) -> None:
        """The ISP finally processes the request the client gave up on."""
        assert self.held is not None
        await (await self.inner.handle_async_request(self.held)).aread()


@pytest.fixture
def lost_answer(request: pytest.FixtureRequest, sandbox: Sandbox) -> LostAnswer:
    return LostAnswer(httpx.ASGITransport(app=sandbox.app), landed=request.param)


@pytest.fixture
async def slow_desk(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock, lost_answer: LostAnswer,
) -> AsyncIterator[Desk]:
    desk = harness.make_desk(sandbox, database, clock, Policy(), http_transport=lost_answer)
    yield desk
    await desk.client.aclose()


async def timed_out_opening(desk: Desk) -> harness.TestChat:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.command("chamado")
    await describe_no_connection(chat)
    await chat.tap("Abrir chamado")
    assert "não sei se o chamado chegou a ser aberto" in chat.text
    assert "Chamado aberto" not in chat.text
    return chat


def opened_by_the_bot(sandbox: Sandbox) -> list[dict[str, Any]]:
    return [t for t in tickets_of(sandbox, quiet_customer(sandbox)) if t["Assunto"] == "Sem conexão"]


@pytest.mark.parametrize("lost_answer", [True], indirect=True)
async def test_a_timed_out_opening_that_landed_is_found_not_opened_again(slow_desk: Desk) -> None:
    chat = await timed_out_opening(slow_desk)
    await chat.tap("Abrir chamado")
    (ticket,) = opened_by_the_bot(slow_desk.sandbox)
    assert f"chamado nº {ticket['Numero']}" in chat.text
    assert slow_desk.sandbox.call_count("AtendimentoCadastro") == 1


@pytest.mark.parametrize("lost_answer", [False], indirect=True)
async def test_an_opening_the_isp_finishes_late_is_waited_for_then_found(
    slow_desk: Desk, lost_answer: LostAnswer,
) -> None:
    chat = await timed_out_opening(slow_desk)
    await chat.tap("Abrir chamado")  # at once: the ISP may still be writing it
    assert "ainda não mostra o seu chamado" in chat.text
    assert opened_by_the_bot(slow_desk.sandbox) == []
    await lost_answer.deliver()
    slow_desk.clock.advance(minutes=1)
    await chat.tap("Abrir chamado")
    (ticket,) = opened_by_the_bot(slow_desk.sandbox)
    assert f"chamado nº {ticket['Numero']}" in chat.text
    assert slow_desk.sandbox.call_count("AtendimentoCadastro") == 1


@pytest.mark.parametrize("lost_answer", [False], indirect=True)
async def test_an_opening_that_never_landed_is_made_once_after_a_while(slow_desk: Desk) -> None:
    chat = await timed_out_opening(slow_desk)
    slow_desk.clock.advance(minutes=3)
    await chat.tap("Abrir chamado")
    assert "Chamado aberto" in chat.text
    assert len(opened_by_the_bot(slow_desk.sandbox)) == 1
    assert slow_desk.sandbox.call_count("AtendimentoCadastro") == 1  # the lost one never arrived
