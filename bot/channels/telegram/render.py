"""Engine replies as Bot API calls, as plain data: a method name and a JSON-ready params dict.

Nothing here touches the network, so every rule of the Telegram side (HTML parse mode, keyboards,
callback data size, the 4096-character limit, forum topics) is testable on its own; the sender
(``sender.py``) delivers the calls in order.

Long texts: a message is split only at line breaks whose position is outside every HTML element
(a ``<pre>`` block or a ``<b>`` spanning several lines stays whole) and never inside a tag or an
entity, so each part is balanced without closing or reopening anything. Lengths are counted in
UTF-16 code units of the raw HTML, which is what Telegram counts and never less than what it shows.
A single piece longer than the limit (one line, or one element spanning lines) is cut at the last
whitespace that fits, or hard at the limit when there is none, never inside a tag or an entity; the
elements open at the cut are closed at the end of the part and reopened (same tag, same attributes)
at the start of the next one. Parts that hold only whitespace are dropped. The inline keyboard goes
on the last part.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html import escape
from typing import Any
from urllib.parse import urlsplit

from flows.replies import (
    AskContact,
    AskLocation,
    Button,
    Copy,
    Document,
    Handoff,
    Message,
    Reply,
    RoleMenu,
    ToStaff,
    Upload,
)

from bot.channels.telegram import raw

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_DATA = 64  # bytes, Bot API: 1-64 bytes
# A file sent as its bytes is kept in a call as {UPLOAD: base 64, "filename": ...} (calls are JSON, kept
# until Telegram accepts them); ``raw.call`` turns it into a multipart upload.
UPLOAD = raw.UPLOAD

# Telegram fetches a document by URL only for these types; any other link is sent as a link.
_URL_DOCUMENT_SUFFIXES = (".pdf", ".zip", ".gif")

_ATOM = re.compile(r"<[^<>]*>|&#?[A-Za-z0-9]+;|.", re.DOTALL)
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][A-Za-z0-9-]*)[^>]*?(/?)\s*>")


@dataclass(frozen=True, slots=True)
class ApiCall:
    """One Bot API request: ``method`` (``sendMessage``) with its ``params`` (``chat_id`` included)."""

    method: str
    params: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """As kept in the inbox until Telegram accepted it (``params`` shared, not copied: nothing
        changes a rendered call, and storing it copies it anyway)."""
        return {"method": self.method, "params": self.params}

    @classmethod
    def from_json(cls, kept: dict[str, Any]) -> ApiCall:
        return cls(kept["method"], kept["params"])

    @property
    def chat_id(self) -> int:
        """The chat the call is about (``setMyCommands`` names it in its scope)."""
        if "chat_id" in self.params:
            return int(self.params["chat_id"])
        return int(self.params["scope"]["chat_id"])


def utf16_len(text: str) -> int:
    """Length as Telegram counts it: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def render(reply: Reply, chat_id: int, *, message_thread_id: int | None = None) -> list[ApiCall]:
    """The Bot API calls that show ``reply`` in ``chat_id``.

    ``message_thread_id`` is the forum topic to answer in; the caller passes it only when the
    incoming message had ``is_topic_message`` set (replies in ordinary supergroups carry a thread
    id too, and must not be sent to a "topic"). A :class:`Handoff` renders to nothing: the staff
    side handles it.
    """
    base: dict[str, Any] = {"chat_id": chat_id}
    if message_thread_id is not None:
        base["message_thread_id"] = message_thread_id
    if isinstance(reply, Message):
        markup = inline_keyboard(reply.buttons) if reply.buttons else None
        return _text_calls(base, reply.text, markup)
    if isinstance(reply, AskLocation):
        return _text_calls(base, reply.text, _request_keyboard(reply.button, "request_location"))
    if isinstance(reply, AskContact):
        return _text_calls(base, reply.text, _request_keyboard(reply.button, "request_contact"))
    if isinstance(reply, Document):
        return _document_calls(base, reply)
    if isinstance(reply, Upload):
        return _upload_calls(base, reply)
    if isinstance(reply, Copy):
        held = reply.attachment
        if held.channel != "telegram":
            return []
        return [ApiCall("copyMessage", {**base, "from_chat_id": held.chat_id, "message_id": held.message_id})]
    if isinstance(reply, Handoff | ToStaff | RoleMenu):
        return []  # the staff desk, and the processor (it knows the role's commands), handle these
    raise TypeError(f"not a reply: {type(reply).__name__}")


