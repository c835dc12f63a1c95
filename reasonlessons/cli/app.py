"""The Typer application and the options every command shares."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import typer.core

from reasonlessons import __version__, store
from reasonlessons.cli.fast import terminal
from reasonlessons.cli.fast.options import JSON, REPO
from reasonlessons.constants import EXIT_ERROR
from reasonlessons.errors import UsageError
from reasonlessons.safety.terminal import json_bytes, visible, visible_styled
from reasonlessons.support import jsonio

if TYPE_CHECKING:
    import datetime as dt

    from reasonlessons.lessons.model import Lesson
    from reasonlessons.store.project import Project

# What a value is shown as when its declaration names nothing better: argparse's default on the
# fast paths, the name in capitals, except a folder, which the docs' synopses call DIR.
_METAVARS = {"out": "DIR"}


class _Group(typer.core.TyperGroup):
    """The command group: every command's --help shows values as the fast paths' argparse and the
    docs do (`--scope SCOPE`, `NAME`), not as Typer's types (`--scope <str>`, `{name}`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for command in self.commands.values():
            for param in command.params:
                if param.metavar is None and param.name and not getattr(param, "is_flag", False):
                    param.metavar = _METAVARS.get(param.name, param.name.upper())


app = typer.Typer(
    cls=_Group,
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


def _version(given: bool) -> None:
    if given:
        typer.echo(f"reasonlessons {__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", is_eager=True, callback=_version),
    ] = False,
    no_color: Annotated[
        bool, typer.Option("--no-color", help="No colours (also: the NO_COLOR environment variable).")
    ] = False,
) -> None:
    """Options given before the command (cli/fast/__init__.py applies them on the fast paths too)."""
    if no_color:
        terminal.disable_color()


# The same options as the fast paths' (reasonlessons/cli/fast/options.py), for the other commands.
RepoOption = Annotated[
    Path | None, typer.Option(*REPO.flags, help=REPO.help, metavar=REPO.metavar, show_default=False)
]
JsonOption = Annotated[bool, typer.Option(*JSON.flags, help=JSON.help)]


def open_project(repo: Path | None, *, require_repo: bool = False) -> Project:
    """The Project for `--repo` (the store loads when a command runs, so `--help` stays fast).

    `require_repo`: the command reads a repository (list, show, stale, refresh, ...), so outside
    one it says so and exits 2 instead of answering for an arbitrary folder."""
    project = store.project.open_project(repo)
    if require_repo:
        project.loc.require_repository()
    return project


def lesson_ref(lesson: Lesson) -> dict[str, Any]:
    """`{"name", "scope", "path"}`: how every `--json` document names a lesson it acted on."""
    return {"name": lesson.name, "scope": lesson.scope, "path": str(lesson.path) if lesson.path else None}


def print_json(obj: object) -> None:
    """A JSON document on stdout, control and invisible characters escaped (safety/terminal.py)."""
    sys.stdout.buffer.write(json_bytes(jsonio.dumps(obj, indent=True)))
    sys.stdout.flush()


def say(message: str) -> None:
    """A line for the human on stdout: control characters from lesson text are shown, not run; the
    colours we add (terminal.style, only on a terminal) are kept."""
    typer.echo(_shown(message, sys.stdout), color=terminal.color_enabled(sys.stdout) or None)


def complain(message: str) -> None:
    """A line for the human on stderr (control characters shown, not run)."""
    typer.echo(_shown(message, sys.stderr), err=True, color=terminal.color_enabled(sys.stderr) or None)


def _shown(message: str, stream: Any) -> str:
    return visible_styled(message) if terminal.color_enabled(stream) else visible(message)


def warn(message: str) -> None:
    """A warning on stderr, so `--json` output stays clean."""
    prefix = terminal.style("warning:", "yellow", sys.stderr)
    complain(f"{prefix} {visible(message)}")


STATUS_COLORS = {
    "active": "green",
    "stale": "red",
    "expired": "dim",
    "superseded": "dim",
    "deprecated": "dim",
}


def status_color(status: str) -> str | None:
    """The colour a lesson status is shown in on a terminal (None: plain)."""
    return STATUS_COLORS.get(status.split(" ", 1)[0])


def interactive() -> bool:
    """Whether a person can answer a question: stdin and stderr are terminals."""
    try:
        return sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def confirm(what: str, *, hint: str) -> None:
    """Ask before doing `what`; UsageError (exit 2) when nobody can answer, EXIT_ERROR when declined.
    `--yes` is how scripts and CI say yes."""
    if not interactive():
        raise UsageError(f"not asking whether to {what} without a terminal: {hint}, then pass --yes")
    if not typer.confirm(f"{visible(what[0].upper() + what[1:])}?", default=False, err=True):
        typer.echo("nothing done", err=True)
        raise typer.Exit(EXIT_ERROR)


def parse_duration(text: str, *, option: str = "--after") -> dt.timedelta:
    """`7d`, `12h`, `30m`, `2w` or `45s` as a timedelta."""
    import datetime as dt

    units = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
    value, unit = text[:-1], text[-1:].lower()
    if unit not in units or not value.isdigit():
        raise UsageError(f"{option} {text!r}: use a number and a unit, e.g. 7d, 12h, 30m, 2w")
    return dt.timedelta(**{units[unit]: int(value)})


Painter = Callable[[str], "str | None"]  # a cell's text -> its colour on a terminal, or None


def table(headers: list[str], rows: list[list[str]], *, colors: dict[int, Painter] | None = None) -> None:
    """A tidy aligned table on stdout; plain text so it pipes and diffs well (on a terminal, column
    `i` is coloured by `colors[i](cell)`)."""
    if not rows:
        return
    rows = [[visible(cell) for cell in row] for row in rows]  # escapes measured as they are shown
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    cap = 60
    widths[-1] = min(widths[-1], cap)

    def line(cells: list[str], paint: bool = False) -> str:
        cells = [c if len(c) <= w else c[: w - 1] + "…" for c, w in zip(cells, widths, strict=True)]
        padded = [c.ljust(w) for c, w in zip(cells, widths, strict=True)]
        for i, pick in (colors or {}).items() if paint else ():
            color = pick(cells[i])
            if color is not None:
                padded[i] = terminal.style(cells[i], color) + padded[i][len(cells[i]) :]
        return "  ".join(padded).rstrip()

    say(line(headers))
    say(line(["-" * w for w in widths]))
    for row in rows:
        say(line(row, paint=True))
