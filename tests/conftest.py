"""Session-wide: the log output of every test is scanned for personal data and secrets (``tests.leakscan``)."""

from tests.leakscan import (  # noqa: F401 - pytest finds hooks by name in a conftest
    pytest_runtest_logstart,
    pytest_sessionfinish,
    pytest_sessionstart,
    pytest_terminal_summary,
)
