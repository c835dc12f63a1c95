"""Every command's `--help` reads the same way: usage, one line saying what it does, its options, an
example, and its exit codes; and `--version` answers."""

from __future__ import annotations

import importlib.metadata
import re
import shlex
from typing import Any

import pytest

from reasonlessons.cli import build_app, main
from reasonlessons.cli.fast import helps, hook, recall

ARGPARSE = {"recall": recall, "hook": hook}


def _group() -> Any:
    import typer.main

    return typer.main.get_command(build_app())


COMMANDS = sorted(_group().commands)


def test_every_command_has_a_help_entry() -> None:
    assert sorted(helps.HELPS) == COMMANDS


def _help(name: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main([name, "--help"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", COMMANDS)
def test_help_says_what_shows_an_example_and_the_exit_codes(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _help(name, capsys)
    entry = helps.HELPS[name]
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    assert paragraphs[0].lower().startswith("usage:"), text
    assert paragraphs[1] == entry.summary, "the paragraph after the usage is the one-line summary"
    assert "\n" not in entry.summary
    assert len(entry.summary) <= helps.MAX_SUMMARY
    assert entry.summary.endswith(".")
    example_at = text.index("Example")
    assert text.index("Exit codes: ") > example_at, "the exit codes come after the example"
    for example in entry.examples:
        assert f"  {example}\n" in text
    assert text.rstrip().endswith(entry.exits), "the exit codes end the help"
    assert "0 " in entry.exits


@pytest.mark.parametrize("name", COMMANDS)
def test_values_are_named_as_the_fast_paths_and_the_docs_name_them(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--repo DIR` and `NAME` on every command, as argparse and docs/commands.md show them, never a
    Python type such as `--repo <path>`."""
    text = _help(name, capsys)
    assert not re.search(r"-[\w-]+ <", text), text
    assert not re.search(r"\{[a-z_]+\}", text), text
    if "--repo" in text:
        assert "--repo DIR" in text


@pytest.mark.parametrize("name", COMMANDS)
def test_each_example_is_a_valid_command_line(name: str) -> None:
    """A renamed option breaks the example in `--help`, not just the docs."""
    for example in helps.HELPS[name].examples:
        words = shlex.split(example.rsplit("|", 1)[-1])
        assert words[:2] == ["reasonlessons", name], example
        if name in ARGPARSE:
            ARGPARSE[name].build_parser().parse_args(words[2:])
        else:
            command = _group().commands[name]
            command.make_context(name, words[2:])


def test_both_front_ends_print_the_same_epilog(capsys: pytest.CaptureFixture[str]) -> None:
    """The argparse fast paths and the Typer commands lay out example and exit codes alike."""
    epilogs = {}
    for name in ("recall", "stale"):
        text = _help(name, capsys)
        epilogs[name] = re.sub(r"^\s+", "", text[text.index("Example") :], flags=re.M)
    for name, text in epilogs.items():
        expected = re.sub(r"^\s+", "", helps.HELPS[name].plain_epilog(), flags=re.M)
        assert text.strip() == expected.strip(), name


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    expected = f"reasonlessons {importlib.metadata.version('reasonlessons')}\n"
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == expected
    from reasonlessons.cli import run

    assert run(["--version"]) == 0
    assert capsys.readouterr().out == expected


def test_the_root_help_lists_the_global_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--version" in out
    assert "--no-color" in out
