"""The Dockerfile and compose.yaml match the project. Read here, not built: ``make image-check``
(.ci/image_check.py) builds the image and runs it and the compose stack on a Docker daemon of its own."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from bot.channels.telegram.settings import TelegramSettings
from bot.cli import build_parser
from bot.commands.migrate import run as migrate_database
from bot.commands.sandbox import run as serve_sandbox
from bot.env_example import settings_variables
from bot.isp import IspSettings
from bot.isp.settings import is_loopback_host
from bot.sandbox import PRODUCTION_KEY, Sandbox
from bot.sandbox.server import free_port
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


def stages() -> dict[str, list[tuple[str, str]]]:
    """Each stage's instructions by its name (``AS name``; the last, unnamed one is ``final``)."""
    found: dict[str, list[tuple[str, str]]] = {}
    for word, rest in instructions():
        if word == "FROM":
            parts = rest.split()
            current = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else "final"
            found[current] = []
        found[current].append((word, rest))
    return found


def test_the_image_runs_any_ispbot_command_run_by_default_as_a_numeric_non_root_user() -> None:
    stage = final_stage()
    [(_, entrypoint)] = [(w, r) for w, r in stage if w == "ENTRYPOINT"]
    [(_, command)] = [(w, r) for w, r in stage if w == "CMD"]
    assert json.loads(entrypoint) == ["ispbot"]  # `docker run ispbot doctor` runs the doctor
    assert json.loads(command) == ["run"]
    assert build_parser().parse_args(json.loads(command)).func is not None
    [(_, user)] = [(w, r) for w, r in stage if w == "USER"]
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) > 0 and (not gid or gid.isdigit())  # numeric: runAsNonRoot can check it


def test_the_base_image_is_pinned_to_a_python_and_a_debian_release() -> None:
    bases = [rest.split()[0] for word, rest in instructions() if word == "FROM" and ":" in rest.split()[0]]
    assert bases
    for base in bases:
        assert re.fullmatch(r"python:3\.11\.\d+-slim-(bookworm|trixie)(@sha256:[0-9a-f]{64})?", base), base


def test_dependencies_come_from_the_lock_with_hashes_before_the_code_is_copied() -> None:
    dependencies = stages()["dependencies"]
    copied = [shlex.split(rest)[0] for word, rest in dependencies if word == "COPY"]
    assert copied == ["requirements.lock"]  # nothing else: a change of the code keeps this layer
    [install] = [rest for word, rest in dependencies if word == "RUN" and pip_installs(rest)]
    assert "--require-hashes" in install and "requirements.lock" in install
    final = final_stage()
    assert any(word == "COPY" and "--from=dependencies" in rest for word, rest in final)
    [project] = [rest for word, rest in final if word == "RUN" and pip_installs(rest)]
    assert "--no-deps" in project  # the project's wheel adds nothing the lock did not pin


def pip_installs(command: str) -> bool:
    return re.search(r"\bpip (--python \S+ )?install\b", command) is not None


def test_the_environment_has_no_pip_of_its_own_the_bases_installs_into_it() -> None:
    [venv] = [rest for word, rest in stages()["dependencies"] if word == "RUN" and "venv" in rest]
    assert "--without-pip" in venv and "/opt/ispbot" in venv  # pip and setuptools, never used at run time
    for stage in ("dependencies", "final"):
        [install] = [rest for word, rest in stages()[stage] if word == "RUN" and pip_installs(rest)]
        assert "pip --python /opt/ispbot/bin/python install" in install


def test_it_builds_with_the_builders_own_front_end_no_registry_needed() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    # A parser directive (`# syntax=`) makes BuildKit fetch its front end from a registry first.
    assert not re.search(r"^#\s*syntax\s*=", text, re.IGNORECASE | re.MULTILINE)
    assert "BuildKit" in text.split("FROM", 1)[0]  # the header says which builder RUN --mount needs
    assert any(word == "RUN" and rest.startswith("--mount=") for word, rest in instructions())


def test_a_certificate_authority_and_an_index_can_be_given_to_the_build_stages_only() -> None:
    found = stages()
    for stage in ("dependencies", "wheel"):
        assert ("ARG", "PIP_INDEX_URL") in found[stage]
        downloads = [rest for word, rest in found[stage] if word == "RUN" and "--require-hashes" in rest]
        assert downloads
        for rest in downloads:  # the secret is mounted for the step only, never copied into a layer
            assert rest.startswith("--mount=type=secret,id=ca ")
            assert "export PIP_CERT=/run/secrets/ca" in rest
    final = found["final"]
    assert not any("PIP_INDEX_URL" in rest or "secret" in rest for _, rest in final)
    assert "--secret id=ca,src=" in (ROOT / "Dockerfile").read_text(encoding="utf-8")  # how to pass it


