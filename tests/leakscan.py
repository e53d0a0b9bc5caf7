"""A pytest plugin: the log output of the whole test session is scanned for personal data and secrets.

For the session, a handler on the root logger sees every record at DEBUG (the third-party loggers
``bot.logs.configure`` keeps quiet stay at WARNING, as in production), passes a copy through the
bot's real filter (``RedactSecrets``, knowing the keys as ``ispbot run`` would) and formatter
(``JsonFormatter``), and looks in the line for every tax id, phone number and password of the seeded
sandbox, the sandbox's and the tests' ISP keys and the fake Bot API's token. A finding fails the run
(exit status 1) with a report naming the logger, the kind of value and the test that was running,
never the value itself.

Under pytest-xdist each worker scans its own tests' records and hands its count and findings to the
controller when it ends (``workeroutput``), which reports them and fails the run as a single process
would.

Tests pass these values around on purpose (a subscriber types their CPF); what is checked here is
only what would reach an operator's log. Loaded by ``tests/conftest.py``; ``-p tests.leakscan``
loads it into any other pytest run (the plugin's own test does so).
"""

from __future__ import annotations

import copy
import functools
import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from bot import logs
from bot.sandbox.clock import FixedClock, system_clock
from bot.sandbox.keys import SEEDED_KEYS
from bot.sandbox.seed import DEMO_IDENTITIES, generate

TAX_ID, PHONE, PASSWORD, SECRET = "tax id", "phone number", "password", "secret key"
# Keys and tokens the tests configure besides the sandbox's own keys.
TEST_SECRETS = (
    "isp-key-for-the-tests",  # tests/telegram/test_settings_and_logs.py
    "sandbox-key-7f3a9c",  # tests/isp/standin.py
    "s3nh@-Secreta!",  # tests/isp/test_redaction.py
    "123456789:AAFakeTokenForTheTestsOnly-0123456789",  # tests/telegram/fake_bot_api.py (DEFAULT_TOKEN)
    "fake-chatwoot-token-of-the-ispbot-user",  # tests/chatwoot/fake_chatwoot.py (TOKEN)
    "fake-chatwoot-webhook-secret",  # tests/chatwoot/fake_chatwoot.py (WEBHOOK_SECRET)
)
_DIGITISH = re.compile(r"\d[\d .()/+-]{8,}\d")  # 10 characters at least, as every needle has
_PUNCTUATION = str.maketrans("", "", " .()/+-")


@functools.cache  # a few dozen names, asked for each of the seeded rows' fields in every test process
def _kind_of(field_name: str) -> str | None:
    name = field_name.lower()
    if any(part in name for part in ("cpf", "cnpj", "cnpf", "documentopessoa", "document_number")):
        return TAX_ID
    if any(part in name for part in ("tel", "fone", "celular", "phone", "mobile", "whatsapp")):
        return PHONE
    if any(part in name for part in ("senha", "password")):
        return PASSWORD
    return None


