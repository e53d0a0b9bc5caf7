"""Every question takes what a person does instead of tapping (the engine's reading, ``Takes``).

The walk goes from the subscriber's menu through every button (writes and goodbyes aside) to every
question it reaches, and at each one types each option, asks for a person, sends a receipt and types
nonsense, each from a fresh chat that took the same path: typed is tapped, a person is a person, a
receipt is a receipt, and nonsense is answered with the options and the way out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from bot.sandbox import DEMO_IDENTITIES
from bot.store import ChatStates, Origin, Outbox
from flows.flow import Flow
from flows.replies import Document, Upload
from flows.subscriber import subscriber_flows

from tests.flows.harness import Desk, TestChat
from tests.flows.test_new_ticket import quiet_customer, tickets_of

MARIA = DEMO_IDENTITIES.customer
RECEIPT = b"%PDF-1.4\n% comprovante\n%%EOF\n"
# Buttons the walk does not press: they write to the ISP, end the link or only go back.
NOT_PRESSED = ("✅ Abrir chamado", "mesmo assim", "Sim", "Confirmar", "Enviar", "Menu", "menu", "Voltar",
               "Cancelar", "Me avise", "Desbloquear", "Registrar", "Usar este contrato", "Apagar meus dados")
MAX_DEPTH = 4
SAY = "say:"  # a step of a path that is typed, not pressed
CONTACT = "contact:"  # a step of a path that shares the chat's own phone
WORDS_TYPED = "A internet cai toda noite desde ontem"
FLOWS = subscriber_flows().flows
Start = Callable[[Desk], Awaitable[TestChat]]  # a fresh chat where a walk begins


@dataclass(frozen=True)
class Question:
    path: tuple[str, ...]  # the buttons pressed from the menu (``SAY``: words typed)
    flow: str
    step: str
    options: tuple[str, ...]


async def _position(desk: Desk, chat: TestChat) -> tuple[str | None, str | None]:
    async with desk.database.transaction() as session:
        state = await ChatStates().load(session, chat.chat_id)
    return state.flow, state.step


async def _maria(desk: Desk) -> TestChat:
    return await desk.linked_chat(MARIA)


async def _at(desk: Desk, path: tuple[str, ...], start: Start = _maria) -> TestChat:
    """A fresh chat from ``start`` that took ``path`` (buttons, ``SAY`` words, ``CONTACT`` its own phone)."""
    chat = await start(desk)
    for label in path:
        if label.startswith(SAY):
            await chat.say(label.removeprefix(SAY))
        elif label.startswith(CONTACT):
            await chat.share_contact(label.removeprefix(CONTACT))
        else:
            await chat.tap(label)
    return chat


async def _questions(
    desk: Desk, start: Start = _maria, flows: Mapping[str, Flow] = FLOWS, *, roots: Iterable[tuple[str, ...]] = ((),),
    skip: Collection[str] = ("menu", "follow_ticket"), not_pressed: tuple[str, ...] = NOT_PRESSED,
    depth: int = MAX_DEPTH,
) -> list[Question]:
    """Every question the buttons reach from ``roots`` within ``depth`` presses of a root, once each
    (the flows of ``skip`` not walked but gone through)."""
    found: dict[tuple[str, str], Question] = {}
    frontier: list[tuple[tuple[str, ...], int]] = [(root, len(root) + depth) for root in roots]
    while frontier:
        path, deepest = frontier.pop(0)
        chat = await _at(desk, path, start)
        flow, step = await _position(desk, chat)
        if flow is None or step is None or flows[flow].verbatim_steps >= {step}:
            continue  # no question (a person has the chat)
        if (flow, step) not in found and flow not in skip:
            found[flow, step] = Question(path, flow, step, tuple(chat.buttons))
        elif path:
            continue  # a question already walked (or the menu again)
        if len(path) < deepest:
            pressed = [label for label in chat.buttons if not any(w in label for w in not_pressed)]
            frontier += [((*path, label), deepest) for label in pressed]
            if any(t.what == "words" for t in flows[flow].steps.takes(step)):
                frontier.append(((*path, SAY + WORDS_TYPED), deepest))
    return list(found.values())


def checked_on(desk: Desk, questions: list[Question]) -> list[Question]:
    """Every question on SQLite; on PostgreSQL the first of each flow. What PostgreSQL adds is the
    storage of a chat's place (saved, loaded, taken over), the same at every question of a flow; what
    is typed at which question is the engine's reading, the same on either (it took minutes there)."""
    if desk.database.dialect != "postgresql":
        return questions
    first: dict[str, Question] = {}
    for question in questions:
        first.setdefault(question.flow, question)
    return list(first.values())


