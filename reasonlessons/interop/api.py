"""The two entry points the CLI (and anyone else) calls: import a file or folder, export to a folder."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from reasonlessons.capture.extract.fingerprints import RepoFacts, for_text
from reasonlessons.constants import SCOPE_CANDIDATE, STATUS_ACTIVE
from reasonlessons.errors import UsageError
from reasonlessons.interop import (
    EXPORT_FORMATS,
    IMPORT_FORMATS,
    agentsmesh,
    agentsmesh_export,
    aip11,
    claude_rules,
    cursor_rules,
)
from reasonlessons.interop.aip11_export import write_package
from reasonlessons.interop.common import Imported, InteropError, Report, check_import_scope, store_lessons
from reasonlessons.store.project import Project


def with_fingerprint(item: Imported, facts: RepoFacts) -> Imported:
    """An imported lesson with no fingerprint gets the facts its text names that exist here, so it
    goes stale like a captured one when they change."""
    if item.fingerprint:
        return item
    found = for_text(f"{item.description}\n{item.body}", facts)
    return dataclasses.replace(item, fingerprint=found) if found else item


def import_lessons(
    project: Project, fmt: str, path: Path, *, scope: str = SCOPE_CANDIDATE, replace: bool = False
) -> Report:
    """Read lessons in format `fmt` from `path` and write them into `scope` (candidates by default)."""
    check_import_scope(scope)
    project.loc.guard_writes()
    notes: list[str] = []
    if fmt == "aip11":
        known = {entry.lesson.name for entry in project.entries("all", check_drift=False)[0]}
        lessons, notes = aip11.read_package(path, known=known)
    elif fmt == "agentsmesh":
        lessons, notes = agentsmesh.read_lessons(path)
    elif fmt == "claude-rules":
        lessons = claude_rules.read_rules(path)
    elif fmt == "cursor-rules":
        lessons = cursor_rules.read_rules(path)
    else:
        raise UsageError(f"unknown import format {fmt!r}; use {', '.join(IMPORT_FORMATS)}")
    facts = RepoFacts(project.loc.root)
    lessons = [with_fingerprint(item, facts) for item in lessons]
    _refuse_retiring(project, lessons, scope=scope, replace=replace)
    report = store_lessons(project, lessons, scope=scope, replace=replace)
    report.notes[:0] = notes
    return report


def export_lessons(project: Project, fmt: str, out: Path | None = None, *, scope: str = "project") -> Report:
    """Write the lessons of `scope` in format `fmt` into `out` (each format has a default folder)."""
    project.loc.guard_writes()
    if fmt == "aip11":
        if out is None:
            raise UsageError("export aip11 needs --out DIR: the folder that holds the LESSON.md package")
        return write_package(project, out, scope=scope)
    if fmt == "agentsmesh":
        return agentsmesh_export.export(project, out, scope=scope)
    if fmt == "claude-rules":
        return claude_rules.export(project, out, scope=scope)
    if fmt == "cursor-rules":
        return cursor_rules.export(project, out, scope=scope)
    raise UsageError(f"unknown export format {fmt!r}; use {', '.join(EXPORT_FORMATS)}")


def _refuse_retiring(project: Project, lessons: list[Imported], *, scope: str, replace: bool) -> None:
    """An import never retires an active lesson on the quiet: a promoted lesson it would list in
    `supersedes` must be already retired, or one this import replaces (`--replace`)."""
    if scope == SCOPE_CANDIDATE:
        return  # a candidate's supersedes takes effect only when a human promotes it
    incoming = {item.name for item in lessons}
    live = {
        e.lesson.name: e.lesson.scope
        for e in project.entries("all", check_drift=False)[0]
        if e.lesson.scope != SCOPE_CANDIDATE and e.status == STATUS_ACTIVE
    }
    retiring = sorted(
        f"{old!r} (by {item.name!r})"
        for item in lessons
        for old in item.extra.get("supersedes") or []
        if old in live and not (replace and old in incoming)
    )
    if retiring:
        raise InteropError(
            f"importing would retire the active lesson(s) {', '.join(retiring)}, nothing written; "
            "deprecate them first (`reasonlessons deprecate NAME --by OTHER`) or import as candidates"
        )