def _fields(record: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(record, dict):
        for key, value in record.items():
            if isinstance(value, dict | list):
                yield from _fields(value)
            else:
                yield str(key), value
    elif isinstance(record, list):
        for item in record:
            yield from _fields(item)


def seeded_needles() -> dict[str, str]:
    """Every tax id, phone and password of the seeded sandbox (each value: its kind)."""
    needles: dict[str, str] = {}
    # Some values depend on the date too: the tests' fixed clock's, and today's (``Sandbox.seeded()``).
    for day in {FixedClock().now.date(), system_clock().date()}:
        for rows in generate(today=day).tables.values():
            for name, value in _fields(rows):
                kind = _kind_of(name)
                if kind is not None and isinstance(value, str | int) and not isinstance(value, bool):
                    text = str(value).strip()
                    if len(text) >= 6:
                        needles[text] = kind
    demo = DEMO_IDENTITIES
    for value in (demo.customer_cpf, demo.blocked_customer_cpf, demo.company_cnpj):
        needles[value] = TAX_ID
    needles[demo.customer_mobile] = PHONE
    needles[demo.pppoe_password] = PASSWORD
    for key in (*(k.key for k in SEEDED_KEYS), *TEST_SECRETS):
        needles[key] = SECRET
    return needles


@dataclass(frozen=True)
class Finding:
    logger: str
    kind: str
    test: str


def trie_pattern(words: Iterable[str]) -> re.Pattern[str]:
    """One regex matching any of ``words`` (longest first), in time that does not grow with their
    number: an alternation of a few hundred literals would be tried one by one at every position."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        ends_here = "" in node
        if len(branches) == 1 and not ends_here:
            return branches[0]
        return "(?:" + "|".join(branches) + ")" + ("?" if ends_here else "")

    return re.compile(build(trie))


class LeakScanner(logging.Handler):
    """Formats each record as production would and remembers where a needle shows in the line."""

    def __init__(self, needles: dict[str, str], secrets: Iterable[str] = ()) -> None:
        super().__init__(logging.DEBUG)
        self.needles = needles
        self.records = 0
        self.findings: dict[Finding, int] = {}
        self.current_test = "(outside a test)"
        self.reattached = 0  # times a test had left the root logger without it
        self._filter = logs.RedactSecrets(secrets)
        self._formatter = logs.JsonFormatter()
        self._texts = trie_pattern(n for n in needles if not n.isdigit())
        self._digits = trie_pattern(n for n in needles if n.isdigit())

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.render(record)
        except Exception as exc:  # a record the project's formatter cannot print is a finding too
            line = f"(could not format: {type(exc).__name__})"
        self.records += 1
        for kind in self.kinds_in(line):
            finding = Finding(record.name, kind, self.current_test)
            self.findings[finding] = self.findings.get(finding, 0) + 1

    def render(self, record: logging.LogRecord) -> str:
        """The line production would print (on a copy: other handlers see the record untouched)."""
        mine = copy.copy(record)
        self._filter.filter(mine)
        return self._formatter.format(mine)

    def kinds_in(self, line: str) -> set[str]:
        """The kinds of needle in ``line``; digits count however they are punctuated (529.982.247-25)."""
        found = {self.needles[match.group()] for match in self._texts.finditer(line)}
        for run in _DIGITISH.finditer(line):
            digits = run.group().translate(_PUNCTUATION)
            found.update(self.needles[match.group()] for match in self._digits.finditer(digits))
        return found

    def report(self) -> list[str]:
        return [
            f"logger {finding.logger!r} logged a {finding.kind} ({count} records) during {finding.test}"
            for finding, count in sorted(self.findings.items(), key=lambda item: (item[0].test, item[0].logger))
        ]


_SCANNER_KEY = pytest.StashKey[tuple[LeakScanner, int, dict[str, int]]]()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Watch the root logger from before the first test to after the last one."""
    needles = seeded_needles()
    scanner = LeakScanner(needles, secrets=[n for n, kind in needles.items() if kind == SECRET])
    root = logging.getLogger()
    saved_levels = {name: logging.getLogger(name).level for name in logs.QUIET}
    session.config.stash[_SCANNER_KEY] = (scanner, root.level, saved_levels)
    root.addHandler(scanner)
    root.setLevel(logging.DEBUG)
    _active[:] = [scanner]
    for name in logs.QUIET:
        logging.getLogger(name).setLevel(logging.WARNING)


_active: list[LeakScanner] = []  # the session's scanner, for the hooks that are not given the config


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:
    """Name the test in findings; watch again if a test set logging up its own way and left it so
    (``logs.configure`` replaces the root logger's handlers)."""
    if not _active:
        return
    scanner, root = _active[0], logging.getLogger()
    scanner.current_test = nodeid
    if scanner not in root.handlers:
        scanner.reattached += 1
        root.addHandler(scanner)
    if root.level != logging.DEBUG:
        root.setLevel(logging.DEBUG)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _SCANNER_KEY not in session.config.stash:
        return
    scanner, level, saved_levels = session.config.stash[_SCANNER_KEY]
    _active.clear()
    root = logging.getLogger()
    root.removeHandler(scanner)
    root.setLevel(level)
    for name, saved in saved_levels.items():
        logging.getLogger(name).setLevel(saved)
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller reports and fails the run
        workeroutput[_WORKER_OUTPUT] = {
            "records": scanner.records, "reattached": scanner.reattached,
            "findings": [[f.logger, f.kind, f.test, count] for f, count in scanner.findings.items()],
        }
    if scanner.findings:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_WORKER_OUTPUT = "leakscan"


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """An xdist worker ended: its records and findings join the controller's scanner."""
    output = getattr(node, "workeroutput", {}).get(_WORKER_OUTPUT)
    if output is None or not _active:
        return
    scanner = _active[0]
    scanner.records += output["records"]
    scanner.reattached += output["reattached"]
    for logger, kind, test, count in output["findings"]:
        finding = Finding(logger, kind, test)
        scanner.findings[finding] = scanner.findings.get(finding, 0) + count


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _SCANNER_KEY not in config.stash:
        return
    scanner = config.stash[_SCANNER_KEY][0]
    if scanner.findings:
        terminalreporter.section("log scan: personal data or secrets reached the logs", red=True)
        for line in scanner.report():
            terminalreporter.write_line(line)
    else:
        again = f" (attached again after {scanner.reattached} tests set logging up)" if scanner.reattached else ""
        terminalreporter.write_line(
            f"log scan: {scanner.records} log records{again}, no seeded personal data or secret in them"
        )
