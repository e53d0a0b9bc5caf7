"""The chat's language: set, or guessed from what the person writes.

Set, for good: by ``/idioma`` (``Context.set_language``), or from the language code a Telegram client
gives on the chat's first turn (as before). WhatsApp gives none: there the language is guessed from
the text (``Intents.language_of``), from the first message that tells it ("hola, no tengo internet";
"ok", "👍" or a number tell nothing, and the chat stays in the default meanwhile), and a guess gives
way to another language written in two messages in a row.

Where the distinction is kept: ``ChatState.language`` holds the language either way (the column every
reader already uses, notices from other chats' turns included); a guessed one is marked by the key
``LANGUAGE_GUESSED`` (``flows.context``) in ``ChatState.data``, which ``Engine._enter`` keeps across
flows like the contact, and which holds the other language the last messages were written in, if
any, and how many in a row. Setting the language (``Context.set_language``) drops the key.
"""

from __future__ import annotations

from bot.i18n import pick_language
from bot.store import ChatState

from flows.context import LANGUAGE_GUESSED as GUESSED  # {"other": the last other language, "count": in a row}
from flows.events import Event, Text
from flows.intents import default_intents

IN_A_ROW = 2  # messages in another language, one after the other, that switch a guessed language


def follow_language(state: ChatState, event: Event, client_language: str | None) -> None:
    """The chat's language after this event: set from the client's code on the first turn, else
    guessed from the text, or switched after ``IN_A_ROW`` messages in another language."""
    if state.language is None and client_language:
        # Kept, so that what other chats' turns send this one (notices) is in its language too.
        state.language = pick_language(client_language)
        return
    if not isinstance(event, Text) or (state.language is not None and GUESSED not in state.data):
        return
    written = default_intents().language_of(event.text)
    if written is None:
        return  # unsure ("ok", "👍", a number): neither a guess nor a break in a row of others
    if state.language is None:
        state.language = written
        state.data[GUESSED] = {"other": None}
        return
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
