"""What an operator reads in the bot's log: JSON lines for a collector or text lines for a terminal,
chosen by ``ISPBOT_LOG_FORMAT``, and never a tax id, a phone number, a password or a key in them."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest
from bot import cli, logs
from bot.channels.telegram.settings import TelegramSettings
from bot.commands.support import settings_problem
from bot.logs import RedactSecrets, chat_ref
from pydantic import ValidationError

from tests.telegram.test_settings_and_logs import (  # noqa: F401 - restore_logging is a fixture
    _migrated,
    rejecting_bot_api,
    restore_logging,
)

TOKEN = "7412589630:AAHd-Xq3rJ_9vNc2LmPz8TyKe5WuBg1sQoF"
ISP_KEY = "3f9c-real-looking-integration-key"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def printed(fmt: logs.LogFormat, emit: Any, *, secrets: tuple[str, ...] = (), stream: io.StringIO | None = None) -> str:
    """What a handler set up as ``configure`` does (filter and formatter) prints for ``emit(logger)``."""
    stream = stream if stream is not None else io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.formatter(fmt, stream))
    handler.addFilter(RedactSecrets(secrets))
    # A logger of its own, outside logging's tree: no other handler (pytest's capture) sees its records.
    logger = logging.Logger("tests.observability.logs", logging.DEBUG)
    logger.addHandler(handler)
    emit(logger)
    return stream.getvalue()


def scrubbed(text: str, *secrets: str) -> str:
    return RedactSecrets(secrets).scrub(text)


# ---- formats -------------------------------------------------------------------------------------

def test_json_lines_parse_and_carry_the_calls_fields() -> None:
    out = printed("json", lambda log: (
        log.info("update %s %s", 812345678, "answered", extra={"kind": "text", "flow": "bills", "isp_calls": 2,
                                                               "latency_ms": 12.5, "chat": chat_ref(42)}),
        log.warning("plain line"),
    ))
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["msg"] == "update 812345678 answered"
    assert (first["level"], first["logger"]) == ("INFO", "tests.observability.logs")
    assert first["ts"].endswith("+00:00") and "T" in first["ts"]  # ISO 8601, UTC
    assert {k: first[k] for k in ("kind", "flow", "isp_calls", "latency_ms")} == {
        "kind": "text", "flow": "bills", "isp_calls": 2, "latency_ms": 12.5}
    assert first["chat"] == chat_ref(42)
    assert second["msg"] == "plain line" and "kind" not in second


def test_a_json_line_holds_the_traceback_on_one_line() -> None:
    def fail(log: logging.Logger) -> None:
        try:
            raise RuntimeError(f"customer CPF 529.982.247-25 and key {ISP_KEY}")
        except RuntimeError:
            log.exception("could not do it")

    out = printed("json", fail, secrets=(ISP_KEY,))
    assert len(out.splitlines()) == 1
    entry = json.loads(out)
    assert "Traceback (most recent call last)" in entry["exc"] and "RuntimeError" in entry["exc"]
    assert "529.982.247-25" not in out and ISP_KEY not in out
    assert "customer CPF <tax id> and key <secret>" in entry["exc"]


def test_text_lines_are_for_a_person_with_the_fields_after_the_message() -> None:
    out = printed("text", lambda log: log.info("update %s answered", 7, extra={
        "flow": "bills", "step": None, "note": "two words", "isp_calls": 0}))
    [line] = out.splitlines()
    assert " INFO tests.observability.logs: update 7 answered " in line
    assert line.endswith('flow=bills step=- note="two words" isp_calls=0')
    with pytest.raises(json.JSONDecodeError):
        json.loads(line)


def test_auto_is_text_on_a_terminal_and_json_otherwise() -> None:
    assert isinstance(logs.formatter("auto", Tty()), logs.TextFormatter)
    assert isinstance(logs.formatter("auto", io.StringIO()), logs.JsonFormatter)
    assert isinstance(logs.formatter("json", Tty()), logs.JsonFormatter)
    assert isinstance(logs.formatter("text", io.StringIO()), logs.TextFormatter)


@pytest.mark.usefixtures("restore_logging")
def test_configure_sets_level_format_and_the_secrets_it_knows(capsys: pytest.CaptureFixture[str]) -> None:
    logs.configure("WARNING", "json", secrets=[ISP_KEY])
    logging.getLogger("bot.isp").info("not shown at WARNING")
    logging.getLogger("bot.isp").warning("calling with %s", ISP_KEY)
    logging.getLogger("aiosqlite").warning("kept: warnings of quiet libraries still show")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [entry["msg"] for entry in lines] == [
        "calling with <secret>", "kept: warnings of quiet libraries still show"]


# ---- redaction -----------------------------------------------------------------------------------

@pytest.mark.parametrize("tax_id", [
    "52998224725", "529.982.247-25", "11444777000161", "11.444.777/0001-61",
    "12ABC34501DE35", "12.ABC.345/01DE-35", "12abc34501de35", "12.abc.345/01de-35",
])
def test_tax_ids_are_scrubbed_bare_or_punctuated(tax_id: str) -> None:
    assert scrubbed(f"linking with {tax_id}: not found") == "linking with <tax id>: not found"
    assert scrubbed(f'{{"CNPJ_CNPF": "{tax_id}"}}') == '{"CNPJ_CNPF": "<tax id>"}'


@pytest.mark.parametrize("word", ["ABCDEFGHIJKLMNOP", "a1b2c3d4e5f6a7b8c9d0", "v1", "ConsultaClient12", "rel-2026"])
def test_words_that_are_no_tax_id_stay(word: str) -> None:
    assert scrubbed(f"seen {word} here") == f"seen {word} here"


@pytest.mark.parametrize("phone", [
    "+55 11 98765-4321", "+5511987654321", "(11) 98765-4321", "11 98765-4321", "1140041234", "(11) 4004-1234",
    "98765-4321", "55 11 98765 4321",
])
def test_phone_numbers_are_scrubbed_in_their_usual_shapes(phone: str) -> None:
    out = scrubbed(f"contact shared: {phone}.")
    assert out in {"contact shared: <phone>.", "contact shared: <tax id>."}, out
    assert not any(char.isdigit() for char in out)


@pytest.mark.parametrize(("text", "expected"), [
    ("senha=Fibra@2025 ok", "senha=<password> ok"),
    ('{"Senha": "3b5d22e54c", "Usuario": "maria"}', '{"Senha": "<password>", "Usuario": "maria"}'),
    ("password: hunter2!", "password: <password>"),
    ("pppoe_password=abc123 user=maria", "pppoe_password=<password> user=maria"),
    ("passwords: none here", "passwords: none here"),
    ("ChaveIntegracao=abc123&x=1", "ChaveIntegracao=<password>&x=1"),
    ("authentication_key: 'k-123'", "authentication_key: '<password>'"),
])
def test_values_of_password_like_names_are_scrubbed(text: str, expected: str) -> None:
    assert scrubbed(text) == expected


def test_the_secrets_given_are_scrubbed_wherever_they_appear() -> None:
    assert scrubbed(f"POST https://erp/ws?key={ISP_KEY}x", ISP_KEY) == "POST https://erp/ws?key=<secret>x"
    assert scrubbed(f"https://api.telegram.org/bot{TOKEN}/getMe") == "https://api.telegram.org/bot<bot token>/getMe"
    # Too short to be a real secret: scrubbing it would eat ordinary words.
    assert scrubbed("the key is k", "k") == "the key is k"


# A chat reference is keyed per process: built in the test, so every pytest-xdist worker collects the same ids.
@pytest.mark.parametrize("kept", [
    "update 812345678 answered in 12.5 ms", "ticket 70001, contract 5001, document 300001",
    "2026-11-23 15:20:19 at 127.0.0.1:8080", "chat {ref}", "staff group -1001234567890",
    "isp ConsultaClientes gen 1.0 answered in 35.2 ms",
])
def test_ids_times_and_chat_references_are_left_readable(kept: str) -> None:
    kept = kept.format(ref=chat_ref(11987654321))
    assert scrubbed(kept) == kept


def test_extra_fields_are_scrubbed_too_and_numbers_kept() -> None:
    out = printed("json", lambda log: log.info("shared", extra={"said": "meu cpf é 52998224725", "isp_calls": 3}))
    entry = json.loads(out)
    assert entry["said"] == "meu cpf é <tax id>" and entry["isp_calls"] == 3


def test_a_record_the_filter_cannot_read_is_printed_without_raising(capsys: pytest.CaptureFixture[str]) -> None:
    class Unprintable:
        def __str__(self) -> str:
            raise ValueError("no")

    out = printed("json", lambda log: log.info("value %s and cpf 52998224725", Unprintable()))
    assert "52998224725" not in out + capsys.readouterr().err
    assert json.loads(out)["logger"] == "tests.observability.logs"


# ---- chat references -----------------------------------------------------------------------------

def test_chat_references_are_keyed_stable_and_never_shaped_like_a_phone() -> None:
    chats = range(11_900_000_000, 11_900_002_000)
    refs = {chat_ref(chat) for chat in chats}
    assert len(refs) == len(chats)  # distinct
    assert all(ref.startswith("c") and len(ref) == 13 for ref in refs)
    assert all(scrubbed(f"chat {ref}") == f"chat {ref}" for ref in refs)
    logs.set_chat_key("another bot")  # whatever key an earlier test (``ispbot run``) left behind
    try:
        before = chat_ref(42)
        assert chat_ref(42) == before
        logs.set_chat_key(TOKEN)
        keyed = chat_ref(42)
        assert keyed != before  # the key decides the reference: nobody without it can compute one
        logs.set_chat_key(TOKEN)
        assert chat_ref(42) == keyed  # every process of one bot gives a chat the same reference
    finally:
        logs.set_chat_key("tests")


# ---- settings ------------------------------------------------------------------------------------

@pytest.fixture
def telegram_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("ISPBOT_") and name != "ISPBOT_TEST_DATABASE_URL":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", TOKEN)


@pytest.mark.usefixtures("telegram_environment")
def test_log_settings_default_to_auto_and_info_and_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = TelegramSettings()
    assert (settings.log_format, settings.log_level) == ("auto", "INFO")
    monkeypatch.setenv("ISPBOT_LOG_FORMAT", "text")
    monkeypatch.setenv("ISPBOT_LOG_LEVEL", " debug ")
    settings = TelegramSettings()
    assert (settings.log_format, settings.log_level) == ("text", "DEBUG")


@pytest.mark.usefixtures("telegram_environment")
@pytest.mark.parametrize(("name", "value"), [("ISPBOT_LOG_FORMAT", "xml"), ("ISPBOT_LOG_LEVEL", "LOUD")])
def test_a_wrong_log_setting_is_named(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError) as caught:
        TelegramSettings()
    message = settings_problem(caught.value, TelegramSettings)
    assert message.startswith(f"{name}: ") and "\n" not in message


@pytest.mark.usefixtures("restore_logging")
def test_the_short_sub_commands_print_plain_scrubbed_lines(capsys: pytest.CaptureFixture[str]) -> None:
    logging.getLogger().handlers.clear()
    logs.configure_fallback()
    logging.getLogger("bot.isp").warning("ConsultaClientes refused for 529.982.247-25")
    logging.getLogger("bot.isp").info("not at WARNING")
    assert capsys.readouterr().err == "WARNING bot.isp: ConsultaClientes refused for <tax id>\n"
    logs.configure_fallback()  # once set up, a second call adds nothing
    assert len(logging.getLogger().handlers) == 1


# ---- ispbot run ----------------------------------------------------------------------------------

@pytest.mark.usefixtures("restore_logging", "telegram_environment")
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_ispbot_run_logs_in_the_format_its_settings_say(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"
    asyncio.run(asyncio.wait_for(_migrated(url), 30))
    monkeypatch.setenv("ISPBOT_DATABASE_URL", url)
    monkeypatch.setenv("ISPBOT_ISP_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("ISPBOT_ISP_KEY", ISP_KEY)
    monkeypatch.setenv("ISPBOT_LOG_FORMAT", fmt)
    with rejecting_bot_api() as api_url:
        monkeypatch.setenv("ISPBOT_TELEGRAM_API_URL", api_url)
        assert cli.main(["run"]) == 1
    err = capsys.readouterr().err
    assert TOKEN not in err and ISP_KEY not in err
    last = err.splitlines()[-1]
    if fmt == "json":
        entry = json.loads(last)
        assert (entry["level"], entry["logger"]) == ("ERROR", "bot.runtime.run")
        assert "ISPBOT_TELEGRAM_TOKEN" in entry["msg"]
    else:
        assert " ERROR bot.runtime.run: token refused by Telegram (401 Unauthorized)" in last