def test_the_wheel_is_built_by_the_locked_build_backend_with_the_locales() -> None:
    wheel = stages()["wheel"]
    [backend, build] = [rest for word, rest in wheel if word == "RUN"]
    assert "--require-hashes" in backend and "requirements-build.lock" in backend
    assert "--no-build-isolation" in build  # not a backend fetched at build time
    copied = [shlex.split(rest)[0] for word, rest in wheel if word == "COPY"]
    assert copied[0] == "requirements-build.lock"
    assert "locales" in copied  # bot/_locales points at it: the wheel carries what the bot says


def test_the_labels_name_the_image_and_its_version() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    for label in ("title", "description", "version", "licenses"):
        assert f"org.opencontainers.image.{label}=" in text
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert f"ARG VERSION={version}" in text


def test_the_healthcheck_asks_liveness_on_the_port_the_bot_listens_on() -> None:
    stage = final_stage()
    variables = env(stage)
    port = variables["ISPBOT_LISTEN_PORT"]
    [(_, check)] = [(w, r) for w, r in stage if w == "HEALTHCHECK"]
    [(_, copied)] = [(w, r) for w, r in stage if w == "COPY" and "healthcheck" in r]
    source, target = shlex.split(copied)
    assert json.loads(check.split("CMD", 1)[1]) == ["python", target]
    # Liveness, not /healthz: the container must not be restarted while the ISP is down.
    script = (ROOT / source).read_text(encoding="utf-8")
    assert "http://127.0.0.1:{port}/livez" in script and 'os.environ.get("ISPBOT_LISTEN_PORT", "8080")' in script
    assert port == "8080" and ("EXPOSE", port) in stage
    paths = {route.path for route in create_web_app(health=None).routes}  # type: ignore[arg-type, attr-defined]
    assert "/livez" in paths
    assert variables["ISPBOT_LISTEN_HOST"] == "0.0.0.0"  # noqa: S104 - reachable from outside the container
    assert {"listen_port", "listen_host"} <= set(TelegramSettings.model_fields)


