"""The chat's language: set, or guessed from what the person writes.

Set, for good, by ``/idioma`` (``Context.set_language``). Otherwise guessed: from the text of the
chat's first message that tells it (``Intents.language_of``: "hola, no tengo internet"; "ok", "👍" or
a number tell nothing), else from the client's language code (Telegram's app language; WhatsApp has
none, and its channel guesses one from the number's country, a Brazilian number writing Spanish
included), else the default; a guess gives way to another language written in two messages in a row.

Where the distinction is kept: ``ChatState.language`` holds the language either way (the column every
reader already uses, notices from other chats' turns included); a guessed one is marked by the key
``LANGUAGE_GUESSED`` (``flows.chat``) in ``ChatState.data``, which ``Engine._enter`` keeps across
flows like the contact, and which holds the other language the last messages were written in, if
any, and how many in a row. Setting the language (``Context.set_language``) drops the key.
"""

from __future__ import annotations

from bot.i18n import pick_language
from bot.store import ChatState

from flows.chat import LANGUAGE_GUESSED as GUESSED  # {"other": the last other language, "count": in a row}
from flows.events import Event, Text
from flows.intents import default_intents

IN_A_ROW = 2  # messages in another language, one after the other, that switch a guessed language
# Questions whose answer is proof (a login, a password, a tax id): its words are never read, for
# their language or anything else ("wrong-password" is no English).
PROOF = frozenset({("link", "login"), ("link", "password"), ("link", "tax_id")})


def follow_language(state: ChatState, event: Event, client_language: str | None) -> None:
    """The chat's language after this event: guessed on its first turn (the text, else the client's
    code), or switched after ``IN_A_ROW`` messages in another language; a language set stays."""
    if state.language is not None and GUESSED not in state.data:
        return  # chosen with /idioma (or kept from before guesses were marked)
    proof = (state.flow, state.step) in PROOF
    written = default_intents().language_of(event.text) if isinstance(event, Text) and not proof else None
    if state.language is None:
        # Kept, so that what other chats' turns send this one (notices) is in its language too.
        state.language = written or (pick_language(client_language) if client_language else None)
        if state.language is not None:
            state.data[GUESSED] = {"other": None}
        return
    if written is None:
        return  # unsure ("ok", "👍", a number): neither a guess nor a break in a row of others
    guessed = state.data.get(GUESSED)
    other, count = (guessed.get("other"), int(guessed.get("count", 0))) if isinstance(guessed, dict) else (None, 0)
    count = count + 1 if other == written else 1
    if written == state.language:
        state.data[GUESSED] = {"other": None}
    elif count >= IN_A_ROW:
        state.language = written
        state.data[GUESSED] = {"other": None}
    else:
        state.data[GUESSED] = {"other": written, "count": count}
