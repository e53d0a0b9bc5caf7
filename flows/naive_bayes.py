"""Multinomial naive Bayes over sets of features, trained in a blink at load time.

Each class's features are counted once per example and smoothed (``smoothing`` added to every
count); classes weigh the same before the features are read (no prior from the counts: a need that
is written rarely is not for that less likely), unless ``weights`` gives one a weight of its own.
Only what was seen is stored: a class's unseen log-probability is one number, and each feature
keeps the classes it was seen in, so reading a text costs what its known features touch.
Features never seen say nothing.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping


class NaiveBayes:
    def __init__(self, examples: Iterable[tuple[Iterable[str], str]], smoothing: float,
                 weights: Mapping[str, float] | None = None) -> None:
        counts: dict[str, dict[int, int]] = {}  # plain dicts: a Counter per feature cost a third of the training
        totals: Counter[int] = Counter()
        index: dict[str, int] = {}
        for features, label in examples:
            number = index.setdefault(label, len(index))
            seen = set(features)
            for feature in seen:
                classes = counts.get(feature)
                if classes is None:
                    counts[feature] = {number: 1}
                else:
                    classes[number] = classes.get(number, 0) + 1
            totals[number] += len(seen)
        self.classes = list(index)
        spread = smoothing * len(counts)
        self._unseen = [math.log(smoothing / (totals[number] + spread)) for number in range(len(index))]
        self._prior = [math.log((weights or {}).get(label, 1.0)) for label in self.classes]
        # log P(feature | class) - log P(unseen | class), for the classes the feature was seen in.
        self._seen = {feature: tuple((number, math.log1p(count / smoothing)) for number, count in seen.items())
                      for feature, seen in counts.items()}

    def probabilities(self, features: Iterable[str]) -> dict[str, float]:
        """Each class's probability given the features (empty: none of them was ever seen)."""
        known = [self._seen[feature] for feature in set(features) if feature in self._seen]
        if not known:
            return {}
        scores = [prior + len(known) * unseen for prior, unseen in zip(self._prior, self._unseen, strict=True)]
        for seen in known:
            for number, weight in seen:
                scores[number] += weight
        top = max(scores)
        exponentials = [math.exp(score - top) for score in scores]
        total = sum(exponentials)
        return {label: each / total for label, each in zip(self.classes, exponentials, strict=True)}
