"""What a check finds, one line the operator reads, and the exit code of a whole run."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit


class Status(enum.StrEnum):
    OK = "ok"
    WARN = "warn"  # works, but the operator should look: never changes the exit code
    FAIL = "FAIL"  # the bot cannot work as configured: the text names what to fix


@dataclass(frozen=True)
class Finding:
    status: Status
    check: str
    text: str

    def line(self) -> str:
        return f"{self.status.value:<5} {self.check:<16} {self.text}"


def ok(check: str, text: str) -> Finding:
    return Finding(Status.OK, check, text)


def warn(check: str, text: str) -> Finding:
    return Finding(Status.WARN, check, text)


def fail(check: str, text: str) -> Finding:
    return Finding(Status.FAIL, check, text)


def origin(url: str, *, path: bool = False) -> str:
    """What of a URL may be printed: scheme, host and port (and the path when asked), never the
    credentials, query or, for a webhook, the path derived from its secret."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}{parts.path if path else ''}"


EXIT_HEALTHY, EXIT_FAILED = 0, 1


def exit_code(findings: Sequence[Finding]) -> int:
    """0 when nothing failed (warnings allowed), 1 when any check failed."""
    return EXIT_FAILED if any(f.status is Status.FAIL for f in findings) else EXIT_HEALTHY


async def bounded(check: str, seconds: float, what: str, fix: str, work: Awaitable[list[Finding]]) -> list[Finding]:
    """``work``'s findings, or one failure saying ``what`` did not answer within ``seconds`` and what to
    ``fix``: a check never hangs the run, and one that breaks unexpectedly does not stop the others."""
    try:
        async with asyncio.timeout(seconds):
            return await work
    except TimeoutError:
        return [fail(check, f"{what} did not answer within {seconds:g} s: {fix} (or allow more with --timeout)")]
    except Exception as exc:  # the report must go on; the type names the failure without any secret
        return [fail(check, f"{what}: unexpected {type(exc).__name__}: {fix}")]
