"""Commands that keep a library small and true: prune, search, deprecate, merge, untrigger, edit."""

from __future__ import annotations

from typing import Annotated

import typer

import reasonlessons.fingerprint
from reasonlessons import curation, store
from reasonlessons.cli.app import (
    JsonOption,
    RepoOption,
    app,
    lesson_ref,
    open_project,
    parse_duration,
    print_json,
    say,
    table,
)
from reasonlessons.cli.fast.helps import typer_help
from reasonlessons.cli.triggers import (
    Agents,
    CommandTriggers,
    Expires,
    FileTriggers,
    KeywordTriggers,
    Supersedes,
    TaskTypes,
    triggers_from,
)
from reasonlessons.errors import UsageError


@app.command("prune", **typer_help("prune"))
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


@app.command("search", **typer_help("search"))
def search(
    query: Annotated[str, typer.Argument(help="Words to find (all of them, any case).", show_default=False)],
    scope: Annotated[str, typer.Option("--scope", help="project, global, candidates or all.")] = "all",
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Find lessons whose name, description, body, triggers or tags hold every word of QUERY."""
    if scope not in store.project.SCOPE_CHOICES:
        raise UsageError(f"--scope {scope!r}: use project, global, candidates or all")
    hits = curation.search.search(open_project(repo), query, scope=scope)
    if json:
        print_json([h.to_json() for h in hits])
        return
    if not hits:
        say(f"no lesson matches {query!r}")
        return
    table(
        ["NAME", "SCOPE", "STATUS", "FOUND IN", "DESCRIPTION"],
        [[h.name, h.scope, h.status, ",".join(h.fields), h.description] for h in hits],
    )


@app.command("deprecate", **typer_help("deprecate"))
def deprecate(
    name: Annotated[str, typer.Argument(help="The lesson to retire.", show_default=False)],
    by: Annotated[
        str | None, typer.Option("--by", help="The lesson that replaces it (lists it in supersedes).")
    ] = None,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Mark a lesson deprecated so recall stops returning it; --by names its replacement."""
    lesson, other = curation.edits.deprecate(open_project(repo), name, by=by)
    if json:
        print_json({**lesson_ref(lesson), "by": lesson_ref(other) if other else None})
        return
    say(f"deprecated {lesson.name} ({lesson.path})" + (f"; {other.name} supersedes it" if other else ""))


@app.command("merge", **typer_help("merge"))
def merge(
    a: Annotated[
        str, typer.Argument(help="First lesson (its description and scope are kept).", show_default=False)
    ],
    b: Annotated[str, typer.Argument(help="Second lesson.", show_default=False)],
    into: Annotated[str, typer.Option("--into", help="Name of the merged lesson (new, or A or B).")],
    description: Annotated[
        str | None, typer.Option("--description", "-d", help="A new description (default: A's).")
    ] = None,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Combine two lessons into one: bodies, triggers, fingerprints, evidence and counts joined; the
    old names go into its supersedes."""
    merged = curation.merge.merge(open_project(repo), a, b, into=into, description=description)
    if json:
        print_json(
            {
                "name": merged.lesson.name,
                "path": str(merged.lesson.path),
                "supersedes": merged.superseded,
                "evidence": merged.evidence,
                "counts": merged.counts,
            }
        )
        return
    say(f"merged {a} and {b} into {merged.lesson.name} ({merged.lesson.path})")
    if merged.superseded:
        say(f"  {', '.join(merged.superseded)} now superseded by {merged.lesson.name}")


@app.command("untrigger", **typer_help("untrigger"))
def untrigger(
    name: Annotated[str, typer.Argument(help="The lesson.", show_default=False)],
    trigger: Annotated[
        str, typer.Argument(help="The glob, command pattern or keyword to remove.", show_default=False)
    ],
    kind: Annotated[str | None, typer.Option("--kind", help="Only from files, commands or keywords.")] = None,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Remove one trigger from a lesson (a dead glob, a too-broad keyword)."""
    project = open_project(repo)
    kinds = curation.edits.untrigger(project, name, trigger, kind=kind)
    if json:
        lesson = project.store.find(name, ("project", "global", "candidate"))
        print_json({**lesson_ref(lesson), "removed": kinds, "triggers": lesson.triggers})
        return
    say(f"removed {trigger!r} from {name} ({', '.join(kinds)})")


@app.command("edit", **typer_help("edit"))
def edit(
    name: Annotated[str, typer.Argument(help="The lesson to change.", show_default=False)],
    description: Annotated[
        str | None, typer.Option("--description", "-d", help="A new one-line description.")
    ] = None,
    body: Annotated[str | None, typer.Option("--body", help="A new lesson text (Markdown bullets).")] = None,
    fingerprint: Annotated[
        list[str] | None,
        typer.Option("--fingerprint", "-f", metavar="ENTRY", help="Replace the fingerprint (repeatable)."),
    ] = None,
    file_trigger: FileTriggers = None,
    command_trigger: CommandTriggers = None,
    keyword_trigger: KeywordTriggers = None,
    task_type: TaskTypes = None,
    supersedes: Supersedes = None,
    expires: Expires = None,
    agent: Agents = None,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Change a lesson in place: description, text, fingerprint (re-recorded), triggers added (remove
    one with untrigger), task types, supersedes, expiry, agent."""
    project = open_project(repo)
    if fingerprint is not None:
        reasonlessons.fingerprint.require_present(project.loc.root, fingerprint)
    fields = curation.edits.lesson_fields(
        project,
        name=name,
        task_types=task_type or [],
        supersedes=supersedes or [],
        expires=expires,
        agents=agent or [],
    )
    edited = curation.edits.edit(
        project,
        name,
        description=description,
        body=body,
        fingerprint=fingerprint,
        triggers=triggers_from(file_trigger, command_trigger, keyword_trigger),
        fields=fields,
    )
    if json:
        print_json({**lesson_ref(edited.lesson), "changed": edited.changed})
        return
    if edited.changed:
        say(f"edited {edited.lesson.name}: {', '.join(edited.changed)} ({edited.lesson.path})")
    else:
        say(f"{name}: nothing to change")
