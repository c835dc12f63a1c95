"""Commands over fingerprints: stale, refresh."""

from __future__ import annotations

from typing import Annotated

import typer

import reasonlessons.stale
from reasonlessons.cli.app import JsonOption, RepoOption, app, open_project, say
from reasonlessons.cli.fast.stale import stale_main
from reasonlessons.constants import EXIT_OK


@app.command()
def stale(
    check: Annotated[
        bool, typer.Option("--check", help="Exit 3 when any lesson is stale (for CI and pre-commit).")
    ] = False,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """List stale lessons and why: each drifted fingerprint entry, was → now, and the commit."""
    code = stale_main(repo, check=check, as_json=json)
    if code != EXIT_OK:
        raise typer.Exit(code)


@app.command()
def refresh(
    name: Annotated[str | None, typer.Argument(help="The lesson to re-record.", show_default=False)] = None,
    all_: Annotated[
        bool, typer.Option("--all", help="Re-record every lesson whose recorded values no longer hold.")
    ] = False,
    repo: RepoOption = None,
) -> None:
    """Re-record fingerprint values after a human confirmed the lesson still holds."""
    lessons = reasonlessons.stale.scan.refresh(open_project(repo), name, all=all_)
    for lesson in lessons:
        say(f"refreshed {lesson.name} ({lesson.path})")
    if all_:
        say(f"{len(lessons)} lesson(s) refreshed")
