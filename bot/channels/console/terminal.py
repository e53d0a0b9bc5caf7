"""The terminal itself: Telegram's HTML as terminal text, and ``Screen``, where the console channel
"sends" (prints) what the bot says and the demo prints its own notes, a blank line between blocks.

``Screen`` also keeps what was shown since the last ``take``, so a caller (the demo, a test) reads
what typing a line brought, as the person saw it. A block written while the prompt waits for a line
(a notice the bot sends on its own) goes below the prompt, and ``reprompt`` shows the prompt again.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import TextIO

BOLD, RESET = "\033[1m", "\033[0m"


class Screen:
    def __init__(self, stream: TextIO | None = None) -> None:
        """``stream``: where to print (None: nowhere, only kept for ``take``)."""
        self.stream = stream
        self._shown: list[str] = []
        self._apart = False  # a block was printed since the last prompt: the next one after a blank line
        self._prompt: str | None = None  # the prompt, while it waits for a line
        self._interrupted = False  # something was printed below the waiting prompt

    def write(self, text: str) -> None:
        """Show a block: after a blank line, unless it is the first since the start or the last prompt;
        below the prompt if it is waiting for a line."""
        if self.stream is not None:
            if self._prompt is not None and not self._interrupted:
                print(file=self.stream)  # off the prompt's line, whatever was typed on it so far
                self._interrupted, self._apart = True, False
            print(f"\n{text}" if self._apart else text, file=self.stream, flush=True)
        self._apart = True
        self._shown.append(text)

    def prompt(self, text: str) -> None:
        """Show the prompt, on a line of its own after a blank one; it waits for a line."""
        if self.stream is not None:
            print("\n" + text, end="", file=self.stream, flush=True)
        self._prompt, self._interrupted = text, False

    def reprompt(self) -> None:
        """The prompt again, if something was printed below it while it waited."""
        if self._prompt is not None and self._interrupted:
            self.prompt(self._prompt)

    def prompted(self) -> None:
        """A line was typed at the prompt: what answers it follows on the next line."""
        self._apart = False
        self._prompt, self._interrupted = None, False

    def take(self) -> str:
        """What was shown since the last ``take`` (blocks apart by a blank line), and start afresh."""
        shown, self._shown = "\n\n".join(self._shown), []
        return shown

    def mute(self) -> None:
        """Print nothing more (the demo is ending: an answer still on its way is not shown after "bye")."""
        self.stream = None


class _Terminal(HTMLParser):
    """Telegram's HTML subset as terminal text: bold as ANSI bold (or plain), links with their address."""

    def __init__(self, bold: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.bold = bold
        self.parts: list[str] = []
        self._href: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("b", "strong") and self.bold:
            self.parts.append(BOLD)
        elif tag == "a":
            self._href.append(dict(attrs).get("href"))
        elif tag == "br":
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("b", "strong") and self.bold:
            self.parts.append(RESET)
        elif tag == "a" and self._href:
            href = self._href.pop()
            if href:
                self.parts.append(f" ({href})")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def terminal_text(markup: str, *, bold: bool = False) -> str:
    parser = _Terminal(bold)
    parser.feed(markup)
    parser.close()
    return "".join(parser.parts)