async def test_every_question_takes_a_typed_option_a_person_a_receipt_and_nonsense(desk: Desk) -> None:
    questions = await _questions(desk)
    walked = {(q.flow, q.step) for q in questions}
    assert {("new_ticket", "topic"), ("new_ticket", "outage"), ("new_ticket", "describe"), ("new_ticket", "confirm"),
            ("bills", "choose"), ("bills", "act"), ("paid", "when"), ("language", "choose"),
            ("unlink", "confirm")} <= walked, walked
    for question in checked_on(desk, questions):
        where = f"{question.flow}.{question.step} via {' > '.join(question.path)}"
        takes = {t.what for t in FLOWS[question.flow].steps.takes(question.step)}
        for label in question.options:
            if any(w in label for w in NOT_PRESSED):
                continue
            tapped = await _at(desk, (*question.path, label))
            typed = await _at(desk, question.path)
            await typed.say(label.lower())
            assert await _position(desk, typed) == await _position(desk, tapped), f"typing {label!r} at {where}"

        person = await _at(desk, question.path)
        await person.say("quero falar com um atendente")
        assert (await _position(desk, person))[0] in ("human", "follow_ticket"), f"a person at {where}"
        assert "atendente" in person.text or "chamado nº" in person.text, where

        receipt = await _at(desk, question.path)
        await receipt.send_file("document", "comprovante.pdf", RECEIPT, mime="application/pdf")
        flow, _ = await _position(desk, receipt)
        assert flow == "paid" or "files" in takes or question.flow in ("bills", "paid"), f"a receipt at {where}"

        nonsense = await _at(desk, question.path)
        await nonsense.say("xyzzy")
        if "words" not in takes:
            assert await _position(desk, nonsense) == (question.flow, question.step), f"nonsense at {where}"
            assert "menu" in nonsense.text, f"nonsense at {where}"
            assert not question.options or "escrever a opção" in nonsense.text, f"nonsense at {where}"


