"""The Filtro builder: quoting, accepted names per query, and property tests showing that no value,
whatever its characters, changes the structure of the clause or what it matches, under MySQL's
default SQL mode and under NO_BACKSLASH_ESCAPES alike."""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal

import pytest
from bot.isp import F, IspClient, unsafe_raw_filter
from bot.isp.errors import FilterError
from bot.sandbox.filters import fold, select
from hypothesis import given
from hypothesis import strategies as st

from tests.isp.standin import StandIn, v1_ok

MODES = pytest.mark.parametrize("backslash_escapes", [True, False], ids=["default", "no_backslash_escapes"])

# A MySQL tokenizer per SQL mode, independent of the builder and of the sandbox.
_LEXEMES = r"""
    (?P<space>\s+)
  | (?P<string>'(?:{string})*')
  | (?P<number>-?\d+(?:\.\d+)?)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)
  | (?P<op><>|<=|>=|=|<|>|\(|\)|,)
"""
_TOKEN = {
    True: re.compile(_LEXEMES.format(string=r"[^'\\]|\\.|''"), re.VERBOSE | re.DOTALL),
    False: re.compile(_LEXEMES.format(string=r"[^']|''"), re.VERBOSE | re.DOTALL),
}
_UNESCAPE = {"0": "\0", "n": "\n", "r": "\r", "Z": "\x1a"}


def tokens(sql: str, backslash_escapes: bool = True) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(sql):
        match = _TOKEN[backslash_escapes].match(sql, pos)
        assert match, f"cannot tokenize at {pos}: {sql[pos:pos + 20]!r}"
        kind = match.lastgroup or ""
        if kind != "space":
            out.append((kind, match.group()))
        pos = match.end()
    return out


def unquote(literal: str, backslash_escapes: bool = True) -> str:
    body = literal[1:-1]
    if not backslash_escapes:
        return body.replace("''", "'")
    return re.sub(r"\\(.)|''", lambda m: _UNESCAPE.get(m.group(1), m.group(1)) if m.group(1) else "'",
                  body, flags=re.DOTALL)


def shape(sql: str, backslash_escapes: bool) -> list[tuple[str, str]]:
    return [(kind, "?" if kind == "string" else text) for kind, text in tokens(sql, backslash_escapes)]


HOSTILE = ["' OR 1=1 --", "x'OR(1)#", "%", "_", "!", "!%", "a'); DROP TABLE x; --", "''", "'\n'", "\x1a", '"']
quotable = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\\\0"), max_size=40)
text_values = quotable | st.sampled_from(HOSTILE)


@MODES
@given(value=text_values)
def test_no_value_changes_a_comparison(value: str, backslash_escapes: bool) -> None:
    sql = (F("Nome") == value).render()
    toks = tokens(sql, backslash_escapes)
    assert [k for k, _ in toks] == ["word", "op", "string"]
    assert unquote(toks[2][1], backslash_escapes) == value


@MODES
@given(a=text_values, b=text_values, c=text_values, d=text_values)
def test_no_value_changes_a_compound_clause(a: str, b: str, c: str, d: str, backslash_escapes: bool) -> None:
    def build(w: str, x: str, y: str, z: str) -> str:
        clause = ((F("Nome") == w) & ~F("Email").contains(x)) | F("Cidade").in_([y, z])
        return clause.render()

    assert shape(build(a, b, c, d), backslash_escapes) == shape(build("p", "q", "r", "s"), backslash_escapes)


@MODES
@given(value=text_values)
def test_contains_matches_the_text_literally(value: str, backslash_escapes: bool) -> None:
    [(_, _), (_, like), (_, literal), (_, escape), (_, escape_char)] = tokens(
        F("Nome").contains(value).render(), backslash_escapes)
    assert (like, escape, unquote(escape_char, backslash_escapes)) == ("LIKE", "ESCAPE", "!")
    pattern = unquote(literal, backslash_escapes)
    # The only unescaped wildcards are the two the builder added around the text.
    assert pattern.startswith("%") and pattern.endswith("%")
    inner = re.sub(r"!([!%_])", "", pattern[1:-1])
    assert "%" not in inner and "_" not in inner and "!" not in inner
    assert re.sub(r"!([!%_])", r"\1", pattern[1:-1]) == value


@pytest.mark.parametrize("value", ["\\", "a\\b", "\\'", "x\\", "\0", "a\0' OR 1=1"])
def test_values_no_quoting_writes_alike_in_both_modes_are_refused(value: str) -> None:
    with pytest.raises(FilterError, match="SQL mode"):
        F("Usuario") == value  # noqa: B015
    with pytest.raises(FilterError, match="SQL mode"):
        F("Usuario").contains(value)


# ---- what a value matches, evaluated as MySQL would in either mode ---------------------------
ACCOUNTS = ["x'OR(1)#", "x", "admin", "", "a'b", "a''b", "50%", "5_0", "a!b", "O'Brien", "ana", 'say "hi"']
readable = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126, exclude_characters="\\"),
                   max_size=12).filter(lambda v: not v.endswith(" ")) | st.sampled_from(HOSTILE)
NOW = datetime(2026, 11, 25, 12, 0)


def matches(clause: str, rows: list[str], backslash_escapes: bool) -> list[str]:
    found = select([{"Usuario": r} for r in rows], ["Usuario"], clause, NOW, backslash_escapes=backslash_escapes)
    return [rows[i] for i in found]


