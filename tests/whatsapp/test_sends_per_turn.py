"""Every path of a subscriber and a technician walked on WhatsApp, through the signed webhook, the
processor and the fake Cloud API (which refuses what breaks Meta's limits: 3 buttons of 20
characters, 10 rows of 24 and 72, bodies of 1,024), counting the messages each turn costs.

A turn sends one message to the person; the exceptions, and why WhatsApp needs them apart, are in
``SEPARATE``. Marking the person's message read is no message (and is counted apart).

    .venv/bin/pytest tests/whatsapp/test_sends_per_turn.py -s    # prints the table
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.isp.pix import parse_br_code
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.store import Database, Invites, Links, Proof, Role
from bot.store.channels import WHATSAPP, ChannelIds

from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.harness import MARIA_WA_ID, RunningWhatsApp, WhatsAppChat, running_whatsapp

RECEIPT = b"%PDF-1.4\n% comprovante\n%%EOF\n"
PHOTO = b"\xff\xd8\xff\xe0 a photo of the router"
# Turns whose answer WhatsApp needs in two messages: a code to copy alone (a long press copies a whole
# message), and media, whose caption cannot carry a list of options.
SEPARATE: dict[str | tuple[str, str], str] = {
    "tap 28/03/2025": "the digitable line alone, to copy, and the bill with its options",
    "tap 26/02/2025": "the digitable line alone, to copy, and the bill with its options",
    "tap PIX copia": "the PIX code alone, to copy, and its explanation with the options",
    "tap QR code": "the QR code's image, and the options (a list cannot ride on an image)",
    "tap Boleto em PDF": "the bill's document, and the options (a list cannot ride on a document)",
    ("invoices, several contracts", "tap_first"): "the invoice's document, and the options",
    ("link (CPF, WhatsApp's number)", "say /ajuda"): (
        "the help, longer than an options message's body (1,024 characters), and then the options"
    ),
}


@dataclass
class Turn:
    path: str
    action: str
    sends: int
    notices: int
    said: str = ""
    most_to_one_other: int = 0


@dataclass
class Walk:
    bot: RunningWhatsApp
    turns: list[Turn] = field(default_factory=list)
    path: str = ""

    async def do(self, chat: WhatsAppChat, verb: str, arg: Any = None) -> None:
        api = self.bot.api
        before = len(api.sent)
        if verb == "tap":
            await chat.tap(arg)
        elif verb == "tap_first":
            option_id, kind = next((o[0], s.body["interactive"]["type"])
                                   for s in reversed(api.to(chat.wa_id)) for o in s.options()[:1])
            reply = wa.button_reply if kind == "button" else wa.list_reply
            await chat.send(reply(chat.wa_id, option_id))
        elif verb == "location":
            await chat.send(wa.location(chat.wa_id, -23.5874162, -46.6345219))
        elif verb == "photo":
            await chat.send(wa.image(chat.wa_id, api.add_media(PHOTO, "image/jpeg"), arg or ""))
        elif verb == "receipt":
            await chat.send(wa.document(chat.wa_id, api.add_media(RECEIPT, "application/pdf")))
        else:
            await chat.say(arg)
        new = api.sent[before:]
        own = sum(1 for sent in new if sent.to == chat.wa_id)
        said = " | ".join(sent.text[:50] or sent.type for sent in new if sent.to == chat.wa_id)
        others = Counter(sent.to for sent in new if sent.to != chat.wa_id)
        label = f"{verb} {arg}" if arg else verb
        self.turns.append(Turn(self.path, label, own, len(new) - own, said, max(others.values(), default=0)))

    async def run(self, path: str, chat: WhatsAppChat, *steps: str) -> None:
        self.path = path
        for step in steps:
            verb, _, arg = step.partition(" ")
            await self.do(chat, verb, arg or None)

    def table(self) -> str:
        lines = [f"{'path':<28} {'turns':>5} {'sends':>5} {'notices':>7}"]
        paths: dict[str, list[Turn]] = {}
        for turn in self.turns:
            paths.setdefault(turn.path, []).append(turn)
        for path, turns in paths.items():
            sends, notices = sum(t.sends for t in turns), sum(t.notices for t in turns)
            lines.append(f"{path:<28} {len(turns):>5} {sends:>5} {notices:>7}")
        return "\n".join(lines)


async def linked(bot: RunningWhatsApp, wa_id: str, customer: int) -> WhatsAppChat:
    """A WhatsApp chat linked to ``customer`` (as if it had proved it), at the menu."""
    chat = bot.chat(wa_id)
    await chat.say("oi")
    async with bot.database.transaction() as session:
        chat_id = (await ChannelIds().chat_ids(session, WHATSAPP, [wa_id], bot.sandbox.clock()))[wa_id]
        await Links().link(session, chat_id, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE, customer_code=customer)
    await chat.say("/menu")
    return chat


async def walk_subscribers(walk: Walk) -> None:
    bot = walk.bot
    maria = bot.chat(MARIA_WA_ID)
    await walk.run("link (CPF, WhatsApp's number)", maria,
        "say oi", "say /ajuda", "tap CPF/CNPJ", f"say {D.customer_cpf}")
    assert "cadastro confirmado" in maria.text and "WhatsApp" in maria.text

    other = bot.chat("5511900000001")  # a number on no customer record
    await walk.run("link (PPPoE)", other, "say /start", "tap PPPoE", f"say {D.pppoe_login}", f"say {D.pppoe_password}")
    assert "cadastro confirmado" in other.text

    await walk.run("outage message", maria,
        "say /menu", "say sem internet", "tap Me avise", "say sem internet", "tap Voltar ao menu",
        "tap Minha conexão", "tap Voltar ao menu")

    await walk.run("bills", maria,
        "tap Segunda via", "tap 28/03/2025", "tap PIX copia", "tap QR code", "tap Boleto em PDF",
        "tap Outros boletos", "tap 26/02/2025", "tap Menu", "say segunda via", "tap 28/03/2025", "tap Já paguei",
        "tap Hoje", "receipt", "tap Enviar")
    assert "Chamado nº" in maria.text

    await walk.run("new ticket", maria,
        "say /menu", "tap Abrir chamado", "tap_first", "tap Abrir chamado mesmo assim",
        "say A luz PON está piscando desde ontem", "tap Corrigir",
        "say A luz PON pisca vermelha desde ontem à noite", "tap Abrir chamado")
    assert "Chamado aberto" in maria.text

    await walk.run("my tickets, human", maria,
        "say /menu", "tap Meus chamados", "say /menu", "tap Falar com atendente", "say Ainda sem sinal aqui",
        "photo a luz do roteador", "say /menu")

    await walk.run("help, language", maria,
        "tap Ajuda", "say obrigado", "say /idioma", "tap English", "tap Bills", "say /language", "tap Português")

    await walk.run("unlink", maria, "say /menu", "say /desvincular", "tap Sim, desvincular", "say oi")

    again = await linked(bot, MARIA_WA_ID, D.customer)
    await walk.run("contracts, cancel plan, wifi", again,
        "tap Contratos", "tap Menu", "say quero cancelar meu plano", "say /menu", "say quero trocar a senha do wifi",
        "say /menu", "say blablabla", "say /chamado", "say /cancelar", "say /naoexiste")

    company = await linked(bot, "5511900000005", D.company)
    await walk.run("invoices, several contracts", company,
        "say /notas", "tap_first", "say /menu", "tap Contratos", "tap_first", "tap Usar este contrato",
        "tap Minha conexão")

    blocked = await linked(bot, "5511900000002", D.blocked_customer)
    await walk.run("blocked contract", blocked,
        "tap Minha conexão", "tap Menu", "tap Contratos", "tap Desbloqueio", "tap Sim, desbloquear", "say /menu")


async def walk_technicians(walk: Walk) -> None:
    bot = walk.bot
    await linked(bot, "5511900000003", D.customer)  # the customer the visit is for: told of its moves
    async with bot.database.transaction() as session:
        code = (await Invites().create(session, Role.TECHNICIAN, D.technician)).code
    tech = bot.chat("5511900000004")
    await walk.run("technician: join, agenda", tech,
        f"say /start {code}", "say /ajuda", "say /agenda", "tap 11/03", "tap Outra data", "say amanhã", "say /agenda")

    await walk.run("technician: order, status", tech,
        "tap #70001", "tap Status da OS", "tap A caminho", "tap Status da OS", "tap Em execução", "location")
    assert any(s.body.get("interactive", {}).get("type") == "location_request_message"
               for s in bot.api.to(tech.wa_id)), "the technician was asked for the position with WhatsApp's button"

    await walk.run("technician: work", tech,
        "say /os", "tap Ocorrência", "say Caixa de emenda aberta", "tap Ocorrência", "location", "photo Poste 12",
        "tap Checklist", "tap Conferir sinal", "tap Testar velocidade", "tap Pronto")

    await walk.run("technician: finish", tech,
        "tap Encerrar", "tap ONU travada", "say ONU reiniciada", "tap Encerrar")
    assert "encerrado" in tech.text


async def test_every_path_on_whatsapp_sends_one_message_a_turn(database: Database, sandbox: Sandbox) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        walk = Walk(bot)
        try:
            await walk_subscribers(walk)
            await walk_technicians(walk)
        except BaseException:
            print("\n".join(f"{t.path} | {t.action} | {t.said}" for t in walk.turns[-6:]))
            raise
        # What the person sees: the code alone, Meta's shapes, the media uploaded.
        codes = [s.text for s in bot.api.to(MARIA_WA_ID) if s.type == "text" and s.text.startswith("000201")]
        assert codes and all(parse_br_code(code) is not None for code in codes)
        images = [bot.api.uploads[s.body["image"]["id"]] for s in bot.api.to(MARIA_WA_ID) if s.type == "image"]
        documents = [bot.api.uploads[s.body["document"]["id"]] for s in bot.api.to(MARIA_WA_ID) if s.type == "document"]
        assert images and all(data.startswith(b"\x89PNG") and mime == "image/png" for data, mime, _ in images)
        assert documents and documents[0][0].startswith(b"%PDF") and documents[0][2] == "boleto-2025-03-28.pdf"
        (notice,) = sandbox.store.rows("payment_notifications")
        assert notice["file_sha256"] == hashlib.sha256(RECEIPT).hexdigest()
        assert bot.api.errors == {}, bot.api.errors  # nothing Meta would refuse
        read = Counter(bot.api.read)
        assert read and max(read.values()) == 1  # each message marked read once
    report = walk.table()
    print("\n" + report)
    over = [t for t in walk.turns if t.sends > 1 and t.action not in SEPARATE and (t.path, t.action) not in SEPARATE]
    assert not over, f"turns sending more than one message to the person: {over}\n{report}"
    assert all(t.sends <= 2 for t in walk.turns), report
    assert [t.action for t in walk.turns if t.notices] == ["tap A caminho", "tap Encerrar"], report
    assert all(t.most_to_one_other <= 1 for t in walk.turns), report  # each customer's chat told once
