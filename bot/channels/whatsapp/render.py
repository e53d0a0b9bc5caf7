"""Engine replies as Cloud API requests, as plain data (``WaCall``): nothing here touches the network.

- The bot's Telegram HTML becomes WhatsApp's markup: ``*bold*``, ``_italic_``, ``~strike~``,
  ```` ```code``` ````; a link shows its address; entities are unescaped, other tags dropped.
- Options: up to 3 whose labels fit 20 characters are reply buttons; otherwise (or 4 to 10) a list,
  whose row title holds 24 characters and whose description the whole label when the title had to be
  cut; more than 10 go in pages of 9 with a "more" row (a page is rendered from the turn's options,
  the engine's tokens unchanged). A button is never cut to a prefix that reads as another one.
- A text past WhatsApp's limits (4,096 characters, 1,024 above buttons) is split at line breaks.
- A code to copy (a PIX copy-and-paste payload, a bill's digitable line: a ``<code>`` holding it)
  also goes first as a message of its own, which a long press copies whole; then the turn's texts
  join into one message, into the body of its options when they fit. Photos and documents go as
  uploaded media.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from typing import Any

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

MAX_TEXT = 4096
MAX_BODY = 1024  # an interactive message's body
MAX_CAPTION = 1024
MAX_BUTTON_TITLE = 20
MAX_ROW_TITLE = 24
MAX_ROW_DESCRIPTION = 72
MAX_ROW_ID = 200
MAX_ROWS = 10
PAGE = MAX_ROWS - 1  # rows of a page when a "more" row follows
MORE = "wa:more:"  # the id of a list's "more" row: the next page's first option's index follows
LIST_BUTTON = {"pt_BR": "Ver opções", "en": "See options", "es": "Ver opciones"}
MORE_LABEL = {"pt_BR": "➡️ Mais opções", "en": "➡️ More options", "es": "➡️ Más opciones"}
# What a person copies into their bank's app: a PIX "copia e cola" payload (EMV fields starting with
# the payload format and the PIX GUI) or a digitable line (47 or 48 digits, maybe grouped).
_COPYABLE = re.compile(r"<code>(000201[^<]*?br\.gov\.bcb\.pix[^<]*|[\d .]{47,60})</code>", re.IGNORECASE)
COPY = "copy"  # WaCall.kind of such a message before it is sent: a text message


@dataclass(frozen=True, slots=True)
class WaCall:
    """One request: ``kind`` "message" (``body`` is the message object, without its recipient),
    "upload" (``body`` holds the media's bytes in base 64, or the ``ref`` of a file another channel
    holds; sent as a message once uploaded) or "read"
    (``body`` names the message read). ``to``: the recipient's wa_id or user id when known; else
    the sender looks the chat up."""

    chat_id: int
    kind: str
    body: dict[str, Any] = field(default_factory=dict)
    to: str | None = None
    notice: str | None = None  # the kind of notice it shows (None: an answer in the person's turn)
    template: dict[str, Any] | None = None  # what goes instead outside the 24-hour window: the kind's template

    def as_json(self) -> dict[str, Any]:
        kept = {"chat_id": self.chat_id, "kind": self.kind, "body": self.body, "to": self.to}
        if self.notice is not None:
            kept.update(notice=self.notice, template=self.template)
        return kept

    @classmethod
    def from_json(cls, kept: dict[str, Any]) -> WaCall:
        template = kept.get("template")
        return cls(int(kept["chat_id"]), str(kept["kind"]), dict(kept["body"]), kept.get("to"), kept.get("notice"),
                   dict(template) if isinstance(template, dict) else None)

    @property
    def method(self) -> str:
        """For logs and dead letters: the message's type."""
        return f"whatsapp.{self.body.get('type', self.kind)}"


# ---- markup ---------------------------------------------------------------------------------------

_MARKS = {"b": "*", "strong": "*", "i": "_", "em": "_", "s": "~", "strike": "~", "del": "~", "code": "`",
          "pre": "```"}
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>")
_HREF = re.compile(r"""href\s*=\s*(["'])(.*?)\1""", re.DOTALL)


def to_whatsapp(text: str) -> str:
    """Telegram HTML as WhatsApp markup (see the module docstring)."""
    out: list[str] = []
    stack: list[tuple[str, str | None, int]] = []  # tag, link, where its content starts in ``out``
    position = 0
    for match in _TAG.finditer(text):
        out.append(html.unescape(text[position:match.start()]))
        position = match.end()
        closing, name, attributes = match.group(1) == "/", match.group(2).lower(), match.group(3)
        if name == "br":
            out.append("\n")
        elif not closing:
            href = _HREF.search(attributes) if name == "a" else None
            stack.append((name, html.unescape(href.group(2)) if href else None, len(out)))
        else:
            while stack and stack[-1][0] != name:
                stack.pop()  # an element left open inside: its content stays as it is
            if not stack:
                continue
            _, link, start = stack.pop()
            inner = "".join(out[start:])
            del out[start:]
            out.append(_wrap(name, inner, link))
    out.append(html.unescape(text[position:]))
    return "".join(out)


