"""What people send on WhatsApp, read as the engine's events: receipts fetched through the media
endpoint only when needed and never past the limit, long lists in pages, a sender whose number
WhatsApp withholds (a username) linking by PPPoE and answered by user id."""

from __future__ import annotations

from bot.channels.whatsapp import updates
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.store import Database
from bot.store.channels import ChannelIds
from flows.events import Choice, Contact, Location, Media, Start, Text

from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.harness import MARIA_WA_ID, running_whatsapp

BIG = b"%PDF-1.4\n" + b"0" * (12 * 1024 * 1024)


def _read(message: dict[str, object]) -> object:
    found = updates.posted(wa.post(message))[0]
    read = updates.read({**found.payload, "chat_id": 1 << 53})
    assert read.incoming is not None
    return read.incoming


def test_each_kind_of_message_is_an_event() -> None:
    assert _read(wa.text(MARIA_WA_ID, "oi")).event == Text("oi")
    assert _read(wa.text(MARIA_WA_ID, "/start abc")).event == Start("abc")
    assert _read(wa.button_reply(MARIA_WA_ID, "tok1", "Sim")).event == Choice("tok1")
    assert _read(wa.list_reply(MARIA_WA_ID, "tok2", "Boleto")).event == Choice("tok2")
    assert _read(wa.location(MARIA_WA_ID, -23.5, -46.6)).event == Location(-23.5, -46.6)
    media = _read(wa.image(MARIA_WA_ID, "m1", "comprovante")).event
    assert isinstance(media, Media) and media.kind == "photo" and media.caption == "comprovante"
    assert media.file is not None and media.file.ref == "wa-media:m1"
    card = wa.message(MARIA_WA_ID, "contacts", None, contacts=[
        {"name": {"formatted_name": "João"}, "phones": [{"phone": "+55 11 91234-5678", "wa_id": "5511912345678"}]}])
    assert _read(card).event == Contact("+55 11 91234-5678", own=False)  # someone's card proves nothing
    incoming = _read(wa.text(MARIA_WA_ID, "oi"))
    assert incoming.proved_phone == "+5511987654321" and incoming.asks_contact is False
    assert incoming.client_language == "pt-br" and incoming.channel == "whatsapp"
    assert _read(wa.text("34612345678", "hola")).client_language == "es"


async def test_a_receipt_too_large_is_refused_before_it_is_downloaded(database: Database, sandbox: Sandbox) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        chat = bot.chat(MARIA_WA_ID)
        await chat.say("oi")
        await chat.tap("CPF/CNPJ")
        await chat.say(D.customer_cpf)
        await chat.say("/boleto")
        await chat.tap("28/03/2025")
        await chat.tap("Já paguei")
        await chat.tap("Ontem")
        downloads = []
        original = bot.api._download

        async def counted(request):  # type: ignore[no-untyped-def]
            downloads.append(request.path_params["media_id"])
            return await original(request)

        bot.api._download = counted  # type: ignore[method-assign]
        await chat.send(wa.document(MARIA_WA_ID, bot.api.add_media(BIG, "application/pdf"), "extrato.pdf"))
        await chat.tap("Enviar")  # fetched only once confirmed
        assert "passou do limite de 5 MB" in chat.text
        assert downloads == []  # the media's record said its size: its bytes were never fetched
        assert list(sandbox.store.rows("payment_notifications")) == []


