"""The image's HEALTHCHECK: asks ``/livez`` of ``ispbot run`` when this container runs it, else passes.

The image's health check applies to every command the container is given. Only ``ispbot run`` has a
web server; the sandbox, ``migrate`` or ``doctor`` would be reported unhealthy for want of one, so the
check first looks for an ``ispbot run`` process in the container (``/proc``, whatever started it:
the entry point, ``--init`` or a shell). Exit codes: 0 healthy or nothing to ask; 1 ``/livez`` did
not answer 200 within 4 seconds.
"""

from __future__ import annotations

import os
import sys
import urllib.request
from pathlib import Path


def command_of(cmdline: bytes) -> str | None:
    """The ``ispbot`` sub-command of a process's NUL-separated command line, or None if not ispbot."""
    args = [part.decode(errors="replace") for part in cmdline.split(b"\0") if part]
    names = [os.path.basename(arg) for arg in args]
    if "ispbot" not in names:
        return None
    rest = args[names.index("ispbot") + 1 :]
    commands = [arg for arg in rest if not arg.startswith("-")]
    return commands[0] if commands else None


def runs_the_bot(proc: Path = Path("/proc")) -> bool:
    """Whether a process in this container (its own PID namespace) is ``ispbot run``."""
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:  # gone meanwhile
                continue
            if command_of(cmdline) == "run":
                return True
    return False


def main() -> int:
    if not runs_the_bot():
        return 0
    port = os.environ.get("ISPBOT_LISTEN_PORT", "8080")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/livez", timeout=4) as answer:
            return 0 if answer.status == 200 else 1
    except OSError as error:
        print(f"/livez did not answer: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
