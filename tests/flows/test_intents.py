"""The phrase reading's rules on a small vocabulary of its own: short forms are read as their words,
our words in another sense lead nowhere, and between phrases as long the one whose words come
together wins; then the same on the shipped vocabularies and their model, as a subscriber would type."""

from __future__ import annotations

from pathlib import Path

import flows.intents as intents_module
import pytest
from flows.intents import Intents, default_intents
from flows.naive_bayes import NaiveBayes

VOCABULARY = """
bills: ["conta", "minha conta", "valor da conta"]
contracts: ["plano", "meu plano"]
connection: ["sem sinal", "lenta"]
help: ["o que voce faz"]
wifi_password: ["esqueci a senha", "senha do wifi"]
greeting: ["bom dia"]
elsewhere: ["conta de luz", "plano de saude", "sinal fechou", "senha do banco"]
short: ["vc voce", "q que"]
words: ["saude"]
"""


@pytest.fixture
def intents(tmp_path: Path) -> Intents:
    (tmp_path / "pt_BR.yaml").write_text(VOCABULARY, encoding="utf-8")
    return Intents(tmp_path)


def test_a_short_form_is_read_as_its_words(intents: Intents) -> None:
    assert intents.plainly("pt_BR", "o q vc faz?") == "help"
    assert intents.plainly("pt_BR", "o que voce faz?") == "help"


def test_our_words_in_another_sense_lead_nowhere(intents: Intents) -> None:
    assert intents.plainly("pt_BR", "a conta de luz veio alta") is None
    assert intents.plainly("pt_BR", "o plano de saúde aumentou") is None
    assert intents.plainly("pt_BR", "bom dia, o plano de saude aumentou") == "greeting"  # the kind word still counts
    assert intents.plainly("pt_BR", "qual o valor da conta?") == "bills"  # longer than "conta de luz"'s match
    assert intents.plainly("pt_BR", "meu plano") == "contracts"


def test_the_words_of_a_phrase_of_elsewhere_serve_no_flow(intents: Intents) -> None:
    # "esqueci a senha" is as long as "senha do banco", but its "senha" is the bank's
    assert intents.plainly("pt_BR", "esqueci a senha do banco") is None
    assert intents.plainly("pt_BR", "esqueci a senha do wifi") == "wifi_password"
    assert intents.plainly("pt_BR", "esqueci a senha, a do banco nao") == "wifi_password"  # not together


def test_a_word_of_ours_in_a_phrase_of_elsewhere_keeps_its_meaning_for_typos(intents: Intents) -> None:
    assert intents.resolve("pt_BR", "planno") == ("plano", 0.9)  # "plano" is also in "plano de saude"
    assert dict(intents.words())["plano"] == frozenset({"contracts"})


def test_between_phrases_as_long_the_one_whose_words_come_together_wins(intents: Intents) -> None:
    assert intents.plainly("pt_BR", "meu novo plano de saude") is None  # "plano de saude", not "meu ... plano"
    assert intents.plainly("pt_BR", "a internet ta lenta, e a conta?") == "connection"  # then the first named


@pytest.mark.parametrize(("language", "text", "wanted"), [
    ("pt_BR", "o que vc faz?", "help"),
    ("pt_BR", "qndo volta a internet?", "connection"),
    ("pt_BR", "o plano de saude aumentou", None),
    ("pt_BR", "o sinal fechou e eu passei", None),  # a traffic light
    ("pt_BR", "preciso cancelar minha consulta no medico", None),
    ("pt_BR", "a antena ta quebrada", "new_ticket"),  # "tela quebrada" is not a phrase of elsewhere
    ("pt_BR", "boa tarde pessoal", "greeting"),  # "pessoal" is not a typo of "pessoa"
    ("pt_BR", "a internet cai toda vez que chove", "connection"),  # "chove" is not "chave"
    ("en", "my health insurance plan went up", None),
    ("en", "the traffic light signal is broken on my street", None),
    ("en", "terminate my contract", "cancel_plan"),
    ("en", "i got fired", None),  # not "fried"
    ("en", "only getting 5mbps on a 200mb plan", "connection"),  # a number and its unit are two words
    ("en", "forgot my bank password", None),  # "bank password" leaves "forgot my" to no flow
    ("es", "que podes hacer?", "help"),  # voseo
    ("es", "el internet esta lentisimo", "connection"),  # a superlative shares the stem
    ("es", "habilitame el servicio que pago mañana", "contracts"),  # a command with its pronoun
    ("es", "me bloquearon la tarjeta del banco", None),
    ("es", "el wifi no llega al cuarto", "connection"),  # "cuarto" is not "cuanto"
])
def test_the_shipped_vocabularies(language: str, text: str, wanted: str | None) -> None:
    assert default_intents().match(language, text) == wanted


