"""Linking a chat to a customer with proof, and unlinking, against the sandbox ISP through the engine."""

from __future__ import annotations

import asyncio
import logging
import statistics
import time
from collections import Counter
from datetime import timedelta

import pytest
from bot import metrics
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox
from bot.store import LinkAttempts, Links, Proof, utcnow
from bot.store.db import pool_size_for
from flows.policy import Policy
from flows.replies import AskContact
from sqlalchemy import text

from tests.flows.harness import Desk, make_desk
from tests.flows.harness import TestChat as Chat
from tests.store.dbtools import ScratchDatabase, make_database

FAILED = "Não consegui confirmar seus dados"
LOCKED = "tentativas de identificação estão pausadas"


async def start_with_tax_id(desk: Desk, tax_id: str) -> Chat:
    chat = desk.chat()
    await chat.start()
    assert "titular do cadastro" in chat.text
    await chat.tap("CPF/CNPJ")
    await chat.say(tax_id)
    return chat


async def start_with_login(desk: Desk, login: str) -> Chat:
    chat = desk.chat()
    await chat.start()
    await chat.tap("PPPoE")
    await chat.say(login)
    assert "senha PPPoE" in chat.text
    return chat


async def link_of(desk: Desk, chat: Chat) -> tuple[int | None, Proof | None, int | None]:
    async with desk.database.transaction() as session:
        link = await Links().active(session, chat.chat_id)
    return (link.customer_code, link.proof, link.contract) if link else (None, None, None)


async def fail_once(desk: Desk, chat: Chat) -> None:
    await chat.tap("PPPoE")
    await chat.say(D.pppoe_login)
    await chat.say("wrong-password")


# ---- proof (a): tax id and the chat's own phone -------------------------------------------------
async def test_cpf_with_punctuation_and_a_plus_55_contact_links_maria(desk: Desk) -> None:
    chat = await start_with_tax_id(desk, "529.982.247-25")
    assert isinstance(chat.last(AskContact), AskContact)
    await chat.share_contact("+55 11 98765-4321")
    assert "cadastro confirmado" in chat.text
    assert D.customer_name in chat.text  # the menu follows, greeting her by name
    assert await link_of(desk, chat) == (D.customer, Proof.CONTACT_PHONE, D.contract)


async def test_a_cnpj_customer_with_several_contracts_picks_the_one_the_chat_speaks_for(desk: Desk) -> None:
    chat = await start_with_tax_id(desk, "11.444.777/0001-61")
    await chat.share_contact("5511998887766")  # as Telegram sends it: country code, no plus
    assert "mais de um contrato" in chat.text
    assert len(chat.buttons) == 3  # 5003 and 5004 active, 5005 suspended: none cancelled
    assert all(str(n) in " ".join(chat.buttons) for n in D.company_contracts)
    await chat.tap("5004")
    assert "contrato 5004" in chat.text
    assert "Contrato 5004" in chat.text  # the menu names the chosen contract
    assert await link_of(desk, chat) == (D.company, Proof.CONTACT_PHONE, 5004)


async def test_an_alphanumeric_cnpj_typed_in_lower_case_with_punctuation_links_the_company(desk: Desk) -> None:
    chat = await start_with_tax_id(desk, "12.abc.345/01de-35")
    assert isinstance(chat.last(AskContact), AskContact)
    await chat.share_contact("+55" + D.alnum_company_mobile)
    assert "cadastro confirmado" in chat.text
    assert await link_of(desk, chat) == (D.alnum_company, Proof.CONTACT_PHONE, D.alnum_company_contract)


async def test_the_company_landline_on_file_also_proves(desk: Desk) -> None:
    chat = await start_with_tax_id(desk, "11444777000161")
    await chat.share_contact("+55 11 4004-1234")
    assert "cadastro confirmado" in chat.text


async def test_a_contact_that_is_not_the_senders_own_is_refused_and_asked_again(desk: Desk) -> None:
    chat = await start_with_tax_id(desk, D.customer_cpf)
    await chat.share_contact("+5511987654321", own=False)
    assert "Esse contato não é o seu" in chat.text
    assert isinstance(chat.last(AskContact), AskContact)
    assert await link_of(desk, chat) == (None, None, None)
    await chat.share_contact("+5511987654321")
    assert "cadastro confirmado" in chat.text


async def test_a_typed_phone_is_no_proof(desk: Desk) -> None:
    chat = await start_with_tax_id(desk, D.customer_cpf)
    await chat.say("11987654321")
    assert "Número digitado não vale" in chat.text
    assert await link_of(desk, chat) == (None, None, None)


