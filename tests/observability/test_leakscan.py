"""The whole-suite log scan (``tests.leakscan``) finds what it is there to find, and says where
without repeating the value."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import PRODUCTION_KEY

from tests.leakscan import PASSWORD, PHONE, SECRET, TAX_ID, Finding, LeakScanner, seeded_needles, trie_pattern

ROOT = Path(__file__).resolve().parents[2]
NEEDLES = seeded_needles()


def record(logger: str, message: str, *args: object, exc: BaseException | None = None) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    return logging.LogRecord(logger, logging.WARNING, __file__, 1, message, args, exc_info)


def test_the_needles_are_the_seeds_personal_data_and_the_keys() -> None:
    assert NEEDLES[D.customer_cpf] == TAX_ID and NEEDLES[D.company_cnpj] == TAX_ID
    assert NEEDLES[D.customer_mobile] == PHONE
    assert NEEDLES[D.pppoe_password] == PASSWORD
    assert NEEDLES[PRODUCTION_KEY] == SECRET
    counts = {kind: sum(1 for k in NEEDLES.values() if k == kind) for kind in (TAX_ID, PHONE, PASSWORD)}
    assert all(count >= 300 for count in counts.values()), counts  # the random customers' too


def test_a_planted_leak_is_found_and_reported_without_its_value() -> None:
    scanner = LeakScanner(NEEDLES, secrets=[PRODUCTION_KEY])
    scanner.current_test = "tests/x.py::test_planted"
    scanner.handle(record("bot.planted", "pppoe login maria.silva with %s", D.pppoe_password))
    scanner.handle(record("bot.unknown_key", "calling with key %s", "sandbox-homologation-key"))
    assert scanner.findings == {
        Finding("bot.planted", PASSWORD, "tests/x.py::test_planted"): 1,
        Finding("bot.unknown_key", SECRET, "tests/x.py::test_planted"): 1,
    }
    report = "\n".join(scanner.report())
    assert "logger 'bot.planted' logged a password (1 records) during tests/x.py::test_planted" in report
    assert D.pppoe_password not in report and "sandbox-homologation-key" not in report


def test_what_the_bots_filter_scrubs_is_no_finding() -> None:
    scanner = LeakScanner(NEEDLES, secrets=[PRODUCTION_KEY])
    scanner.handle(record("bot.a", "linking %s, phone %s", "529.982.247-25", "(11) 98765-4321"))
    scanner.handle(record("bot.b", "answer %s", '{"Senha": "Fibra@2025", "CNPJ_CNPF": "11444777000161"}'))
    try:
        raise RuntimeError(f"POST with {PRODUCTION_KEY}")
    except RuntimeError as exc:
        scanner.handle(record("bot.c", "failed", exc=exc))
    assert scanner.records == 3 and scanner.findings == {}


def test_a_value_is_found_however_its_digits_are_punctuated() -> None:
    scanner = LeakScanner(NEEDLES)
    assert scanner.kinds_in("cpf 529 982 247 25 in a line") == {TAX_ID}  # spaces: not a shape the filter knows
    assert scanner.kinds_in("update 812345678 chat c3f9a1b2c3d4e took 12.5 ms") == set()


def test_the_pattern_matches_each_word_and_nothing_else() -> None:
    pattern = trie_pattern(["abc", "abcd", "abx", "zz"])
    assert [m.group() for m in pattern.finditer("xx abcd abc abx ab zz z")] == ["abcd", "abc", "abx", "zz"]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "two xdist workers"])
def test_a_leak_fails_the_pytest_run_it_happens_in(tmp_path: Path, workers: list[str]) -> None:
    (tmp_path / "test_planted.py").write_text(textwrap.dedent(f'''
        import logging

        def test_logs_a_password():
            logging.getLogger("bot.planted").info("pppoe login maria.silva with %s", {D.pppoe_password!r})

        def test_logs_nothing():
            logging.getLogger("bot.clean").info("update 812345678 answered")
    '''))
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(  # noqa: S603 - this interpreter, this repository's plugin
        [sys.executable, "-m", "pytest", "-p", "tests.leakscan", "-p", "no:cacheprovider", "-q", *workers,
         str(tmp_path)],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=120, check=False,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 1, output  # both tests passed, the scan failed the run
    assert "2 passed" in output
    assert "personal data or secrets reached the logs" in output
    assert "logger 'bot.planted' logged a password (1 records) during test_planted.py::test_logs_a_password" in output
    assert "bot.clean" not in output
    assert D.pppoe_password not in output


def test_the_session_scanner_sees_this_tests_debug_records() -> None:
    """``tests/conftest.py`` loads the plugin for every run of the suite (``make test`` included)."""
    [scanner] = [h for h in logging.getLogger().handlers if isinstance(h, LeakScanner)]
    before = scanner.records
    logging.getLogger("bot.isp").debug("isp %s gen %s answered in %.1f ms", "ConsultaClientes", "1.0", 3.1)
    assert scanner.records == before + 1
    assert scanner.current_test.endswith("test_the_session_scanner_sees_this_tests_debug_records")
