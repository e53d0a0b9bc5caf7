"""The demo as a person at a terminal uses it: lines typed into a pipe that stays open (as a terminal
does), an empty line that changes nothing, a notice the bot sends on its own printed while the
prompt waits, the example ISP's contacts shown to a stranger, and the conversation found again
when the demo starts anew on the same database."""

from __future__ import annotations

import io
import os
import threading
import time
from pathlib import Path

from bot.runtime.demo import sandbox_file
from bot.sandbox import Sandbox


class Terminal:
    """``run_demo`` in a thread, its input a pipe kept open until ``close``."""

    def __init__(self, database: Path) -> None:
        from bot.runtime.demo import run_demo  # noqa: PLC0415 - as the CLI imports it

        read, write = os.pipe()
        self.stdin, self._writer = os.fdopen(read, "r"), os.fdopen(write, "w")
        self.stdout = io.StringIO()
        self.thread = threading.Thread(daemon=True, target=run_demo, kwargs={
            "stdin": self.stdin, "stdout": self.stdout, "bold": False, "database": database, "notices_every": 0.2,
        })
        self.thread.start()

    @property
    def shown(self) -> str:
        return self.stdout.getvalue()

    def type(self, *lines: str) -> None:
        self._writer.write("".join(f"{line}\n" for line in lines))
        self._writer.flush()

    def until(self, words: str, *, after: str = "", within: float = 60.0) -> str:
        """Wait until ``words`` were shown (after the last ``after``); what was shown then."""
        deadline = time.monotonic() + within
        while words not in (self.shown.rsplit(after, 1)[-1] if after else self.shown):
            assert time.monotonic() < deadline, f"never shown: {words!r}\n{self.shown[-3000:]}"
            assert self.thread.is_alive(), f"the demo ended:\n{self.shown[-3000:]}"
            time.sleep(0.05)
        return self.shown

    def close(self) -> str:
        """Ctrl-D: the input ends; what the whole session showed."""
        self._writer.close()
        self.thread.join(60)
        assert not self.thread.is_alive()
        self.stdin.close()
        return self.shown


def test_a_notice_comes_while_the_prompt_waits_and_the_demo_goes_on_after_a_restart(tmp_path: Path) -> None:
    database = tmp_path / "demo.sqlite3"
    sandbox = Sandbox.seeded()
    settings = sandbox.store.find("settings", id=1)
    assert settings is not None
    settings["redial_seconds"] = 0  # the router dials in again at once: the outcome comes at the first look
    sandbox.save(sandbox_file(database))

    terminal = Terminal(database)
    terminal.until("você> ")
    terminal.type("", "3")  # a stray Enter first: ignored, and the stranger asks for a person
    shown = terminal.until("0800 123 4567")
    assert "Tchau." not in shown and "seg. a sáb., das 8h às 20h" in shown  # the example ISP's phone and hours
    terminal.type("4")  # a prospect
    shown = terminal.until("(11) 4004-1234")
    assert "Rua Augusta, 1500" in shown and "fibrasandbox.com.br" in shown

    terminal.type("2", "maria.silva", "Fibra@2025")  # typed at once: none of it lost
    terminal.until("cadastro confirmado")
    terminal.type("/endoutage", "4", "1")
    terminal.until("Posso reiniciar?")
    terminal.type("1")  # yes: the turn answers at once, the outcome comes later, on its own
    shown = terminal.until("já voltou")
    before = shown.rsplit("já voltou", 1)[0]
    assert before.rstrip().rsplit("\n", 1)[0].rstrip().endswith("você>")  # below a prompt nobody typed at
    terminal.until("\nvocê> ", after="já voltou")  # and the prompt again, below it
    assert "[1] 🛠️ Abrir chamado" in terminal.shown.rsplit("já voltou", 1)[1]  # its button, to press by number

    terminal.type("/menu")
    shown = terminal.close()
    assert shown.split("já voltou", 1)[1].count("Olá, Maria") == 1  # the line typed after it was answered
    assert shown.rstrip().endswith("Tchau.")

    again = Terminal(database)  # the demo started anew on its database: Maria's chat as she left it
    again.type("/atendimentos")
    shown = again.close()
    assert "Olá, Maria Aparecida da Silva!" in shown and "cadastro confirmado" in shown.split("você> /atendimentos")[1]
    assert "confirmar que você é o titular" not in shown  # no greeting to someone unknown
