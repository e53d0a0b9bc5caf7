"""Filtro: MySQL syntax evaluated for real, alternative names, hostile strings that stay literal."""

from __future__ import annotations

import itertools
from datetime import datetime

import pytest
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox
from bot.sandbox.filters import FilterRejected, _evaluated, compile_filter, select, tokenize

from tests.sandbox.conftest import Api

NOW = datetime(2025, 3, 10, 9, 30)
ROWS = [
    {"Codigo": 1, "Nome": "José da Silva", "Obs": None},
    {"Codigo": 2, "Nome": "O'Brien \\ 50%_off", "Obs": "x"},
    {"Codigo": 3, "Nome": "' OR 1=1 --", "Obs": "y"},
]
NAMES = ["Codigo", "Nome", "Obs"]


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("Nome = 'jose da silva'", [0]),  # MySQL's default collation: no case, no accents
        ("Nome LIKE '%SILVA'", [0]),
        ("Nome = 'O\\'Brien \\\\ 50%_off'", [1]),
        ("Nome = 'O''Brien \\\\ 50%_off'", [1]),
        ("Nome LIKE '%50\\%\\_off'", [1]),
        ("Nome LIKE '%50\\%x%'", []),
        ("Nome = '\\' OR 1=1 --'", [2]),
        ("Nome = ''' OR 1=1 --'", [2]),
        ("Nome = 'x\\' OR \\'1\\'=\\'1'", []),
        ("Codigo IN ('1', 3)", [0, 2]),
        ("Codigo NOT IN (1)", [1, 2]),
        ("Codigo BETWEEN 2 AND 3 AND NOT Obs IS NULL", [1, 2]),
        ("Obs IS NULL OR (Codigo <> 1 && Codigo != 2)", [0, 2]),
        ("UPPER(Nome) LIKE 'JOSÉ%' || Codigo >= 3", [0, 2]),
        ("`Codigo` = 2", [1]),
        ("codigo = 2", [1]),
        ("Nome LIKE 'Jos|_%' ESCAPE '|'", []),
    ],
)
def test_clauses_evaluate_like_mysql(clause: str, expected: list[int]) -> None:
    assert select(ROWS, NAMES, clause, NOW) == expected


@pytest.mark.parametrize(
    "clause",
    [
        "Codigo = 1; DELETE FROM v",
        "Codigo = 1 -- comment",
        "Codigo = 1 # comment",
        "Codigo = 1 /* c */",
        "Nome = 'unbalanced",
        "Senha = 'x'",
        "Codigo IN (SELECT 1)",
        "sqlite_version() = 1",
        "load_extension('x')",
        "Codigo = 1 UNION SELECT 1",
        "Codigo = ?",
        "Codigo = @x",
        "(Codigo = 1",
        "Codigo = 1)",
        "Codigo =",
        "",
    ],
)
def test_hostile_or_broken_clauses_are_refused(clause: str) -> None:
    with pytest.raises(FilterRejected):
        select(ROWS, NAMES, clause, NOW)


def test_tokenizer_applies_mysql_escapes() -> None:
    (token, _end) = tokenize("'a\\0b\\nc\\Z\\%\\_\\q'")
    assert token.value == "a\0b\nc\x1a\\%\\_q"


def test_no_backslash_escapes_mode_reads_backslashes_as_characters() -> None:
    (token, _end) = tokenize("'a\\0''b\\'", backslash_escapes=False)
    assert token.value == "a\\0'b\\"
    # The attack the mode allows against backslash quoting: the literal ends after the backslash.
    assert select(ROWS, NAMES, "Nome = 'x\\' OR Codigo = 1 OR Nome = ''", NOW, backslash_escapes=False) == [0]
    # And LIKE has no escape character unless ESCAPE names one.
    assert select(ROWS, NAMES, "Nome LIKE 'O''Brien \\ 5%'", NOW, backslash_escapes=False) == [1]
    assert select(ROWS, NAMES, "Nome LIKE '%\\%'", NOW, backslash_escapes=False) == [1]
    assert select(ROWS, NAMES, "Nome LIKE '%\\%'", NOW) == []


