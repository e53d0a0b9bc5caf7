"""The Dockerfile and compose.yaml match the project (no Docker engine here: they are read, not built)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml
from bot.channels.telegram.settings import TelegramSettings
from bot.cli import build_parser
from bot.isp import IspSettings
from bot.isp.settings import is_loopback_host
from bot.sandbox import PRODUCTION_KEY, Sandbox
from bot.sandbox.cli import run as serve_sandbox
from bot.settings import BotSettings
from bot.web import create_web_app

ROOT = Path(__file__).resolve().parents[2]


def instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    found = []
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def final_stage() -> list[tuple[str, str]]:
    steps = instructions()
    last_from = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last_from:]


def env(stage: list[tuple[str, str]]) -> dict[str, str]:
    values: dict[str, str] = {}
    for word, rest in stage:
        if word == "ENV":
            values.update(part.split("=", 1) for part in shlex.split(rest))
    return values


def test_every_copied_path_exists_in_the_project() -> None:
    for word, rest in instructions():
        if word == "COPY" and not rest.startswith("--from"):
            for source in shlex.split(rest)[:-1]:
                assert (ROOT / source).exists(), f"Dockerfile copies {source}, which is not in the project"


def test_the_image_runs_migrations_then_the_bot_as_a_non_root_user() -> None:
    stage = final_stage()
    [(_, entrypoint)] = [(w, r) for w, r in stage if w == "ENTRYPOINT"]
    commands = re.findall(r"ispbot (\w+)", entrypoint)
    assert commands == ["migrate", "run"]
    known = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert all(command in known for command in commands)
    [(_, user)] = [(w, r) for w, r in stage if w == "USER"]
    assert user not in ("root", "0")
    assert stage[0][1].startswith("python:3.11-slim")


def test_the_healthcheck_asks_the_bots_own_healthz_on_the_port_it_listens_on() -> None:
    stage = final_stage()
    variables = env(stage)
    port = variables["ISPBOT_LISTEN_PORT"]
    [(_, check)] = [(w, r) for w, r in stage if w == "HEALTHCHECK"]
    assert f"http://127.0.0.1:{port}/healthz" in check
    assert ("EXPOSE", port) in stage
    paths = {route.path for route in create_web_app(health=None).routes}  # type: ignore[arg-type, attr-defined]
    assert "/healthz" in paths
    assert variables["ISPBOT_LISTEN_HOST"] == "0.0.0.0"  # noqa: S104 - reachable from outside the container
    assert {"listen_port", "listen_host"} <= set(TelegramSettings.model_fields)


def test_the_locales_are_where_the_image_tells_the_bot_to_read_them() -> None:
    stage = final_stage()
    copied = [shlex.split(rest) for word, rest in stage if word == "COPY" and not rest.startswith("--from")]
    assert ["locales", env(stage)["ISPBOT_LOCALES_DIR"]] in copied


def test_compose_sets_only_settings_the_bot_knows() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    bot = compose["services"]["bot"]
    fields = set(BotSettings.model_fields) | set(TelegramSettings.model_fields)
    for name in bot["environment"]:
        assert name.startswith("ISPBOT_") and name.removeprefix("ISPBOT_").lower() in fields
    assert bot["depends_on"]["db"]["condition"] == "service_healthy"
    assert compose["services"]["db"]["environment"]["POSTGRES_DB"] in bot["environment"]["ISPBOT_DATABASE_URL"]


def test_the_sandbox_service_is_optional_and_serves_the_isp_where_the_bot_may_use_plain_http() -> None:
    text = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    services = yaml.safe_load(text)["services"]
    sandbox = services["sandbox"]
    assert sandbox["profiles"] == ["try"]  # `docker compose up` alone never starts it
    assert sandbox["build"] == services["bot"]["build"]  # the bot's own image
    assert "sandbox" not in services["bot"].get("depends_on", {})
    # The image's entry point is migrate-and-run: the sandbox replaces it with its own command.
    command = sandbox["entrypoint"]
    assert command[0] == "ispbot"
    args = build_parser().parse_args(command[1:])
    assert args.func is serve_sandbox
    # In the bot's network namespace, on loopback: the one place the bot accepts plain http.
    assert sandbox["network_mode"] == "service:bot"
    assert is_loopback_host(args.host)
    assert f"127.0.0.1', {args.port})" in " ".join(sandbox["healthcheck"]["test"])
    # What compose.yaml tells the operator to put in .env is accepted by the bot and by the sandbox.
    base_url = f"http://127.0.0.1:{args.port}"
    assert f"ISPBOT_ISP_BASE_URL={base_url}" in text and f"ISPBOT_ISP_KEY={PRODUCTION_KEY}" in text
    assert IspSettings(base_url=base_url, key=PRODUCTION_KEY).base_url == base_url
    key = Sandbox.seeded().keys.get(PRODUCTION_KEY)
    assert key is not None and key.permits("chat_messages")