def _wrap(name: str, inner: str, link: str | None) -> str:
    if name == "a":
        if not link or link == inner.strip():
            return inner
        return f"{inner} ({link})" if inner.strip() else link
    if name == "blockquote":
        return "\n".join(f"> {line}" for line in inner.split("\n"))
    mark = _MARKS.get(name)
    if mark is None or not inner.strip():
        return inner
    if mark == "```":
        return f"```{inner}```"
    # WhatsApp reads a mark only against a word: the spaces inside go outside it.
    core = inner.strip()
    lead, trail = inner[: len(inner) - len(inner.lstrip())], inner[len(inner.rstrip()):]
    return f"{lead}{mark}{core}{mark}{trail}"


def split_text(text: str, limit: int) -> list[str]:
    """Parts of at most ``limit`` characters, cut at line breaks (else spaces, else hard)."""
    parts: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        cut = rest.rfind("\n", 0, limit + 1)
        if cut <= 0:
            cut = rest.rfind(" ", 0, limit + 1)
        if cut <= 0:
            cut = limit
        parts.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        parts.append(rest)
    return parts


# ---- options --------------------------------------------------------------------------------------

def shorten(label: str, limit: int) -> str:
    """``label`` within ``limit`` characters, cut at a word with an ellipsis when it must be."""
    label = " ".join(label.split())
    if len(label) <= limit:
        return label
    cut = label[: limit - 1]
    if " " in cut and cut.rfind(" ") >= limit // 2:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:-") + "…"


def _distinct(titles: list[str]) -> bool:
    return len(set(titles)) == len(titles)


def options_message(
    text: str, buttons: list[Button], *, language: str, start: int = 0,
) -> list[dict[str, Any]]:
    """The messages showing ``text`` and its options from ``start`` on (pages: see the module docstring)."""
    body_parts = split_text(text, MAX_TEXT) or [" "]
    if len(buttons) - start <= 3 and start == 0:
        titles = [" ".join(b.label.split()) for b in buttons]
        if all(len(t) <= MAX_BUTTON_TITLE for t in titles) and _distinct(titles):
            head, body = _head_and_body(body_parts)
            buttons_action: dict[str, Any] = {"buttons": [{"type": "reply", "reply": {"id": b.token, "title": t}}
                                  for b, t in zip(buttons, titles, strict=True)]}
            return [*head, {"type": "interactive", "interactive": {
                "type": "button", "body": {"text": body}, "action": buttons_action}}]
    page = buttons[start:start + (MAX_ROWS if len(buttons) - start <= MAX_ROWS else PAGE)]
    rows = []
    for button in page:
        label = " ".join(button.label.split())
        title = shorten(label, MAX_ROW_TITLE)
        row: dict[str, Any] = {"id": button.token[:MAX_ROW_ID], "title": title}
        if title != label:
            row["description"] = shorten(label, MAX_ROW_DESCRIPTION)
        rows.append(row)
    following = start + len(page)
    if following < len(buttons):
        rows.append({"id": f"{MORE}{following}", "title": MORE_LABEL.get(language, MORE_LABEL["en"])})
    head, body = _head_and_body(body_parts)
    action: dict[str, Any] = {"button": LIST_BUTTON.get(language, LIST_BUTTON["en"]), "sections": [{"rows": rows}]}
    return [*head, {"type": "interactive", "interactive": {"type": "list", "body": {"text": body}, "action": action}}]


def _head_and_body(parts: list[str]) -> tuple[list[dict[str, Any]], str]:
    """Texts to send before an interactive message, and the body it carries (within its limit)."""
    last = parts[-1]
    head = parts[:-1]
    if len(last) > MAX_BODY:
        pieces = split_text(last, MAX_BODY)
        head, last = [*head, *pieces[:-1]], pieces[-1]
    return [_text(part) for part in head], last


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": {"body": text, "preview_url": False}}


# ---- replies --------------------------------------------------------------------------------------