async def test_wrong_phone_unknown_tax_id_and_wrong_password_get_the_same_words(desk: Desk) -> None:
    wrong_phone = await start_with_tax_id(desk, D.customer_cpf)
    await wrong_phone.share_contact("+5511912345678")
    unknown = await start_with_tax_id(desk, "123.456.789-09")  # valid check digits, nobody's
    assert isinstance(unknown.last(AskContact), AskContact)  # asked like a known one
    await unknown.share_contact("+5511987654321")
    wrong_password = await start_with_login(desk, D.pppoe_login)
    await wrong_password.say("Fibra@2024")
    unknown_login = await start_with_login(desk, "nobody.here")
    await unknown_login.say(D.pppoe_password)
    assert FAILED in wrong_phone.text
    assert wrong_phone.text == unknown.text == wrong_password.text == unknown_login.text
    for chat in (wrong_phone, unknown, wrong_password, unknown_login):
        assert await link_of(desk, chat) == (None, None, None)


async def test_invalid_check_digits_are_a_typo_asked_again_without_asking_the_isp(desk: Desk) -> None:
    chat = await start_with_tax_id(desk, "529.982.247-26")
    assert "não confere" in chat.text
    assert "Digite o CPF ou o CNPJ" in chat.text
    assert desk.sandbox.call_count("ConsultaClientes") == 0
    await chat.say("52998224725")
    assert isinstance(chat.last(AskContact), AskContact)


async def test_the_isp_down_is_told_plainly_and_the_tax_id_asked_again(desk: Desk) -> None:
    chat = desk.chat()
    await chat.start()
    await chat.tap("CPF/CNPJ")
    desk.sandbox.faults.go_down()
    await chat.say(D.customer_cpf)
    assert "fora do ar" in chat.text
    assert "Digite o CPF ou o CNPJ" in chat.text


async def contact_step(desk: Desk, tax_id: str) -> tuple[float, Counter[str], str]:
    """The time, the ISP calls and the words of the answer to a contact (not the owner's) after ``tax_id``."""
    chat = await start_with_tax_id(desk, tax_id)
    desk.sandbox.reset_calls()
    started = time.perf_counter()
    await chat.share_contact("+5511912345678")
    return time.perf_counter() - started, Counter(desk.sandbox.calls), chat.text


