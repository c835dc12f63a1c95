"""Each fast path's option table is the whole of its Typer command, its argparse parser and its quick
parser: same names, flags, helps, defaults, metavars; and what the quick parser accepts, the full
parser reads the same way."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasonlessons.cli.fast import capture, hook, recall, stale
from reasonlessons.cli.fast.options import FLAG, INT, PATH, TEXT, Option, quick_parse
from tests.fuzzing import fuzz_settings

COMMANDS: dict[str, ModuleType] = {"recall": recall, "capture": capture, "stale": stale, "hook": hook}
ARGPARSE = {"recall": recall, "hook": hook}  # the others fall back to Typer, not argparse


def _typer_command(name: str) -> Any:
    import typer.main

    from reasonlessons.cli import build_app

    return typer.main.get_command(build_app()).commands[name]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_typer_command_takes_the_table(name: str) -> None:
    table: Sequence[Option] = COMMANDS[name].OPTIONS
    params = [p for p in _typer_command(name).params if p.name != "help"]
    assert [p.name for p in params] == [option.name for option in table]
    types = {TEXT: str, INT: int, PATH: Path, FLAG: bool}
    for param, option in zip(params, table, strict=True):
        assert param.opts == list(option.flags or (option.name,)), option
        assert param.help == option.help, option
        assert param.metavar == option.metavar, option
        assert param.required == option.required, option
        assert param.default == (None if option.repeatable else option.default), option
        if option.flags:
            assert param.multiple == option.repeatable, option
            assert bool(param.is_flag) == (option.kind == FLAG), option
            assert param.min == option.minimum, option
        else:
            assert (param.nargs == -1) == option.repeatable, option
        kind = types[option.kind]
        assert param.type_descriptor.annotation == (list[kind] if option.repeatable else kind), option


@pytest.mark.parametrize("name", sorted(ARGPARSE))
def test_the_argparse_parser_takes_the_table(name: str) -> None:
    table: Sequence[Option] = COMMANDS[name].OPTIONS
    actions = [a for a in ARGPARSE[name].build_parser()._actions if a.dest != "help"]
    assert [a.dest for a in actions] == [option.name for option in table]
    for action, option in zip(actions, table, strict=True):
        assert action.option_strings == list(option.flags), option
        assert action.help == option.help, option
        assert action.metavar == option.metavar, option
        assert action.required == option.required, option
        if not option.required:
            assert action.default == ([] if option.repeatable else option.default), option


def _full_parse(name: str, argv: list[str]) -> dict[str, Any]:
    """What the full parser makes of a command line (argparse or Typer, as `__main__` falls back)."""
    if name in ARGPARSE:
        return vars(ARGPARSE[name].build_parser().parse_args(argv))
    command = _typer_command(name)
    params = command.make_context(name, list(argv)).params
    repeatable = {option.name for option in COMMANDS[name].OPTIONS if option.repeatable}
    return {key: list(value) if key in repeatable else value for key, value in params.items()}


def _words(table: Sequence[Option]) -> list[str]:
    values = ["x", "a b", "-", "", "7", "0", "-3", "+2", "--", "--bogus", "-x"]
    words = list(values)
    for option in table:
        for flag in option.flags:
            words.append(flag)
            words.extend(f"{flag}={value}" for value in ("x", "", "5", "-1"))
    return words


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_what_the_quick_parser_accepts_the_full_parser_reads_alike(name: str) -> None:
    table: Sequence[Option] = COMMANDS[name].OPTIONS

    @fuzz_settings(ci=300)
    @given(argv=st.lists(st.sampled_from(_words(table)), max_size=6))
    def check(argv: list[str]) -> None:
        quick = quick_parse(table, argv)
        if quick is not None:
            assert quick == _full_parse(name, argv), argv

    check()


def test_the_quick_parser_reads_the_common_lines() -> None:
    assert quick_parse(recall.OPTIONS, ["fix it", "--file", "a.ts", "--file=b.ts", "--budget", "50"]) == {
        "prompt": "fix it",
        "files": ["a.ts", "b.ts"],
        "cmd": None,
        "budget": 50,
        "task_type": None,
        "fmt": "text",
        "session": None,
        "as_json": False,
        "repo": None,
        "agent": None,
    }
    assert quick_parse(stale.OPTIONS, ["--check", "--json"]) == {"check": True, "as_json": True, "repo": None}
    assert quick_parse(hook.OPTIONS, ["claude-code", "--wait"]) == {
        "agent": "claude-code",
        "budget": None,  # config's recall.budget (200 unless set)
        "wait": True,
        "repo": None,
    }


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("recall", ["--help"]),
        ("recall", ["-h"]),
        ("recall", ["--fil", "a"]),  # abbreviations: argparse and Click refuse them
        ("recall", ["a", "b"]),
        ("recall", ["--budget", "x"]),
        ("recall", ["--file"]),
        ("recall", ["--cmd", "-x"]),  # a value that looks like an option: let the full parser decide
        ("recall", ["--", "-x"]),
        ("capture", ["--jobs", "0"]),
        ("capture", ["--json=yes"]),
        ("stale", ["x"]),
        ("hook", []),
        ("hook", ["claude-code", "extra"]),
    ],
)
def test_the_quick_parser_leaves_the_rest_to_the_full_parser(name: str, argv: list[str]) -> None:
    assert quick_parse(COMMANDS[name].OPTIONS, argv) is None