async def test_alternative_filter_names(api: Api, sb: Sandbox) -> None:
    contacts = await api.rows("ConsultaContatos", f"Cliente = {D.customer}")
    assert [c["id"] for c in contacts] == ["1"]
    overdue = await api.rows("ConsultaDocumentosAbertos", f"Cliente = {D.customer} AND Data < CURDATE()")
    assert [d["Sequencia"] for d in overdue] == [str(D.overdue_document)]
    line = await api.rows(
        "ConsultaDocumentosAbertos", f"CliFor = '{D.customer}' AND Vencimento >= '2025-03-10'"
    )
    assert [d["Sequencia"] for d in line] == [str(D.open_document)]
    mine = await api.rows(
        "ConsultaAtendimentos",
        f"Atendimentos.Usu_Designado = '{D.technician}' AND "
        "Atendimentos.Data_AB = '2025-03-09' AND AtendT.Nome LIKE 'Sem%'",
    )
    assert [t["Numero"] for t in mine] == [str(D.ticket)]
    assert await api.rows(
        "ConsultaAtendimentos", f"Atendimentos.Cliente = {D.customer} AND Atendimentos.Data_BX IS NOT NULL"
    )
    settled = await api.rows(
        "ConsultaDocumentosBaixados", f"Movimento.Cliente = {D.customer} AND Movimento.Data < '2025-02-01'"
    )
    assert {d["Motivo"] for d in settled} == {"PAGTO"} and len(settled) == 13  # a year and more of paid bills
    auth = await api.rows("ConsultaAutenticacaoSenha", f"Usuario = '{D.pppoe_login}'")
    assert auth[0]["Senha"] == D.pppoe_password and auth[0]["Cliente"] == str(D.customer)


async def test_the_sandbox_can_run_as_a_no_backslash_escapes_server(api: Api, sb: Sandbox) -> None:
    clause = f"Usuario = 'x\\' OR Usuario = '{D.pppoe_login}' OR Usuario = ''"
    assert (await api.query("ConsultaAutenticacaoSenha", clause))["erro_code"] == 94  # default: unterminated
    sb.settings.no_backslash_escapes = True
    found = await api.rows("ConsultaAutenticacaoSenha", clause)  # the backslash no longer escapes the quote
    assert [row["Usuario"] for row in found] == [D.pppoe_login]


async def test_hostile_filters_over_http_never_error_or_leak(api: Api, sb: Sandbox) -> None:
    customers = len(sb.store.rows("customers"))
    sb.v2("contact_update", {"contact_id": 1, "name": "O'Hara \\ 100%"})
    found = await api.rows("ConsultaContatos", "Nome = 'O\\'Hara \\\\ 100%'")
    assert [c["id"] for c in found] == ["1"]
    for hostile in ("' OR 1=1 --", "x' OR 'a'='a", "\\'; DROP TABLE Clientes; --", "%", "_"):
        escaped = hostile.replace("\\", "\\\\").replace("'", "\\'")
        answer = await api.query("ConsultaClientes", f"Nome = '{escaped}'")
        assert answer["status"] == 0 and answer["erro_code"] == 1  # matched literally: no such name
    injected = await api.query("ConsultaClientes", "Nome = '' OR 1=1 -- '")
    assert injected["status"] == 0 and injected["erro_code"] == 94
    assert (await api.query("ConsultaClientes", "Codigo = 1001; DELETE FROM Clientes"))["erro_code"] == 94
    assert (await api.query("ConsultaClientes", "Senha = 'x'"))["erro_code"] == 94
    assert len(sb.store.rows("customers")) == customers


async def test_filter_is_ignored_by_queries_without_filter_support(api: Api) -> None:
    assert len(await api.rows("ConsultaPlanos", "Codigo = 1")) == 8


# ---- a column against literals: answered from the rows that may match (a server's index) -----------
MIXED = [
    {"Codigo": 12, "Texto": "12", "Misto": 12, "Nome": "José", "Lista": [12]},
    {"Codigo": 7, "Texto": "12 ", "Misto": "12.0", "Nome": "jose ", "Lista": None},
    {"Codigo": 12.0, "Texto": "０12", "Misto": True, "Nome": "JOSÉ", "Lista": {"a": 1}},
    {"Codigo": None, "Texto": None, "Misto": "abc", "Nome": None, "Lista": "12"},
    {"Codigo": 1, "Texto": "1e1", "Misto": " 12", "Nome": "Jóse", "Lista": "[12]"},
]
MIXED_NAMES = ["Codigo", "Texto", "Misto", "Nome", "Lista"]
LITERALS = ["12", "'12'", "12.0", "'12.0'", "1", "'1'", "10", "'abc'", "'jose'", "'JOSÉ '", "'[12]'", "'12abc'"]


@pytest.mark.parametrize("column", [*MIXED_NAMES, "codigo"])
def test_a_column_against_literals_keeps_what_the_whole_table_would(column: str) -> None:
    clauses = [f"{column} = {literal}" for literal in LITERALS]
    clauses += [f"{column} IN ({a}, {b})" for a, b in itertools.pairwise(LITERALS)]
    for clause in clauses:
        whole = _evaluated(MIXED, MIXED_NAMES, {}, compile_filter(clause, MIXED_NAMES), NOW)
        assert select(MIXED, MIXED_NAMES, clause, NOW) == whole, clause


def test_one_customer_among_many_is_found() -> None:
    rows = [{"Codigo": n, "Nome": f"Cliente {n}"} for n in range(1, 20_001)]
    assert select(rows, ["Codigo", "Nome"], "Codigo = 12345", NOW) == [12344]
    assert select(rows, ["Codigo", "Nome"], "Codigo IN (3, '7', 20001)", NOW) == [2, 6]
