"""The walk of every question (``test_questions``) for the other roles: a chat not linked yet (the
link flow's questions, with a staff desk and without) and a technician's (each path from the same
sandbox, as their buttons write). At each question each option typed (its name or its number) is
the option tapped; asking for a person goes where the role can (a technician has no person of the
bot's: their words are words, or not understood); a file is read only where the step takes files;
nonsense is answered with the options and the way out. A password is proof, never a request
(``SECRET``): whatever is typed there is checked as one; a login too, unless no login has spaces.
"""

from __future__ import annotations

import pickle
from dataclasses import replace

from bot.sandbox import DEMO_IDENTITIES as D
from flows.subscriber.link import SECRET
from flows.technician import technician_flows

from tests.flows.harness import Desk, TestChat
from tests.flows.test_questions import (
    CONTACT,
    FLOWS,
    NOT_PRESSED,
    RECEIPT,
    SAY,
    Question,
    Start,
    _at,
    _position,
    _questions,
    checked_on,
)

PERSON = "quero falar com um atendente"
PHONE = "0800 123 4567"
NONSENSE = "xyzzy"
TECHNICIAN_FLOWS = technician_flows().flows


async def _typed_is_tapped(desk: Desk, question: Question, start: Start, not_pressed: tuple[str, ...]) -> None:
    where = f"{question.flow}.{question.step} via {' > '.join(question.path)}"
    for number, label in enumerate(question.options, start=1):
        if any(w in label for w in not_pressed):
            continue
        tapped = await _at(desk, (*question.path, label), start)
        for text in (label.lower(), str(number)):  # its name, or the number a text channel shows beside it
            typed = await _at(desk, question.path, start)
            await typed.say(text)
            said = f"typing {text!r} for {label!r} at {where}"
            assert await _position(desk, typed) == await _position(desk, tapped), said


async def _answered_as_nonsense(desk: Desk, chat: TestChat, question: Question, resting: bool, what: str) -> None:
    where = f"{what} at {question.flow}.{question.step} via {' > '.join(question.path)}"
    assert await _position(desk, chat) == (question.flow, question.step), where
    assert not question.options or "escrever a opção" in chat.text, where  # the options, typed
    assert resting or "menu" in chat.text, where  # and the way out


# ---- a chat not linked yet: the link flow ------------------------------------------------------------
async def _stranger(desk: Desk) -> TestChat:
    chat = desk.chat(name="Ana")
    await chat.start()
    return chat


LINK_ROOTS = (
    (),
    (SAY + D.customer_cpf,),  # the contact
    ("PPPoE", SAY + D.pppoe_login),  # the password
    (SAY + D.company_cnpj, CONTACT + "5511998887766"),  # the contract, of a company with several
)


async def test_every_question_of_the_link_flow(desk: Desk) -> None:
    desk.engine.policy = replace(desk.engine.policy, staff_desk=True)
    questions = await _questions(desk, _stranger, roots=LINK_ROOTS)
    walked = {(q.flow, q.step) for q in questions}
    assert {("link", "method"), ("link", "tax_id"), ("link", "contact"), ("link", "login"), ("link", "password"),
            ("link", "contract")} <= walked, walked
    link = FLOWS["link"]
    for question in checked_on(desk, questions):
        where = f"{question.flow}.{question.step} via {' > '.join(question.path)}"
        await _typed_is_tapped(desk, question, _stranger, NOT_PRESSED)
        secret = SECRET in link.steps.takes(question.step)
        resting = link.rests_at(question.step)

        person = await _at(desk, question.path, _stranger)
        await person.say(PERSON)
        if question.step == "password":  # any text is the password: checked as one, never obeyed
            assert "Não consegui confirmar seus dados" in person.text, where
            assert await _position(desk, person) == ("link", "method") and person.handoffs == [], where
        else:
            assert (await _position(desk, person))[0] == "human", f"a person at {where}"
            [handoff] = person.handoffs
            identified = question.step == "contract"  # the proof was given: the customer's card
            assert ("NÃO identificada" in handoff.summary["card"]) is not identified, where

        receipt = await _at(desk, question.path, _stranger)
        await receipt.send_file("document", "comprovante.pdf", RECEIPT, mime="application/pdf")
        if question.step == "contract":  # linked already: a receipt is the bill's, as at the menu
            assert (await _position(desk, receipt))[0] == "paid", where
        else:  # no bill to pay before a link: the question again, with the options and the way out
            await _answered_as_nonsense(desk, receipt, question, resting, "a receipt")
            assert question.step != "method" or "preciso antes confirmar" in receipt.text, where

        if question.step not in ("password", "contract"):  # without a desk: the ISP's phone, then the link again
            desk.engine.policy = replace(desk.engine.policy, staff_desk=False, support_phone=PHONE)
            by_phone = await _at(desk, question.path, _stranger)
            await by_phone.say(PERSON)
            desk.engine.policy = replace(desk.engine.policy, staff_desk=True, support_phone="")
            assert PHONE in by_phone.text and by_phone.handoffs == [], f"a phone at {where}"
            assert await _position(desk, by_phone) == ("link", "method"), f"a phone at {where}"

        nonsense = await _at(desk, question.path, _stranger)
        await nonsense.say(NONSENSE)
        if question.step == "login":  # a plausible login: the password is asked next
            assert await _position(desk, nonsense) == ("link", "password"), where
        elif question.step == "password":
            assert "Não consegui confirmar seus dados" in nonsense.text, where
        else:
            assert not secret, where
            await _answered_as_nonsense(desk, nonsense, question, resting, "nonsense")


