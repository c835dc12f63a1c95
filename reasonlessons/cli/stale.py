"""Commands over fingerprints: stale, refresh."""

from __future__ import annotations

from typing import Annotated

import typer

import reasonlessons.stale
from reasonlessons.cli.app import RepoOption, app, open_project, say
from reasonlessons.cli.fast.stale import OPTIONS, SUMMARY, stale_main
from reasonlessons.cli.tables import add_command

add_command(app, "stale", OPTIONS, stale_main, summary=SUMMARY)


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
