"""The Filtro builder: quoting, accepted names per query, and a property test showing that no value,
whatever its characters, changes the structure of the clause."""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal

import pytest
from bot.isp import F, IspClient, unsafe_raw_filter
from bot.isp.errors import FilterError
from hypothesis import given
from hypothesis import strategies as st

from tests.isp.standin import StandIn, v1_ok

# A MySQL tokenizer, independent of the builder: string literals with backslash escapes.
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<string>'(?:[^'\\]|\\.)*')
  | (?P<number>-?\d+(?:\.\d+)?)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)
  | (?P<op><>|<=|>=|=|<|>|\(|\)|,)
""", re.VERBOSE | re.DOTALL)
_UNESCAPE = {"0": "\0", "n": "\n", "r": "\r", "Z": "\x1a"}


def tokens(sql: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(sql):
        match = _TOKEN.match(sql, pos)
        assert match, f"cannot tokenize at {pos}: {sql[pos:pos + 20]!r}"
        kind = match.lastgroup or ""
        if kind != "space":
            out.append((kind, match.group()))
        pos = match.end()
    return out


def unquote(literal: str, *, like: bool = False) -> str:
    body = literal[1:-1]

    def repl(m: re.Match[str]) -> str:
        ch = m.group(1)
        if like and ch in "%_":
            return "\\" + ch  # still escaped for LIKE: a literal % or _
        return _UNESCAPE.get(ch, ch)

    return re.sub(r"\\(.)", repl, body, flags=re.DOTALL)


def shape(sql: str) -> list[tuple[str, str]]:
    return [(kind, "?" if kind == "string" else text) for kind, text in tokens(sql)]


text_values = st.text(alphabet=st.characters(codec="utf-8"), max_size=40) | st.sampled_from(
    ["' OR 1=1 --", "\\", "\\'", "%", "_", "\0", "a'); DROP TABLE x; --", "\\\\'", "'\n'", "\x1a"])


@given(text_values)
def test_no_value_changes_a_comparison(value: str) -> None:
    sql = (F("Nome") == value).render()
    toks = tokens(sql)
    assert [k for k, _ in toks] == ["word", "op", "string"]
    assert unquote(toks[2][1]) == value


@given(text_values, text_values, text_values, text_values)
def test_no_value_changes_a_compound_clause(a: str, b: str, c: str, d: str) -> None:
    def build(w: str, x: str, y: str, z: str) -> str:
        clause = ((F("Nome") == w) & ~F("Email").contains(x)) | F("Cidade").in_([y, z])
        return clause.render()

    assert shape(build(a, b, c, d)) == shape(build("p", "q", "r", "s"))


@given(text_values)
def test_contains_matches_the_text_literally(value: str) -> None:
    (_, _, (_, literal)) = tokens(F("Nome").contains(value).render())[:3]
    pattern = unquote(literal, like=True)
    # The only unescaped wildcards are the two the builder added around the text.
    assert pattern.startswith("%") and pattern.endswith("%")
    inner = pattern[1:-1]
    assert re.sub(r"\\[%_]", "", inner).count("%") == 0
    assert re.sub(r"\\[%_]", "", inner).count("_") == 0
    assert re.sub(r"\\([%_])", r"\1", inner) == value


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
    assert F("Nome").startswith("Jo_").render() == r"Nome LIKE 'Jo\_%'"
    assert F("Nome").endswith("50%").render() == r"Nome LIKE '%50\%'"
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


async def test_query_refuses_names_it_does_not_accept(standin: StandIn, isp: IspClient) -> None:
    with pytest.raises(FilterError) as caught:
        await isp.ConsultaTopicos(F("Senha") == "x")
    assert caught.value.field == "Senha"
    assert "ConsultaTopicos" in str(caught.value)
    assert standin.seen == []  # nothing left the process


async def test_query_accepts_alternative_filter_names(standin: StandIn, isp: IspClient) -> None:
    standin.answer("*", v1_ok([]))
    await isp.ConsultaContatos(F("Cliente") == 1001)
    await isp.ConsultaDocumentosAbertos((F("Data") < date(2026, 11, 1)) & (F("Cliente") == 1001))
    await isp.ConsultaAtendimentos(F("Atendimentos.Data_AB") == date(2026, 11, 22))
    assert [s.body[s.operation]["Filtro"] for s in standin.seen] == [
        "Cliente = 1001",
        "(Data < '2026-11-01' AND Cliente = 1001)",
        "Atendimentos.Data_AB = '2026-11-22'",
    ]


async def test_unfiltered_queries_take_no_filter(standin: StandIn, isp: IspClient) -> None:
    standin.answer("*", v1_ok([]))
    await isp.ConsultaPlanos()
    assert "Filtro" not in standin.seen[0].body["ConsultaPlanos"]


async def test_raw_clauses_only_through_the_named_escape_hatch(standin: StandIn, isp: IspClient) -> None:
    standin.answer("*", v1_ok([]))
    await isp.ConsultaTopicos(unsafe_raw_filter("Nome = 'x' AND Central = 'S'"))
    assert standin.seen[0].body["ConsultaTopicos"]["Filtro"] == "(Nome = 'x' AND Central = 'S')"