async def test_a_sender_whose_number_is_withheld_links_by_pppoe_and_is_answered_by_user_id(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        user = "BR.1502576394655843"
        message = wa.text(None, "oi", user_id=user)
        body = wa.post(message, contacts=[{"profile": {"name": "Maria"}, "user_id": user}])
        assert (await bot.post(body)).status_code == 200
        await bot.handled(message["id"])
        (greeting,) = bot.api.to(user)
        titles = [title for _, title in greeting.options()]
        assert not any("CPF" in title for title in titles)  # no number to prove a tax id with
        assert any("PPPoE" in title for title in titles)


async def test_more_than_ten_options_are_paged_by_the_channel(database: Database, sandbox: Sandbox) -> None:
    from flows.replies import Button, Message  # noqa: PLC0415

    async with running_whatsapp(database, sandbox) as bot:
        channel = bot.channel
        buttons = [Button(f"Contrato {n}", f"tok{n}") for n in range(23)]
        chat_id = (1 << 53) + 7
        channel._keep_pages(chat_id, [Message("Qual contrato?", ((*buttons,),))], "pt_BR")
        found = updates.posted(wa.post(wa.list_reply(MARIA_WA_ID, "wa:more:9", "➡️ Mais opções")))[0]
        read = channel.read({**found.payload, "chat_id": chat_id})
        assert read.kind == "more" and read.incoming is None  # the channel's own: no turn of the engine's
        (page,) = await bot.api.wait_for_sent(MARIA_WA_ID, 1)
        assert bot.api.read == [found.key]
        rows = page.body["interactive"]["action"]["sections"][0]["rows"]
        assert [r["id"] for r in rows[:-1]] == [f"tok{n}" for n in range(9, 18)] and rows[-1]["id"] == "wa:more:18"


# What Meta documents and the bot cannot read: ``unsupported`` (with its errors, e.g. an edited or a
# view-once message), a type newer than the bot (``unknown`` or a name it has never seen), a Flow's
# reply (``interactive``/``nfm_reply``), an order from a catalogue.
UNREADABLE = [
    lambda wa_id: wa.message(wa_id, "unsupported", {"type": "edit"}, errors=[
        {"code": 131051, "title": "Message type unknown", "message": "Message type unknown",
         "error_data": {"details": "Message type is currently not supported."}}]),
    lambda wa_id: wa.message(wa_id, "unknown", errors=[{"code": 131051, "title": "Message type unknown"}]),
    lambda wa_id: wa.message(wa_id, "ephemeral", {"whatever": 1}),
    lambda wa_id: wa.message(wa_id, "interactive", {"type": "nfm_reply", "nfm_reply": {
        "name": "flow", "body": "Sent", "response_json": '{"flow_token": "t", "plano": "500"}'}}),
    lambda wa_id: wa.message(wa_id, "order", {"catalog_id": "1", "text": "", "product_items": [
        {"product_retailer_id": "p1", "quantity": "1", "item_price": "99.9", "currency": "BRL"}]}),
]


async def test_a_message_the_bot_cannot_read_is_answered_with_what_it_can_read(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        chat = bot.chat(MARIA_WA_ID)
        await chat.say("oi")
        question = [title for _, title in chat.replies[-1].options()]
        for make in UNREADABLE:
            sent = await chat.send(make(MARIA_WA_ID))
            assert "não consigo ler" in chat.text.lower(), chat.text
            assert all(word in chat.text for word in ("texto", "fotos", "documentos")), chat.text
            assert [title for _, title in sent[-1].options()] == question  # the question it waits in, again
        await chat.tap("CPF/CNPJ")  # nothing lost: the conversation goes on where it was
        await chat.say(D.customer_cpf)
        assert "Maria" in chat.text or "contrato" in chat.text.lower()
        spanish = bot.chat("34612345678")
        await spanish.send(UNREADABLE[0]("34612345678"))
        assert "no puedo leer" in spanish.text.lower() and "fotos" in spanish.text, spanish.text


async def test_a_voice_note_at_the_menu_is_told_the_bot_reads_no_audio(database: Database, sandbox: Sandbox) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        chat = bot.chat(MARIA_WA_ID)
        await chat.say("oi")
        await chat.send(wa.message(MARIA_WA_ID, "audio", {"id": "a1", "mime_type": "audio/ogg; codecs=opus",
                                                          "voice": True}))
        assert "áudio" in chat.text and "texto" in chat.text, chat.text


async def test_a_welcome_request_is_greeted(database: Database, sandbox: Sandbox) -> None:
    """Meta's ``request_welcome``: the person opened the chat for the first time; the greeting answers."""
    async with running_whatsapp(database, sandbox) as bot:
        chat = bot.chat(MARIA_WA_ID)
        await chat.send(wa.message(MARIA_WA_ID, "request_welcome"))
        assert any("CPF" in title for _, title in chat.replies[-1].options())



async def test_a_person_known_by_number_stays_one_chat_when_meta_adds_then_gives_only_a_user_id(
    database: Database, sandbox: Sandbox,
) -> None:
    """Meta's usernames: webhooks carry the business-scoped ``from_user_id`` beside ``from``, and only
    the user id once the person adopts a username. Their link and conversation stay theirs."""
    user = "BR.1502576394655843"
    async with running_whatsapp(database, sandbox) as bot:
        maria = bot.chat(MARIA_WA_ID)
        await maria.say("oi")
        await maria.tap("CPF/CNPJ")
        await maria.say(D.customer_cpf)
        assert "Maria" in maria.text
        both = wa.text(MARIA_WA_ID, "segunda via", user_id=user)
        await maria.send(both)
        assert "28/03/2025" in maria.text  # still linked: the same chat
        heard = len(bot.api.to(user)) + len(bot.api.to(MARIA_WA_ID))
        only = wa.text(None, "segunda via", user_id=user)
        body = wa.post(only, contacts=[{"profile": {"name": "Maria"}, "user_id": user}])
        assert (await bot.post(body)).status_code == 200
        await bot.handled(only["id"])
        told = [*bot.api.to(MARIA_WA_ID), *bot.api.to(user)][heard:]
        assert told and "28/03/2025" in "\n".join(sent.text for sent in told)
        async with database.session() as session:
            chats = await ChannelIds().chat_ids(session, "whatsapp", [MARIA_WA_ID, user], sandbox.clock())
        assert chats[MARIA_WA_ID] == chats[user]


async def test_two_ids_of_one_person_join_the_chat_seen_first_whichever_it_was(database: Database) -> None:
    from datetime import UTC, datetime  # noqa: PLC0415

    now, ids = datetime.now(UTC), ChannelIds()
    async with database.transaction() as session:
        first = (await ids.chat_ids(session, "whatsapp", ["US.77"], now))["US.77"]  # a username first
        await ids.join(session, "whatsapp", [("15550001111", "US.77")], now)
        await ids.join(session, "whatsapp", [("15550001111", "US.77")], now)  # again: nothing changes
        found = await ids.chat_ids(session, "whatsapp", ["15550001111", "US.77"], now)
        assert found == {"15550001111": first, "US.77": first}
        assert await ids.external_id(session, first) == "US.77"
