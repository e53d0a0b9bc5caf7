"""Reading the longest message a channel allows: what the matcher costs on 4,096 characters of
emoji, of words, of one long word and of control characters, the bad input people (and scripts) send.

    .venv/bin/python -m bench.long_messages [--rounds 20]

One ``long_message`` JSON line per channel, kind of text and language: the milliseconds of the
menu's reading (``Intents.match``), a question's (``Intents.plainly``) and the language's
(``Intents.language_of``), the first reading (every word met for the first time) and the median of
``--rounds`` readings after it, with ``words_read``, how many of the text's words the matcher reads
(``flows.intents.READ_WORDS`` at most: what bounds the work). ``bound_ms`` is the issue's "a few
milliseconds". Telegram's text and WhatsApp's text messages both stop at 4,096 characters.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from bot.i18n import LANGUAGES
from flows.intents import Intents, read_words

from bench.report import emit, figure

CHANNELS = {"telegram": 4_096, "whatsapp": 4_096}
BOUND_MS = 5.0


def texts(length: int) -> dict[str, str]:
    """Each kind of long text, ``length`` characters."""
    return {
        "emoji": ("👍" * length)[:length],
        "words": ("a internet caiu de novo e preciso de ajuda com a fatura " * length)[:length],
        "one_word": ("internet" * length)[:length],
        "control": ("\x00\x07\x1b[31m\u200b\r\n\t" * length)[:length],
        "emoji_and_words": ("😡 sem internet 🔥 " * length)[:length],
    }


def timed(read: Callable[[], object], rounds: int) -> dict[str, float]:
    """Milliseconds: the first reading, then the median of ``rounds``."""
    spent = []
    for _ in range(rounds + 1):
        start = time.perf_counter()
        read()
        spent.append((time.perf_counter() - start) * 1e3)
    return {"first_ms": round(spent[0], 3), "median_ms": round(statistics.median(spent[1:]), 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="readings after the first")
    args = parser.parse_args()
    intents = Intents()
    for channel, length in CHANNELS.items():
        for kind, text in texts(length).items():
            for language in LANGUAGES:
                intents.forget()  # the first reading looks every word up, as for a stranger's first message
                readings = {
                    "match": lambda: intents.match(language, text),  # noqa: B023
                    "plainly": lambda: intents.plainly(language, text),  # noqa: B023
                    "language_of": lambda: intents.language_of(text),  # noqa: B023
                }
                costs = {f"{name}_{key}": value for name, read in readings.items()
                         for key, value in timed(read, args.rounds).items()}
                emit(figure("long_message", channel=channel, kind=kind, language=language, characters=len(text),
                            words_read=len(read_words(text)), bound_ms=BOUND_MS, **costs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
