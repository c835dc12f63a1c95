"""One table of options per command, and the parsers built from it.

Each fast-path command (recall, capture, stale, hook) declares its arguments once, as a tuple of
`Option`s in its cli/fast/ module. From that table come:

* `quick_parse`: the per-turn parser, a loop over argv that accepts only well-formed command lines
  and returns None for anything else (help, typos, values that look like options), which then go
  to the full parser to be explained;
* `build_parser`: the argparse parser (imported only when built: building it costs more than a
  warm recall);
* the Typer command, in reasonlessons/cli/tables.py.

This module is on every per-turn path: it imports nothing beyond `typing`, and argparse and pathlib
only when they are needed.
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import Any

TEXT, INT, PATH, FLAG = "text", "int", "path", "flag"


class Option:
    """One argument of a command: an option when it has `flags`, else a positional argument.

    A plain class rather than a NamedTuple or dataclass: building either costs a per-turn start-up
    more than the rest of this module."""

    __slots__ = ("name", "flags", "help", "kind", "default", "metavar", "repeatable", "required", "minimum")

    def __init__(
        self,
        name: str,
        flags: tuple[str, ...],
        help: str,
        *,
        kind: str = TEXT,
        default: object = None,
        metavar: str | None = None,
        repeatable: bool = False,
        required: bool = False,
        minimum: int | None = None,
    ) -> None:
        self.name = name  # the keyword its value is passed to the command's run function under
        self.flags = flags
        self.help = help
        self.kind = kind  # text, int, path (a pathlib.Path), or flag (present or not)
        self.default = default  # a repeatable argument starts empty instead
        self.metavar = metavar  # None: each front end's own (argparse: the name in capitals)
        self.repeatable = repeatable  # an option given many times, or a positional taking many values
        self.required = required  # positional arguments only
        self.minimum = minimum  # int only: smaller values are a usage error

    def __repr__(self) -> str:
        return f"Option({self.name!r}, {self.flags!r})"


# Options most commands share (the Typer ones reuse these helps: reasonlessons/cli/app.py).
REPO = Option(
    "repo",
    ("--repo",),
    "Repository root. Default: the git top-level of the current directory, else the current one.",
    kind=PATH,
    metavar="DIR",  # as every synopsis in docs/commands.md spells it
)
JSON = Option(
    "as_json", ("--json",), "Print one JSON document on stdout and nothing else.", kind=FLAG, default=False
)


def _convert(option: Option, value: str) -> object:
    """The value as the command takes it; ValueError when the full parser must say what is wrong."""
    if option.kind == INT:
        number = int(value)
        if option.minimum is not None and number < option.minimum:
            raise ValueError(value)
        return number
    if option.kind == PATH:
        from pathlib import Path

        return Path(value)
    return value


def quick_parse(table: Sequence[Option], argv: Sequence[str]) -> dict[str, Any] | None:
    """The arguments of a well-formed command line by name, or None to let the full parser explain.

    What it accepts it reads as argparse and Click do; what it refuses (unknown or abbreviated
    options, `--`, `--flag=value`, an option's value that starts with `-`, too many or too few
    positional arguments, a value of the wrong type) goes to the full parser.
    """
    opts: dict[str, Any] = {o.name: [] if o.repeatable else o.default for o in table}
    by_flag = {flag: o for o in table for flag in o.flags}
    positional: list[str] = []
    args = iter(argv)
    try:
        for arg in args:
            if not arg.startswith("-") or arg == "-":
                positional.append(arg)
                continue
            name, eq, value = arg.partition("=")
            option = by_flag.get(name)
            if option is None:
                return None
            if option.kind == FLAG:
                if eq:
                    return None
                opts[option.name] = True
                continue
            if not eq:
                following = next(args, None)
                if following is None or (following.startswith("-") and following != "-"):
                    return None
                value = following
            if option.repeatable:
                opts[option.name].append(_convert(option, value))
            else:
                opts[option.name] = _convert(option, value)
        for option in (o for o in table if not o.flags):
            if option.repeatable:
                opts[option.name] = [_convert(option, value) for value in positional]
                positional = []
            elif positional:
                opts[option.name] = _convert(option, positional.pop(0))
            elif option.required:
                return None
    except ValueError:
        return None
    return None if positional else opts


def build_parser(table: Sequence[Option], *, prog: str, command: str) -> argparse.ArgumentParser:
    """The argparse parser for `--help` and for the command lines `quick_parse` refuses; its help
    reads as the Typer commands' do (cli/fast/helps.py)."""
    import argparse
    from pathlib import Path

    from reasonlessons.cli.fast.helps import HELPS

    help_ = HELPS[command]
    types: dict[str, Callable[[str], object]] = {INT: int, PATH: Path}
    parser = argparse.ArgumentParser(
        prog=prog,
        description=help_.summary,
        epilog=help_.plain_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    for option in table:
        kwargs: dict[str, Any] = {"help": option.help}
        if option.metavar is not None:
            kwargs["metavar"] = option.metavar
        if option.kind == FLAG:
            kwargs["action"] = "store_true"
        elif option.kind in types:
            kwargs["type"] = types[option.kind]
        if option.kind != FLAG and not option.required:
            kwargs["default"] = [] if option.repeatable else option.default
        if option.flags:
            if option.repeatable:
                kwargs["action"] = "append"
            parser.add_argument(*option.flags, dest=option.name, **kwargs)
        else:
            if not option.required:
                kwargs["nargs"] = "*" if option.repeatable else "?"
            parser.add_argument(option.name, **kwargs)
    return parser
