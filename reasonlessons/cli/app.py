"""The Typer application and the options every command shares."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from reasonlessons import store
from reasonlessons.cli.fast.options import JSON, REPO
from reasonlessons.errors import UsageError
from reasonlessons.safety.terminal import json_bytes, visible
from reasonlessons.support import jsonio

if TYPE_CHECKING:
    import datetime as dt

    from reasonlessons.store.project import Project

app = typer.Typer(
    name="reasonlessons",
    help=(
        "Learn a repository from coding-agent session logs, and forget what is no longer true.\n\n"
        "Lessons live in .reasonix/lessons/ (project, committed), .reasonix/lessons/_candidates/ "
        "(proposed) and $REASONIX_HOME/lessons/ (global, personal)."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# The same options as the fast paths' (reasonlessons/cli/fast/options.py), for the other commands.
RepoOption = Annotated[Path | None, typer.Option(*REPO.flags, help=REPO.help, show_default=False)]
JsonOption = Annotated[bool, typer.Option(*JSON.flags, help=JSON.help)]


def open_project(repo: Path | None) -> Project:
    """The Project for `--repo` (the store loads when a command runs, so `--help` stays fast)."""
    return store.project.open_project(repo)


def print_json(obj: object) -> None:
    """A JSON document on stdout, control and invisible characters escaped (safety/terminal.py)."""
    sys.stdout.buffer.write(json_bytes(jsonio.dumps(obj, indent=True)))
    sys.stdout.flush()


def say(message: str) -> None:
    """A line for the human on stdout; control characters from lesson text are shown, not run."""
    typer.echo(visible(message))


def complain(message: str) -> None:
    """A line for the human on stderr (control characters shown, not run)."""
    typer.echo(visible(message), err=True)


def warn(message: str) -> None:
    """A warning on stderr, so `--json` output stays clean."""
    complain(f"warning: {message}")


def parse_duration(text: str) -> dt.timedelta:
    """`7d`, `12h`, `30m`, `2w` or `45s` as a timedelta."""
    import datetime as dt

    units = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
    value, unit = text[:-1], text[-1:].lower()
    if unit not in units or not value.isdigit():
        raise UsageError(f"--after {text!r}: use a number and a unit, e.g. 7d, 12h, 30m, 2w")
    return dt.timedelta(**{units[unit]: int(value)})


def table(headers: list[str], rows: list[list[str]]) -> None:
    """A tidy aligned table on stdout; plain text so it pipes and diffs well."""
    if not rows:
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    cap = 60
    widths[-1] = min(widths[-1], cap)

    def line(cells: list[str]) -> str:
        cells = [c if len(c) <= w else c[: w - 1] + "…" for c, w in zip(cells, widths, strict=True)]
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    say(line(headers))
    say(line(["-" * w for w in widths]))
    for row in rows:
        say(line(row))