# ---- a technician ------------------------------------------------------------------------------------
TECHNICIAN_NOT_PRESSED = ("Menu", "menu", "Voltar", "Cancelar")
IN_HAND = ("Agenda", f"#{D.ticket}")  # the technician's ticket, in hand
TECHNICIAN_ROOTS = (
    (),
    IN_HAND,
    (*IN_HAND, "Checklist", "sinal óptico", "Testar velocidade", "Pronto", "Encerrar"),  # finishing
)
USED, LENT = (*IN_HAND, "Materiais", "Usado no serviço"), (*IN_HAND, "Materiais", "Emprestado")
MATERIALS = (  # what is typed there is a code, a quantity or a serial, never found by pressing
    (*USED, SAY + "2001"), (*USED, SAY + "2001", SAY + "3"), (*USED, SAY + "2001", SAY + "3", SAY + "1"),
    LENT, (*LENT, SAY + "1001"), (*LENT, SAY + "1001", SAY + "SN01000001"),
)


def _pristine(desk: Desk) -> Start:
    """Each path starts from the same sandbox: a technician's buttons write (a status, a checklist item)."""
    tables = pickle.dumps(desk.sandbox.store.tables)  # unpickled a fourth of the time a deep copy takes

    async def technician(desk: Desk) -> TestChat:
        desk.sandbox.store.tables.clear()
        desk.sandbox.store.tables.update(pickle.loads(tables))  # noqa: S301 - our own bytes, made just above
        return await desk.technician_chat(D.technician)

    return technician


async def test_every_question_of_a_technician(desk: Desk) -> None:
    start = _pristine(desk)
    kept = TECHNICIAN_NOT_PRESSED
    questions = await _questions(desk, start, TECHNICIAN_FLOWS, roots=TECHNICIAN_ROOTS, not_pressed=kept, depth=5)
    walked = {(q.flow, q.step) for q in questions}
    deeper = await _questions(desk, start, TECHNICIAN_FLOWS, roots=MATERIALS, not_pressed=kept, depth=1)
    questions += [q for q in deeper if (q.flow, q.step) not in walked]
    walked = {(q.flow, q.step) for q in questions}
    assert {("agenda", "choose"), ("ticket", "act"), ("status", "move"), ("checklist", "toggle"),
            ("materials", "operation"), ("materials", "quantity"), ("materials", "location"), ("materials", "serial"),
            ("materials", "confirm"), ("occurrence", "note"), ("finish", "cause"), ("finish", "solution"),
            ("appointment", "day"), ("status", "reason")} <= walked, sorted(walked)
    for question in checked_on(desk, questions):
        flow = TECHNICIAN_FLOWS[question.flow]
        takes = {t.what for t in flow.steps.takes(question.step)}
        resting = flow.rests_at(question.step)
        await _typed_is_tapped(desk, question, start, TECHNICIAN_NOT_PRESSED)

        # A technician has no "person" of the bot's to ask for: the words are words, or not understood.
        for text in (PERSON, NONSENSE):
            chat = await _at(desk, question.path, start)
            await chat.say(text)
            if "words" not in takes:
                await _answered_as_nonsense(desk, chat, question, resting, repr(text))

        photo = await _at(desk, question.path, start)
        await photo.send_file("photo", "foto.jpg", b"\xff\xd8\xff jpeg")
        if "files" not in takes:
            await _answered_as_nonsense(desk, photo, question, resting, "a photo")
