"""How an operator configures the Telegram side (``ISPBOT_*``), what ``ispbot run`` says when a setting
is wrong, and that the bot token never reaches the logs."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import NamedTuple

import pytest
from bot import cli, logs
from bot.channels.telegram.settings import TelegramSettings
from bot.commands.run import load_settings
from bot.commands.support import Refused
from bot.logs import RedactSecrets
from bot.runtime import run as telegram_run
from bot.sandbox import Sandbox
from bot.store import Database
from pydantic import ValidationError
from telegram.error import InvalidToken

from tests.store.dbtools import make_database
from tests.telegram.fake_bot_api import DEFAULT_TOKEN
from tests.telegram.harness import running_bot

TOKEN = "7412589630:AAHd-Xq3rJ_9vNc2LmPz8TyKe5WuBg1sQoF"  # the shape @BotFather gives
SECRET = "Wh-secret_0123456789abcdef"
NOISY = ("httpx", "httpcore", "telegram", "uvicorn", "bot", "flows", "aiosqlite", "asyncio", "sqlalchemy")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Only what a test sets: no ISPBOT_* from the machine, no .env from the working directory."""
    for name in list(os.environ):
        if name.startswith("ISPBOT_") and name != "ISPBOT_TEST_DATABASE_URL":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """``ispbot run`` configures the process's logging; put it back for the other tests."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    levels = {name: logging.getLogger(name).level for name in logs.QUIET}
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, saved in levels.items():
        logging.getLogger(name).setLevel(saved)


def isp_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISPBOT_ISP_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("ISPBOT_ISP_KEY", "isp-key-for-the-tests")


def settings_error(monkeypatch: pytest.MonkeyPatch) -> str:
    isp_environment(monkeypatch)
    with pytest.raises(Refused) as caught:
        load_settings()
    assert caught.value.code == 2
    message = str(caught.value)
    assert "\n" not in message  # one wrong variable, one line (for the operator's terminal or the journal)
    return message.removeprefix("configuration: ")


# ---- settings ------------------------------------------------------------------------------------

def test_polling_is_the_default_with_only_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", TOKEN)
    settings = TelegramSettings()
    assert settings.telegram_token.get_secret_value() == TOKEN
    assert settings.mode == "polling"
    assert settings.base_url == "https://api.telegram.org/bot"
    assert (settings.listen_host, settings.listen_port) == ("127.0.0.1", 8080)
    assert settings.webhook_url is None and settings.webhook_secret is None and settings.staff_chat_id is None
    assert settings.concurrency == 12
    assert settings.paid_broadcast is False
    assert TOKEN not in repr(settings) and TOKEN not in str(settings)


def test_every_setting_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "ISPBOT_TELEGRAM_TOKEN": f"  {TOKEN}\n",  # pasted from a file, with its newline
        "ISPBOT_TELEGRAM_API_URL": "http://127.0.0.1:8081/",  # a self-hosted telegram-bot-api
        "ISPBOT_MODE": "webhook",
        "ISPBOT_WEBHOOK_URL": "https://bot.example.net/",
        "ISPBOT_WEBHOOK_SECRET": SECRET,
        "ISPBOT_LISTEN_HOST": "0.0.0.0",  # noqa: S104 - behind the operator's proxy
        "ISPBOT_LISTEN_PORT": "9000",
        "ISPBOT_STAFF_CHAT_ID": "-1001234567890",
        "ISPBOT_CONCURRENCY": "8",
        "ISPBOT_PAID_BROADCAST": "true",
    }.items():
        monkeypatch.setenv(name, value)
    settings = TelegramSettings()
    assert settings.telegram_token.get_secret_value() == TOKEN
    assert settings.base_url == "http://127.0.0.1:8081/bot"
    assert settings.mode == "webhook"
    assert settings.webhook_url == "https://bot.example.net"
    assert settings.webhook_secret is not None and settings.webhook_secret.get_secret_value() == SECRET
    assert (settings.listen_host, settings.listen_port) == ("0.0.0.0", 9000)  # noqa: S104
    assert settings.staff_chat_id == -1001234567890
    assert settings.concurrency == 8
    assert settings.paid_broadcast is True
    assert SECRET not in repr(settings) and TOKEN not in repr(settings)


def test_the_webhook_path_is_a_hash_of_the_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    def path(secret: str) -> str:
        return TelegramSettings(telegram_token=TOKEN, mode="webhook", webhook_url="https://bot.example.net",
                                webhook_secret=secret).webhook_path

    first = path(SECRET)
    assert first.startswith("/telegram/") and len(first) == len("/telegram/") + 32
    assert SECRET not in first
    assert path(SECRET) == first  # stable across restarts: Telegram keeps posting to it
    assert path(SECRET + "x") != first


@pytest.mark.parametrize(("environment", "variable"), [
    ({}, "ISPBOT_WEBHOOK_URL"),
    ({"ISPBOT_WEBHOOK_URL": "http://bot.example.net"}, "ISPBOT_WEBHOOK_URL"),  # Telegram posts over https only
    ({"ISPBOT_WEBHOOK_URL": "bot.example.net"}, "ISPBOT_WEBHOOK_URL"),
    ({"ISPBOT_WEBHOOK_URL": "https://bot.example.net"}, "ISPBOT_WEBHOOK_SECRET"),
    ({"ISPBOT_WEBHOOK_URL": "https://bot.example.net", "ISPBOT_WEBHOOK_SECRET": "short"}, "ISPBOT_WEBHOOK_SECRET"),
    ({"ISPBOT_WEBHOOK_URL": "https://bot.example.net", "ISPBOT_WEBHOOK_SECRET": "has spaces in it, 0123456789"},
     "ISPBOT_WEBHOOK_SECRET"),
])
def test_webhook_mode_needs_an_https_url_and_a_secret(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], variable: str,
) -> None:
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", TOKEN)
    monkeypatch.setenv("ISPBOT_MODE", "webhook")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        TelegramSettings()
    message = settings_error(monkeypatch)
    assert variable in message
    if "ISPBOT_WEBHOOK_SECRET" in environment:
        assert environment["ISPBOT_WEBHOOK_SECRET"] not in message


@pytest.mark.parametrize("token", [
    "", "abc", "7412589630", "7412589630:", "7412589630:short", ":AAHd-Xq3rJ_9vNc2LmPz8TyKe5WuBg1sQoF",
    f"bot{TOKEN}", TOKEN.replace("-", " "), f"{TOKEN}/getMe", TOKEN.replace(":", ";"),
])
def test_a_malformed_token_is_refused_naming_the_variable_not_the_value(
    monkeypatch: pytest.MonkeyPatch, token: str,
) -> None:
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", token)
    with pytest.raises(ValidationError):
        TelegramSettings()
    message = settings_error(monkeypatch)
    # An empty one is no token: with no other channel, the refusal says to set it.
    expected = "ISPBOT_TELEGRAM_TOKEN: " if token else "no channel is configured: set ISPBOT_TELEGRAM_TOKEN"
    assert message.startswith(expected)
    if len(token) > 5:
        assert token not in message  # a mistyped token is still mostly a secret


@pytest.mark.parametrize(("name", "value"), [
    ("ISPBOT_MODE", "push"),
    ("ISPBOT_LISTEN_PORT", "0"),
    ("ISPBOT_LISTEN_PORT", "http"),
    ("ISPBOT_CONCURRENCY", "0"),
    ("ISPBOT_STAFF_CHAT_ID", "@staff"),
    ("ISPBOT_TELEGRAM_API_URL", "api.telegram.org"),
])
def test_load_settings_names_the_wrong_variable_in_one_line(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str,
) -> None:
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", TOKEN)
    monkeypatch.setenv(name, value)
    message = settings_error(monkeypatch)
    assert message.startswith(f"{name}: ")
    assert TOKEN not in message


def test_load_settings_reads_the_three_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", TOKEN)
    monkeypatch.setenv("ISPBOT_DATABASE_URL", "sqlite:///bot.sqlite3")
    isp_environment(monkeypatch)
    settings = load_settings()
    assert settings.telegram is not None and settings.telegram.telegram_token.get_secret_value() == TOKEN
    assert settings.whatsapp is None  # not configured: no WhatsApp channel
    assert settings.isp.base_url.startswith("http://127.0.0.1:9")
    assert settings.bot.database_url == "sqlite:///bot.sqlite3"


def test_load_settings_names_the_isp_variables_it_lacks_one_line_each(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", TOKEN)
    with pytest.raises(Refused) as caught:
        load_settings()
    assert str(caught.value).splitlines() == [
        "configuration: ISPBOT_ISP_BASE_URL: not set (Root of the installation, e.g. https://erp.example.net)",
        "configuration: ISPBOT_ISP_KEY: not set (Integration key of the web-service instance)",
    ]


def test_an_empty_variable_counts_as_unset(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``ISPBOT_STAFF_CHAT_ID=`` (a line of .env.example filled in halfway) is the default, not an error."""
    (tmp_path / ".env").write_text(f"ISPBOT_TELEGRAM_TOKEN={TOKEN}\nISPBOT_STAFF_CHAT_ID=\nISPBOT_WEBHOOK_URL=\n")
    monkeypatch.setenv("ISPBOT_CONCURRENCY", "")
    settings = TelegramSettings()
    assert (settings.staff_chat_id, settings.webhook_url, settings.concurrency) == (None, None, 12)


