"""Commands over the lesson store: add, list, show, promote, reject, rm, validate."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer

import reasonlessons.fingerprint
from reasonlessons import curation, learning, store
from reasonlessons.cli.app import (
    JsonOption,
    RepoOption,
    app,
    complain,
    lesson_ref,
    open_project,
    parse_duration,
    print_json,
    say,
    status_color,
    table,
    warn,
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
from reasonlessons.cli.trust import trust_own, warn_untrusted
from reasonlessons.constants import EXIT_ERROR, SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT
from reasonlessons.errors import UsageError

NameArg = Annotated[str, typer.Argument(help="Lesson name: a-z, 0-9, '.', '_', '-'; at most 64 characters.")]


@app.command("add", **typer_help("add"))
def add(
    name: NameArg,
    description: Annotated[
        str, typer.Option("--description", "-d", help="One line saying what the lesson is about.")
    ],
    fingerprint: Annotated[
        list[str] | None,
        typer.Option(
            "--fingerprint",
            "-f",
            help="A repo fact the lesson depends on (repeatable): a file, file.json#a.b field, dir/ or glob.",
        ),
    ] = None,
    body: Annotated[str | None, typer.Option("--body", help="The lesson text (Markdown bullets).")] = None,
    body_file: Annotated[
        Path | None,
        typer.Option("--body-file", help="Read the lesson text from this file ('-' for stdin)."),
    ] = None,
    scope: Annotated[
        str, typer.Option("--scope", help="project (committed), global (personal) or candidate.")
    ] = SCOPE_PROJECT,
    file_trigger: FileTriggers = None,
    command_trigger: CommandTriggers = None,
    keyword_trigger: KeywordTriggers = None,
    task_type: TaskTypes = None,
    supersedes: Supersedes = None,
    expires: Expires = None,
    agent: Agents = None,
    allow_absent: Annotated[
        bool,
        typer.Option(
            "--allow-absent",
            help="Record fingerprint entries that name nothing yet as absent, instead of refusing.",
        ),
    ] = False,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Write a lesson by hand, recording its fingerprint now."""
    if body is not None and body_file is not None:
        raise UsageError("give --body or --body-file, not both")
    if scope not in (SCOPE_PROJECT, SCOPE_GLOBAL, SCOPE_CANDIDATE):
        raise UsageError(f"--scope {scope!r}: use project, global or candidate")
    triggers = triggers_from(file_trigger, command_trigger, keyword_trigger)
    text = body or ""
    if body_file is not None:
        text = typer.get_text_stream("stdin").read() if str(body_file) == "-" else _read_text(body_file)
    project = open_project(repo)
    if not allow_absent:  # a typo such as package.json#scirpts.test would otherwise record "absent"
        reasonlessons.fingerprint.require_present(project.loc.root, fingerprint or [])
    fields = curation.edits.lesson_fields(
        project,
        name=name,
        task_types=task_type or [],
        supersedes=supersedes or [],
        expires=expires,
        agents=agent or [],
    )
    curation.edits.refuse_duplicate(project, name=name, description=description, body=text)
    lesson = project.store.add(
        name,
        description=description,
        fingerprint=fingerprint or [],
        body=text,
        scope=scope,
        extra={**({"triggers": triggers} if triggers else {}), **fields},
    )
    flags = trust_own(project, lesson)
    if json:
        print_json(
            {**lesson_ref(lesson), "fingerprint": lesson.fingerprint, "triggers": triggers, "flags": flags}
        )
        return
    say(f"added {lesson.scope} lesson {lesson.name} ({lesson.path})")


