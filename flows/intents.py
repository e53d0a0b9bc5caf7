"""Free text understood: at the menu by a model that learns from examples, at a question only where
a phrase plainly names something ("quero falar com um atendente"). See docs/intents.md.

The vocabulary is ``locales/intents/<language>.yaml`` (name → phrases): a flow, small talk, ``LEAVE``
("cancelar" alone leaves any question), ``STOP`` ("parar" alone leaves a question too, and at rest
stops the notices the bot writes first), a need (``NEEDS``: "moving" reaches ``human``), ``ORDINARY``
(everyday words, never a typo: "robo" is not "roto"), ``ELSEWHERE`` (our words in another sense:
"senha do banco" serves no flow) or ``SHORT`` ("vc" is "você"). The examples are whole phrasings,
each with where it leads, in ``examples/<language>.yaml``; both train a naive Bayes model per language.

A phrase matches when its words appear in order, each the same word or a typo of it: one edit, two
in words of eight letters or more, never the first letter, only in a word of five letters or more
that no vocabulary knows, and only where every vocabulary word that close means the same ("slow" is
English, never the Portuguese "show"). The most words win, then words together. At the menu the
best phrase adds its share of the text to the model's probabilities, and the best wins when sure.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, pairwise
from pathlib import Path
from typing import Any

from bot import yamltext
from bot.i18n import locales_dir

from flows.naive_bayes import NaiveBayes
from flows.words import distance, normalise

TYPO = 5  # words shorter than this must match exactly
LONG = 8  # words this long forgive two typos
LEAVE = "leave"
STOP = "stop"
ORDINARY = "words"
ELSEWHERE = "elsewhere"
SHORT = "short"
BYE = "bye"
SMALL_TALK = frozenset({"greeting", "thanks", "ok", BYE})
NONE = "none"  # an example's label when no flow fits
LEFT_OVER = 2  # words of a request beside its phrase that still say nothing else ("um", "por favor")
# What the model learns from the phrases of these names: a word that leaves a question, sent at the menu,
# is the menu; everyday words and our words in another sense lead nowhere.
TAUGHT_AS = {LEAVE: "menu", STOP: "menu", ORDINARY: NONE, ELSEWHERE: NONE}
EXAMPLES = "examples"  # the folder, beside the vocabularies, of phrasings labelled with where they lead
SMOOTHING = 0.05  # the naive Bayes model's; chosen, with the next, on the examples of one writer held out
PHRASE_WEIGHT = 1.5  # what the best vocabulary phrase adds to the model's probability, times its share
# The model's "none" weighs this many times a destination before the text is read: the texts no flow
# serves are many more kinds than any one flow's, and a wrong flow is worse than "not understood".
# Chosen by 5-fold cross-validation on the examples, never the held-out rounds (docs/intents.md).
NONE_WEIGHT = 16.0
# A text's words the model never saw (in the examples: words written once) are features too, up to
# this many: other businesses are told by the words we never write. Chosen with ``NONE_WEIGHT``.
RARE = "<rare>"
RARE_WORDS = 2
SURE = 0.7  # below this, the best reading is not sure enough: "not understood" beats a wrong flow
# What is read of a text: a request is at a message's start (the longest example is 40 words, 205
# characters), and reading costs what is read, so a 4,096-character message costs what its start does.
READ_CHARACTERS = 1_000
READ_WORDS = 80
LANGUAGE_SMOOTHING = 0.1  # the language model's (chosen on the examples, as ``SMOOTHING``)
LANGUAGE_SURE = 0.9  # a language is told from the text only past this: else the chat's stays
_TELLING_LETTERS = frozenset("ãõçêôâñ¿¡")  # written by one of the three languages only
# Needs that have no flow of their own, and the flow (or small talk) that answers them.
NEEDS = {
    "moving": "human",  # a change of address: staff schedule it
    "plan_change": "human",  # upgrade, downgrade: a sale, a person's job
    "debt": "bills",  # "how much do I owe": the open bills
    "maintenance": "connection",  # planned works, an outage in the area: the connection flow tells it
    "ticket_status": "my_tickets",
    "older_invoice": "invoices",  # the fiscal invoices list goes back months
    "anyone_there": "greeting",  # the menu answers at once, by name
}
_NUMBER_UNIT = re.compile(r"([0-9]+)([a-z]{2,})")


def read_words(text: str) -> list[str]:
    """The words the matcher reads of a text: its first ``READ_WORDS`` words, normalised, within its
    first ``READ_CHARACTERS`` characters (whatever its length, the same bounded work)."""
    return normalise(text[:READ_CHARACTERS])[:READ_WORDS]


def destination(name: str) -> str:
    """Where a vocabulary's name leads: a need's flow, or the name itself."""
    return NEEDS.get(name, name)


@dataclass(frozen=True, slots=True)
class _Phrase:
    name: str  # where it leads (a need already turned into its flow)
    words: tuple[str, ...]
    small_talk: bool
    rank: int  # its place in the table: between phrases as long, the first wins


class Intents:
    def __init__(self, directory: Path | None = None) -> None:
        directory = directory or locales_dir() / "intents"
        self._phrases: dict[str, list[_Phrase]] = {}
        self._leaving: dict[str, set[tuple[str, ...]]] = {}
        self._stopping: dict[str, set[tuple[str, ...]]] = {}
        self._short: dict[str, dict[str, tuple[str, ...]]] = {}  # language → short form → its words
        meanings: dict[str, set[str]] = {}  # word → where the phrases it is in lead, in any language
        named: dict[str, list[tuple[str, tuple[str, ...]]]] = {}  # language → its phrases, with their names
        self._vocabulary: dict[str, set[str]] = {}  # language → words a typo may land on
        for path in sorted(directory.glob("*.yaml")):
            table: dict[str, list[str]] = _table(path)
            language = path.stem
            self._short[language] = {
                words[0]: tuple(words[1:]) for words in map(normalise, table.pop(SHORT, [])) if len(words) > 1
            }
            phrases = [(name, tuple(normalise(phrase))) for name, phrases in table.items() for phrase in phrases]
            named[language] = phrases
            self._phrases[language] = [
                _Phrase(destination(name), words, name in SMALL_TALK, rank)
                for rank, (name, words) in enumerate(phrases) if name not in (LEAVE, STOP, ORDINARY) and words
            ]
            self._leaving[language] = {words for name, words in phrases if name in (LEAVE, STOP)}
            self._stopping[language] = {words for name, words in phrases if name == STOP}
            self._vocabulary[language] = {word for name, words in phrases if name != ORDINARY for word in words}
            for name, words in phrases:
                for word in words:
                    meanings.setdefault(word, set()).add(ORDINARY if name == ORDINARY else destination(name))
        # A word of ours in a phrase of elsewhere ("plano" in "plano de saúde") keeps only its own meanings.
        self._meanings = {word: frozenset(names - {ELSEWHERE} or names) for word, names in meanings.items()}
        self._deletions: dict[str, set[str]] = {}
        for word in self._meanings:
            for variant in _deletions(word, _allowed(len(word))):
                self._deletions.setdefault(variant, set()).add(word)
        # Longer than this, a word is a typo of none of ours (and its deletions would cost its length cubed).
        self._longest = max(map(len, self._meanings), default=0) + 2
        self._stems: dict[str, set[str]] = {}
        for word in self._meanings:
            if len(word) >= TYPO:
                self._stems.setdefault(_stem(word), set()).add(word)
        self._index: dict[str, dict[str, list[_Phrase]]] = {
            language: _index(phrases) for language, phrases in self._phrases.items()
        }
        self._resolved: dict[tuple[str, str], tuple[str, float]] = {}
        # Every language's phrases teach each language's model (a Portuguese speaker types "boleto" in
        # English too); the examples are the language's own.
        taught = [(words, TAUGHT_AS.get(name, destination(name)))
                  for phrases in named.values() for name, words in phrases]
        examples = {language: _examples(directory / EXAMPLES / f"{language}.yaml") for language in self._phrases}
        self._known: dict[str, frozenset[str]] = {}  # language → the words its model saw more than once
        self._models = {language: self._model(language, taught, examples[language]) for language in self._phrases}
        # Which language a text is in: the same naive Bayes, each language's own phrases, examples and
        # the bot's own sentences (where "sim", "sí" and "yes" are) its class, a word as written its
        # feature (no typo read: "graciass" is nobody's word).
        self._languages = NaiveBayes(
            ((_language_features(words), language) for language, phrases in named.items()
             for words in [*(words for _, words in phrases),
                           *(words for words, _ in examples[language]),
                           *_sentences(directory.parent / language)]),
            smoothing=LANGUAGE_SMOOTHING,
        )

    def language_of(self, text: str) -> str | None:
        """The language the text is written in, or None when unsure: a word every language uses
        ("ok", "internet", "wifi"), a number, an emoji, a name, too few words to tell. Read from the
        start of the text as ``match`` reads it, with the letters only one language writes (ã, ç, ñ, ¿)."""
        words = [word for word in read_words(text) if not word.isdecimal() and word.isalnum()]
        letters = {f"#{c}" for c in text[:READ_CHARACTERS].casefold() if c in _TELLING_LETTERS}
        likely = self._languages.probabilities([*_language_features(words), *letters])
        best = max(likely, key=likely.__getitem__, default=None)
        return best if best is not None and likely[best] >= LANGUAGE_SURE else None

    def match(self, language: str, text: str) -> str | None:
        """The flow (or small talk) the text asks for, or None: the model's reading of its words,
        where the best vocabulary phrase adds its share of the text ("já paguei" alone is the
        phrase's). For free text at the menu; a question's answer is read ``plainly``."""
        raw = self._read(language, read_words(text))
        if not raw:
            return None
        own = [self.resolve(language, word) for word in raw]
        phrase, covered = self._phrase(language, raw, own)
        likely = self._likely(language, own)
        if phrase is not None:
            likely[phrase] = likely.get(phrase, 0.0) + PHRASE_WEIGHT * covered / len(raw)
        best = max(likely, key=likely.__getitem__, default=NONE)
        return None if best == NONE or likely[best] < SURE else best

    def _likely(self, language: str, own: list[tuple[str, float]]) -> dict[str, float]:
        """The model's probability of each destination, ``NONE`` included, for the words as read."""
        model = self._models.get(language)
        known = self._known.get(language, frozenset())
        return model.probabilities(_features([word for word, _ in own], known.__contains__)) if model else {}

    def _model(self, language: str, taught: list[tuple[tuple[str, ...], str]],
               examples: list[tuple[tuple[str, ...], str]]) -> NaiveBayes:
        """The language's model. A word written once in all it learns from stands, in the examples, for
        the words it never saw (``RARE``): where such words are written tells what an unknown word says."""
        phrases = [(self._read(language, words), label) for words, label in taught]
        written = [(self._read(language, words), label) for words, label in examples]
        times = Counter(word for words, _ in [*phrases, *written] for word in set(words))
        known = self._known[language] = frozenset(word for word, count in times.items() if count > 1)
        return NaiveBayes([*((_features(words, lambda _: True), label) for words, label in phrases),
                           *((_features(words, known.__contains__), label) for words, label in written)],
                          smoothing=SMOOTHING, weights={NONE: NONE_WEIGHT})

    def plainly(self, language: str, text: str) -> str | None:
        """What a vocabulary phrase in the text names, or None, without the model's guess: where the
        text is most likely an answer to a question (a description, a login, a date), only a plain
        request leaves the question ("quero falar com um atendente")."""
        raw = self._read(language, read_words(text))
        if not raw:
            return None
        own = [self.resolve(language, word) for word in raw]
        name = self._phrase(language, raw, own)[0]
        if name is None or name == NONE:
            return None
        # A phrase of ours inside a text the model is sure asks for nothing we do ("quiero cancelar mi
        # suscripción de Netflix") is not a request: the question stays (docs/intents.md).
        return None if name not in SMALL_TALK and self._sure_none(language, own) else name

    def in_passing(self, language: str, text: str, option: str) -> bool:
        """Whether the text says ``option``'s words only in passing: the model is sure its other words ask
        for nothing we do ("preciso cancelar a netflix" names no "Cancelar"; "pode cancelar esse chamado"
        does). An option pointed at without its words ("o primeiro", "número 3") is not read here."""
        named = set(self._read(language, read_words(option)))
        words = self._read(language, read_words(text))
        rest = [word for word in words if word not in named]
        return 0 < len(rest) < len(words) and self._sure_none(language, [self.resolve(language, w) for w in rest])

    def _sure_none(self, language: str, own: list[tuple[str, float]]) -> bool:
        return self._likely(language, own).get(NONE, 0.0) >= SURE

    def only_asks(self, language: str, text: str, name: str) -> bool:
        """Whether the text does nothing but ask for ``name`` ("quero falar com um atendente, por
        favor"): its phrase and small talk cover all its words but ``LEFT_OVER``; "a internet caiu,
        quero um atendente" tells something besides."""
        raw = self._read(language, read_words(text))
        if not raw:
            return True
        phrase, covered = self._phrase(language, raw, [self.resolve(language, word) for word in raw])
        return phrase == name and len(raw) - covered <= LEFT_OVER

    def _read(self, language: str, words: Iterable[str]) -> list[str]:
        """The words as matched: short forms spelled out, a number apart from its unit."""
        short = self._short.get(language, {})
        return [part for word in words for each in short.get(word, (word,)) for part in self._parts(each)]

    def _phrase(self, language: str, raw: list[str], own: list[tuple[str, float]]) -> tuple[str | None, int]:
        """The best vocabulary phrase's name (small talk's, ``NONE`` for our words in another sense, or
        None) and how many of the text's words it and the small talk cover. The person's language
        first, then the others (another language's words only as written). Small talk is set aside
        first, so "bom dia, estou sem internet" is about the connection and "obrigado pela ajuda" is
        thanks, not help; a goodbye with any other small talk is a goodbye ("obrigado, tchau")."""
        exact = [(word, 1.0) for word in raw]
        removed: set[int] = set()
        talk: str | None = None
        for lang in self._order(language):
            words = own if lang == language else exact  # another language's "dale" is not a typo of "date"
            for phrase in self._candidates(lang, words, small_talk=True):
                start = 0  # each time found, looked for again after it: linear in the text
                while found := _together(phrase.words, words, removed, start):
                    talk = phrase.name if talk is None or phrase.name == BYE else talk  # "valeu, tchau": a goodbye
                    removed.update(found)
                    start = found[-1] + 1
        texts = {lang: own if lang == language else exact for lang in self._order(language)}
        candidates = {lang: self._candidates(lang, words, small_talk=False) for lang, words in texts.items()}
        # Our words in another sense ("bank password") serve no flow's phrase; the elsewhere phrase
        # still competes, so "my bank password got blocked" leads nowhere rather than to "blocked".
        aside = removed | _elsewhere(candidates, texts, removed)
        for lang, words in texts.items():
            # The best phrase; between equals, the one whose words come together ("my health insurance
            # plan" is insurance, not "my plan"), then the one the text names first ("cancel my plan").
            best = max(
                ((*_score(phrase.words, words, removed if phrase.name == ELSEWHERE else aside), phrase)
                 for phrase in candidates[lang]),
                default=None, key=lambda scored: (*scored[:3], scored[3].name),
            )
            if best is not None and best[0] > 0:
                winner = best[3]  # "plano de saúde" is no plan of ours: none, unless small talk
                name = talk or NONE if winner.name == ELSEWHERE else winner.name
                return name, len(winner.words) + len(removed)
        return talk, len(removed)

    def _parts(self, word: str) -> tuple[str, ...]:
        """A number stuck to its unit ("5mbps", "300mega") as two words, unless a vocabulary knows it."""
        joined = _NUMBER_UNIT.fullmatch(word)
        return (joined[1], joined[2]) if joined and word not in self._meanings else (word,)

    def leaves(self, language: str, text: str) -> bool:
        """Whether the whole text is a word that leaves the question ("cancelar", "voltar", "menu")."""
        words = tuple(read_words(text))
        return any(words in self._leaving[lang] for lang in self._order(language))

    def stops(self, language: str, text: str) -> bool:
        """Whether the whole text is a bare "stop" ("parar", "pare"): it leaves a question as well."""
        words = tuple(read_words(text))
        return any(words in self._stopping[lang] for lang in self._order(language))

    def resolve(self, language: str, word: str) -> tuple[str, float]:
        """The word of the language's vocabulary that ``word`` is a typo of, and how close (1: the same
        word); the word itself when it is a word of any vocabulary, too short, or as close to words
        that mean something else."""
        key = (language, word)
        if (known := self._resolved.get(key)) is None:
            known = self._resolved[key] = self._typo_of(language, word)
            if len(self._resolved) > 50_000:  # what strangers type is unbounded; the vocabulary is not
                self._resolved.clear()
        return known

    def forget(self) -> None:
        """Forget the typos looked up so far (a benchmark's first reading is a stranger's)."""
        self._resolved.clear()

    def words(self) -> Iterator[tuple[str, frozenset[str]]]:
        """Each word of every vocabulary, with where the phrases it is in lead (``ORDINARY`` for
        everyday words)."""
        yield from self._meanings.items()

    def _typo_of(self, language: str, word: str) -> tuple[str, float]:
        # A word the examples write more than once is a word of its own, not a typo ("think", "thank").
        if word in self._meanings or word in self._known.get(language, ()) or language not in self._vocabulary:
            return word, 1.0
        # A letter held down ("caiuuu", "obrigadooo"): the word without the repeats, when it is one.
        # (three times or more: a doubled letter is an ordinary typo, looked up like the others).
        squeezed = [each for each in (re.sub(r"(.)\1{2,}", r"\1\1", word), re.sub(r"(.)\1{2,}", r"\1", word))
                    if each != word and each in self._meanings]
        if len(set(word)) > 1 and squeezed and len({self._meanings[each] for each in squeezed}) == 1:
            return squeezed[0], 0.95
        if not TYPO <= len(word) <= self._longest:
            return word, 1.0
        landed = self._nearest(language, word)
        return self._same_stem(language, word) if landed[0] == word else landed

    def _same_stem(self, language: str, word: str) -> tuple[str, float]:
        """The vocabulary word of the same stem ("quebrada", "quebrado"), where every word of every
        vocabulary with that stem means the same."""
        stem = _stem(word)
        if stem == word:
            return word, 1.0
        kin = self._stems.get(stem, set())
        if not kin or len({self._meanings[known] for known in kin}) > 1:
            return word, 1.0
        landing = sorted(known for known in kin if known in self._vocabulary[language])
        if not landing or ORDINARY in self._meanings[landing[0]]:
            return word, 1.0
        edits = distance(word, landing[0])
        if any(self._meanings[known] != self._meanings[landing[0]] and close <= edits
               for known, close in self._near(word).items()):  # a typo of a word that means something else
            return word, 1.0
        return landing[0], 0.9

    def _near(self, word: str) -> dict[str, int]:
        """The words of every vocabulary a typo away from ``word``, with their edits."""
        near: dict[str, int] = {}
        for variant in _deletions(word, _allowed(len(word))):
            for known in self._deletions.get(variant, ()):
                if known[0] == word[0] and known not in near:
                    edits = distance(word, known)
                    if edits <= _allowed(len(known)):
                        near[known] = edits
        return near

    def _nearest(self, language: str, word: str) -> tuple[str, float]:
        near = self._near(word)
        if not near:
            return word, 1.0
        closest = min(near.values())
        nearest = [known for known, edits in near.items() if edits == closest]
        if len({self._meanings[known] for known in nearest}) > 1:  # as close to words meaning other things
            return word, 1.0
        landing = [known for known in nearest if known in self._vocabulary[language]]
        if not landing or ORDINARY in self._meanings[landing[0]]:
            return word, 1.0
        return min(landing), 1.0 - closest / 10

    def _candidates(self, language: str, words: list[tuple[str, float]], *, small_talk: bool) -> list[_Phrase]:
        """The phrases all of whose words are in the text, longest first."""
        present = {word for word, _ in words}
        found = {
            phrase.rank: phrase for word in present for phrase in self._index[language].get(word, ())
            if phrase.small_talk == small_talk and present.issuperset(phrase.words)
        }
        return sorted(found.values(), key=lambda phrase: (-len(phrase.words), phrase.rank))

    def _order(self, language: str) -> list[str]:
        return [lang for lang in [language, *sorted(set(self._phrases) - {language})] if lang in self._phrases]


def _elsewhere(candidates: dict[str, list[_Phrase]], texts: dict[str, list[tuple[str, float]]],
               removed: set[int]) -> set[int]:
    """Where our words are used in another sense: the words of every ``elsewhere`` phrase found
    together ("bank password", "conta do restaurante"), which no flow's phrase may then use."""
    aside: set[int] = set()
    for lang, phrases in candidates.items():
        for phrase in phrases:
            if phrase.name == ELSEWHERE:
                aside.update(_together(phrase.words, texts[lang], removed))
    return aside


def _features(words: list[str], known: Callable[[str], bool]) -> list[str]:
    """What the model reads of a text: its words, each pair of neighbours, the stems of the longer
    words ("cancelamento" and "cancelar" share one), and ``RARE`` when a word is not ``known``."""
    unknown = sum(not known(word) for word in words)
    rare = [f"{RARE}{n}" for n in range(1, min(unknown, RARE_WORDS) + 1)]
    return [*words, *(f"{a} {b}" for a, b in pairwise(words)),
            *(f"{_stem(word)}-" for word in words if len(word) >= TYPO), *rare]


def _language_features(words: Iterable[str]) -> list[str]:
    """What tells a language: the words themselves and each pair of neighbours."""
    words = list(words)
    return [*words, *(f"{a} {b}" for a, b in pairwise(words))]


_MARKUP = re.compile(r"\{[{%#].*?[}%#]\}|<[^>]*>|/[a-z_]+", re.DOTALL)  # templates' code, tags, commands


def _sentences(folder: Path) -> Iterator[list[str]]:
    """The bot's sentences in a language's folder of texts (``locales/<language>/``), line by line,
    without their templates' code: none when there is no such folder."""
    def strings(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            for value in node.values():
                yield from strings(value)
        elif isinstance(node, list):
            for value in node:
                yield from strings(value)
        elif isinstance(node, str):
            yield node

    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else ():
        for text in strings(_table(path)):
            for line in _MARKUP.sub(" ", text).splitlines():
                if words := [word for word in normalise(line) if word.isalpha()]:
                    yield words


def _examples(path: Path) -> list[tuple[tuple[str, ...], str]]:
    """The phrasings of an examples table (``"text": where it leads``), as words; none when absent."""
    table: dict[str, str] = _table(path) if path.is_file() else {}
    return [(tuple(normalise(text)), label) for text, label in table.items()]


def _table(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return yamltext.load(handle) or {}


def _index(phrases: Iterable[_Phrase]) -> dict[str, list[_Phrase]]:
    """Each phrase under its rarest word (a text without that word cannot match it)."""
    counts: dict[str, int] = {}
    phrases = list(phrases)
    for phrase in phrases:
        for word in phrase.words:
            counts[word] = counts.get(word, 0) + 1
    index: dict[str, list[_Phrase]] = {}
    for phrase in phrases:
        index.setdefault(min(phrase.words, key=lambda word: counts[word]), []).append(phrase)
    return index


# Endings of Portuguese, Spanish and English words (verb forms, plurals, genders), longest first: a
# stem is what is left, four letters at least. Crude, and safe only with the rule that every word
# sharing the stem means the same.
_ENDINGS = sorted({
    "issimos", "issimas", "issimo", "issima", "isimos", "isimas", "isimo", "isima",  # superlatives: "lentisimo"
    "enme", "anme", "ame", "eme", "ime",  # a pronoun joined to a Spanish command: "habilitame", "reconectenme"
    "amento", "imento", "mente", "acao", "icao", "ando", "endo", "indo", "aram", "eram", "iram", "ieron", "aron",
    "ados", "adas", "idos", "idas", "ado", "ada", "ido", "ida", "ing", "ed", "ou", "ei", "ar", "er", "ir", "as",
    "os", "es", "a", "o", "e", "s",
}, key=len, reverse=True)


def _stem(word: str) -> str:
    return next((word[:-len(end)] for end in _ENDINGS if word.endswith(end) and len(word) - len(end) >= 4), word)


def _allowed(length: int) -> int:
    """Edits a word this long forgives."""
    return 2 if length >= LONG else 1 if length >= TYPO else 0


def _deletions(word: str, depth: int) -> set[str]:
    """The word and what it becomes with up to ``depth`` letters taken out (never the first)."""
    found = {word}
    for count in range(1, depth + 1):
        for places in combinations(range(1, len(word)), count):
            found.add("".join(c for i, c in enumerate(word) if i not in places))
    return found


def _positions(phrase: tuple[str, ...], words: list[tuple[str, float]], removed: set[int]) -> list[int]:
    """Where the phrase's words appear, in order, among the text's words not set aside (empty: not
    all of them)."""
    found: list[int] = []
    start = 0
    for wanted in phrase:
        index = next((i for i in range(start, len(words)) if i not in removed and words[i][0] == wanted), None)
        if index is None:
            return []
        found.append(index)
        start = index + 1
    return found


def _together(phrase: tuple[str, ...], words: list[tuple[str, float]], removed: set[int],
              after: int = 0) -> list[int]:
    """Where the phrase's words first appear one after the other, from ``after``, among the text's
    words not set aside (small talk is a set phrase: "tem alguém aí" is, "tem como falar com alguém
    aí" is not)."""
    for start in range(after, len(words) - len(phrase) + 1):
        places = list(range(start, start + len(phrase)))
        if all(i not in removed and words[i][0] == wanted for i, wanted in zip(places, phrase, strict=True)):
            return places
    return []


def _score(phrase: tuple[str, ...], words: list[tuple[str, float]], removed: set[int]) -> tuple[float, int, int]:
    """How well the phrase's words appear, in order, among the text's words (0: not at all), how
    closely (minus the other words between them) and how early (minus the first word's place).
    Longer phrases win over shorter ones that also match ("sem internet" over "internet"); a typo
    weighs a little less than the word."""
    found = _positions(phrase, words, removed)
    if not found:
        return 0.0, 0, 0
    return sum(words[index][1] for index in found), len(found) - 1 - (found[-1] - found[0]), -found[0]


def default_intents() -> Intents:
    """The phrases of ``locales_dir()``, read once per folder."""
    return _intents_in(locales_dir())


@lru_cache(maxsize=2)
def _intents_in(directory: Path) -> Intents:
    return Intents(directory / "intents")
