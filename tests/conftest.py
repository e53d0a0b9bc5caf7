"""Session-wide: the log output of every test is scanned for personal data and secrets (``tests.leakscan``)."""

from flows.engine import Engine

from tests.leakscan import (  # noqa: F401 - pytest finds hooks by name in a conftest
    pytest_runtest_logstart,
    pytest_sessionfinish,
    pytest_sessionstart,
    pytest_terminal_summary,
)

# A step that leads where its flow's ``steps`` do not declare fails the test (a running bot logs it).
Engine.strict_steps = True
