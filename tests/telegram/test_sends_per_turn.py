"""Every path a subscriber or a technician can take, walked on the sandbox over the fake Bot API,
counting the messages each turn costs: Telegram lets a bot send about 30 a second, so in a surge a
second message per turn halves how many people hear back in time.

A turn sends at most one message to the person; the exceptions are listed in ``SEPARATE`` with
their reason. Notices to another chat (the customer told of the technician's move) are counted
apart: they are another person's message. The mix of ``MIX`` (what an outage brings: mostly the
outage message) must average at most ``MIX_TARGET`` messages per turn, notices included.

    .venv/bin/pytest tests/telegram/test_sends_per_turn.py -s    # prints the table
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.store import Database, Links, Proof, Role

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, TelegramChat, joined_technician, running_bot

# Turns that may send more than one message to the person, and why Telegram needs them apart.
# (None today: a photo's or a document's caption takes the question after it, and the PIX code goes
# in a copy block of the turn's one message.)
SEPARATE: dict[tuple[str, str], str] = {}
MIX_TARGET = 1.05
# The benchmark-like mix: an outage brings mostly "sem internet"; then bills, a ticket, the rest.
MIX = {"outage message": 0.70, "bills": 0.10, "new ticket": 0.10, "others": 0.10}
RECEIPT = b"%PDF-1.4\n% comprovante\n%%EOF\n"


@dataclass
class Turn:
    path: str
    action: str
    sends: int  # to the person (messages and edits: both count against Telegram's limits)
    notices: int  # to other chats in the same turn
    most_to_one_other: int = 0  # the most any one of those chats got
    said: str = ""  # the start of what the person got, to tell where the turn went


@dataclass
class Walk:
    bot: RunningBot
    turns: list[Turn] = field(default_factory=list)
    path: str = ""

    async def do(self, chat: TelegramChat, verb: str, arg: Any = None) -> TelegramChat:
        """One action of the person in ``chat`` (on the current path), and what it cost."""
        before = len(self.bot.api.outgoing())
        if verb == "tap":
            await chat.tap(arg)
        elif verb == "tap_first":  # the first button of the last question (a topic, an invoice)
            rows = [row for sent in chat.replies for row in sent.button_rows()]
            await chat.send(tg.callback_query(chat.chat_id, str(rows[0][0]["callback_data"])))
        elif verb == "contact":
            await chat.share_contact(arg)
        elif verb == "location":
            await chat.share_location(-23.5874162, -46.6345219)
        elif verb == "photo":
            await chat.send_photo(arg)
        elif verb == "receipt":
            self.bot.api.add_file("RECEIPT", RECEIPT)
            await chat.send(tg.document_message(chat.chat_id, "comprovante.pdf", file_id="RECEIPT",
                                                file_size=len(RECEIPT)))
        else:
            await chat.say(arg)
        new = self.bot.api.outgoing()[before:]
        own = sum(1 for sent in new if sent.chat_id == chat.chat_id)
        others = Counter(sent.chat_id for sent in new if sent.chat_id != chat.chat_id)
        label = f"{verb} {arg}" if arg is not None else verb
        said = " | ".join((sent.text or sent.method)[:60] for sent in new if sent.chat_id == chat.chat_id)
        self.turns.append(Turn(self.path, label, own, len(new) - own, max(others.values(), default=0), said))
        return chat

    async def run(self, path: str, chat: TelegramChat, *steps: str) -> None:
        """The person's actions on ``path``, each "verb argument" (``say oi``, ``tap Menu``, ``location``)."""
        self.path = path
        for step in steps:
            verb, _, arg = step.partition(" ")
            await self.do(chat, verb, arg or None)

    def paths(self) -> dict[str, list[Turn]]:
        out: dict[str, list[Turn]] = {}
        for turn in self.turns:
            out.setdefault(turn.path, []).append(turn)
        return out

    def table(self) -> str:
        lines = [f"{'path':<28} {'turns':>5} {'sends':>5} {'notices':>7} {'sends/turn':>10}"]
        for path, turns in self.paths().items():
            sends, notices = sum(t.sends for t in turns), sum(t.notices for t in turns)
            lines.append(f"{path:<28} {len(turns):>5} {sends:>5} {notices:>7} {(sends + notices) / len(turns):>10.3f}")
        total = len(self.turns)
        sends, notices = sum(t.sends for t in self.turns), sum(t.notices for t in self.turns)
        lines.append(f"{'all':<28} {total:>5} {sends:>5} {notices:>7} {(sends + notices) / total:>10.3f}")
        return "\n".join(lines)

    def per_turn(self, *paths: str, exclude: tuple[str, ...] = ()) -> float:
        turns = [t for t in self.turns if (not paths or t.path in paths) and t.path not in exclude]
        return sum(t.sends + t.notices for t in turns) / len(turns)


async def linked(bot: RunningBot, chat_id: int, customer: int) -> TelegramChat:
    """A chat linked to ``customer`` (as if it had proved it), at the menu."""
    async with bot.app.database.transaction() as session:
        await Links().link(session, chat_id, role=Role.SUBSCRIBER, proof=Proof.CONTACT_PHONE, customer_code=customer)
    chat = bot.chat(chat_id)
    await chat.say("/menu")
    return chat