def healthcheck() -> Any:
    spec = importlib.util.spec_from_file_location("healthcheck", ROOT / "docker" / "healthcheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_proc(folder: Path, *command_lines: list[str]) -> Path:
    (folder / "self").mkdir(parents=True)  # not a process
    for pid, args in enumerate(command_lines, start=1):
        (folder / str(pid)).mkdir()
        (folder / str(pid) / "cmdline").write_bytes(b"\0".join(arg.encode() for arg in args) + b"\0")
    return folder


def test_the_healthcheck_knows_the_sub_command_however_the_container_started_it() -> None:
    command_of = healthcheck().command_of
    assert command_of(b"/opt/ispbot/bin/python\0/opt/ispbot/bin/ispbot\0run\0") == "run"  # the entry point
    assert command_of(b"/sbin/docker-init\0--\0ispbot\0run\0") == "run"  # docker run --init
    assert command_of(b"/opt/ispbot/bin/python\0/opt/ispbot/bin/ispbot\0sandbox\0--port\08077\0") == "sandbox"
    assert command_of(b"/opt/ispbot/bin/python\0/opt/ispbot/healthcheck.py\0") is None
    assert command_of(b"ispbot\0--version\0") is None


def test_the_healthcheck_asks_only_a_container_that_runs_the_bot(tmp_path: Path) -> None:
    module = healthcheck()
    bot = ["/opt/ispbot/bin/python", "/opt/ispbot/bin/ispbot", "run"]
    sandbox = ["/opt/ispbot/bin/python", "/opt/ispbot/bin/ispbot", "sandbox", "--host", "127.0.0.1"]
    assert module.runs_the_bot(fake_proc(tmp_path / "a", sandbox, ["python", "/opt/ispbot/healthcheck.py"])) is False
    assert module.runs_the_bot(fake_proc(tmp_path / "b", ["/sbin/docker-init", "--", "ispbot", "run"])) is True
    assert module.runs_the_bot(fake_proc(tmp_path / "c", sandbox, bot)) is True


def test_the_healthcheck_passes_with_nothing_to_ask_and_fails_when_livez_does_not_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = healthcheck()
    monkeypatch.setenv("ISPBOT_LISTEN_PORT", str(free_port()))  # nothing listens there
    monkeypatch.setattr(module, "runs_the_bot", lambda: False)
    assert module.main() == 0  # the sandbox, migrate, doctor: no web server, nothing to report
    monkeypatch.setattr(module, "runs_the_bot", lambda: True)
    assert module.main() == 1


def compose() -> dict[str, Any]:
    services: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    return services


def default_of(value: str) -> str:
    """``value`` as compose reads it when the operator sets nothing (``${NAME:-default}`` gives default)."""
    return re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", value)


def test_compose_sets_only_settings_the_bot_knows() -> None:
    services = compose()["services"]
    for service in ("bot", "migrate"):
        assert set(services[service]["environment"]) <= settings_variables()
    bot = services["bot"]
    assert services["db"]["environment"]["POSTGRES_DB"] in bot["environment"]["ISPBOT_DATABASE_URL"]
    assert services["migrate"]["environment"] == {"ISPBOT_DATABASE_URL": bot["environment"]["ISPBOT_DATABASE_URL"]}


def test_compose_gives_each_service_only_the_variables_it_needs() -> None:
    services = compose()["services"]
    assert not any("env_file" in service for service in services.values())  # .env holds the database's password
    # The bot: every setting, from .env or the environment, empty (its default) when neither has it.
    bot = services["bot"]["environment"]
    assert set(bot) == settings_variables()
    fixed = {"ISPBOT_DATABASE_URL", "ISPBOT_LISTEN_HOST", "ISPBOT_LISTEN_PORT"}
    for name in set(bot) - fixed:
        assert bot[name] == f"${{{name}:-}}", name
    assert set(services["migrate"]["environment"]) == {"ISPBOT_DATABASE_URL"}
    assert "environment" not in services["sandbox"]
    assert set(services["db"]["environment"]) == {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"}


def test_the_commands_compose_yaml_names_work_in_its_network_namespaces() -> None:
    header = (ROOT / "compose.yaml").read_text(encoding="utf-8").split("\nservices:", 1)[0]
    # `run --rm bot ...` starts a new container in a namespace of its own: the sandbox, on the bot's
    # loopback, is not there. `exec` runs in the bot's container.
    assert "run --rm bot" not in header
    assert "docker compose exec bot ispbot doctor" in header
    for line in re.findall(r"docker compose (?:exec|run --rm) \S+ (.+?)(?:\s+#.*)?$", header, re.MULTILINE):
        args = shlex.split(line)
        build_parser().parse_args(args[1:] if args[0] == "ispbot" else args)


def test_compose_migrates_once_then_starts_the_bot() -> None:
    services = compose()["services"]
    migrate = services["migrate"]
    assert build_parser().parse_args(migrate["command"]).func is migrate_database
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["bot"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_compose_builds_one_image_that_every_service_of_the_bot_shares() -> None:
    services = compose()["services"]
    built = [name for name, service in services.items() if "build" in service]
    assert built == ["bot"]
    image = services["bot"]["image"]
    assert {name for name, service in services.items() if service.get("image") == image} == {
        "bot", "migrate", "sandbox",
    }


def test_compose_keeps_the_password_in_env_and_publishes_on_loopback_unless_told_otherwise() -> None:
    text = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    services = compose()["services"]
    password = services["db"]["environment"]["POSTGRES_PASSWORD"]
    assert re.fullmatch(r"\$\{POSTGRES_PASSWORD:\?[^}]+\}", password)  # compose stops when .env lacks it
    assert f":{password}@db:" in services["bot"]["environment"]["ISPBOT_DATABASE_URL"]
    # No password written in it: only the names of the variables that carry one from .env.
    assert "password" not in text.lower().replace("postgres_password", "").replace("ispbot_acs_password", "")
    published = [port for service in services.values() for port in service.get("ports", [])]
    assert published
    for port in published:
        address, _, _ = default_of(port).rpartition(":")[0].rpartition(":")
        assert address == "127.0.0.1", port


def test_the_sandbox_service_is_optional_and_serves_the_isp_where_the_bot_may_use_plain_http() -> None:
    text = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    services = yaml.safe_load(text)["services"]
    sandbox = services["sandbox"]
    assert sandbox["profiles"] == ["try"]  # `docker compose up` alone never starts it
    assert "sandbox" not in services["bot"].get("depends_on", {})
    # The image's entry point is `ispbot`: the sandbox's command is the sub-command and its arguments.
    args = build_parser().parse_args(sandbox["command"])
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


def test_ci_builds_and_runs_the_image_after_the_suite_and_the_wheel() -> None:
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    order = [next(i for i, line in enumerate(steps) if line.startswith(command))
             for command in ("make test", ".ci/wheel-smoke", "make image-check")]
    assert order == sorted(order)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^image-check: .*\n\t\$\(BIN\)/python \.ci/image_check\.py$", makefile, re.MULTILINE)