@MODES
def test_the_reported_login_matches_only_itself(backslash_escapes: bool) -> None:
    assert matches((F("Usuario") == "x'OR(1)#").render(), ACCOUNTS, backslash_escapes) == ["x'OR(1)#"]
    assert matches(F("Usuario").contains("'OR(1)#").render(), ACCOUNTS, backslash_escapes) == ["x'OR(1)#"]
    assert matches(F("Usuario").startswith("5_").render(), ACCOUNTS, backslash_escapes) == ["5_0"]
    assert matches(F("Usuario").endswith("%").render(), ACCOUNTS, backslash_escapes) == ["50%"]


@MODES
@given(value=readable)
def test_a_value_matches_only_itself(value: str, backslash_escapes: bool) -> None:
    rows = [*ACCOUNTS, value, value + "x"]  # (trailing spaces aside: MySQL ignores them in = only)
    assert matches((F("Usuario") == value).render(), rows, backslash_escapes) == [
        r for r in rows if fold(r) == fold(value)]
    assert matches(F("Usuario").contains(value).render(), rows, backslash_escapes) == [
        r for r in rows if value.casefold() in r.casefold()]


def test_rendering_of_every_operator() -> None:
    assert (F("Numero") <= 5).render() == "Numero <= 5"
    assert (F("Numero") >= 5).render() == "Numero >= 5"
    assert (F("Numero") < 5).render() == "Numero < 5"
    assert (F("Numero") > 5).render() == "Numero > 5"
    assert (F("Tipo") != "T").render() == "Tipo <> 'T'"
    assert F("Valor").between(Decimal("10.50"), Decimal("99")).render() == "Valor BETWEEN 10.50 AND 99"
    assert F("Data").between(date(2026, 1, 1), date(2026, 1, 31)).render() == (
        "Data BETWEEN '2026-01-01' AND '2026-01-31'")
    assert (F("Abertura_DataHora") >= datetime(2026, 1, 1, 8, 0)).render() == (
        "Abertura_DataHora >= '2026-01-01 08:00:00'")
    assert F("Causa").is_null().render() == "Causa IS NULL"
    assert F("Causa").is_not_null().render() == "Causa IS NOT NULL"
    assert F("Situacao_OS").in_(["F", "A"]).render() == "Situacao_OS IN ('F', 'A')"
    assert F("Nome").startswith("Jo_").render() == "Nome LIKE 'Jo!_%' ESCAPE '!'"
    assert F("Nome").endswith("50%").render() == "Nome LIKE '%50!%' ESCAPE '!'"
    assert (F("Nome") == "O'Brien").render() == "Nome = 'O''Brien'"
    assert F("Nome").like("Jo%").render() == "Nome LIKE 'Jo%'"
    assert ((F("A") == 1) | ~(F("B") == 2)).render() == "(A = 1 OR (NOT B = 2))"
    assert (F("Atendimentos.Data_AB") == date(2026, 1, 1)).render() == "Atendimentos.Data_AB = '2026-01-01'"


@pytest.mark.parametrize("name", ["Nome; DROP", "1abc", "a.b.c", "Nome--", ""])
def test_field_names_must_be_plain_identifiers(name: str) -> None:
    with pytest.raises(FilterError):
        F(name)


@pytest.mark.parametrize("value", [True, 1.5, None, Decimal("NaN"), [1]])
def test_values_that_cannot_be_quoted_are_refused(value: object) -> None:
    with pytest.raises(FilterError):
        F("Numero") == value  # type: ignore[operator] # noqa: B015


def test_in_needs_values() -> None:
    with pytest.raises(FilterError):
        F("Tipo").in_([])


async def test_query_refuses_names_it_does_not_accept(standin: StandIn, client: IspClient) -> None:
    with pytest.raises(FilterError) as caught:
        await client.ConsultaTopicos(F("Senha") == "x")
    assert caught.value.field == "Senha"
    assert "ConsultaTopicos" in str(caught.value)
    assert standin.seen == []  # nothing left the process


async def test_query_accepts_alternative_filter_names(standin: StandIn, client: IspClient) -> None:
    standin.answer("*", v1_ok([]))
    await client.ConsultaContatos(F("Cliente") == 1001)
    await client.ConsultaDocumentosAbertos((F("Data") < date(2026, 11, 1)) & (F("Cliente") == 1001))
    await client.ConsultaAtendimentos(F("Atendimentos.Data_AB") == date(2026, 11, 22))
    assert [s.body[s.operation]["Filtro"] for s in standin.seen] == [
        "Cliente = 1001",
        "(Data < '2026-11-01' AND Cliente = 1001)",
        "Atendimentos.Data_AB = '2026-11-22'",
    ]


async def test_unfiltered_queries_take_no_filter(standin: StandIn, client: IspClient) -> None:
    standin.answer("*", v1_ok([]))
    await client.ConsultaPlanos()
    assert "Filtro" not in standin.seen[0].body["ConsultaPlanos"]


async def test_raw_clauses_only_through_the_named_escape_hatch(standin: StandIn, client: IspClient) -> None:
    standin.answer("*", v1_ok([]))
    await client.ConsultaTopicos(unsafe_raw_filter("Nome = 'x' AND Central = 'S'"))
    assert standin.seen[0].body["ConsultaTopicos"]["Filtro"] == "(Nome = 'x' AND Central = 'S')"
