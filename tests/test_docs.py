"""The docs keep up with the code: every command has help text and a section naming all its options."""

from __future__ import annotations

import re

import pytest

from reasonlessons.cli import build_app
from tests.paths import DOCS


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