@app.command("list", **typer_help("list"))
def list_(
    scope: Annotated[str, typer.Option("--scope", help="project, global, candidates or all.")] = "all",
    archived: Annotated[
        bool,
        typer.Option("--archived", help="List the archived lessons (out of recall, kept on disk) instead."),
    ] = False,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """List lessons with their scope and status (active, stale, expired, superseded, deprecated)."""
    if scope not in store.project.SCOPE_CHOICES:
        raise UsageError(f"--scope {scope!r}: use project, global, candidates or all")
    found, bad = open_project(repo, require_repo=True).entries(scope)
    for entry in bad:
        warn(f"{entry.path}: {entry.message}")
    entries = [e for e in found if e.archived == archived]
    if json:
        print_json([e.to_json() for e in entries])
        return
    hidden = len(found) - len(entries)
    if not entries and (archived or not hidden):
        say(
            "no archived lessons"
            if archived
            else "no lessons yet: `reasonlessons capture` proposes some, `reasonlessons add` writes one"
        )
        return
    rows = [
        [
            e.lesson.name,
            e.lesson.scope or "",
            e.status + (" (shadowed)" if e.shadowed else "") + ("" if e.applies else " (n/a here)"),
            e.lesson.description,
        ]
        for e in entries
    ]
    table(["NAME", "SCOPE", "STATUS", "DESCRIPTION"], rows, colors={2: status_color})
    if hidden and not archived:
        say(f"({hidden} archived lesson(s) not shown: `reasonlessons list --archived`)")


@app.command("show", **typer_help("show"))
def show(name: NameArg, json: JsonOption = False, repo: RepoOption = None) -> None:
    """Show one lesson: project first, then global, then candidates."""
    project = open_project(repo, require_repo=True)
    entry = project.entry(name)
    drift = project.drift(entry.lesson)
    decisions = project.history(entry.lesson).rows()
    if json:
        doc = entry.to_json()
        doc["body"] = entry.lesson.body
        doc["drift"] = [d.to_json() for d in drift]
        doc["meta"] = entry.lesson.meta
        doc["decisions"] = decisions
        print_json(doc)
        return
    lesson = entry.lesson
    say(f"{lesson.name}  [{lesson.scope}, {entry.status}]  {lesson.path}")
    say(lesson.description)
    if entry.reason:
        say(entry.reason)
    if lesson.fingerprint:
        say("fingerprint: " + ", ".join(lesson.fingerprint))
    for item in drift:
        say(f"  drift: {item.describe()}")
    for missing in entry.not_applying or []:
        say(f"  does not apply here: {missing.describe()}")
    record = entry.record
    say(
        f"confidence: {entry.confidence:g} (confirmed in {record.confirmed} session(s), "
        f"contradicted in {record.contradicted}: {record.direct} direct, {record.soft} soft)"
    )
    for row in decisions:  # the sessions that decided each count (docs/learning.md)
        weight = f" ({row['weight']})" if row.get("weight") else ""
        when = str(row.get("at") or "?")[:16].replace("T", " ")
        counted = "" if row["counted"] else "  [before revival: not counted]"
        say(f"  {when}  {row['verdict']}{weight}  {row['session']}: {row['reason']}  [{row['ref']}]{counted}")
    say("")
    say(lesson.body.rstrip())


@app.command("promote", **typer_help("promote"))
def promote(
    name: Annotated[str | None, typer.Argument(help="Candidate to promote.", show_default=False)] = None,
    to_global: Annotated[
        bool, typer.Option("--global", help="Promote into the global scope instead.")
    ] = False,
    auto: Annotated[
        bool,
        typer.Option("--auto", help="Promote every candidate older than --after that was not rejected."),
    ] = False,
    after: Annotated[
        str | None,
        typer.Option(
            "--after", help="Age for --auto, e.g. 7d, 12h, 2w. Default: config promote.auto-after (7d)."
        ),
    ] = None,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Move a candidate into the project scope (or the global scope with --global)."""
    # A candidate for the same fact as a stale lesson supersedes it (reasonlessons/learning/supersede.py).
    project = open_project(repo)
    if auto == (name is not None):
        raise UsageError("give a candidate NAME, or --auto, but not both")
    promoted = (
        learning.supersede.promote_auto(
            project, parse_duration(after) if after else dt.timedelta(seconds=project.config.auto_after)
        )
        if auto
        else [learning.supersede.promote(project, name or "", to_global=to_global)]
    )
    docs = [
        {**lesson_ref(item.lesson), "superseded": item.superseded, "flags": warn_untrusted(item.lesson)}
        for item in promoted
    ]
    if json:
        print_json({"promoted": docs})
        return
    for item in promoted:
        say(f"promoted {item.lesson.name} -> {item.lesson.path}")
        for old in item.superseded:
            say(f"  {old} is stale and now superseded by {item.lesson.name}")
    if auto:
        say(f"{len(promoted)} candidate(s) promoted")


@app.command("reject", **typer_help("reject"))
def reject(name: NameArg, json: JsonOption = False, repo: RepoOption = None) -> None:
    """Drop a candidate and remember the rejection, so capture does not propose it again."""
    path = open_project(repo).store.reject(name)
    if json:
        print_json({"name": name, "scope": SCOPE_CANDIDATE, "path": str(path)})
        return
    say(f"rejected {name} (removed {path})")


@app.command("rm", **typer_help("rm"))
def rm(
    name: NameArg,
    from_global: Annotated[bool, typer.Option("--global", help="Remove from the global scope.")] = False,
    json: JsonOption = False,
    repo: RepoOption = None,
) -> None:
    """Delete a promoted lesson (use `reject` for candidates)."""
    scope = SCOPE_GLOBAL if from_global else SCOPE_PROJECT
    path = open_project(repo).store.remove(name, scope=scope)
    if json:
        print_json({"name": name, "scope": scope, "path": str(path)})
        return
    say(f"removed {path}")


@app.command("validate", **typer_help("validate"))
def validate(json: JsonOption = False, repo: RepoOption = None) -> None:
    """Check schema, names, fingerprint entries, triggers, duplicates and supersession in every
    scope; every finding has a stable code (docs/commands.md#validate); exit 1 on errors."""
    problems = curation.lint.validate_project(open_project(repo, require_repo=True))
    errors = [p for p in problems if p.severity == store.validate.ERROR]
    if json:
        print_json({"ok": not errors, "problems": [p.to_json() for p in problems]})
    else:
        for p in problems:
            where = f" {p.field}" if p.field else ""
            complain(f"{p.severity} {p.code}: {p.path}{where}: {p.message}")
        say(f"{len(errors)} error(s), {len(problems) - len(errors)} warning(s)")
    if errors:
        raise typer.Exit(EXIT_ERROR)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--body-file {path}: cannot read it ({exc}); pass a UTF-8 text file") from exc