def render_turn(replies: list[Reply], chat_id: int, *, message_thread_id: int | None = None) -> list[ApiCall]:
    """The calls of one turn, with its texts joined: under Telegram's ~30 messages a second a second
    message costs every other chat a slot. Consecutive texts to the same place become one message
    (a blank line between them) while the earlier ones carry no keyboard (their buttons must stay
    where they were) and the whole fits in one message; a text after a photo or a document joins its
    caption (with its keyboard) when it fits the caption's 1,024 characters. Otherwise documents,
    photos and keyboards end a run."""
    calls: list[ApiCall] = []
    for reply in replies:
        for call in render(reply, chat_id, message_thread_id=message_thread_id):
            if calls and _joinable(calls[-1], call, MAX_TEXT):
                joined = f"{calls[-1].params['text']}\n\n{call.params['text']}"
                calls[-1] = ApiCall("sendMessage", {**call.params, "text": joined})
            elif calls and _joinable(calls[-1], call, MAX_CAPTION):
                media = calls[-1]
                caption = media.params.get("caption")
                joined = f"{caption}\n\n{call.params['text']}" if caption else call.params["text"]
                extra = {"reply_markup": call.params["reply_markup"]} if "reply_markup" in call.params else {}
                calls[-1] = ApiCall(media.method, {**media.params, "caption": joined, "parse_mode": "HTML", **extra})
            else:
                calls.append(call)
    return calls


_MEDIA = ("sendPhoto", "sendDocument")


def _joinable(earlier: ApiCall, later: ApiCall, limit: int) -> bool:
    """``later`` (a text) fits ``earlier``'s text (``MAX_TEXT``) or its caption (``MAX_CAPTION``)."""
    field = "text" if limit == MAX_TEXT else "caption"
    kinds = ("sendMessage",) if field == "text" else _MEDIA
    if earlier.method not in kinds or later.method != "sendMessage" or "reply_markup" in earlier.params:
        return False
    place = ("chat_id", "message_thread_id")
    if any(earlier.params.get(key) != later.params.get(key) for key in place):
        return False
    before = earlier.params.get(field)
    return (utf16_len(before) + 2 if before else 0) + utf16_len(later.params["text"]) <= limit


def inline_keyboard(rows: tuple[tuple[Button, ...], ...]) -> dict[str, Any]:
    """An InlineKeyboardMarkup whose callback data is each button's opaque token, checked for size."""
    keyboard: list[list[dict[str, str]]] = []
    for row in rows:
        out: list[dict[str, str]] = []
        for button in row:
            size = len(button.token.encode("utf-8"))
            if not 1 <= size <= MAX_CALLBACK_DATA:
                raise ValueError(f"callback token must be 1-{MAX_CALLBACK_DATA} bytes, got {size}")
            out.append({"text": button.label, "callback_data": button.token})
        if out:
            keyboard.append(out)
    return {"inline_keyboard": keyboard}


def _request_keyboard(label: str, request: str) -> dict[str, Any]:
    return {
        "keyboard": [[{"text": label, request: True}]],
        "resize_keyboard": True,
        "one_time_keyboard": True,
    }


def _text_calls(base: dict[str, Any], text: str, markup: dict[str, Any] | None) -> list[ApiCall]:
    parts = split_html(text)
    calls = [ApiCall("sendMessage", {**base, "text": part, "parse_mode": "HTML"}) for part in parts]
    if markup is not None and calls:
        calls[-1].params["reply_markup"] = markup
    return calls


def _document_calls(base: dict[str, Any], doc: Document) -> list[ApiCall]:
    path = urlsplit(doc.url).path.lower()
    if not path.endswith(_URL_DOCUMENT_SUFFIXES):
        link = f'<a href="{escape(doc.url, quote=True)}">{escape(doc.url, quote=False)}</a>'
        text = f"{doc.caption}\n{link}" if doc.caption.strip() else link
        return _text_calls(base, text, None)
    params: dict[str, Any] = {**base, "document": doc.url}
    if not doc.caption.strip():
        return [ApiCall("sendDocument", params)]
    if utf16_len(doc.caption) <= MAX_CAPTION:
        return [ApiCall("sendDocument", {**params, "caption": doc.caption, "parse_mode": "HTML"})]
    # A caption too long for a document goes first as its own message(s).
    return [*_text_calls(base, doc.caption, None), ApiCall("sendDocument", params)]


