"""The README and docs/ can be followed from a clone: every relative link (and its #anchor) resolves
inside the repository, no example names a migration that a new one would make wrong, and the list of
ISP operations is the one the catalog gives today."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bot.operations_doc import render

from tests.app.test_layers import LAYERS

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def prose(path: Path) -> str:
    """The document without its code blocks (a `# comment` in a shell example is not a heading)."""
    return _FENCE.sub("", path.read_text(encoding="utf-8"))


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+\s+(.+)$", prose(path), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def relative_links(path: Path) -> list[str]:
    return [link for link in _LINK.findall(prose(path)) if not re.match(r"[a-z]+:", link)]


def test_there_is_a_guide_an_architecture_and_the_operations() -> None:
    names = {path.name for path in DOCUMENTS}
    assert {"README.md", "operator-guide.md", "architecture.md", "isp-operations.md"} <= names
    readme = {link.partition("#")[0] for link in relative_links(ROOT / "README.md")}
    assert {"docs/operator-guide.md", "docs/architecture.md", "docs/isp-operations.md"} <= readme


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(document: Path) -> None:
    def resolves(link: str) -> bool:
        target, _, anchor = link.partition("#")
        resolved = (document.parent / target).resolve() if target else document
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            return False
        return not anchor or resolved.suffix != ".md" or anchor in anchors(resolved)

    assert [link for link in relative_links(document) if not resolves(link)] == []


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_example_names_a_migration_number(document: Path) -> None:
    # Revisions are numbered 0001, 0002, ...: an example naming one is wrong after the next migration.
    assert re.findall(r"\b0\d{3}\b", document.read_text(encoding="utf-8")) == []


def test_the_operations_list_is_the_catalogs() -> None:
    committed = (ROOT / "docs" / "isp-operations.md").read_text(encoding="utf-8")
    assert committed == render(), "docs/isp-operations.md is stale: run `make docs`"


def test_the_architectures_layer_list_is_the_layers_tests() -> None:
    """docs/architecture.md's numbered list of layers names the packages of ``LAYERS``, in their order."""
    section = prose(ROOT / "docs" / "architecture.md").split("## Layers", 1)[1].split("\n| package", 1)[0]
    numbered = section[re.search(r"^1\. ", section, re.MULTILINE).start():]  # type: ignore[union-attr]
    ours = re.compile(r"(bot|flows|bench|tests)(\.[a-z0-9_]+)*")
    named = list(dict.fromkeys(name for name in re.findall(r"`([a-z0-9_.]+)`", numbered) if ours.fullmatch(name)))
    assert named == [package for layer in LAYERS for package in layer], (
        "docs/architecture.md's layers differ from LAYERS (tests/app/test_layers.py): same packages, same order")
