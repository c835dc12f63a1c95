"""Commands that keep a library small and true: prune, search, deprecate, merge, untrigger."""

from __future__ import annotations

from typing import Annotated

import typer

from reasonlessons import curation
from reasonlessons.cli.app import JsonOption, RepoOption, app, open_project, parse_duration, print_json, say


@app.command()
def prune(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would be archived and why; change nothing.")
    ] = False,
    scope: Annotated[str, typer.Option("--scope", help="project (default), global or all.")] = "project",
    stale_after: Annotated[
        str, typer.Option("--stale-after", help="Archive a stale lesson not refreshed for this long.")
    ] = "30d",
    unused_after: Annotated[
        str, typer.Option("--unused-after", help="Archive a lesson never recalled for this long.")
    ] = "30d",
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Archive expired, deactivated, long-stale, dead, duplicate and never-recalled lessons into
    the scope's _archive/ folder (move a file back to restore it)."""
    report = curation.prune.prune(
        open_project(repo),
        scope=scope,
        dry_run=dry_run,
        stale_after=parse_duration(stale_after, option="--stale-after"),
        unused_after=parse_duration(unused_after, option="--unused-after"),
    )
    if json:
        print_json(report.to_json())
        return
    verb = "would archive" if dry_run else "archived"
    for item in report.pruned:
        say(f"{verb} {item.scope} lesson {item.name}: {'; '.join(item.why)}")
    for note in report.notes:
        say(f"note: {note}")
    say(f"{len(report.pruned)} {verb}, {report.kept} kept")
