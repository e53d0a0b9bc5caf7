"""Long content split into pieces the ISP accepts, never cut.

The spec gives ``chat_messages.content`` no maximum length (it is "Texto"), but a management
system stores it in a column of some size, and a Telegram message may hold 4,096 characters (a
caption 1,024; the bot's own answers can be longer). We keep every piece within ``MAX_CONTENT``
characters, a size such systems commonly accept: content longer than that becomes several entries,
in order, whose concatenation is exactly the original. A piece ends after a line break when one
falls in its second half, else after a space, else at the limit.
"""

from __future__ import annotations

MAX_CONTENT = 4000


def split_content(content: str, limit: int = MAX_CONTENT) -> list[str]:
    """``content`` as consecutive pieces of at most ``limit`` characters; ``"".join`` gives it back."""
    if limit < 2:
        raise ValueError("limit must be at least 2 characters")
    pieces: list[str] = []
    rest = content
    while len(rest) > limit:
        end = _break_at(rest, limit)
        pieces.append(rest[:end])
        rest = rest[end:]
    pieces.append(rest)
    return pieces


def _break_at(text: str, limit: int) -> int:
    """Where the first piece of ``text`` ends: just after a line break or a space in the second
    half of the window, so pieces stay readable and none is tiny; at ``limit`` otherwise."""
    window = text[:limit]
    half = limit // 2
    for separator in ("\n", " "):
        found = window.rfind(separator, half)
        if found != -1 and window[: found + 1].strip():
            return found + 1
    return limit
