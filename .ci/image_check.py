"""``make image-check``: builds the image with the project's Dockerfile and runs it as an operator would.

Needs root and Debian's packages (docker.io, debootstrap, docker-compose, installed when missing). It
starts a Docker daemon of its own (data, sockets and state in a temporary folder, no iptables, no
default bridge) and stops it, with everything it made, whatever happens. No image registry is
needed: the bases the Dockerfile and compose.yaml name are made here, from Debian's packages, and
tagged with those names (stand-ins: Debian's Python and PostgreSQL, not the official images).

Then: the project's image is built as it is (BuildKit, the machine's certificate bundle as the build's
`ca` secret); `--version`; the demo answering /ajuda; `migrate` on PostgreSQL; `run` against the
sandbox and the tests' fake Bot API until the container is healthy and answers, then SIGTERM;
uid 10001, no compiler, git, lock file or secret in the image, its size; compose.yaml with the `try`
profile up, healthy, answering, `exec bot ispbot doctor`, down. Each step prints its duration.

Exit codes: 0 passed, or (outside CI) a step that cannot run here was skipped, with the reason;
1 a check failed (or, under CI=true, could not run).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import httpx
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.sandbox import PRODUCTION_KEY  # noqa: E402 - the checkout's own modules
from bot.sandbox.server import free_port  # noqa: E402
from tests.telegram import fake_bot_api as tg  # noqa: E402
from tests.telegram.fake_bot_api import FakeBotApi  # noqa: E402

UNDER_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
PACKAGES = {"dockerd": "docker.io", "debootstrap": "debootstrap", "docker-compose": "docker-compose"}
IMAGE = "ispbot:local"  # compose.yaml's name for the image: compose uses the one built here
PROJECT = "ispbot-image-check"
PASSWORD = "imagecheck0pw"  # noqa: S105 - the throwaway database of this check
CHAT = 4242
UID = "10001"
WAIT = 90.0  # seconds a container may take to become healthy or answer on a loaded machine
STARTED = time.monotonic()


class Skip(Exception):
    """The check cannot run on this machine; the message says why."""


class Failed(Exception):
    """A check found a fault; the message says which."""


def say(message: str) -> None:
    print(f"image-check: {message}", flush=True)


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    began = time.monotonic()
    say(f"{name} ...")
    yield
    say(f"{name}: ok ({time.monotonic() - began:.1f} s)")


def run(args: Sequence[str], *, timeout: float = 300, stdin: str | None = None, check: bool = True,
        env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            list(args), input=stdin if stdin is not None else "", capture_output=True, text=True, timeout=timeout,
            env=env, cwd=cwd, check=False,
        )
    except subprocess.TimeoutExpired as expired:
        raise Failed(f"`{' '.join(args)}` took more than {timeout:.0f} s") from expired
    if check and done.returncode != 0:
        raise Failed(f"`{' '.join(args)}` exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return done


async def arun(args: Sequence[str], **options: object) -> subprocess.CompletedProcess[str]:
    """``run`` in a thread: the fake Bot API, in this event loop, keeps answering meanwhile."""
    return await asyncio.to_thread(run, args, **options)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- the machine


def install() -> None:
    if os.geteuid() != 0:
        raise Skip("not root: installing Debian's docker.io and starting a Docker daemon need root")
    if shutil.which("apt-get") is None:
        raise Skip("no apt-get: this check installs Debian's docker.io, debootstrap and docker-compose")
    missing = sorted({package for program, package in PACKAGES.items() if shutil.which(program) is None}
                     | ({"docker.io"} if not Path("/usr/bin/docker").exists() else set()))
    if not missing:
        return
    command = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if run(command, env=env, check=False).returncode != 0:  # the package lists may be stale or absent
        run(["apt-get", "update"], env=env)
        run(command, env=env)


def debian_mirror() -> str:
    """The machine's own Debian mirror, from its apt sources (the one apt itself uses)."""
    sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for source in sources:
        with contextlib.suppress(OSError):
            uris: list[str] = re.findall(r"(?:URIs:\s*|deb\s+(?:\[[^]]*\]\s+)?)(\S+)", source.read_text())
            for uri in uris:
                if uri.rstrip("/").endswith("/debian"):
                    return uri
    raise Failed("no Debian mirror among the apt sources (/etc/apt/sources.list*): debootstrap needs one")


