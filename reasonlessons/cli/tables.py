"""Typer commands built from a fast path's option table (reasonlessons/cli/fast/options.py).

The per-turn commands parse their arguments without Typer; their Typer twins exist for `--help`
listings, docs and in-process runs. Building the twin from the same table, instead of writing its
signature out, keeps names, flags, defaults, metavars and helps the same on both paths.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from reasonlessons.cli.fast.helps import HELPS, typer_help
from reasonlessons.cli.fast.options import FLAG, INT, PATH, Option

_TYPES: dict[str, type] = {INT: int, PATH: Path, FLAG: bool}


def _parameter(option: Option) -> inspect.Parameter:
    """The function parameter Typer reads `option` from: its type, its default, and its Typer info."""
    kind: Any = _TYPES.get(option.kind, str)
    default = option.default
    if option.repeatable:
        kind, default = list[kind], None  # Click's own empty value; the command passes [] on
    shown = default is not None and default is not False and default != ""
    info: Any
    if option.flags:
        info = typer.Option(
            *option.flags, help=option.help, metavar=option.metavar, show_default=shown, min=option.minimum
        )
    else:
        info = typer.Argument(help=option.help, metavar=option.metavar, show_default=shown)
    if default is None and not option.required:
        kind = kind | None
    return inspect.Parameter(
        option.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=inspect.Parameter.empty if option.required else default,
        annotation=Annotated[kind, info],
    )


def add_command(app: typer.Typer, name: str, table: Sequence[Option], run: Callable[..., int]) -> None:
    """Register command `name`, whose arguments are `table`, as a call of `run` with them by name;
    a non-zero exit code from `run` ends the command with that code. Its help is HELPS[name]."""
    repeatable = [option.name for option in table if option.repeatable]

    def command(**values: Any) -> None:
        for key in repeatable:
            values[key] = values[key] or []
        code = run(**values)
        if code:
            raise typer.Exit(code)

    parameters = [_parameter(option) for option in table]
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__name__ = command.__qualname__ = name.replace("-", "_")
    command.__doc__ = HELPS[name].summary
    app.command(name, **typer_help(name))(command)
