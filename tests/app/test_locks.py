"""The lock files agree with pyproject.toml: what CI, ``make`` and the image install is what the
project asks for, every file checked by its hash. A dependency changed without ``make lock`` fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
_PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s;\\]+)")


def pins(lock: str) -> dict[str, str]:
    """``name: version`` of every package the lock file pins; each pin must carry hashes."""
    found: dict[str, str] = {}
    entries = re.split(r"\n(?=\S)", (ROOT / lock).read_text(encoding="utf-8"))
    for entry in entries:
        match = _PIN.match(entry)
        if match:
            assert "--hash=sha256:" in entry, f"{lock}: {match.group(1)} has no hash"
            found[canonicalize_name(match.group(1))] = match.group(2)
    return found


def project() -> dict[str, list[str]]:
    document = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    table = document["project"]
    return {
        "runtime": table["dependencies"],
        "dev": table["optional-dependencies"]["dev"],
        "build": document["build-system"]["requires"],
    }


def unmet(requirements: list[str], pinned: dict[str, str]) -> list[str]:
    missing = []
    for line in requirements:
        requirement = Requirement(line)
        version = pinned.get(canonicalize_name(requirement.name))
        if version is None or not requirement.specifier.contains(version, prereleases=True):
            missing.append(f"{line} (locked: {version})")
    return missing


def test_the_runtime_lock_pins_every_dependency_within_its_bounds() -> None:
    assert unmet(project()["runtime"], pins("requirements.lock")) == [], "run `make lock`"


def test_the_development_lock_pins_the_dev_extra_and_the_same_runtime_versions() -> None:
    runtime, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    assert unmet(project()["runtime"] + project()["dev"], dev) == [], "run `make lock`"
    differ = {name: (version, dev.get(name)) for name, version in runtime.items() if dev.get(name) != version}
    assert differ == {}, "the tests must run on the versions the image ships: run `make lock`"


def test_the_build_lock_pins_the_build_backend_pyproject_names() -> None:
    build = pins("requirements-build.lock")
    assert unmet(project()["build"], build) == [], "run `make lock`"
    assert set(build) == {canonicalize_name(Requirement(line).name) for line in project()["build"]}