def test_a_long_unbroken_string_is_never_looked_up_as_a_typo(monkeypatch: pytest.MonkeyPatch) -> None:
    # A 4,000-letter "word" (a paste, a flood) was looked up for typos through every way of taking two
    # letters out of it: minutes of CPU with every chat waiting. No word of ours is that long.
    looked_up: list[str] = []
    deletions = intents_module._deletions

    def recorded(word: str, depth: int) -> set[str]:
        looked_up.append(word)
        return deletions(word, depth)

    monkeypatch.setattr(intents_module, "_deletions", recorded)
    intents = Intents()  # a fresh one: its typo lookups not cached yet
    word = "abcdefghij" * 40
    assert intents.resolve("pt_BR", word) == (word, 1.0)
    assert intents.match("pt_BR", f"boleto {word}") == "bills"
    assert word not in looked_up


EXAMPLES = """
"minha net ta uma carroca": connection
"a net ta uma carroca de novo": connection
"carroca total hoje": connection
"quero ver quanto ta a conta": bills
"a conta veio": bills
"conta do mes": bills
"o plano de saude aumentou": none
"meu cachorro fugiu": none
"""


@pytest.fixture
def taught(tmp_path: Path) -> Intents:
    (tmp_path / "pt_BR.yaml").write_text(VOCABULARY, encoding="utf-8")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "pt_BR.yaml").write_text(EXAMPLES, encoding="utf-8")
    return Intents(tmp_path)


def test_the_menu_learns_from_examples_what_no_phrase_says(taught: Intents) -> None:
    assert taught.match("pt_BR", "que carroca essa net") == "connection"
    assert taught.plainly("pt_BR", "que carroca essa net") is None  # a question's answer: no phrase, no guess


def test_a_text_that_is_a_phrase_is_the_phrases_whatever_the_examples_lean_to(taught: Intents) -> None:
    # "conta" leans to the bills in the examples; "o que voce faz" and "sem sinal" are phrases of their own
    assert taught.match("pt_BR", "o que vc faz") == "help"
    assert taught.match("pt_BR", "sem sinal na conta") == "connection"


def test_words_the_model_never_saw_are_not_understood(taught: Intents) -> None:
    assert taught.match("pt_BR", "xyzzy plugh") is None


def test_a_model_unsure_between_destinations_answers_nothing() -> None:
    model = NaiveBayes([(["conta", "luz"], "bills"), (["conta", "net"], "connection")], smoothing=0.05)
    even = model.probabilities(["conta"])
    assert even == pytest.approx({"bills": 0.5, "connection": 0.5})
    assert model.probabilities(["net"])["connection"] > intents_module.SURE
    assert model.probabilities(["nunca", "vistas"]) == {}


# The longest message Telegram and WhatsApp carry: 4,096 characters.
LONGEST = 4_096


@pytest.mark.parametrize("filler", ["👍", "😡 ", "internet ", "a", "\x00\x07\x1b[31m\u200b\r\n\t", "¿¡ "])
def test_the_longest_message_is_read_from_its_start_and_no_further(filler: str) -> None:
    # 2,100 emoji took 8 seconds inside a turn: each one small talk found by reading the text from its
    # start again. Whatever the text, the matcher reads its first words only.
    intents = default_intents()
    request = "estou sem internet desde ontem "
    text = (request + filler * LONGEST)[:LONGEST]
    assert len(intents_module.read_words(text)) <= intents_module.READ_WORDS
    assert intents.match("pt_BR", text) == "connection"
    assert intents.plainly("pt_BR", text) == "connection"
    assert intents.language_of(text) == "pt_BR"
    # A request after the words read is not read: a long message's request is at its start.
    late = (filler * LONGEST)[:LONGEST - len(request)] + request
    assert intents.plainly("pt_BR", late) in (None, "ok")