def test_the_environment_wins_over_the_dotenv_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"ISPBOT_TELEGRAM_TOKEN={TOKEN}\nISPBOT_CONCURRENCY=4\n")
    monkeypatch.setenv("ISPBOT_CONCURRENCY", "6")
    assert TelegramSettings().concurrency == 6


def test_a_dotenv_file_in_the_working_directory_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"ISPBOT_TELEGRAM_TOKEN={TOKEN}\nISPBOT_CONCURRENCY=4\n")
    settings = TelegramSettings()
    assert settings.telegram_token.get_secret_value() == TOKEN and settings.concurrency == 4


# ---- ispbot run ----------------------------------------------------------------------------------

@pytest.fixture
def nothing_runs(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Records an attempt to start the bot (it must not happen when a setting is wrong)."""
    started: list[object] = []

    async def run(*args: object, **kwargs: object) -> None:
        started.append(args)

    monkeypatch.setattr(telegram_run, "run", run)
    return started


@pytest.mark.usefixtures("restore_logging")
def test_ispbot_run_with_nothing_set_names_every_missing_variable_and_starts_nothing(
    capsys: pytest.CaptureFixture[str], nothing_runs: list[object],
) -> None:
    assert cli.main(["run"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    first, *rest = err.splitlines()
    assert "no channel is configured" in first and "ISPBOT_TELEGRAM_TOKEN" in first, err
    assert "ISPBOT_WHATSAPP_TOKEN" in first and "ISPBOT_WHATSAPP_PHONE_NUMBER_ID" in first
    named = [line.split(": ")[2] for line in rest]
    assert named == ["ISPBOT_ISP_BASE_URL", "ISPBOT_ISP_KEY"], err
    assert all(line.startswith("ispbot run: configuration: ") for line in err.splitlines())
    assert nothing_runs == []


@pytest.mark.usefixtures("restore_logging")
def test_ispbot_run_with_a_malformed_token_does_not_print_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, nothing_runs: list[object],
) -> None:
    mistyped = TOKEN.replace(":", "")
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", mistyped)
    isp_environment(monkeypatch)
    assert cli.main(["run"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "ISPBOT_TELEGRAM_TOKEN" in err
    assert mistyped not in err
    assert nothing_runs == []


@pytest.mark.usefixtures("restore_logging")
def test_ispbot_run_in_webhook_mode_without_a_url_names_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, nothing_runs: list[object],
) -> None:
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", TOKEN)
    monkeypatch.setenv("ISPBOT_MODE", "webhook")
    monkeypatch.setenv("ISPBOT_WEBHOOK_SECRET", SECRET)
    isp_environment(monkeypatch)
    assert cli.main(["run"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "ISPBOT_WEBHOOK_URL" in err
    assert SECRET not in err and TOKEN not in err
    assert nothing_runs == []


class _OddBotApi(BaseHTTPRequestHandler):
    """A Bot API server giving every call one answer: Telegram's to a revoked token by default."""

    status = 401
    body = b'{"ok": false, "error_code": 401, "description": "Unauthorized"}'
    content_type = "application/json"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(self.status)
        self.send_header("Content-Type", self.content_type)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def do_GET(self) -> None:
        self.do_POST()

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def odd_bot_api(status: int, body: bytes, content_type: str) -> Iterator[str]:
    handler = type("Handler", (_OddBotApi,), {"status": status, "body": body, "content_type": content_type})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def rejecting_bot_api() -> contextlib.AbstractContextManager[str]:
    """A Bot API server that rejects every token, as Telegram does once a token was revoked."""
    return odd_bot_api(_OddBotApi.status, _OddBotApi.body, _OddBotApi.content_type)


PORTAL = b"<!DOCTYPE html><html><body><h1>Captive portal</h1></body></html>"


class OddStart(NamedTuple):
    status: int
    body: bytes
    content_type: str
    said: str  # in the one line naming the fix


@pytest.mark.usefixtures("restore_logging")
@pytest.mark.parametrize("odd", [
    OddStart(401, _OddBotApi.body, "application/json",
             "token refused by Telegram (401 Unauthorized): set ISPBOT_TELEGRAM_TOKEN"),
    OddStart(404, b'{"ok": false, "error_code": 404, "description": "Not Found"}', "application/json",
             "answered getMe with Not Found: check ISPBOT_TELEGRAM_API_URL"),
    OddStart(404, b"<html><body>404 Not Found</body></html>", "text/html",
             "answered getMe with Not Found (404), not from the Bot API's JSON: check ISPBOT_TELEGRAM_API_URL"),
    OddStart(200, PORTAL, "text/html",
             "gave getMe an answer that is not the Bot API's JSON (a page or a truncated body): check "
             "ISPBOT_TELEGRAM_API_URL"),
], ids=["revoked token", "404", "404 page", "html 200"])
def test_ispbot_run_against_what_is_not_the_bot_api_stops_at_once_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, odd: OddStart,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"
    asyncio.run(asyncio.wait_for(_migrated(url), 30))
    monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", TOKEN)
    monkeypatch.setenv("ISPBOT_DATABASE_URL", url)
    monkeypatch.setenv("ISPBOT_LISTEN_PORT", "1")  # never reached: the token is checked first
    monkeypatch.setenv("ISPBOT_LOG_FORMAT", "text")
    isp_environment(monkeypatch)
    with odd_bot_api(odd.status, odd.body, odd.content_type) as api_url:
        monkeypatch.setenv("ISPBOT_TELEGRAM_API_URL", api_url)
        stderr = io.StringIO()
        try:
            code = cli.main(["run"])
        except BaseException as exc:  # what the process would print as its last words
            stderr.write(f"{type(exc).__name__}: {exc}")
            raise AssertionError(f"ispbot run crashed: {type(exc).__name__}") from None
    err = capsys.readouterr().err + stderr.getvalue()
    assert code == 1
    assert [line for line in err.splitlines() if "ISPBOT_TELEGRAM" in line] == [
        line for line in err.splitlines() if odd.said in line
    ] != []
    assert "Traceback" not in err and "<html" not in err.lower()
    assert TOKEN not in err


async def _migrated(url: str) -> None:
    database = await make_database(url)
    await database.dispose()


# ---- the token never reaches the logs --------------------------------------------------------------

async def test_a_polling_bot_logs_nothing_that_holds_its_token(
    database: Database, sandbox: Sandbox, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    for name in NOISY:
        caplog.set_level(logging.DEBUG, logger=name)
    caplog.handler.addFilter(RedactSecrets())
    try:
        async with running_bot(database, sandbox) as bot:
            chat = bot.chat(7701)
            await chat.start()
            bot.api.fail_next("sendMessage", 400, description="Bad Request: message text is empty")
            await chat.say("oi")
            await chat.tap("CPF/CNPJ")
    finally:
        caplog.handler.removeFilter(caplog.handler.filters[-1])
    assert caplog.records, "the scenario logged nothing: the test would prove nothing"
    # python-telegram-bot logged each Bot API exchange (aiohttp, its transport here, logs no URLs):
    # the scan below covers them.
    assert any(record.name.startswith("telegram") for record in caplog.records)
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    for record in caplog.records:
        assert DEFAULT_TOKEN not in formatter.format(record), record.name
    assert DEFAULT_TOKEN not in caplog.text
    assert DEFAULT_TOKEN.split(":", 1)[1] not in caplog.text  # not even the part after the bot's id


# ---- RedactSecrets -------------------------------------------------------------------------------

def emitted(logger_name: str, emit: object) -> str:
    """What a handler with RedactSecrets prints for the records ``emit(logger)`` logs."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets())
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        assert callable(emit)
        emit(logger)
    finally:
        logger.removeHandler(handler)
    return stream.getvalue()


def test_redact_secrets_scrubs_a_token_in_the_message_or_its_arguments() -> None:
    text = emitted("tests.redact.args", lambda log: (
        log.info('HTTP Request: POST %s "HTTP/1.1 200 OK"', f"https://api.telegram.org/bot{TOKEN}/getMe"),
        log.warning(f"token {TOKEN} in the format string itself"),
        log.info("dict argument %(url)s", {"url": f"/bot{TOKEN}/sendMessage"}),
    ))
    assert TOKEN not in text and TOKEN.split(":", 1)[1] not in text
    assert "https://api.telegram.org/bot<bot token>/getMe" in text
    assert "token <bot token> in the format string itself" in text
    assert "/bot<bot token>/sendMessage" in text


def test_redact_secrets_leaves_other_records_as_they_are() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "update %s for chat %s at %s", (12, 34, "10:30"), None)
    assert RedactSecrets().filter(record) is True
    assert (record.msg, record.args) == ("update %s for chat %s at %s", (12, 34, "10:30"))


def test_redact_secrets_scrubs_the_traceback_of_an_exception() -> None:
    def log_failure(log: logging.Logger) -> None:
        try:
            raise InvalidToken(f"The token `{TOKEN}` was rejected by the server.")
        except InvalidToken:
            log.exception("could not start")

    text = emitted("tests.redact.exc", log_failure)
    assert TOKEN not in text
    assert "The token `<bot token>` was rejected by the server." in text
    assert "Traceback (most recent call last)" in text and "could not start" in text


def test_redact_secrets_scrubs_every_token_the_settings_accept() -> None:
    shortest = "1:" + "A" * 20  # the least TelegramSettings takes for a token
    TelegramSettings(telegram_token=shortest)
    text = emitted("tests.redact.short", lambda log: log.info("calling /bot%s/getMe", shortest))
    assert shortest not in text and "<bot token>" in text


def test_a_malformed_logging_call_neither_raises_nor_leaks(capsys: pytest.CaptureFixture[str]) -> None:
    def bad_call(log: logging.Logger) -> None:
        log.info("telegram %s to chat %s", f"/bot{TOKEN}/sendMessage")  # noqa: PLE1206 - one argument short

    text = emitted("tests.redact.malformed", bad_call)  # logging's own "--- Logging error ---" goes to stderr
    assert TOKEN not in text + capsys.readouterr().err


@pytest.mark.usefixtures("restore_logging")
def test_configure_prints_scrubbed_lines_and_keeps_httpx_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    logs.configure(logging.DEBUG)
    logging.getLogger("httpx").info("HTTP Request: POST https://api.telegram.org/bot%s/getUpdates", TOKEN)
    logging.getLogger("bot.runtime.run").error("Telegram refused %s", TOKEN)
    err = capsys.readouterr().err
    assert TOKEN not in err
    assert "getUpdates" not in err  # httpx's request lines stay out even at DEBUG
    assert "Telegram refused <bot token>" in err