async def walk_subscribers(walk: Walk) -> None:
    bot = walk.bot
    stranger = bot.chat(9101)
    await walk.run("link (CPF and contact)", stranger,
        "say oi", "say /ajuda", "tap CPF/CNPJ", f"say {D.customer_cpf}", "contact +55 11 98765-4321")
    assert "cadastro confirmado" in stranger.text

    other = bot.chat(9102)
    await walk.run("link (PPPoE)", other,
        "say /start", "tap PPPoE", f"say {D.pppoe_login}", f"say {D.pppoe_password}")
    assert "cadastro confirmado" in other.text

    maria = await linked(bot, 9103, D.customer)
    await walk.run("outage message", maria,
        "say sem internet", "tap Me avise", "say sem internet", "say sem internet", "tap Voltar ao menu",
        "tap Minha conexão", "tap Voltar ao menu")

    await walk.run("bills", maria,
        "tap Segunda via", "tap 28/03/2025", "tap PIX copia", "tap QR code", "tap Boleto em PDF",
        "tap Outros boletos", "tap 26/02/2025", "tap Menu", "say segunda via", "tap 28/03/2025", "tap Já paguei",
        "tap Hoje", "receipt", "tap Enviar")
    assert "Chamado nº" in maria.text

    await walk.run("receipt out of the blue", maria,
        "say /menu", "receipt", "tap 28/03/2025", "tap Ontem", "tap Cancelar")

    await walk.run("new ticket", maria,
        "say /menu", "tap Abrir chamado", "tap_first", "tap Abrir chamado mesmo assim",
        "say A luz PON está piscando desde ontem", "tap Corrigir",
        "say A luz PON pisca vermelha desde ontem à noite", "tap Abrir chamado")
    assert "Chamado aberto" in maria.text

    await walk.run("my tickets", maria,
        "say /menu", "tap Meus chamados", "say /chamados")

    await walk.run("human handoff and follow", maria,
        "say /menu", "tap Falar com atendente", "say Ainda sem sinal aqui", "photo a luz do roteador", "say /menu")

    await walk.run("contracts", maria,
        "tap Contratos", "tap Menu")

    await walk.run("cancel plan, wifi password", maria,
        "say quero cancelar meu plano", "say /menu", "say quero trocar a senha do wifi", "say /menu")

    await walk.run("help, small talk, /cancelar", maria,
        "tap Ajuda", "say obrigado", "say ok", "say oi", "say blablabla", "say /chamado", "say /cancelar",
        "say /boleto", "say voltar", "say /naoexiste")

    await walk.run("language (en, es samples)", maria,
        "tap Idioma", "tap English", "tap Bills", "tap 28/03/2025", "tap QR code", "say no internet", "tap 🔔",
        "say /language", "tap Español", "say sin internet", "tap 🔔", "say gracias", "say /idioma", "tap Português")

    await walk.run("unlink", maria,
        "tap Desvincular", "tap Não, manter", "say /desvincular", "tap Sim, desvincular", "say oi")

    blocked = await linked(bot, 9104, D.blocked_customer)
    await walk.run("blocked contract", blocked,
        "tap Minha conexão", "tap Menu", "tap Contratos", "tap Desbloqueio", "tap Sim, desbloquear", "say /menu")

    company = await linked(bot, 9105, D.company)
    await walk.run("invoices, several contracts", company,
        "say /notas", "tap_first", "say /menu", "tap Contratos", "tap_first", "tap Usar este contrato",
        "tap Minha conexão")


async def walk_technicians(walk: Walk) -> None:
    bot = walk.bot
    await linked(bot, 9201, D.customer)  # the customer the visit is for: told of its moves
    tech = await joined_technician(bot, 9202)
    await walk.run("technician: help, agenda", tech,
        "say /ajuda", "say /agenda", "tap 11/03", "tap Outra data", "say amanhã", "say /agenda")

    await walk.run("technician: order, status", tech,
        "tap #70001", "tap Status da OS", "tap A caminho", "tap Status da OS", "tap Em execução", "location",
        "tap Status da OS", "tap Pausar", "tap Status da OS", "tap Em execução", "location")

    await walk.run("technician: appointment", tech,
        "tap Agendamento", "tap Remarcar", "tap_first", "tap_first", "tap a confirmar")

    await walk.run("technician: work", tech,
        "say /os", "tap Ocorrência", "say Caixa de emenda aberta", "tap Ocorrência", "location", "photo Poste 12",
        "tap Checklist", "tap Conferir sinal", "tap Testar velocidade", "tap Pronto", "tap Materiais", "tap Usado",
        "say 3", "tap Sem série", "say 12,5", "say 1", "tap Registrar")

    await walk.run("technician: finish", tech,
        "tap Encerrar", "tap ONU travada", "say ONU reiniciada", "tap Encerrar")
    assert "encerrado" in tech.text

    await walk.run("technician: abort", tech,
        "tap #70034", "tap Status da OS", "tap Abortar", "say Cliente ausente", "tap Sim, abortar", "say /menu",
        "say /cancel")


async def test_every_path_sends_one_message_a_turn(database: Database, sandbox: Sandbox) -> None:
    async with running_bot(database, sandbox, staff_chat_id=None) as bot:
        walk = Walk(bot)
        await walk_subscribers(walk)
        await walk_technicians(walk)
    table = walk.table()
    mix = {
        "outage message": walk.per_turn("outage message"),
        "bills": walk.per_turn("bills"),
        "new ticket": walk.per_turn("new ticket"),
        "others": walk.per_turn(exclude=("outage message", "bills", "new ticket")),
    }
    average = sum(MIX[name] * value for name, value in mix.items())
    report = f"{table}\nmix {MIX}: {average:.3f} messages per turn"
    print("\n" + report)
    over = [t for t in walk.turns if t.sends > 1 and (t.path, t.action) not in SEPARATE]
    assert not over, f"turns sending more than one message to the person: {over}\n{report}"
    # The customer's chats told of a technician's move hear of it once each.
    assert [t.action for t in walk.turns if t.notices] == ["tap A caminho", "tap a confirmar", "tap Encerrar"]
    assert all(t.most_to_one_other <= 1 for t in walk.turns), report
    assert average <= MIX_TARGET, report
