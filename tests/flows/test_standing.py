"""A contract that is not active is told first, in plain words, by the connection and ticket flows and
the "no internet" words; the troubleshooting is for active contracts only."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from bot.i18n import default_translations
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox
from bot.store import utcnow
from bot.store.models import TrustUnblockRow
from flows.policy import Policy
from sqlalchemy import update

from tests.flows.harness import Desk, make_desk
from tests.flows.test_cancel_plan import policy as cancel_policy
from tests.store.dbtools import ScratchDatabase


def _owed(desk: Desk) -> Decimal:
    today = desk.clock().date()
    unpaid = desk.sandbox.v2("get_unpaid_document", {"customer_id": D.blocked_customer})["result"]
    return sum((Decimal(str(d["value_up"])) for d in unpaid if d["due_date"] < today.isoformat()), Decimal(0))


@pytest.mark.parametrize("how", ["command", "words"])
async def test_a_blocked_subscriber_hears_why_with_the_amount_and_what_to_do(desk: Desk, how: str) -> None:
    chat = await desk.linked_chat(D.blocked_customer)
    if how == "command":
        await chat.command("conexao")
    else:
        await chat.say("minha internet caiu")
    assert "bloqueado por falta de pagamento" in chat.text
    owed = default_translations().render("pt_BR", "standing.blocked_unpaid", number=1, plan="", owed=_owed(desk),
                                         overdue=2).split("<b>")[2].split("</b>")[0]
    assert owed in chat.text
    assert "roteador" not in chat.text.casefold()  # no checklist for a blocked contract
    assert chat.buttons == ["💠 Pagar com PIX", "🔓 Desbloquear em confiança", "✅ Já paguei",
                            "🙋 Falar com atendente", "🏠 Menu"]
    await chat.tap("Pagar com PIX")
    assert "boletos em aberto" in chat.text


async def test_the_unblock_in_trust_is_offered_right_there(desk: Desk) -> None:
    chat = await desk.linked_chat(D.blocked_customer)
    await chat.command("conexao")
    await chat.tap("Desbloquear")
    assert f"{D.blocked_contract}" in chat.text
    assert chat.buttons  # the terms to confirm, or the policy's plain refusal with its way out


async def test_without_the_policy_the_unblock_is_not_offered(sandbox: Sandbox, database: ScratchDatabase,
                                                             clock: FixedClock) -> None:
    desk = make_desk(sandbox, database, clock, Policy(unblock_enabled=False))
    try:
        chat = await desk.linked_chat(D.blocked_customer)
        await chat.command("conexao")
        assert "Desbloquear" not in " ".join(chat.buttons)
    finally:
        await desk.client.aclose()


async def test_the_ticket_flow_tells_it_first_and_can_still_open_a_ticket(desk: Desk) -> None:
    chat = await desk.linked_chat(D.blocked_customer)
    await chat.command("chamado")
    assert "bloqueado por falta de pagamento" in chat.text
    await chat.tap("Abrir chamado mesmo assim")
    assert chat.buttons  # the topics


@pytest.mark.parametrize(("state", "words"), [("S", "suspenso"), ("C", "cancelado"), ("E", "aguardando a instalação"),
                                              ("T", "transferido")])
async def test_other_states_have_their_own_words(desk: Desk, state: str, words: str) -> None:
    contract = desk.sandbox.store.find("contracts", Numero=D.contract)
    assert contract is not None
    contract["Situacao_Codigo"] = state
    for event in desk.sandbox.store.rows("failover"):  # an outage on record is told before the contract
        event["Status"] = "C"
    chat = await desk.linked_chat()
    await chat.command("conexao")
    assert words in chat.text and "roteador" not in chat.text.casefold()
    assert "Pagar com PIX" not in " ".join(chat.buttons)


async def test_a_suspended_contract_is_told_before_an_outage_on_record(desk: Desk) -> None:
    contract = desk.sandbox.store.find("contracts", Numero=D.contract)
    assert contract is not None
    contract["Situacao_Codigo"] = "S"  # Maria is on the seeded outage
    chat = await desk.linked_chat()
    desk.expire_caches()
    await chat.command("conexao")
    assert "suspenso" in chat.text and "falha na nossa rede" not in chat.text


async def test_an_active_contract_on_an_outage_hears_the_outage(desk: Desk) -> None:
    chat = await desk.linked_chat()  # Maria is on the seeded outage
    await chat.say("sem internet")
    assert "falha na nossa rede" in chat.text


async def test_an_active_contract_gets_the_usual_answer(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("conexao")
    assert "bloqueado" not in chat.text and chat.buttons


async def test_a_blocked_subscribers_menu_says_so_with_the_total_that_unblocks(desk: Desk) -> None:
    chat = await desk.linked_chat(D.blocked_customer)
    shown = f"R$\u00a0{_owed(desk):.2f}".replace(".", ",")
    assert f"O contrato {D.blocked_contract} está bloqueado por falta de pagamento" in chat.text
    assert f"Pagando {shown}" in chat.text and "Como posso ajudar" in chat.text


async def test_an_active_subscribers_menu_says_nothing_of_a_block(desk: Desk) -> None:
    chat = await desk.linked_chat()
    assert "bloqueado" not in chat.text and "Como posso ajudar" in chat.text


async def test_after_a_trust_unblock_the_connection_answer_remembers_the_promise(desk: Desk) -> None:
    chat = await desk.linked_chat(D.blocked_customer)
    await chat.command("conexao")
    await chat.tap("Desbloquear")
    await chat.tap("Sim, desbloquear")
    assert "desbloque" in chat.text.casefold()
    await chat.say("minha internet caiu")
    assert f"desbloqueio em confiança do contrato {D.blocked_contract} às" in chat.text
    assert "até 15 minutos" in chat.text and "abra um chamado" in chat.text
    assert "bloqueado por falta de pagamento" not in chat.text and "desconectada no momento" not in chat.text


async def test_once_the_promised_time_passed_the_checklist_says_so_and_offers_a_ticket(desk: Desk) -> None:
    chat = await desk.linked_chat(D.blocked_customer)
    await chat.command("conexao")
    await chat.tap("Desbloquear")
    await chat.tap("Sim, desbloquear")
    async with desk.database.transaction() as session:  # the unblock was twenty minutes ago
        await session.execute(update(TrustUnblockRow).values(at=utcnow() - timedelta(minutes=20)))
    desk.expire_caches()
    await chat.say("minha internet caiu")
    assert "deveria ter liberado a conexão até as" in chat.text and "desconectada no momento" in chat.text
    assert "🛠️ Abrir chamado" in chat.buttons


async def test_a_contract_the_isp_still_shows_blocked_after_a_trust_unblock_hears_the_promise(desk: Desk) -> None:
    chat = await desk.linked_chat(D.blocked_customer)
    await chat.command("conexao")
    await chat.tap("Desbloquear")
    await chat.tap("Sim, desbloquear")
    contract = desk.sandbox.store.find("contracts", Numero=D.blocked_contract)
    assert contract is not None
    contract["Situacao_Codigo"] = "B"  # the ISP's own release still on its way
    desk.expire_caches()
    await chat.command("chamado")  # the ticket flow tells the contract's standing first
    assert f"desbloqueio em confiança do contrato {D.blocked_contract} às" in chat.text
    assert "bloqueado por falta de pagamento" not in chat.text
    assert "🔓 Desbloquear em confiança" not in chat.buttons


async def test_right_after_cancelling_in_the_chat_every_flow_says_the_contract_is_cancelled(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    """Maria is on the seeded outage: after she cancels, "sem internet" must not answer with it."""
    desk = make_desk(sandbox, database, clock, cancel_policy(sandbox))
    try:
        chat = await desk.linked_chat()
        await chat.say("sem internet")  # read once before: a cached copy must not hide the cancel
        assert "falha na nossa rede" in chat.text
        await chat.say("quero cancelar meu plano")
        await chat.tap("Preço")
        await chat.tap("Vivo Fibra")
        await chat.tap("Sim, cancelar agora")
        assert f"Contrato {D.contract} cancelado" in chat.text
        assert f"Seu contrato {D.contract} está cancelado" in chat.text  # the menu after it
        await chat.say("sem internet")
        assert f"Seu contrato {D.contract} (Fibra 300 Mega) está cancelado" in chat.text
        assert "falha na nossa rede" not in chat.text and "🙋 Falar com atendente" in chat.buttons
        await chat.command("chamado")
        assert "está cancelado" in chat.text and "🛠️ Abrir chamado mesmo assim" in chat.buttons
        await chat.command("boleto")  # the bills still open: the standing first, then the list
        assert chat.text.index("está cancelado") < chat.text.index("boletos em aberto")
        await chat.command("chamados")
        assert chat.text.startswith(f"O contrato {D.contract} (Fibra 300 Mega) está cancelado")
    finally:
        await desk.client.aclose()


async def test_in_english_the_standing_comes_first_too(desk: Desk) -> None:
    contract = desk.sandbox.store.find("contracts", Numero=D.contract)
    assert contract is not None
    contract["Situacao_Codigo"] = "E"
    chat = await desk.linked_chat(language="en")
    assert "waiting for installation" in chat.text  # the menu
    await chat.command("bills")
    assert chat.text.startswith(f"🛠️ Contract {D.contract} (Fibra 300 Mega) is still waiting for installation")
