"""WhatsApp's dead letters sent again (``ispbot undelivered resend``), through the Cloud API now.

Each letter is the request as the sender kept it (``WaCall.as_json``). Outside the 24-hour window a
notice goes as its kind's template; one with no template stays held, said so. The window is read
here, from when the person last wrote (the inbox), before anything is sent: Meta may take a plain
message outside it and only later say ``failed`` (131047), as it did for the letter itself. Meta's
throttles wait and try again; a refusal for good, or a letter whose content was not kept (a file's
bytes, a ``failed`` status of a message sent before a restart), is forgotten, said so; an
unreachable Cloud API or a refused token stops the run, the rest kept. Lines never carry a text
or a number.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx

from bot.channels.whatsapp.client import CloudApi, CloudApiError, describe
from bot.channels.whatsapp.render import WaCall
from bot.channels.whatsapp.settings import WhatsAppSettings
from bot.store import Database, Inbox, utcnow
from bot.store.channels import WHATSAPP, WHATSAPP_WINDOW, ChannelIds
from bot.store.dead_letters import DeadLetter

TRIES = 3  # a throttled letter: tried this often, a second apart and more, before the run stops
WINDOW = WHATSAPP_WINDOW  # since the person last wrote: plain messages go; after, templates only
Outcome = tuple[list[DeadLetter], list[DeadLetter], str | None]  # sent, forgotten, why the run stopped


async def resend(
    settings: WhatsAppSettings, database: Database, letters: list[DeadLetter], say: Callable[[str], None],
    *, transport: httpx.AsyncBaseTransport | None = None,
) -> Outcome:
    """Send ``letters`` in order; (sent, forgotten, why it stopped if it did)."""
    assert settings.whatsapp_token is not None and settings.whatsapp_phone_number_id is not None  # noqa: S101
    api = CloudApi(settings.graph_root, settings.whatsapp_token.get_secret_value(),
                   settings.whatsapp_phone_number_id, transport=transport)
    done: list[DeadLetter] = []
    forgotten: list[DeadLetter] = []
    try:
        for letter in letters:
            call = WaCall.from_json(letter.params) if "kind" in letter.params else None
            if call is None or (call.kind == "upload" and "data" not in call.body):
                what = "its file" if call is not None else "what it said"
                say(f"dead letter {letter.id}: {what} was not kept; it cannot be sent again (forgotten)")
                forgotten.append(letter)
                continue
            if call.kind == "read":  # a read receipt: nothing for the person
                done.append(letter)
                continue
            async with database.session() as session:
                to = call.to or await ChannelIds().external_id(session, call.chat_id)
                wrote = await Inbox().last_received(session, call.chat_id, channel=WHATSAPP)
            if to is None:
                say(f"dead letter {letter.id}: no WhatsApp number is known for chat {call.chat_id} (forgotten)")
                forgotten.append(letter)
                continue
            window = wrote is not None and wrote > utcnow() - WINDOW
            try:
                outcome = await _send(api, call, to, letter.id, say, window=window)
            except httpx.TransportError as exc:
                return done, forgotten, f"WhatsApp could not be reached ({describe(exc)})"
            except OSError as exc:
                return done, forgotten, f"WhatsApp could not be reached ({type(exc).__name__})"
            except CloudApiError as exc:  # the token, or throttled past its tries
                return done, forgotten, f"WhatsApp refused the request ({exc.reason})"
            if outcome is not None:
                (done if outcome else forgotten).append(letter)
    finally:
        await api.aclose()
    return done, forgotten, None


async def _send(
    api: CloudApi, call: WaCall, to: str, letter: int, say: Callable[[str], None], *, window: bool,
) -> bool | None:
    """True sent, False refused for good, None kept (held outside the window); raises what stops the run.
    ``window``: the person wrote within 24 hours; if not, only a template goes."""
    body = call.body
    if not window and body.get("type") != "template":
        if call.template is None:
            say(f"dead letter {letter}: outside the 24-hour window (no message from the person since) and no "
                f"template for {call.notice or 'answer'}: kept until the person writes again")
            return None
        say(f"dead letter {letter}: outside the 24-hour window: sent as the {call.notice} template")
        body = call.template
    for attempt in range(TRIES):
        try:
            await api.send(to, body)
            return True
        except CloudApiError as exc:
            meaning = exc.meaning
            if meaning == "window" and call.template is not None and body is not call.template:
                say(f"dead letter {letter}: outside the 24-hour window: sent as the {call.notice} template")
                body = call.template
                continue
            if meaning == "window":
                say(f"dead letter {letter}: outside the 24-hour window and no template for "
                    f"{call.notice or 'answer'}: kept until the person writes again")
                return None
            if meaning in ("throttled", "pair", "transient") and attempt < TRIES - 1:
                await asyncio.sleep(2.0 ** attempt)
                continue
            if meaning == "refused":
                say(f"dead letter {letter}: WhatsApp refused it ({exc.reason}; forgotten)")
                return False
            raise
    return None
