"""Intent matching: what understanding a message at the menu costs, and how two ways of matching
compare on the held-out tables (phrasings neither was tuned on, ``tests/flows/heldout/``).

    .venv/bin/python -m bench.intent_matching [--rounds 20] [--compare]

``intent_matching`` (one JSON line per language): the shipped reading (``Intents.match``) of every
phrasing of the examples and held-out tables, microseconds per message, the first pass (each word met
for the first time: typos looked up) and the median of ``--rounds`` passes after it; ``load_s``, the
seconds to read the vocabularies and train the models. The issue's bound is 200 µs per message.

``--compare`` adds one ``intent_accuracy`` line per approach, language and held-out round: ``model``
(shipped: naive Bayes on the words, the best phrase adding its share), ``phrases`` (the vocabulary's
phrases alone, ``Intents.plainly``) and ``char_ngrams`` (nearest neighbour on character trigrams,
TF-IDF, trained on the vocabulary and the examples, its floor chosen on the examples).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import Counter
from collections.abc import Callable

import yaml
from bot.i18n import LANGUAGES, locales_dir
from flows.intents import ELSEWHERE, LEAVE, NONE, ORDINARY, SHORT, Intents, destination
from flows.words import normalise
from tests.flows.test_heldout import held_out
from tests.flows.test_heldout import rounds as held_out_rounds
from tests.flows.test_phrases import table as examples

from bench.report import emit, figure


def cost(intents: Intents, language: str, texts: list[str], rounds: int) -> dict[str, float]:
    """Microseconds per message: the first pass, then the median pass."""
    passes = []
    for _ in range(rounds + 1):
        start = time.perf_counter()
        for text in texts:
            intents.match(language, text)
        passes.append((time.perf_counter() - start) / len(texts) * 1e6)
    return {"first_pass_us": round(passes[0], 1), "median_us": round(statistics.median(passes[1:]), 1)}


class CharNgrams:
    """Nearest neighbour on character trigrams (each word padded with spaces), TF-IDF, cosine."""

    def __init__(self, examples: list[tuple[str, str]]) -> None:
        grams = [_grams(text) for text, _ in examples]
        documents = Counter(gram for each in grams for gram in set(each))
        self._idf = {gram: math.log(len(examples) / count) + 1 for gram, count in documents.items()}
        self._examples = [(self._vector(each), name) for each, (_, name) in zip(grams, examples, strict=True)]
        self.floor = 0.0

    def _vector(self, grams: Counter[str]) -> dict[str, float]:
        vector = {gram: count * self._idf.get(gram, 0.0) for gram, count in grams.items()}
        norm = math.sqrt(sum(value * value for value in vector.values())) or 1.0
        return {gram: value / norm for gram, value in vector.items()}

    def nearest(self, text: str) -> tuple[float, str]:
        query = self._vector(_grams(text))
        return max(
            ((sum(weight * vector.get(gram, 0.0) for gram, weight in query.items()), name)
             for vector, name in self._examples),
            default=(0.0, NONE),
        )

    def match(self, text: str) -> str:
        similarity, name = self.nearest(text)
        return name if similarity >= self.floor else NONE


def _grams(text: str) -> Counter[str]:
    grams: Counter[str] = Counter()
    for word in normalise(text):
        padded = f" {word} "
        grams.update(padded[i:i + 3] for i in range(max(1, len(padded) - 2)))
    return grams


def char_ngrams(language: str) -> CharNgrams:
    """Trained on the vocabulary (every language's, each phrase labelled with where it leads) and the
    language's phrase table; its floor is the one that best answers the phrase table by a model trained
    without it."""
    examples: list[tuple[str, str]] = []
    for path in sorted((locales_dir() / "intents").glob("*.yaml")):
        vocabulary: dict[str, list[str]] = yaml.safe_load(path.read_text(encoding="utf-8"))
        examples += [(phrase, destination(name)) for name, phrases in vocabulary.items()
                     if name not in (LEAVE, ORDINARY, ELSEWHERE, SHORT) for phrase in phrases]
    tuning = examples(language)
    examples += [(text, wanted) for text, wanted in tuning.items() if wanted != NONE]
    model = CharNgrams(examples)
    without = CharNgrams([example for example in examples if example[0] not in tuning])
    scored = [(*without.nearest(text), wanted) for text, wanted in tuning.items()]
    model.floor = max(
        (floor / 100 for floor in range(5, 95)),
        key=lambda floor: sum((name if similarity >= floor else NONE) == wanted for similarity, name, wanted in scored),
    )
    return model


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="passes over the tables after the first")
    parser.add_argument("--compare", action="store_true", help="also the accuracy of two approaches, held out")
    args = parser.parse_args()
    start = time.perf_counter()
    intents = Intents()
    load = time.perf_counter() - start
    for language in LANGUAGES:
        texts = [*examples(language), *held_out(language)]
        emit(figure("intent_matching", language=language, messages=len(texts), load_s=round(load, 2),
                    **cost(intents, language, texts, args.rounds)))
    if args.compare:
        for language in LANGUAGES:
            neighbours = char_ngrams(language)
            approaches: dict[str, Callable[[str], str]] = {
                "model": lambda text: intents.match(language, text) or NONE,  # noqa: B023
                "phrases": lambda text: intents.plainly(language, text) or NONE,  # noqa: B023
                "char_ngrams": neighbours.match,
            }
            for number, held in enumerate(held_out_rounds(language), 1):
                for approach, answer in approaches.items():
                    start = time.perf_counter()
                    right = sum(answer(text) == wanted for text, wanted in held.items())
                    spent = (time.perf_counter() - start) / len(held) * 1e6
                    emit(figure("intent_accuracy", approach=approach, language=language, round=number,
                                phrases=len(held), understood=right, accuracy=round(right / len(held), 3),
                                us_per_message=round(spent, 1)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
