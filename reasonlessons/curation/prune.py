"""`prune`: archive the lessons a library no longer needs, saying why for each.

A lesson goes when it is expired, deactivated by the learning loop, stale for longer than the
grace period, dead (it has triggers and none of them can fire), a duplicate of another live lesson
(the later name goes, the first stays), or never recalled although it is older than the grace
period. Archiving moves the file into the scope's `_archive/` folder, bytes unchanged, so a
mistaken prune is undone by moving it back. Superseded and deprecated lessons stay: a human
decided their fate, and their names keep the supersession readable.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from reasonlessons.constants import SCOPE_GLOBAL, SCOPE_PROJECT, STATUS_EXPIRED, STATUS_STALE
from reasonlessons.curation.lint import live_triggers
from reasonlessons.curation.repofiles import RepoFiles
from reasonlessons.errors import UsageError
from reasonlessons.lessons.model import Lesson, as_datetime
from reasonlessons.recall.counters import Counters, lesson_key
from reasonlessons.store.project import Entry, Project
from reasonlessons.store.validate import text_key

REASONS = ("expired", "deactivated", "stale", "dead", "duplicate", "never-recalled")
SCOPES = {"project": (SCOPE_PROJECT,), "global": (SCOPE_GLOBAL,), "all": (SCOPE_PROJECT, SCOPE_GLOBAL)}
DEFAULT_GRACE = dt.timedelta(days=30)


@dataclass
class Pruned:
    """One lesson to archive (or archived), and every reason it goes."""

    name: str
    scope: str
    path: str
    reasons: list[str] = field(default_factory=list)
    why: list[str] = field(default_factory=list)
    archived_to: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": self.scope,
            "path": self.path,
            "reasons": self.reasons,
            "why": self.why,
            "archived_to": self.archived_to,
        }


@dataclass
class PruneReport:
    pruned: list[Pruned]
    kept: int
    dry_run: bool
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "pruned": [p.to_json() for p in self.pruned],
            "kept": self.kept,
            "notes": self.notes,
        }


def prune(
    project: Project,
    *,
    scope: str = "project",
    dry_run: bool = False,
    stale_after: dt.timedelta = DEFAULT_GRACE,
    unused_after: dt.timedelta = DEFAULT_GRACE,
) -> PruneReport:
    """Find what to archive in `scope` (project, global or all) and, unless `dry_run`, archive it."""
    if scope not in SCOPES:
        raise UsageError(f"--scope {scope!r}: use project, global or all")
    entries, _ = project.entries("all")
    now = project.now()
    counters = Counters.load(project.loc.state_dir)
    # Without any recall recorded here (a fresh clone: counters are local state), "never
    # recalled" says nothing about the lesson, so that reason is not judged at all.
    judge_unused = any(counters.hits(key) for key in counters.lessons)
    report = PruneReport([], 0, dry_run)
    if not judge_unused:
        report.notes.append("no recall recorded in this clone yet: never-recalled lessons were not judged")
    # Archived by the learning loop (confidence below the floor): `<scope>:<name>` -> why.
    off = {f"{e.lesson.scope}:{e.lesson.name}": e.reason or "archived" for e in entries if e.archived}
    files = RepoFiles(project.loc.root)
    first_of: dict[str, str] = {}
    for entry in sorted(entries, key=lambda e: (e.lesson.scope != SCOPE_PROJECT, e.lesson.name)):
        lesson = entry.lesson
        if lesson.scope not in SCOPES["all"] or entry.shadowed or lesson.declared_status is not None:
            continue
        item = Pruned(lesson.name, lesson.scope or "", str(lesson.path or ""))
        _judge(item, entry, now=now, off=off, files=files, first_of=first_of)
        if judge_unused and entry.status not in (STATUS_EXPIRED,) and "deactivated" not in item.reasons:
            key = lesson_key(lesson.scope or "", lesson.name)
            since = _recorded_at(lesson)
            if counters.hits(key) == 0 and since is not None and now - since >= unused_after:
                item.reasons.append("never-recalled")
                item.why.append(f"never recalled since {since.date().isoformat()}")
        if "stale" in item.reasons:
            since = _recorded_at(lesson)
            if since is None or now - since < stale_after:
                i = item.reasons.index("stale")
                del item.reasons[i], item.why[i]
        if item.reasons and lesson.scope in SCOPES[scope]:
            report.pruned.append(item)
        elif lesson.scope in SCOPES[scope]:
            report.kept += 1
    if not dry_run:
        for item in report.pruned:
            target = project.store.archive(item.name, scope=item.scope)
            item.archived_to = str(target)
    return report


def _judge(
    item: Pruned,
    entry: Entry,
    *,
    now: dt.datetime,
    off: dict[str, str],
    files: RepoFiles,
    first_of: dict[str, str],
) -> None:
    lesson = entry.lesson
    if entry.status == STATUS_EXPIRED and lesson.expires_at is not None:
        item.reasons.append("expired")
        item.why.append(f"expired on {lesson.expires_at.date().isoformat()}")
    key = f"{lesson.scope}:{lesson.name}"
    if key in off:
        item.reasons.append("deactivated")
        item.why.append(f"the learning loop {off[key]}")
    if entry.status == STATUS_STALE:
        item.reasons.append("stale")
        item.why.append("stale: its fingerprint drifted and nobody refreshed it")
    declared = sum(len(v) for v in lesson.triggers.values())
    if declared and not live_triggers(lesson, files if lesson.scope != SCOPE_GLOBAL else None):
        item.reasons.append("dead")
        item.why.append(f"dead: none of its {declared} trigger(s) can fire")
    if entry.status not in (STATUS_EXPIRED,) and key not in off:
        text = text_key(lesson)
        if text in first_of:
            item.reasons.append("duplicate")
            item.why.append(f"duplicate of {first_of[text]}")
        else:
            first_of[text] = lesson.name


def _recorded_at(lesson: Lesson) -> dt.datetime | None:
    """When a human last vouched for the lesson: refreshed, else captured."""
    return as_datetime(lesson.meta.get("refreshed-at")) or lesson.captured_at
