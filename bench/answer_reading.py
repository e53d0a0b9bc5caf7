"""Answers to the bot's questions: how many of each table are read right, what reading one costs,
and what the longest message a channel carries costs to read.

    .venv/bin/python -m bench.answer_reading [--rounds 5]

``answer_reading`` (one JSON line per language and kind): the answers of ``tests/flows/values/``, read
right and in all, and microseconds per answer, the first pass (each language's words loaded before it)
and the median of ``--rounds`` passes after it. The issue's bound is 1,000 µs per answer.

``answer_reading_long`` (one line per text and kind): a message as long as Telegram and WhatsApp
carry (4,096 characters) of emoji, of short words, of one long word, of digits and of control
characters, read by each kind's reader: what is read is capped (``flows.values.LIMIT``), so its cost
is that of a short answer.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bot.i18n import LANGUAGES
from tests.flows.test_values import KINDS, TODAY, expected, reading, table

from bench.report import emit, figure
from flows import values

LONGEST = 4096  # characters of a text message on Telegram and on WhatsApp
LONG_TEXTS = {
    "emoji": "🧱" * LONGEST,
    "words": ("ok " * LONGEST)[:LONGEST],
    "one_word": "a" * LONGEST,
    "digits": ("12 " * LONGEST)[:LONGEST],
    "control": "\x00\x07\x1b" * (LONGEST // 3),
}


def tables(rounds: int) -> None:
    for language in LANGUAGES:
        for name, answers in table(language).items():
            right = sum(reading(language, name, text) == expected(name, written) for text, written in answers.items())
            passes = []
            for _ in range(rounds + 1):
                start = time.perf_counter()
                for text in answers:
                    reading(language, name, text)
                passes.append((time.perf_counter() - start) / len(answers) * 1e6)
            emit(figure("answer_reading", language=language, kind=name, answers=len(answers), read_right=right,
                        percent=round(100 * right / len(answers), 1), first_pass_us=round(passes[0], 1),
                        median_us=round(statistics.median(passes[1:]), 1), bound_us=1000))


def long_texts(rounds: int) -> None:
    for label, text in LONG_TEXTS.items():
        for name, kind in KINDS.items():
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                values.read(kind, text, "pt_BR", TODAY)
                times.append((time.perf_counter() - start) * 1e6)
            emit(figure("answer_reading_long", text=label, characters=len(text), kind=name,
                        median_us=round(statistics.median(times), 1), slowest_us=round(max(times), 1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="passes over each table after the first")
    args = parser.parse_args()
    tables(args.rounds)
    long_texts(args.rounds)


if __name__ == "__main__":
    main()
