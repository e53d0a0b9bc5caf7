"""The ``ispbot`` command's manners, as an operator at a terminal or a script meets them: its version,
help that says what each command does and what it reads, and quiet ends."""

from __future__ import annotations

import io
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from bot import cli

COMMANDS = ("run", "call", "sandbox", "migrate", "invite", "technicians", "mirror", "doctor", "demo", "intents")


def help_of(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    with pytest.raises(SystemExit) as leaving:
        cli.main([*command, "--help"])
    assert leaving.value.code == 0
    return capsys.readouterr().out


def ispbot(*arguments: str, cwd: Path) -> subprocess.Popen[str]:
    """``ispbot`` in its own process, its output a pipe the test may close."""
    return subprocess.Popen(  # noqa: S603 - the test's own interpreter
        [sys.executable, "-m", "bot.cli", *arguments], cwd=cwd, text=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def test_version_names_the_installed_release(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as leaving:
        cli.main(["--version"])
    assert leaving.value.code == 0
    assert capsys.readouterr().out == f"ispbot {version('ispbot')}\n"


def test_the_top_level_help_lists_the_commands_the_settings_and_the_exit_codes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = help_of(capsys)
    assert all(f"    {command} " in text or f"    {command}\n" in text for command in COMMANDS), text
    assert ".env" in text and "ISPBOT_" in text
    for code in ("0 done", "1 refused", "2 invalid arguments or configuration", "3 the ISP", "141 the output"):
        assert code in text.replace("\n", " "), code


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_says_what_it_does_what_it_reads_and_its_exit_codes_in_plain_text(
    capsys: pytest.CaptureFixture[str], command: str,
) -> None:
    text = help_of(capsys, command)
    description = text.split("\n\n", 1)[1].split("\noptions:")[0].split("\npositional arguments:")[0]
    assert len(description) > 200, f"ispbot {command} --help has no description"
    assert "ISPBOT_" in text, f"ispbot {command} --help names no setting"
    assert "Exit codes" in text
    assert "``" not in text  # reST markup belongs to the docstrings, not to a terminal


def test_no_help_anywhere_shows_restructured_text(capsys: pytest.CaptureFixture[str]) -> None:
    for nested in (("invite", "technician"), ("invite", "list"), ("mirror", "status"), ("mirror", "retry")):
        assert "``" not in help_of(capsys, *nested)


def test_run_help_names_its_modes_and_endpoints(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys, "run")
    for expected in ("polling", "webhook", "ISPBOT_TELEGRAM_TOKEN", "ispbot migrate", "/livez", "/readyz"):
        assert expected in text, expected


@pytest.mark.parametrize("arguments", [("call", "--list"), ("--help",), ("call", "--help")])
def test_a_closed_output_ends_the_command_quietly(tmp_path: Path, arguments: tuple[str, ...]) -> None:
    process = ispbot(*arguments, cwd=tmp_path)
    assert process.stdout is not None
    process.stdout.close()  # `| true`: the reader is gone before the first line is written
    _, err = process.communicate(timeout=60)
    assert err == ""  # no BrokenPipeError traceback, no "Exception ignored" at exit
    # argparse itself ignores a failed write of its help; a command's output says the pipe closed.
    assert process.returncode == (0 if "--help" in arguments else cli.EXIT_OUTPUT_CLOSED)


def test_a_command_read_to_the_end_is_not_affected(tmp_path: Path) -> None:
    process = ispbot("call", "--list", cwd=tmp_path)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (0, "")
    assert "ConsultaClientes" in out


def test_invite_names_every_wrong_setting_of_the_isp_and_the_database_at_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("ISPBOT_ISP_BASE_URL", "ISPBOT_ISP_KEY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / ".env").write_text("ISPBOT_DATABASE_URL=mysql://db/ispbot\n", encoding="utf-8")
    assert cli.main(["invite", "technician", "tecnico.joao"]) == 2
    named = [line.split(": ")[2] for line in capsys.readouterr().err.splitlines()]
    assert named == ["ISPBOT_ISP_BASE_URL", "ISPBOT_ISP_KEY", "ISPBOT_DATABASE_URL"]
    assert list(tmp_path.iterdir()) == [tmp_path / ".env"]  # no database created


def test_intents_reads_texts_one_a_line_and_prints_where_each_leads(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ISPBOT_LOCALES_DIR", raising=False)
    texts = "to devendo quanto?\nvc é um robo?\n\ntem alguém aí?\nno tengo señal\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(texts))
    assert cli.main(["intents", "--language", "pt_BR"]) == 0
    assert capsys.readouterr().out == (
        "bills\tto devendo quanto?\n-\tvc é um robo?\ngreeting\ttem alguém aí?\nconnection\tno tengo señal\n"
    )


def test_intents_reads_the_operators_words(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    (tmp_path / "pt_BR").mkdir()  # what the setting asks of a copy of the texts
    (tmp_path / "intents").mkdir()
    (tmp_path / "intents" / "en.yaml").write_text('human: ["ring me"]\n', encoding="utf-8")
    monkeypatch.setenv("ISPBOT_LOCALES_DIR", str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO("please ring me\nmy bill\n"))
    assert cli.main(["intents", "--language", "en"]) == 0
    assert capsys.readouterr().out == "human\tplease ring me\n-\tmy bill\n"


# What building the parser may load: argparse's own company, and of ours only the command modules.
_HELP_MAY_LOAD = ("bot", "bot.cli", "bot.commands", "bot.languages")
_HELP_MUST_NOT_LOAD = ("asyncio", "logging", "ssl", "sqlite3", "zoneinfo", "importlib.metadata")


def test_the_help_loads_no_heavy_module() -> None:
    # `ispbot --help` answers at once only while registering the commands loads nothing of what running
    # them needs (bench/cli_help.py measures it): a settings class, the store, a flow or a channel,
    # even asyncio, belongs inside the function that uses it.
    code = (
        "import sys; before = set(sys.modules); from bot import cli; cli.build_parser(); "
        "print(*sorted(set(sys.modules) - before))"
    )
    loaded = subprocess.run(  # noqa: S603 - the test's own interpreter, in a process of its own
        [sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True,
        check=True, timeout=60,
    ).stdout.split()
    ours_or_third_party = [name for name in loaded if name.partition(".")[0] not in sys.stdlib_module_names]
    heavy = [name for name in ours_or_third_party
             if not any(name == allowed or name.startswith(f"{allowed}.") for allowed in _HELP_MAY_LOAD)]
    assert heavy == [], f"building the parser loads {heavy}: import them where the command runs"
    assert "bot.commands.invites" in loaded  # the check looked at the real parser
    assert [name for name in _HELP_MUST_NOT_LOAD if name in loaded] == []


@pytest.mark.parametrize("url", [
    "postgresql+asyncpg://ispbot:s3cr3t-pw@127.0.0.1:1/ispbot",  # nothing listens there
    "sqlite+aiosqlite:////nonexistent-folder/for/sure/ispbot.db",  # a folder that is not there
])
def test_run_with_a_database_it_cannot_reach_says_so_in_one_line_naming_the_setting(url: str, tmp_path: Path) -> None:
    environment = {
        "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "ISPBOT_DATABASE_URL": url,
        "ISPBOT_TELEGRAM_TOKEN": "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        "ISPBOT_ISP_BASE_URL": "https://erp.example.net", "ISPBOT_ISP_KEY": "abcdefabcdefabcdef",
    }
    ran = subprocess.run(
        [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main(['run']))"],
        cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=60, check=False,
    )
    assert ran.returncode == 1
    err = ran.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert "ISPBOT_DATABASE_URL" in err and "s3cr3t-pw" not in err