def render(reply: Reply, chat_id: int, to: str | None, language: str) -> list[WaCall]:
    """The requests showing ``reply`` to the chat; a ``Handoff``, ``ToStaff`` or ``RoleMenu`` is not
    for the person (the desk and the processor handle them)."""
    def message(body: dict[str, Any]) -> WaCall:
        return WaCall(chat_id, "message", body, to)

    if isinstance(reply, Message):
        text = to_whatsapp(reply.text)
        buttons = [button for row in reply.buttons for button in row]
        bodies = options_message(text, buttons, language=language) if buttons else [
            _text(part) for part in split_text(text, MAX_TEXT)]
        codes = [WaCall(chat_id, COPY, _text(html.unescape(found.group(1)).strip()), to)
                 for found in _COPYABLE.finditer(reply.text)]
        return codes + [message(body) for body in bodies]
    if isinstance(reply, AskLocation):
        body = {"type": "interactive", "interactive": {
            "type": "location_request_message", "body": {"text": shorten(to_whatsapp(reply.text), MAX_BODY)},
            "action": {"name": "send_location"}}}
        return [message(body)]
    if isinstance(reply, AskContact):
        # WhatsApp has no "share my contact" button, and a sender's number needs none (``proved_phone``).
        return [message(_text(part)) for part in split_text(to_whatsapp(reply.text), MAX_TEXT)]
    if isinstance(reply, Document):
        caption = to_whatsapp(reply.caption).strip()
        if reply.url.lower().split("?")[0].endswith(".pdf"):
            name = reply.url.split("?")[0].rsplit("/", 1)[-1] or "document.pdf"
            document: dict[str, Any] = {"link": reply.url, "filename": name}
            if caption and len(caption) <= MAX_CAPTION:
                document["caption"] = caption
            extra = [] if not caption or "caption" in document else [message(_text(caption))]
            return [*extra, message({"type": "document", "document": document})]
        # The link in the words, tappable: with no preview it joins the turn's one message.
        return [message(_text(f"{caption}\n{reply.url}" if caption else reply.url))]
    if isinstance(reply, Upload):
        kind = "image" if reply.kind == "photo" else "document"
        caption = to_whatsapp(reply.caption).strip()
        media: dict[str, Any] = {"type": kind, "data": base64.b64encode(reply.data).decode("ascii"),
                                 "filename": reply.filename, "mime": _mime(reply.filename, kind)}
        calls = []
        if caption and len(caption) > MAX_CAPTION:
            calls = [message(_text(part)) for part in split_text(caption, MAX_TEXT)]
        elif caption:
            media["caption"] = caption
        return [*calls, WaCall(chat_id, "upload", media, to)]
    if isinstance(reply, Copy) and reply.attachment.file is not None and reply.attachment.kind in _SENT_AS:
        # A staff member's photo or document held by Telegram: fetched there and uploaded when sent.
        held = reply.attachment
        kind = _SENT_AS[held.kind]
        name = held.name or ("photo.jpg" if kind == "image" else "document")
        return [WaCall(chat_id, "upload", {"type": kind, "ref": held.file, "filename": name,
                                           "mime": held.mime or _mime(name, kind)}, to)]
    if isinstance(reply, Copy | Handoff | ToStaff | RoleMenu):
        return []  # not for the person; another medium of the staff's went as its description
    raise TypeError(f"not a reply: {type(reply).__name__}")


_SENT_AS = {"photo": "image", "document": "document"}  # a staff member's medium: the message type


def _mime(filename: str, kind: str) -> str:
    name = filename.lower()
    if name.endswith(".png"):
        return "image/png"
    if name.endswith((".jpg", ".jpeg")):
        return "image/jpeg"
    if name.endswith(".pdf"):
        return "application/pdf"
    return "image/png" if kind == "image" else "application/octet-stream"


def render_turn(replies: list[Reply], chat_id: int, to: str | None, language: str) -> list[WaCall]:
    """A turn's requests: its codes to copy first, each alone; then consecutive plain texts joined
    into one message, and a text joined into the body of the options that follow it, when they fit
    (the person reads one answer, and the number's throughput is shared by everyone)."""
    rendered = [call for reply in replies for call in render(reply, chat_id, to, language)]
    codes = [WaCall(c.chat_id, "message", c.body, c.to) for c in rendered if c.kind == COPY]
    calls: list[WaCall] = []
    for call in (c for c in rendered if c.kind != COPY):
        earlier = calls[-1] if calls else None
        if earlier is not None and _plain(earlier) and _plain(call) and _fits(earlier, call, MAX_TEXT):
            joined = f"{_body(earlier)}\n\n{_body(call)}"
            calls[-1] = WaCall(chat_id, "message", _text(joined), to)
        elif earlier is not None and _plain(earlier) and _interactive(call) and _fits(earlier, call, MAX_BODY):
            interactive = call.body["interactive"]
            joined = f"{_body(earlier)}\n\n{_body(call)}"
            calls[-1] = WaCall(chat_id, "message", {
                "type": "interactive", "interactive": {**interactive, "body": {"text": joined}}}, to)
        else:
            calls.append(call)
    return codes + calls


def _body(call: WaCall) -> str:
    body = call.body
    return str(body["text"]["body"] if body["type"] == "text" else body["interactive"]["body"]["text"])


def _fits(earlier: WaCall, later: WaCall, limit: int) -> bool:
    return len(_body(earlier)) + 2 + len(_body(later)) <= limit


def _plain(call: WaCall) -> bool:
    return call.kind == "message" and call.body.get("type") == "text" and not call.body["text"].get("preview_url")


def _interactive(call: WaCall) -> bool:
    return call.kind == "message" and call.body.get("type") == "interactive" and call.body["interactive"].get(
        "type") in ("button", "list")