def ca_bundle() -> Path | None:
    """The certificate bundle this machine's pip trusts, when it has authorities beyond Debian's."""
    for variable in ("PIP_CERT", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"):
        value = os.environ.get(variable)
        if value and Path(value).is_file():
            return Path(value)
    system = Path("/etc/ssl/certs/ca-certificates.crt")
    if any(Path("/usr/local/share/ca-certificates").glob("**/*.crt")) and system.is_file():
        return system
    return None


class Daemon:
    """dockerd with every root, socket and state in ``folder``; ``docker`` and ``compose`` talk to it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.socket = folder / "docker.sock"
        self.env = {
            **os.environ,
            "DOCKER_HOST": f"unix://{self.socket}",
            "DOCKER_BUILDKIT": "1",
            "DOCKER_CONFIG": str(folder / "config"),
            "COMPOSE_DOCKER_CLI_BUILD": "1",
        }
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def docker(self) -> str:
        """Debian's CLI, the daemon's own (with BuildKit built in), once installed: read when used, since
        the daemon is set up before the packages are; another ``docker`` on the PATH may lack buildx."""
        return "/usr/bin/docker" if Path("/usr/bin/docker").exists() else "docker"

    def start(self) -> None:
        log = (self.folder / "dockerd.log").open("wb")
        self.process = subprocess.Popen(
            ["dockerd", "--iptables=false", "--ip-forward=false", "--ip-masq=false", "--bridge=none",
             "--storage-driver=overlay2", f"--data-root={self.folder / 'data'}",
             f"--exec-root={self.folder / 'exec'}", f"--pidfile={self.folder / 'dockerd.pid'}",
             f"--host=unix://{self.socket}"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while run([self.docker, "info"], env=self.env, check=False, timeout=30).returncode != 0:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise Skip(f"dockerd did not start here:\n{self.log()[-2000:]}")
            time.sleep(0.2)

    def log(self) -> str:
        return (self.folder / "dockerd.log").read_text(errors="replace")

    def __call__(self, *args: str, **options: object) -> subprocess.CompletedProcess[str]:
        return run([self.docker, *args], env=self.env, **options)  # type: ignore[arg-type]

    async def a(self, *args: str, **options: object) -> subprocess.CompletedProcess[str]:
        return await asyncio.to_thread(self, *args, **options)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(Exception):  # containers first: dockerd would give each 15 s
            ids = self("ps", "-aq", timeout=30, check=False).stdout.split()
            if ids:
                self("rm", "-f", "-v", *ids, timeout=60, check=False)
            self("network", "prune", "-f", timeout=60, check=False)  # else their bridges stay on the host
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            say("dockerd did not stop on SIGTERM within 30 s: killed")
        with contextlib.suppress(ProcessLookupError):  # its containerd and shims, if any are left
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


def unmount_under(folder: Path) -> None:
    """What the daemon left mounted under ``folder`` (overlays, shm, netns), deepest first."""
    mounts = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
    for point in sorted((m for m in mounts if m.startswith(f"{folder}/")), key=len, reverse=True):
        run(["umount", "-l", point], check=False, timeout=30)


# ----------------------------------------------------------------------------- the bases


def base_names() -> tuple[str, str, str]:
    """The Dockerfile's Python base, its Debian release, and compose.yaml's PostgreSQL image."""
    [python] = {line.split()[1] for line in (ROOT / "Dockerfile").read_text().splitlines()
                if line.startswith("FROM ") and ":" in line.split()[1]}
    if "@sha256:" in python:
        raise Failed(f"the Dockerfile pins {python} by digest: no stand-in made here can match it")
    release = python.rsplit("-", 1)[1]
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return python, release, compose["services"]["db"]["image"]


PYTHON_BASE = """\
FROM {debian}
ARG DEBIAN_FRONTEND=noninteractive
ENV LANG=C.UTF-8
RUN apt-get update \\
 && apt-get install -y --no-install-recommends python3 python3-venv python3-pip ca-certificates \\
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb /usr/lib/python3.*/EXTERNALLY-MANAGED \\
 && ln -s /usr/bin/python3 /usr/local/bin/python && ln -s /usr/bin/python3 /usr/local/bin/python3 \\
 && ln -s /usr/bin/pip3 /usr/local/bin/pip
CMD ["python3"]
"""
POSTGRES_BASE = """\
FROM {debian}
ARG DEBIAN_FRONTEND=noninteractive
ENV LANG=C.UTF-8
RUN apt-get update \\
 && apt-get install -y --no-install-recommends postgresql \\
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb \\
 && pg_dropcluster "$(ls /usr/lib/postgresql)" main \\
 && ln -s /usr/lib/postgresql/*/bin /usr/local/lib/postgresql-bin \\
 && install -d -o postgres -g postgres /var/lib/postgresql/data /var/run/postgresql
COPY entrypoint /usr/local/bin/docker-entrypoint
ENV PATH=/usr/local/lib/postgresql-bin:$PATH PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint"]
"""
POSTGRES_ENTRYPOINT = """\
#!/bin/sh
# POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB as the official image reads them, at the first start.
set -eu
user="${POSTGRES_USER:-postgres}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\\n' "${POSTGRES_PASSWORD:?}" > /tmp/pwfile
  initdb --pgdata="$PGDATA" --username="$user" --pwfile=/tmp/pwfile --auth-local=trust \\
    --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  # Not yet on the usual socket: a health check must not find this server ready.
  mkdir -p /tmp/init
  pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses='' -c unix_socket_directories=/tmp/init" \\
    --wait --silent start
  database="${POSTGRES_DB:-$user}"
  if [ "$database" != postgres ]; then createdb --host=/tmp/init --username="$user" "$database"; fi
  pg_ctl --pgdata="$PGDATA" --mode=fast --wait --silent stop
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
"""


def make_debian(docker: Daemon, release: str, folder: Path) -> str:
    rootfs = folder / "rootfs"
    run(["debootstrap", "--variant=minbase", release, str(rootfs), debian_mirror()], timeout=600)
    for leftover in ("var/cache/apt/archives", "var/lib/apt/lists"):
        for path in (rootfs / leftover).glob("*"):
            if path.is_file():
                path.unlink()
    tag = f"{PROJECT}/debian:{release}"
    tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
    subprocess.run([docker.docker, "import", "-", tag], stdin=tar.stdout, env=docker.env, check=True,
                   capture_output=True, timeout=300)
    if tar.wait(timeout=60) != 0:
        raise Failed("tar of the Debian root failed")
    shutil.rmtree(rootfs)
    return tag


def base_context(folder: Path, dockerfile: str, debian: str, files: dict[str, str] | None = None) -> Path:
    folder.mkdir()
    (folder / "Dockerfile").write_text(dockerfile.format(debian=debian))
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    return folder


# ----------------------------------------------------------------------------- the image


def help_first_line() -> str:
    text: str = yaml.safe_load((ROOT / "locales/pt_BR/help.yaml").read_text(encoding="utf-8"))["text"]
    return text.splitlines()[0]


def check_contents(docker: Daemon, python_base: str) -> None:
    user = docker("image", "inspect", "--format", "{{.Config.User}}", IMAGE).stdout.strip()
    uid = docker("run", "--rm", "--network=none", "--entrypoint", "id", IMAGE, "-u").stdout.strip()
    if uid != UID or not user.startswith(f"{UID}:"):
        raise Failed(f"the image runs as uid {uid} (USER {user}), not {UID}")
    probe = (
        "for p in gcc cc c++ clang make git; do command -v $p; done; "
        "find / -xdev \\( -name 'requirements*.lock' -o -name uv.lock -o -name poetry.lock -o -name '.env' "
        "-o -name '.env.*' -o -name '*.sqlite3' -o -name pip.conf -o -path /run/secrets \\) -print 2>/dev/null; true"
    )
    found = docker("run", "--rm", "--network=none", "--entrypoint", "sh", IMAGE, "-c", probe).stdout.split()
    if found:
        raise Failed(f"the image holds what it must not (a compiler, git, a lock file, a secret): {found}")
    history = docker("history", "--no-trunc", "--format", "{{.CreatedBy}}", IMAGE).stdout
    if "PIP_INDEX_URL" in history or "secrets" in history:
        raise Failed("the image's history keeps the build's index or secret")
    size = int(docker("image", "inspect", "--format", "{{.Size}}", IMAGE).stdout)
    base = int(docker("image", "inspect", "--format", "{{.Size}}", python_base).stdout)
    say(f"image size: {size / 1e6:.0f} MB, {(size - base) / 1e6:.0f} MB of it over the base"
        f" (this stand-in base: {base / 1e6:.0f} MB)")
    largest = "cd /opt/ispbot/lib/python3*/site-packages && du -sm -- * | sort -rn | head -n 8"
    du = docker("run", "--rm", "--network=none", "--entrypoint", "sh", IMAGE, "-c", largest).stdout.split()
    say("largest in the environment (MB): " + ", ".join(f"{du[i + 1]} {du[i]}" for i in range(0, len(du), 2)))


async def health(docker: Daemon, container: str) -> str:
    state = json.loads((await docker.a("inspect", "--format", "{{json .State}}", container)).stdout)
    if not state.get("Running"):
        logs = await docker.a("logs", container, check=False)
        raise Failed(f"{container} stopped (exit {state.get('ExitCode')}):\n{(logs.stdout + logs.stderr)[-3000:]}")
    return str(state.get("Health", {}).get("Status", "none"))


async def exit_code(docker: Daemon, container: str) -> str:
    return (await docker.a("inspect", "--format", "{{.State.ExitCode}}", container)).stdout.strip()


async def until_healthy(docker: Daemon, *containers: str) -> None:
    deadline = time.monotonic() + WAIT
    while True:
        states = [await health(docker, container) for container in containers]
        if all(state == "healthy" for state in states):
            return
        if "unhealthy" in states or time.monotonic() > deadline:
            raise Failed(f"not healthy within {WAIT:.0f} s: {dict(zip(containers, states, strict=True))}")
        await asyncio.sleep(1)


async def answers_ajuda(api: FakeBotApi) -> None:
    api.push_update(tg.text_message(CHAT, "/ajuda"))
    sent = await api.wait_for_sent(CHAT, within=WAIT)
    if help_first_line() not in (sent[0].text or ""):
        raise Failed(f"the bot did not answer /ajuda with the help text: {sent[0].text!r}")


async def check_logs(docker: Daemon, container: str, *secrets: str) -> None:
    logs = await docker.a("logs", container)
    text = logs.stdout + logs.stderr
    if "Traceback" in text or any(secret in text for secret in secrets):
        raise Failed(f"{container}'s log has a traceback or a secret:\n{text[-3000:]}")


@contextlib.asynccontextmanager
async def fake_bot_api(host: str = "127.0.0.1") -> AsyncIterator[FakeBotApi]:
    api = FakeBotApi()
    await api.start(host=host)
    try:
        yield api
    finally:
        await api.stop()


async def check_run(docker: Daemon, database_ip: str) -> None:
    """The sandbox and the bot, each `docker run -d` on the host's network, as a single server would."""
    sandbox_port, listen_port = free_port(), free_port()
    fast = ["--health-interval=2s", "--health-start-period=1s"]  # the image's own check, asked more often
    await docker.a("run", "-d", "--name", "sandbox", "--network=host", *fast, IMAGE,
                   "sandbox", "--port", str(sandbox_port))
    async with fake_bot_api() as api:
        settings = {
            "ISPBOT_TELEGRAM_TOKEN": api.token, "ISPBOT_TELEGRAM_API_URL": api.base_url,
            "ISPBOT_ISP_BASE_URL": f"http://127.0.0.1:{sandbox_port}", "ISPBOT_ISP_KEY": PRODUCTION_KEY,
            "ISPBOT_DATABASE_URL": f"postgresql://ispbot:{PASSWORD}@{database_ip}:5432/ispbot",
            "ISPBOT_LISTEN_HOST": "127.0.0.1", "ISPBOT_LISTEN_PORT": str(listen_port),
        }
        variables = [part for name, value in settings.items() for part in ("-e", f"{name}={value}")]
        await docker.a("run", "-d", "--name", "bot", "--network=host", *fast, *variables, IMAGE)
        await until_healthy(docker, "bot", "sandbox")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{listen_port}", timeout=10) as http:
            ready, state = await http.get("/readyz"), (await http.get("/healthz")).json()
        if ready.status_code != 200 or not str(state.get("isp", "")).startswith("ok"):
            raise Failed(f"/readyz {ready.status_code}, /healthz {state}")
        await answers_ajuda(api)
        began = time.monotonic()
        await docker.a("stop", "--time", "10", "bot")
        took = time.monotonic() - began
        code = await exit_code(docker, "bot")
        if code != "0" or took > 5:
            raise Failed(f"on SIGTERM the bot exited {code} after {took:.1f} s (expected 0 within 5 s)")
        say(f"SIGTERM: exit 0 in {took:.1f} s")
        await check_logs(docker, "bot", api.token, PRODUCTION_KEY)
        if await health(docker, "sandbox") != "healthy":
            raise Failed("the sandbox container is not healthy")
    await docker.a("rm", "-f", "bot", "sandbox")


async def check_compose(docker: Daemon, folder: Path) -> None:
    """compose.yaml as it is, with the `try` profile: up, healthy, answering, the header's commands, down."""
    env_file = folder / "compose.env"
    compose = ["docker-compose", "--project-directory", str(ROOT), "-f", str(ROOT / "compose.yaml"),
               "-p", PROJECT, "--env-file", str(env_file), "--profile", "try"]
    publish = free_port()
    dotenv = {"POSTGRES_PASSWORD": PASSWORD, "PUBLISH_PORT": str(publish),
              "ISPBOT_ISP_BASE_URL": "http://127.0.0.1:8077", "ISPBOT_ISP_KEY": PRODUCTION_KEY}

    def write_env() -> None:
        env_file.write_text("".join(f"{name}={value}\n" for name, value in dotenv.items()))

    write_env()

    async def compose_run(*args: str, **options: object) -> subprocess.CompletedProcess[str]:
        return await arun([*compose, *args], env=docker.env, **options)

    try:
        await compose_run("up", "-d", "db")  # its network first: the fake Bot API listens on its gateway
        network = f"{PROJECT}_default"
        gateway = json.loads((await docker.a("network", "inspect", network)).stdout)[0]["IPAM"]["Config"][0]
        gateway_ip = gateway.get("Gateway") or re.sub(r"\.0/\d+$", ".1", gateway["Subnet"])
        async with fake_bot_api(gateway_ip) as api:
            dotenv |= {"ISPBOT_TELEGRAM_TOKEN": api.token, "ISPBOT_TELEGRAM_API_URL": api.base_url}
            write_env()
            await compose_run("up", "-d", timeout=300)
            bot, sandbox = f"{PROJECT}_bot_1", f"{PROJECT}_sandbox_1"
            await until_healthy(docker, bot, sandbox, f"{PROJECT}_db_1")
            migrate = await exit_code(docker, f"{PROJECT}_migrate_1")
            if migrate != "0":
                raise Failed(f"compose's migrate exited {migrate}")
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{publish}", timeout=10) as http:
                live = await http.get("/livez")
            if live.status_code != 200:
                raise Failed(f"the published port answered /livez {live.status_code}")
            await answers_ajuda(api)
            await compose_run("run", "--rm", "-T", "migrate", "migrate", "--check")  # the header's other command
            doctor = await compose_run("exec", "-T", "bot", "ispbot", "doctor", check=False)
            if not re.search(r"^ok\s+isp\s", doctor.stdout, re.MULTILINE):
                raise Failed(f"`exec bot ispbot doctor` did not reach the sandbox:\n{doctor.stdout}{doctor.stderr}")
            environments = {
                service: (await docker.a("inspect", "--format", "{{.Config.Env}}", f"{PROJECT}_{service}_1")).stdout
                for service in ("bot", "migrate", "sandbox")
            }
            leaked = [service for service, text in environments.items() if "POSTGRES_PASSWORD" in text]
            if leaked or api.token in environments["migrate"]:
                raise Failed(f"compose hands the database's password or the token where they are not needed: {leaked}")
            await check_logs(docker, bot, api.token, PRODUCTION_KEY)
    finally:
        await compose_run("down", "-v", "--timeout", "10", check=False, timeout=120)
    left = (await docker.a("ps", "-aq", "--filter", f"label=com.docker.compose.project={PROJECT}")).stdout.split()
    if left:
        raise Failed(f"`docker-compose down` left containers: {left}")


def image_checks(docker: Daemon, python_base: str, postgres_base: str) -> str:
    """What needs no server on this side; the database's address, for ``run``."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    with step("ispbot --version"):
        printed = docker("run", "--rm", "--network=none", IMAGE, "--version").stdout.strip()
        if printed != f"ispbot {version}":
            raise Failed(f"--version printed {printed!r}")
    with step("the demo answers /ajuda"):
        demo = docker("run", "--rm", "-i", "--network=none", IMAGE, "demo", stdin="/ajuda\n")
        if help_first_line() not in demo.stdout or demo.stderr.strip():
            raise Failed(f"the demo answered {demo.stdout[-1000:]!r}, errors {demo.stderr[-1000:]!r}")
    with step("uid 10001, no compiler, git, lock file or secret; the size"):
        check_contents(docker, python_base)
    with step("migrate on PostgreSQL"):
        docker("network", "create", f"{PROJECT}-net")
        docker("run", "-d", "--name", "db", "--network", f"{PROJECT}-net", "-e", "POSTGRES_USER=ispbot",
               "-e", f"POSTGRES_PASSWORD={PASSWORD}", "-e", "POSTGRES_DB=ispbot", postgres_base)
        deadline = time.monotonic() + WAIT
        while docker("exec", "db", "pg_isready", "-U", "ispbot", "-d", "ispbot", check=False).returncode != 0:
            if time.monotonic() > deadline:
                raise Failed("PostgreSQL did not start")
            time.sleep(0.5)
        url = f"ISPBOT_DATABASE_URL=postgresql://ispbot:{PASSWORD}@db:5432/ispbot"
        for command in (["migrate"], ["migrate", "--check"]):
            docker("run", "--rm", "--network", f"{PROJECT}-net", "-e", url, IMAGE, *command)
        database_ip = docker("inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
                             "db").stdout.strip()
    return database_ip


async def served_checks(docker: Daemon, folder: Path, database_ip: str) -> None:
    """With the fake Bot API serving in this event loop."""
    with step("run against the sandbox and a fake Bot API: healthy, answers, SIGTERM"):
        await check_run(docker, database_ip)
    await docker.a("rm", "-f", "-v", "db")
    await docker.a("network", "rm", f"{PROJECT}-net")
    with step("compose.yaml with the try profile: up, healthy, answering, exec doctor, run migrate --check, down"
              " (Compose 1.29)"):
        await check_compose(docker, folder)


def main() -> int:
    def stop(signum: int, _frame: object) -> None:
        say(f"stopped by {signal.Signals(signum).name}: cleaning up")
        raise SystemExit(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    folder = Path(tempfile.mkdtemp(prefix="ispbot-image."))
    docker = Daemon(folder)
    try:
        with step("Debian's docker.io, debootstrap and docker-compose"):
            install()
        with step("a Docker daemon of its own"):
            docker.start()
        python, release, postgres = base_names()
        with step(f"a Debian {release} root (debootstrap --variant=minbase, {debian_mirror()})"):
            debian = make_debian(docker, release, folder)
        with step(f"stand-ins for {python} and {postgres} (Debian's python3 and PostgreSQL)"):
            build = [docker.docker, "build", "--quiet", "--network=host", "-t"]
            postgres_build = subprocess.Popen(
                [*build, postgres, str(base_context(folder / "postgres", POSTGRES_BASE, debian,
                                                   {"entrypoint": POSTGRES_ENTRYPOINT}))],
                env=docker.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            )
            run([*build, python, str(base_context(folder / "python", PYTHON_BASE, debian))], env=docker.env)
            output, _ = postgres_build.communicate(timeout=300)
            if postgres_build.returncode != 0:
                raise Failed(f"the PostgreSQL stand-in did not build:\n{output[-3000:]}")
        ca = ca_bundle()
        secret = ["--secret", f"id=ca,src={ca}"] if ca else []
        index = os.environ.get("PIP_INDEX_URL", "")
        index_arg = ["--build-arg", f"PIP_INDEX_URL={index}"] if index.startswith(("http://", "https://")) else []
        with step(f"docker build of the project's Dockerfile (BuildKit; secret ca: {ca or 'none'})"):
            docker("build", "--network=host", *secret, *index_arg, "-t", IMAGE, str(ROOT), timeout=600)
        database_ip = image_checks(docker, python, postgres)
        asyncio.run(served_checks(docker, folder, database_ip))
    except Skip as skipped:
        say(f"SKIPPED: {skipped}")
        if UNDER_CI:
            say("under CI a check that cannot run is a failure")
            return 1
        return 0
    except Failed as failure:
        say(f"FAILED: {failure}")
        return 1
    finally:
        with step("the daemon stopped, its folder removed"):
            docker.stop()
            unmount_under(folder)
            shutil.rmtree(folder, ignore_errors=True)
    say(f"passed in {time.monotonic() - STARTED:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
