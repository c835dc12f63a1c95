"""`recall` in the Typer app (for `--help` and docs); the per-turn path is cli/fast/recall.py."""

from __future__ import annotations

from typing import Annotated

import typer

from reasonlessons.cli.app import RepoOption, app
from reasonlessons.cli.fast.recall import HELP, run
from reasonlessons.constants import DEFAULT_BUDGET


@app.command()
def recall(
    prompt: Annotated[str, typer.Argument(help=HELP["prompt"], show_default=False)] = "",
    files: Annotated[list[str] | None, typer.Option("--file", metavar="PATH", help=HELP["--file"])] = None,
    cmd: Annotated[str | None, typer.Option("--cmd", help=HELP["--cmd"])] = None,
    budget: Annotated[
        int, typer.Option("--budget", metavar="TOKENS", help=HELP["--budget"])
    ] = DEFAULT_BUDGET,
    task_type: Annotated[
        str | None, typer.Option("--task-type", metavar="T", help=HELP["--task-type"])
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help=HELP["--format"])] = "text",
    session: Annotated[str | None, typer.Option("--session", metavar="ID", help=HELP["--session"])] = None,
    repo: RepoOption = None,
) -> None:
    """Print the fresh, relevant lessons for a task, within a token budget."""
    code = run(
        prompt,
        files=files or [],
        cmd=cmd,
        budget=budget,
        task_type=task_type,
        fmt=fmt,
        session=session,
        repo=repo,
    )
    if code:
        raise typer.Exit(code)