async def test_a_customers_tax_id_and_a_strangers_take_the_same_isp_work_and_time(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    """Timing must not tell whether a CPF is a customer's: the same calls, and medians within 10% with
    the ISP answering each call in 250 ms (the samples alternate, so a busy machine slows both alike)."""
    desk = make_desk(sandbox, database, clock, Policy(link_max_failures=1000, link_target_max_failures=1000))
    try:
        sandbox.faults.add_latency(0.25)  # long beside a loaded machine's noise (tens of ms)
        customer, stranger = [], []
        for _ in range(11):
            for tax_id, samples in ((D.customer_cpf, customer), ("123.456.789-09", stranger)):
                samples.append(await contact_step(desk, tax_id))
        assert [c for _, c, _ in customer] == [c for _, c, _ in stranger] == [Counter({"ConsultaClientes": 1})] * 11
        assert {text for _, _, text in customer} == {text for _, _, text in stranger}  # the same words
        assert len({text for _, _, text in customer}) == 1 and FAILED in customer[0][2]
        mine, theirs = statistics.median(t for t, _, _ in customer), statistics.median(t for t, _, _ in stranger)
        assert abs(mine - theirs) <= 0.1 * max(mine, theirs), (mine, theirs)
    finally:
        await desk.client.aclose()


# ---- proof (b): PPPoE login and password --------------------------------------------------------
async def test_pppoe_login_and_password_link_maria_to_that_contract(desk: Desk) -> None:
    chat = await start_with_login(desk, D.pppoe_login)
    await chat.say(D.pppoe_password)
    assert "cadastro confirmado" in chat.text
    assert D.customer_name in chat.text
    assert await link_of(desk, chat) == (D.customer, Proof.PPPOE_PASSWORD, D.contract)


async def test_a_company_login_speaks_for_its_own_contract_without_asking(desk: Desk) -> None:
    chat = await start_with_login(desk, "paoquente5004")
    await chat.say("Pq5004!")
    assert "mais de um contrato" not in chat.text
    assert "Contrato 5004" in chat.text
    assert await link_of(desk, chat) == (D.company, Proof.PPPOE_PASSWORD, 5004)


@pytest.mark.parametrize("login", ["x'OR(1)#", "x\\'OR(1)#", "maria\\"])
async def test_quoting_and_backslashes_in_a_login_are_refused_at_the_prompt(desk: Desk, login: str) -> None:
    chat = desk.chat()
    await chat.start()
    await chat.tap("PPPoE")
    await chat.say(login)
    # No real login holds a quote or a backslash: asked again, the ISP never asked.
    assert "Esse login tem caracteres que um login PPPoE não tem" in chat.text
    assert "Digite o seu login PPPoE" in chat.text
    assert desk.sandbox.call_count("ConsultaAutenticacaoSenha") == 0
    await chat.say(D.pppoe_login)
    assert "senha PPPoE" in chat.text


# A lone surrogate (stored in the chat's state it became U+FFFD: ``maria\ufffd.silva`` reached the
# ISP), U+FFFD itself, zero-width and control characters, another script's lookalike, a space.
ODD = ["\udc80", "\ufffd", "\u200b", "\u200d", "\ufeff", "\x00", "\x07", "\x1b", "\u202e", "\u0430", " ", "ã"]


@pytest.mark.parametrize("odd", ODD, ids=[f"U+{ord(c):04X}" for c in ODD])
async def test_a_login_with_a_character_no_login_holds_is_asked_again_without_the_isp(desk: Desk, odd: str) -> None:
    chat = desk.chat()
    await chat.start()
    await chat.tap("PPPoE")
    await chat.say(f"maria{odd}.silva")
    assert "Esse login tem caracteres que um login PPPoE não tem" in chat.text
    assert "Digite o seu login PPPoE" in chat.text  # the question again
    assert desk.sandbox.call_count("ConsultaAutenticacaoSenha") == 0
    async with desk.database.transaction() as session:
        state = await desk.engine.states.load(session, chat.chat_id)
    assert "maria" not in repr(state.data)
    await chat.say(D.pppoe_login)  # the real one goes on
    await chat.say(D.pppoe_password)
    assert "cadastro confirmado" in chat.text


@pytest.mark.parametrize("odd", ODD, ids=[f"U+{ord(c):04X}" for c in ODD])
async def test_a_tax_id_with_a_character_no_tax_id_holds_is_asked_again_without_the_isp(desk: Desk, odd: str) -> None:
    if odd == " ":
        return  # spaces are how many people write a CPF
    chat = await start_with_tax_id(desk, f"529.982.{odd}247-25")
    assert "Esse CPF/CNPJ tem caracteres que um CPF ou CNPJ não tem" in chat.text
    assert "Digite o CPF ou o CNPJ" in chat.text
    assert desk.sandbox.call_count("ConsultaClientes") == 0
    typed = desk.chat()  # typed at the first question, instead of tapping
    await typed.start()
    await typed.say(f"52998224725{odd}")
    assert "Esse CPF/CNPJ tem caracteres" in typed.text
    assert desk.sandbox.call_count("ConsultaClientes") == 0
    await chat.say("CPF: 529 982 247-25")  # labels, colons, spaces and dashes are fine
    assert isinstance(chat.last(AskContact), AskContact)


async def test_the_new_refusals_speak_the_persons_language(desk: Desk) -> None:
    english, spanish = desk.chat(language="en"), desk.chat(language="es")
    for chat in (english, spanish):
        await chat.start()
        await chat.tap("PPPoE")
        await chat.say("maria\udc80.silva")
    assert "That login has characters a PPPoE login doesn't have" in english.text
    assert "Ese usuario tiene caracteres que un usuario PPPoE no tiene" in spanish.text


async def test_password_and_tax_id_never_reach_the_logs(desk: Desk, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    chat = await start_with_tax_id(desk, "529.982.247-25")
    await chat.share_contact("+5511987654321")
    await chat.command("unlink")
    await chat.tap("Sim")
    other = await start_with_login(desk, D.pppoe_login)
    await other.say("Fibra@2024")
    await other.tap("PPPoE")
    await other.say(D.pppoe_login)
    await other.say(D.pppoe_password)
    assert "cadastro confirmado" in other.text
    logged = caplog.text + " ".join(str(r.args) for r in caplog.records)
    for secret in (D.pppoe_password, "Fibra@2024", D.customer_cpf, "529.982.247-25", "98765-4321", "987654321"):
        assert secret not in logged


async def test_the_password_is_not_kept_in_the_chat_state(desk: Desk) -> None:
    chat = await start_with_login(desk, D.pppoe_login)
    await chat.say("Fibra@2024")
    async with desk.database.transaction() as session:
        state = await desk.engine.states.load(session, chat.chat_id)
    assert "Fibra@2024" not in repr(state.data)


# ---- rate limit ---------------------------------------------------------------------------------
async def test_five_failures_lock_linking_and_say_when_to_come_back(desk: Desk) -> None:
    chat = desk.chat()
    await chat.start()
    for _ in range(4):
        await fail_once(desk, chat)
        assert FAILED in chat.text
    await fail_once(desk, chat)
    assert LOCKED in chat.text
    assert "a partir das 10:30" in chat.text  # the sandbox's 09:30 plus the hour
    # No phone set and no desk: where the ISP's number is written, not "other channels" left unnamed.
    assert "o telefone está no seu contrato e nos boletos" in chat.text
    await chat.start()
    assert LOCKED in chat.text
    await chat.say(D.customer_cpf)  # even the right proof is not looked at while locked
    assert LOCKED in chat.text
    assert await link_of(desk, chat) == (None, None, None)


async def test_failures_older_than_the_window_no_longer_lock(desk: Desk) -> None:
    locked, free = desk.chat(), desk.chat()
    async with desk.database.transaction() as session:
        for chat, age in ((locked, timedelta(minutes=50)), (free, timedelta(minutes=61))):
            for _ in range(5):
                await LinkAttempts().record(session, chat.chat_id, False, at=utcnow() - age)
    await locked.start()
    assert LOCKED in locked.text
    await free.start()
    assert LOCKED not in free.text
    await free.tap("PPPoE")
    await free.say(D.pppoe_login)
    await free.say(D.pppoe_password)
    assert "cadastro confirmado" in free.text


async def test_failures_are_counted_again_only_after_the_chat_failed(
    desk: Desk, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chat that never failed to link is not asked about on every turn; once it fails, it is."""
    counted: list[int] = []
    failures_since = LinkAttempts.failures_since

    async def counting(self: LinkAttempts, session: object, chat_id: int, since: object) -> int:
        counted.append(chat_id)
        return await failures_since(self, session, chat_id, since)  # type: ignore[arg-type]

    monkeypatch.setattr(LinkAttempts, "failures_since", counting)
    chat = desk.chat()
    await chat.start()
    assert counted == [chat.chat_id]  # a chat never seen: counted once
    await chat.start()
    await chat.command("ajuda")
    assert counted == [chat.chat_id]
    for _ in range(4):
        await fail_once(desk, chat)
    await fail_once(desk, chat)
    assert LOCKED in chat.text
    await chat.start()
    assert LOCKED in chat.text  # a chat that failed is counted afresh


def locks_counted(scope: str) -> float:
    return metrics.REGISTRY.get_sample_value("ispbot_link_locks_total", {"scope": scope}) or 0.0


async def test_many_chats_together_get_no_more_tries_at_one_login_than_the_person_wide_limit(desk: Desk) -> None:
    before = locks_counted("login"), locks_counted("chat")
    attackers = [desk.chat(), desk.chat()]
    for chat in attackers:  # 5 + 5: each chat reaches its own limit, the login the person-wide 10
        await chat.start()
        for _ in range(5):
            await fail_once(desk, chat)
    assert (locks_counted("login"), locks_counted("chat")) == (before[0] + 1, before[1] + 2)
    third = await start_with_login(desk, D.pppoe_login.upper())  # the ISP compares logins case-blind
    await third.say(D.pppoe_password)  # even the right password is not looked at
    assert LOCKED in third.text
    assert await link_of(desk, third) == (None, None, None)
    assert third.text == attackers[0].text  # the same words whoever is locked, chat or person
    # The lock is on that person's login, not on the chat: another proof still works.
    await third.start()
    await third.tap("CPF/CNPJ")
    await third.say(D.customer_cpf)
    await third.share_contact("+55" + D.customer_mobile)
    assert "cadastro confirmado" in third.text


async def test_many_chats_together_get_no_more_tries_at_one_tax_id(desk: Desk) -> None:
    for _ in range(2):
        chat = desk.chat()
        await chat.start()
        for _ in range(5):
            await chat.tap("CPF/CNPJ")
            await chat.say(D.customer_cpf)
            await chat.share_contact("+5511912345678")  # not hers
    asked = desk.sandbox.call_count("ConsultaClientes")
    owner = await start_with_tax_id(desk, "529.982.247-25")
    assert LOCKED in owner.text
    assert desk.sandbox.call_count("ConsultaClientes") == asked  # nothing asked of the ISP once locked
    async with desk.database.transaction() as session:  # the table names nobody in clear
        rows = (await session.execute(text("SELECT target FROM link_attempts"))).scalars().all()
    assert rows and all(row.startswith("tax_id:") and D.customer_cpf not in row for row in rows)


@pytest.mark.parametrize("kind", ["login", "tax_id"])
async def test_25_simultaneous_wrong_proofs_for_one_person_get_no_more_isp_checks_than_the_limit(
    sandbox: Sandbox, database_url: str, clock: FixedClock, kind: str,
) -> None:
    """Counted before the ISP is asked, atomically: not 25 checks of which each saw the same count.
    The database sized as ``ispbot run`` sizes it for 25 chats at once (a turn may take a second
    connection, for a moment, to count its attempt)."""
    database = await make_database(database_url, pool_size=pool_size_for(25))
    desk = make_desk(sandbox, database, clock)
    limit = desk.engine.policy.link_target_max_failures
    operation = "ConsultaAutenticacaoSenha" if kind == "login" else "ConsultaClientes"
    try:
        chats = []
        for _ in range(25):  # each one question before its proof: the password, or the contact
            if kind == "login":
                chats.append(await start_with_login(desk, D.pppoe_login))
            else:
                chats.append(await start_with_tax_id(desk, D.customer_cpf))
        sandbox.reset_calls()
        sandbox.faults.add_latency(0.05)  # the ISP slow enough for every turn to be in flight at once
        if kind == "login":
            await asyncio.gather(*(chat.say("wrong-password") for chat in chats))
        else:
            await asyncio.gather(*(chat.share_contact("+5511912345678") for chat in chats))
        failed = [chat for chat in chats if FAILED in chat.text]
        locked = [chat for chat in chats if LOCKED in chat.text]
        assert len(failed) + len(locked) == 25
        assert sandbox.call_count(operation) <= limit
        assert len(failed) <= limit  # the last of the limit's failures may already say it locked
        async with database.transaction() as session:
            rows = (await session.execute(text("SELECT target, succeeded FROM link_attempts"))).all()
        assert len(rows) == limit and not any(succeeded for _, succeeded in rows)
        assert len({target for target, _ in rows}) == 1 and rows[0][0].startswith(f"{kind}:")
        assert len(locked) >= 25 - limit
        for chat in chats:
            assert await link_of(desk, chat) == (None, None, None)
    finally:
        await desk.client.aclose()
        await database.destroy()


async def test_an_attempt_the_isp_could_not_check_is_not_counted(desk: Desk) -> None:
    """Counted before the ISP is asked, taken back when the turn could not answer."""
    chat = await start_with_login(desk, D.pppoe_login)
    desk.sandbox.faults.go_down()
    await chat.say("wrong-password")
    assert "fora do ar" in chat.text
    async with desk.database.transaction() as session:
        assert (await session.execute(text("SELECT count(*) FROM link_attempts"))).scalar_one() == 0


async def test_the_lock_names_the_isps_phone_when_the_operator_gave_one(
    sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock,
) -> None:
    desk = make_desk(sandbox, database, clock, Policy(support_phone="0800 123 4567"))
    try:
        chat = desk.chat()
        await chat.start()
        for _ in range(5):
            await fail_once(desk, chat)
        assert "a partir das 10:30" in chat.text and "ligue para a nossa central: 0800 123 4567" in chat.text
    finally:
        await desk.client.aclose()


# ---- unlinking ----------------------------------------------------------------------------------
async def test_unlink_asks_first_then_forgets_the_link_and_says_how_to_link_again(desk: Desk) -> None:
    chat = await desk.linked_chat()
    await chat.command("desvincular")
    assert "Quer mesmo desvincular" in chat.text
    await chat.tap("Não")
    assert "continua como estava" in chat.text
    assert await link_of(desk, chat) != (None, None, None)
    await chat.command("unlink")
    await chat.tap("Sim")
    assert "desvinculei" in chat.text
    assert "/start" in chat.text
    assert await link_of(desk, chat) == (None, None, None)
    await chat.say("oi")
    assert "titular do cadastro" in chat.text  # back to proving who they are


async def test_unlink_in_english(desk: Desk) -> None:
    chat = await desk.linked_chat(language="en")
    await chat.command("unlink")
    await chat.tap("Yes")
    assert "no longer linked" in chat.text


async def test_a_tax_id_or_a_login_inside_a_sentence_is_read(desk: Desk) -> None:
    # Issue 44: "meu cpf é ..." and "meu login é ..." are the answer, not words to refuse.
    chat = await start_with_tax_id(desk, f"meu cpf é {D.customer_cpf}, por favor")
    assert "Compartilhar meu número" in chat.text and "caracteres" not in chat.text
    other = desk.chat()
    await other.start()
    await other.tap("PPPoE")
    await other.say(f"meu login é {D.pppoe_login}")
    assert "senha PPPoE" in other.text
    await other.say(D.pppoe_password)
    assert "cadastro confirmado" in other.text
