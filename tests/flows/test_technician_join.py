"""A technician joins through an invite; nothing else makes a chat a technician's."""

from __future__ import annotations

from datetime import timedelta

from bot.sandbox import DEMO_IDENTITIES as D
from bot.store import Invites, Links, Role, utcnow

from tests.flows.harness import Desk


async def role_of(desk: Desk, chat_id: int) -> Role | None:
    async with desk.database.transaction() as session:
        link = await Links().active(session, chat_id)
    return link.role if link else None


async def issue(desk: Desk, user: str, ttl: timedelta = timedelta(hours=24)) -> str:
    async with desk.database.transaction() as session:
        return (await Invites().create(session, Role.TECHNICIAN, user, ttl=ttl)).code


async def test_an_invite_makes_the_chat_the_technicians_and_shows_their_menu(desk: Desk) -> None:
    chat = await desk.technician_chat()
    assert "tecnico.joao" in chat.text
    assert any("Chamado em mãos" in label for label in chat.buttons)
    assert any("Agenda" in label for label in chat.buttons)
    assert await role_of(desk, chat.chat_id) is Role.TECHNICIAN


async def test_a_used_invite_is_refused_the_second_time(desk: Desk) -> None:
    code = await issue(desk, D.technician)
    first, second = desk.chat(), desk.chat()
    await first.start(code)
    await second.start(code)
    assert "não vale" in second.text
    assert await role_of(desk, second.chat_id) is None


async def test_an_expired_invite_is_refused(desk: Desk) -> None:
    async with desk.database.transaction() as session:
        code = (await Invites().create(session, Role.TECHNICIAN, D.technician, now=utcnow() - timedelta(days=2))).code
    chat = desk.chat()
    await chat.start(code)
    assert "não vale" in chat.text
    assert await role_of(desk, chat.chat_id) is None


async def test_an_invite_for_a_blocked_or_inactive_user_is_refused(desk: Desk) -> None:
    for user in ("tecnico.pedro", "tecnico.ana"):
        chat = desk.chat()
        await chat.start(await issue(desk, user))
        assert "não está ativo" in chat.text
        assert await role_of(desk, chat.chat_id) is None


async def test_another_deep_link_is_just_the_usual_greeting_and_no_failed_attempt(desk: Desk) -> None:
    chat = desk.chat()
    await chat.start("site")
    assert "titular do cadastro" in chat.text


async def test_a_technician_whose_link_ended_is_greeted_as_a_stranger(desk: Desk) -> None:
    chat = await desk.technician_chat()
    async with desk.database.transaction() as session:
        await Links().unlink(session, chat.chat_id)
    await chat.say("oi")
    assert "titular do cadastro" in chat.text  # linking, as for any chat nobody vouched for


async def test_notices_reach_a_subscriber_in_the_language_of_their_telegram(desk: Desk) -> None:
    maria = await desk.linked_chat(language="en")  # never chose a language: her Telegram is in English
    technician = await desk.technician_chat()
    await technician.command("agenda")
    await technician.tap("#70001")
    await technician.tap("Status da OS")
    await technician.tap("A caminho")
    [notice] = desk.notices_for(maria.chat_id)
    assert "technician is on the way" in notice
