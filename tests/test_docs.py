"""The docs keep up with the code: every command has help text and a section naming all its options,
the architecture page lists every package, and every reference to a page of docs/ resolves."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from reasonlessons.cli import build_app
from tests.paths import DOCS, PACKAGE, REPO_ROOT


def _commands() -> list[tuple[str, list[str], str | None]]:
    import typer.main

    group = typer.main.get_command(build_app())
    out = []
    for name, command in sorted(group.commands.items()):  # type: ignore[attr-defined]
        options = [
            opt
            for param in command.params
            for opt in param.opts
            if opt.startswith("--") and opt not in ("--help", "--repo")
        ]
        out.append((name, options, command.help))
    return out


def _section(name: str) -> str:
    text = (DOCS / "commands.md").read_text()
    match = re.search(rf"^## {re.escape(name)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/commands.md has no '## {name}' section"
    return match.group(1)


@pytest.mark.parametrize(("name", "options", "help_text"), _commands())
def test_every_command_is_documented_with_all_its_options(
    name: str, options: list[str], help_text: str | None
) -> None:
    assert help_text, f"{name} has no help text"
    assert help_text.strip(), f"{name} has no help text"
    section = _section(name)
    missing = [opt for opt in options if f"`{opt}`" not in section]
    assert not missing, f"docs/commands.md '## {name}' does not mention {missing}"


def test_documented_commands_exist() -> None:
    names = {name for name, _, _ in _commands()}
    documented = set(re.findall(r"^## (\S+)$", (DOCS / "commands.md").read_text(), re.M))
    assert documented <= names, f"documented but not a command: {sorted(documented - names)}"


def _packages() -> set[str]:
    """Every package under reasonlessons/, as a path: `capture/reduce/`."""
    return {
        f"{init.parent.relative_to(PACKAGE).as_posix()}/"
        for init in PACKAGE.rglob("__init__.py")
        if init.parent != PACKAGE
    }


def test_the_architecture_page_lists_every_package() -> None:
    text = (DOCS / "architecture.md").read_text()
    table = re.search(r"^## Packages\n(.*?)(?=^## )", text, re.M | re.S)
    assert table, "docs/architecture.md has no '## Packages' section"
    listed = set(re.findall(r"^\| `([a-z_/]+/)` \|", table.group(1), re.M))
    packages = _packages()
    assert packages - listed == set(), "packages missing from docs/architecture.md '## Packages'"
    assert listed - packages == set(), "docs/architecture.md '## Packages' lists packages that do not exist"


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown page."""
    headings = re.findall(r"^#{1,6} (.+?)\s*$", page.read_text(), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def _references() -> list[tuple[str, str, str]]:
    """(where, page, anchor) of every docs/*.md reference in the code and link between the docs."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for page, anchor in re.findall(r"(?<![\w/])docs/([a-z][a-z-]*\.md)(?:#([\w-]+))?", path.read_text()):
            found.append((str(path.relative_to(REPO_ROOT)), page, anchor))
    for path in [*sorted(DOCS.glob("*.md")), REPO_ROOT / "README.md"]:
        for page, anchor in re.findall(r"\]\((?:docs/)?([\w-]+\.md)(?:#([\w-]+))?\)", path.read_text()):
            found.append((str(path.relative_to(REPO_ROOT)), page, anchor))
    return found


def test_references_to_the_docs_resolve() -> None:
    broken = []
    for where, page, anchor in _references():
        target = DOCS / page
        if not target.is_file() or (anchor and anchor not in _anchors(target)):
            broken.append(f"{where}: {page}#{anchor}" if anchor else f"{where}: {page}")
    assert broken == []


def test_the_code_cites_no_document_outside_the_repository() -> None:
    """The contract and the log formats are restated in docs/; ../shared is not part of the repo."""
    pattern = re.compile(r"\b(?:SPEC|FORMATS)(?:\.md)? §")
    cited = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for path in [*PACKAGE.rglob("*.py"), *DOCS.glob("*.md")]
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert cited == []


@pytest.mark.parametrize("package", sorted({init.parent for init in PACKAGE.rglob("__init__.py")}), ids=str)
def test_every_package_opens_with_a_map_of_its_modules(package: Path) -> None:
    """What the stage takes and gives, and each module and subpackage by name (see watch/__init__.py)."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    assert len([line for line in doc.splitlines() if line.strip()]) >= 3, f"{package}: no map"
    parts = [p.name for p in package.glob("*.py") if p.name != "__init__.py"]
    parts += [f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file()]
    missing = [part for part in parts if not re.search(rf"(?<![\w/]){re.escape(part)}", doc)]
    assert missing == [], f"{package}/__init__.py does not name {missing}"