# ---- what a person would notice ------------------------------------------------------------------
async def test_asking_for_a_person_at_a_question_leaves_it_in_one_line(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.command("chamado")
    await chat.tap("Lentidão")
    await chat.say("quero falar com um atendente")
    assert chat.text.startswith("↪️ Certo, deixei de lado o que estávamos fazendo.")
    assert "conte em poucas palavras" not in chat.text  # not the question again
    assert "chamado nº" in chat.text  # a person takes it on a ticket


async def test_typing_a_buttons_name_at_a_bills_card_is_pressing_it(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.command("boleto")
    await chat.say("28/03")  # a bill, named by its due date
    assert "PIX copia e cola" in " ".join(chat.buttons)
    await chat.say("pix")
    assert "Toque no botão" not in chat.text
    assert "copia e cola" in chat.text.casefold() or "pix" in chat.text.casefold()
    await chat.say("quero o boleto em pdf")  # "📄 Boleto em PDF", in a sentence
    assert any(isinstance(reply, Upload | Document) for reply in chat.replies)  # the bill's PDF was sent


async def test_the_number_beside_an_option_chooses_it(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.command("chamado")
    second = chat.buttons[1]
    await chat.say("2")
    assert f"{second}: conte em poucas palavras" in chat.text


async def test_nonsense_names_the_options_and_the_way_out(desk: Desk) -> None:
    chat = await desk.linked_chat(quiet_customer(desk.sandbox))
    await chat.command("chamado")
    await chat.tap("Lentidão")
    await chat.say("Lenta de noite")
    await chat.say("xyzzy")
    assert "Abrir chamado" in chat.text and "Corrigir a descrição" in chat.text and "menu" in chat.text
    assert "Posso abrir?" in chat.text  # and the question again


async def test_after_a_ticket_a_cancellation_is_its_own_request_and_details_are_noted(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer)
    await chat.command("chamado")
    await chat.tap("Lentidão")
    await chat.say("Lenta toda noite")
    await chat.tap("Abrir chamado")
    [slow] = [t for t in tickets_of(desk.sandbox, customer) if t["Assunto"] == "Lentidão"]
    await chat.say("ainda está lento agora de manhã")
    assert f"Anotado no chamado nº {slow['Numero']}" in chat.text
    await chat.say("quero cancelar meu plano")
    assert "Anotado" not in chat.text
    assert "Você quer cancelar o seu plano" in chat.text
    await chat.say("sim")
    assert "vou te passar para uma pessoa" in chat.text
    async with desk.database.transaction() as session:
        state = await ChatStates().load(session, chat.chat_id)
        queued = [entry.message for entry in await Outbox().claim_batch(session, 100)]
    assert state.current_ticket != int(slow["Numero"])  # the cancellation is not buried in the slowness ticket
    in_slow = [m.content for m in queued if m.ticket_id == int(slow["Numero"]) and m.origin is Origin.CUSTOMER]
    assert "ainda está lento agora de manhã" in in_slow
    assert "quero cancelar meu plano" not in in_slow


async def test_one_ticket_number_from_opening_to_my_tickets(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    chat = await desk.linked_chat(customer)
    await chat.command("chamado")
    await chat.tap("Lentidão")
    await chat.say("Lenta toda noite")
    await chat.tap("Abrir chamado")
    [slow] = [t for t in tickets_of(desk.sandbox, customer) if t["Assunto"] == "Lentidão"]
    assert f"chamado nº {slow['Numero']}" in chat.text
    await chat.say("meus chamados")
    assert f"Chamado nº {slow['Numero']}" in chat.text
    assert str(slow["Protocolo"]) not in chat.text  # "protocolo" is the contact's alone


async def test_with_no_ticket_open_a_cancellation_is_asked_before_anything_is_opened(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    before = len(tickets_of(desk.sandbox, customer))
    chat = await desk.linked_chat(customer)
    await chat.say("quero cancelar meu plano")
    assert "Você quer cancelar o seu plano" in chat.text
    assert len(tickets_of(desk.sandbox, customer)) == before
    await chat.say("não")
    assert "plano continua" in chat.text and "Como posso ajudar" in chat.text
    assert len(tickets_of(desk.sandbox, customer)) == before
    await chat.say("quero cancelar meu plano")
    await chat.tap("Sim")
    assert len(tickets_of(desk.sandbox, customer)) == before + 1


async def test_another_companys_words_at_a_question_keep_it_and_only_small_talk_alone_is_small_talk(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.say("quero suspender minha internet")
    await chat.tap("Suspender por um tempo")
    asked = chat.text
    await chat.say("preciso cancelar a netflix")  # our "cancelar" in another company's sense
    assert asked in chat.text and "cancelamento" not in chat.text.casefold()  # the question stays
    await chat.say("o sinal do meu celular da claro ta horrivel")  # "claro" is also "sure"
    assert "👍" not in chat.text and asked in chat.text
    await chat.say("bom dia")  # small talk alone: a kind word, then the question
    assert "Olá" in chat.text and asked in chat.text


async def test_an_options_name_in_another_companys_words_is_not_the_option(desk: Desk) -> None:
    customer = quiet_customer(desk.sandbox)
    before = len(tickets_of(desk.sandbox, customer))
    chat = await desk.linked_chat(customer)
    await chat.command("chamado")
    await chat.tap("Lentidão")
    await chat.say("Lenta toda noite")
    asked = chat.text
    await chat.say("preciso cancelar a netflix")  # "Cancelar" is an option here, but not this one
    assert "não abri" not in chat.text and asked in chat.text  # the draft kept, the question again
    await chat.say("pode cancelar esse chamado")  # our own words around it: the option
    assert "não abri nenhum chamado" in chat.text
    assert len(tickets_of(desk.sandbox, customer)) == before


async def test_a_goodbye_at_a_question_ends_the_conversation_without_asking_again(desk: Desk) -> None:
    chat = await desk.linked_chat(MARIA)
    await chat.say("quero suspender minha internet")
    await chat.tap("Suspender por um tempo")
    asked = chat.text
    await chat.say("valeu, tchau")
    assert "Até logo" in chat.text and asked not in chat.text and not chat.buttons
    await chat.say("xyzzy")  # read as at the menu: not understood, said so
    assert "Não entendi" in chat.text and "Como posso ajudar" in chat.text
    await chat.say("segunda via do boleto")  # what comes next is read as at the menu
    assert "boleto" in chat.text.casefold() or "fatura" in chat.text.casefold()
