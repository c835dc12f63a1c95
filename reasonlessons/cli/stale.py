"""Commands over fingerprints: stale, refresh."""

from __future__ import annotations

from typing import Annotated

import typer

import reasonlessons.stale
import reasonlessons.stale.refresh
from reasonlessons.cli.app import JsonOption, RepoOption, app, confirm, open_project, print_json, say
from reasonlessons.cli.fast.helps import typer_help
from reasonlessons.cli.fast.stale import OPTIONS, stale_main
from reasonlessons.cli.tables import add_command

add_command(app, "stale", OPTIONS, stale_main)


@app.command("refresh", **typer_help("refresh"))
def refresh(
    name: Annotated[str | None, typer.Argument(help="The lesson to re-record.", show_default=False)] = None,
    all_: Annotated[
        bool, typer.Option("--all", help="Re-record every lesson whose recorded values no longer hold.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would be re-recorded (was → now) and write nothing.")
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Refresh more than one lesson without asking first.")
    ] = False,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Re-record fingerprint values after a human confirmed the lesson still holds."""
    project = open_project(repo, require_repo=True)
    planned = reasonlessons.stale.refresh.plan(project, name, all=all_)
    count = len(planned.refreshes)
    ask = not dry_run and count > 1 and not yes
    if not json and (dry_run or ask):
        _show(planned.refreshes, "would refresh")
    if ask:
        confirm(f"re-record these {count} lessons", hint="review the changes above (or --dry-run)")
    done = [] if dry_run else reasonlessons.stale.refresh.apply(project, planned)
    if json:
        print_json({"dry_run": dry_run, "lessons": [item.to_json() for item in planned.refreshes]})
    elif dry_run:
        say(f"{count} lesson(s) would be refreshed; nothing written (--dry-run)")
    else:
        _show(planned.refreshes, "refreshed", changes=not ask)
        if all_:
            say(f"{len(done)} lesson(s) refreshed")
    error = planned.error(len(done))
    if error is not None:
        raise error


def _show(refreshes: list[reasonlessons.stale.refresh.Refresh], verb: str, *, changes: bool = True) -> None:
    """Each lesson, and under it each entry's recorded value and its value now."""
    for item in refreshes:
        say(f"{verb} {item.lesson.name} ({item.lesson.path})")
        for change in item.changes if changes else []:
            say(f"  {change.describe()}")