def _upload_calls(base: dict[str, Any], upload: Upload) -> list[ApiCall]:
    method = "sendPhoto" if upload.kind == "photo" else "sendDocument"
    params: dict[str, Any] = {**base, upload.kind: {UPLOAD: base64.b64encode(upload.data).decode("ascii"),
                                                    "filename": upload.filename}}
    if not upload.caption.strip():
        return [ApiCall(method, params)]
    if utf16_len(upload.caption) <= MAX_CAPTION:
        return [ApiCall(method, {**params, "caption": upload.caption, "parse_mode": "HTML"})]
    return [*_text_calls(base, upload.caption, None), ApiCall(method, params)]


# --- splitting ---------------------------------------------------------------------------------


@dataclass(slots=True)
class _Atom:
    raw: str
    opens: str | None = None  # tag name this atom opens
    closes: str | None = None  # tag name this atom closes


def _atoms(text: str) -> Iterator[_Atom]:
    for match in _ATOM.finditer(text):
        raw = match.group(0)
        tag = _TAG.fullmatch(raw) if raw.startswith("<") else None
        if tag is None:
            yield _Atom(raw)
        elif tag.group(1):
            yield _Atom(raw, closes=tag.group(2).lower())
        elif tag.group(3):
            yield _Atom(raw)  # self-closing: opens nothing
        else:
            yield _Atom(raw, opens=tag.group(2).lower())


def _push(stack: list[_Atom], atom: _Atom) -> None:
    if atom.opens is not None:
        stack.append(atom)
    elif atom.closes is not None:
        for i in range(len(stack) - 1, -1, -1):
            if stack[i].opens == atom.closes:
                del stack[i:]
                break


def split_html(text: str, limit: int = MAX_TEXT) -> list[str]:
    """Split Telegram HTML into parts of at most ``limit`` UTF-16 units (see the module docstring)."""
    if limit < 64:
        raise ValueError("limit too small to hold the tags of a part")
    if utf16_len(text) <= limit:
        return [text] if text.strip() else []
    # Pieces: runs of lines that end outside every element; only their boundaries are safe cuts.
    pieces: list[str] = []
    current: list[str] = []
    stack: list[_Atom] = []
    for atom in _atoms(text):
        if atom.raw == "\n" and not stack:
            pieces.append("".join(current))
            current = []
            continue
        current.append(atom.raw)
        _push(stack, atom)
    pieces.append("".join(current))

    parts: list[str] = []
    buffer = ""
    for piece in pieces:
        if utf16_len(piece) > limit:
            if buffer:
                parts.append(buffer)
                buffer = ""
            long_parts = _hard_split(piece, limit)
            parts.extend(long_parts[:-1])
            buffer = long_parts[-1] if long_parts else ""
            continue
        candidate = f"{buffer}\n{piece}" if buffer else piece
        if utf16_len(candidate) <= limit:
            buffer = candidate
        else:
            parts.append(buffer)
            buffer = piece
    parts.append(buffer)
    return [part for part in parts if part.strip()]


def _hard_split(piece: str, limit: int) -> list[str]:
    """Cut one over-long piece, closing the open elements at each cut and reopening them after."""
    atoms = list(_atoms(piece))
    parts: list[str] = []
    i = 0
    reopen: list[_Atom] = []
    while i < len(atoms):
        stack = list(reopen)
        prefix = "".join(a.raw for a in reopen)
        size = utf16_len(prefix)
        out: list[str] = [prefix]
        best_cut: tuple[int, list[_Atom], int] | None = None  # (next index, stack, out length)
        hard_cut: tuple[int, list[_Atom], int] | None = None
        j = i
        while j < len(atoms):
            atom = atoms[j]
            _push_stack = list(stack)
            _push(_push_stack, atom)
            closers = sum(utf16_len(f"</{a.opens}>") for a in _push_stack)
            if size + utf16_len(atom.raw) + closers > limit:
                break
            out.append(atom.raw)
            size += utf16_len(atom.raw)
            stack = _push_stack
            j += 1
            hard_cut = (j, list(stack), len(out))
            if atom.raw.isspace():
                best_cut = hard_cut
        if j == len(atoms):
            parts.append("".join(out))
            break
        cut = best_cut or hard_cut
        if cut is None:
            raise ValueError("a tag longer than the limit cannot be split")
        i, stack, keep = cut
        closing = "".join(f"</{a.opens}>" for a in reversed(stack))
        parts.append("".join(out[:keep]) + closing)
        reopen = stack
    return parts