def test_a_message_of_emoji_alone_is_small_talk_or_nothing() -> None:
    intents = default_intents()
    assert intents.match("pt_BR", "👍" * LONGEST) in (None, "ok")
    assert intents.language_of("👍" * LONGEST) is None


@pytest.mark.parametrize(("text", "language"), [
    ("boa tarde, minha internet caiu de novo", "pt_BR"),
    ("oi, queria a segunda via do boleto", "pt_BR"),
    ("vcs tem plano de 500 mega?", "pt_BR"),
    ("obrigado", "pt_BR"),
    ("não", "pt_BR"),
    ("valeu", "pt_BR"),
    ("hello, my internet has been down since this morning", "en"),
    ("can you send me my bill please", "en"),
    ("how much do i owe?", "en"),
    ("thanks", "en"),
    ("yes please", "en"),
    ("hola, no tengo internet desde ayer", "es"),
    ("necesito la factura de este mes", "es"),
    ("¿cuánto debo?", "es"),
    ("gracias", "es"),
    ("sí", "es"),
    ("buenas noches", "es"),
])
def test_the_language_a_text_is_written_in(text: str, language: str) -> None:
    assert default_intents().language_of(text) == language


@pytest.mark.parametrize("text", ["ok", "👍", "123", "12345678900", "internet", "wifi", "pix", "Maria Silva",
                                  "", "   ", "?!", "0800 123 4567"])
def test_a_text_that_tells_no_language_is_none(text: str) -> None:
    assert default_intents().language_of(text) is None


def test_a_phrase_of_ours_in_a_text_the_model_is_sure_asks_for_nothing_we_do_is_no_request() -> None:
    # Read at a question (``plainly``): before, any phrase of ours was a request, whatever its text.
    intents = default_intents()
    assert intents.plainly("es", "quiero cancelar mi suscripcion de netflix, como hago") is None
    assert intents.plainly("es", "quiero cancelar mi plan de internet") == "cancel_plan"
    assert intents.plainly("en", "i want to change my wifi password") == "wifi_password"
    # Small talk is kept: whether it is all the text is the engine's to ask (``only_asks``).
    assert intents.plainly("pt_BR", "o sinal do meu celular da claro ta horrivel") == "ok"
    assert not intents.only_asks("pt_BR", "o sinal do meu celular da claro ta horrivel", "ok")


@pytest.mark.parametrize(("language", "text", "option", "passing"), [
    ("pt_BR", "preciso cancelar a netflix", "✖️ Cancelar", True),
    ("pt_BR", "pode cancelar esse chamado", "✖️ Cancelar", False),
    ("pt_BR", "deixa pra lá, cancela", "✖️ Cancelar", False),
    ("en", "i need to cancel my netflix", "✖️ Cancel", True),
    ("en", "cancel it please", "✖️ Cancel", False),
    ("es", "quiero cancelar mi netflix", "✖️ Cancelar", True),
    ("es", "sí, cancelalo", "✖️ Cancelar", False),
    ("pt_BR", "cancelar", "✖️ Cancelar", False),  # the option alone: nothing else to read
])
def test_an_option_named_among_words_about_something_else_is_named_in_passing(
    language: str, text: str, option: str, passing: bool,
) -> None:
    assert default_intents().in_passing(language, text, option) is passing


@pytest.mark.parametrize("text", ["o primeiro", "o mais antigo", "numero 3", "2", "o de setembro"])
def test_an_option_pointed_at_without_its_words_is_not_read_as_in_passing(text: str) -> None:
    assert not default_intents().in_passing("pt_BR", text, "Fatura 10/10/2025 R$ 99,90")
