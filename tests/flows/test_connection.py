"""Connection: an outage is said first with "tell me when it ends", otherwise online/offline with
next steps and a ticket button; a surge of subscribers costs the ISP one outage and one NAS read, and
a surge on a failed NAS no read about each customer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from bot.i18n import plain_text
from bot.sandbox import DEMO_IDENTITIES, Sandbox

from tests.flows.harness import Desk

MARIA = DEMO_IDENTITIES.customer


def open_events(sandbox: Sandbox) -> list[dict[str, Any]]:
    return [e for e in sandbox.store.rows("failover") if e["Status"] == "O"]


def customers(sandbox: Sandbox, keep: Callable[[int, list[str], bool], bool]) -> list[int]:
    """Customers with an active contract not named in an open event, filtered by ``keep(code, their
    NAS, online)``: the NAS an online customer is connected to and those its authentications are set
    on, or only the latter. (A contract that is not active is told first: see test_standing.)"""
    named = {code for e in open_events(sandbox) for code in e["AffectedCustomers"].split(",")}
    online = {s["customer_id"]: s["nas_ip_address"] for s in sandbox.store.rows("sessions")}
    found = []
    for customer in sandbox.store.rows("customers"):
        code = customer["Codigo"]
        nas = [a["NAS"] for a in sandbox.store.where("authentications", Cliente=code)]
        connected = code in online
        active = any(c["Situacao_Codigo"] == "A" for c in sandbox.store.where("contracts", Cliente_Codigo=code))
        seen = [online[code], *nas] if connected else nas
        if active and str(code) not in named and nas and keep(code, seen, connected):
            found.append(code)
    return found


def on_host(sandbox: Sandbox) -> set[str]:
    return {e["Host"] for e in open_events(sandbox)}


async def test_an_outage_is_said_first_and_the_chat_can_be_told_when_it_ends(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.command("conexao")
    assert "falha na nossa rede que afeta a sua conexão" in chat.text
    assert "ativa" not in chat.text
    assert not any("Abrir chamado" in b for b in chat.buttons)
    await chat.tap("Me avise")
    assert "Assim que a falha for resolvida eu te aviso" in chat.text
    await chat.command("conexao")
    await chat.tap("Me avise")
    assert "Você já está na lista" in chat.text


async def test_an_offline_customer_on_the_failed_nas_hears_of_the_outage(desk: Desk) -> None:
    hosts = on_host(desk.sandbox)
    customer = customers(desk.sandbox, lambda _, nas, online: not online and set(nas) <= hosts)[0]
    chat = await desk.linked_chat(customer)
    await chat.command("conexao")
    assert "falha na nossa rede que afeta a sua conexão" in chat.text


async def test_online_customer_gets_next_steps_and_a_ticket_button(desk: Desk) -> None:
    hosts = on_host(desk.sandbox)
    customer = customers(desk.sandbox, lambda _, nas, online: online and not set(nas) & hosts)[0]
    chat = await desk.linked_chat(customer)
    await chat.command("conexao")
    assert "Sua conexão está ativa" in chat.text
    assert "Desligue o roteador da tomada" in chat.text
    await chat.tap("Abrir chamado")
    assert "Sobre o que é" in chat.text


async def test_offline_customer_with_a_working_nas_gets_the_router_checklist(desk: Desk) -> None:
    hosts = on_host(desk.sandbox)
    customer = customers(desk.sandbox, lambda _, nas, online: not online and not set(nas) & hosts)[0]
    chat = await desk.linked_chat(customer)
    await chat.command("conexao")
    assert "Sua conexão está desconectada" in chat.text
    assert "funcionando normalmente" in chat.text
    assert "luz estiver vermelha" in chat.text
    await chat.tap("Voltar ao menu")
    assert "Como posso ajudar" in chat.text


async def test_a_nas_down_without_a_failover_event_is_our_side(desk: Desk) -> None:
    hosts = on_host(desk.sandbox)
    customer = customers(desk.sandbox, lambda _, nas, online: not online and set(nas) <= hosts)[0]
    for event in open_events(desk.sandbox):
        event.update(Status="C", UpTime="2025-03-10 09:00:00")
    chat = await desk.linked_chat(customer)
    await chat.command("conexao")
    assert "não está respondendo" in chat.text
    assert "o problema é do nosso lado" in chat.text


async def test_spanish_speakers_hear_it_in_spanish(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA, language="es")
    await chat.command("conexion")
    assert "Detectamos una falla en nuestra red" in chat.text
    assert any("Avísame" in b for b in chat.buttons)


async def test_isp_down_is_said_in_plain_words(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    desk.expire_caches()
    desk.sandbox.faults.go_down()
    await chat.command("conexao")
    assert "Nosso sistema está fora do ar" in chat.text


async def test_fifty_subscribers_at_once_cost_one_outage_read_and_one_nas_read(desk: Desk) -> None:
    hosts = on_host(desk.sandbox)
    quiet = customers(desk.sandbox, lambda _, nas, online: online and not set(nas) & hosts)[:50]
    assert len(quiet) == 50
    chats = [await desk.linked_chat(code) for code in quiet]
    desk.sandbox.reset_calls()
    await asyncio.gather(*(chat.command("conexao") for chat in chats))
    assert all("Sua conexão está ativa" in chat.text for chat in chats)
    assert desk.sandbox.call_count("FailOverEvents") == 1
    assert desk.sandbox.call_count("ConsultaStatusNAS") == 1


async def test_a_surge_on_the_failed_nas_costs_no_read_about_each_customer(desk: Desk) -> None:
    hosts = on_host(desk.sandbox)
    affected = customers(desk.sandbox, lambda _, nas, online: bool(set(nas) & hosts))
    assert len(affected) >= 10
    chats = [await desk.linked_chat(code) for code in affected]
    desk.expire_caches()
    desk.sandbox.reset_calls()
    await asyncio.gather(*(chat.command("conexao") for chat in chats))
    assert all("falha na nossa rede que afeta a sua conexão" in chat.text for chat in chats)
    # The open events, the customers on the failed NAS and their contracts (each one's standing is
    # told first), each read once for everybody.
    assert desk.sandbox.call_count("ConsultaContratos") == len(hosts)
    assert desk.sandbox.call_count() == 1 + 2 * len(hosts)


async def test_tell_me_when_its_back_shows_the_menu_it_showed_before_without_a_read(desk: Desk) -> None:
    """In a surge thousands press "tell me when it's back": the menu after it greets with what the
    menu showed before the outage was told, not with a read about each customer."""
    affected = customers(desk.sandbox, lambda _, nas, online: bool(set(nas) & on_host(desk.sandbox)))
    chat = await desk.linked_chat(affected[0])
    menu = chat.text.partition("\n")[2]  # after the new contact's protocol, which leads its first answer
    assert "Protocolo deste atendimento" not in menu
    await chat.say("sem internet")
    assert "falha na nossa rede que afeta a sua conexão" in chat.text
    desk.expire_caches()
    desk.sandbox.reset_calls()
    await chat.tap("🔔")
    assert desk.sandbox.calls == {}  # the watch is the bot's own; name and contract as shown before
    assert chat.text == "\n".join([plain_text(desk.engine.translations.render("pt-br", "outages.watching")), menu])
    await chat.say("sem internet")
    desk.sandbox.reset_calls()
    await chat.tap("Voltar ao menu")
    assert desk.sandbox.calls == {} and chat.text == menu


async def test_a_customer_online_elsewhere_with_an_access_on_the_failed_nas_hears_of_the_outage(
    desk: Desk,
) -> None:
    hosts = on_host(desk.sandbox)
    # nas[0] is where an online customer is connected; the others are where its accesses are set.
    customer = customers(desk.sandbox, lambda _, nas, on: on and nas[0] not in hosts and bool(set(nas) & hosts))[0]
    chat = await desk.linked_chat(customer)
    await chat.command("conexao")
    assert "falha na nossa rede que afeta a sua conexão" in chat.text
