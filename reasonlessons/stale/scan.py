"""`stale` and `refresh`: which lessons drifted from the repo, and re-recording after review.

Checked: project and global lessons whose status would otherwise be active (deprecated, superseded
and expired lessons are never recalled, so their drift does not matter) and that are not shadowed by a
project lesson of the same name. Candidates are not checked: they are proposals, and a CI gate must
not fail on them. A lesson with entries but no recorded value for one of them (hand-written, or an
older file) is stale with reason `unrecorded` until `refresh` records it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT, STATUS_ACTIVE
from reasonlessons.errors import InvalidFingerprintError, StoreWriteError, UsageError
from reasonlessons.fingerprint import Checker
from reasonlessons.lessons.model import Lesson
from reasonlessons.stale import meta_cache
from reasonlessons.stale.prefetch import split_check
from reasonlessons.store.status import status_of, superseded_names

if TYPE_CHECKING:
    from reasonlessons.fingerprint import Drift
    from reasonlessons.fingerprint.deps import Deps
    from reasonlessons.store.project import Project


@dataclass
class StaleReport:
    """One stale lesson and why."""

    name: str
    scope: str
    path: Path | None
    drift: list[Drift]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "scope": self.scope, "drift": [d.to_json() for d in self.drift]}


@dataclass
class StaleScan:
    """What `stale` found: the stale lessons, how many were checked, and unreadable lesson files."""

    reports: list[StaleReport] = field(default_factory=list)
    checked: int = 0
    bad: list[Any] = field(default_factory=list)
    # When the answer may change with no file changing: the next `expires-at` still to come.
    valid_until: dt.datetime | None = None


def scan_stale(project: Project, *, deps: Deps | None = None) -> StaleScan:
    """Check every project and global lesson against the work tree, commits of drifts included.

    `deps` learns every path the check looked at (see reasonlessons.stale.answer_cache)."""
    loc = project.loc
    state_dir = _state_dir(project)
    scopes = (SCOPE_PROJECT, SCOPE_GLOBAL)
    now = project.now()
    with Checker(loc.root, state_dir=state_dir, deps=deps) as checker:
        # Cold, half of the work goes to a forked process (see prefetch.py); the same answer.
        known = split_check(loc, scopes, checker, now=now)
        lessons, bad = meta_cache.scan(loc, scopes, deps, known=known)
        superseded = superseded_names(lessons)
        project_names = {lesson.name for lesson in lessons if lesson.scope == SCOPE_PROJECT}
        result = StaleScan(bad=bad)
        upcoming = [e for e in (lesson.expires_at for lesson in lessons) if e is not None and e > now]
        result.valid_until = min(upcoming, default=None)
        for lesson in lessons:
            if lesson.scope == SCOPE_GLOBAL and lesson.name in project_names:
                continue
            if status_of(lesson, now=now, superseded=superseded, drift=None) != STATUS_ACTIVE:
                continue
            result.checked += 1
            drift = checker.drift(lesson)
            if drift:
                for item in drift:
                    _ = item.commit  # resolve now, so the cache saved on exit keeps the answer
                result.reports.append(StaleReport(lesson.name, lesson.scope or "", lesson.path, drift))
    return result


def stale_lessons(project: Project) -> list[StaleReport]:
    """The stale project and global lessons, each with its drift."""
    return scan_stale(project).reports


def refresh(project: Project, name: str | None = None, *, all: bool = False) -> list[Lesson]:
    """Re-record the fingerprint of one lesson (any scope), or of every lesson whose record changed.

    `--all` leaves lessons whose recorded values still hold untouched, so it never churns files."""
    if (name is None) == (not all):
        raise UsageError("give a lesson NAME or --all (not both)")
    loc = project.loc
    loc.guard_writes()
    store = project.store
    scopes = (SCOPE_PROJECT, SCOPE_GLOBAL, SCOPE_CANDIDATE)
    targets = [store.find(name, scopes)] if name is not None else store.scan(scopes).lessons
    refreshed: list[Lesson] = []
    failed: list[str] = []
    with Checker(loc.root, state_dir=_state_dir(project)) as checker:
        for lesson in targets:
            try:
                recorded = checker.record(lesson.fingerprint)
            except InvalidFingerprintError as exc:
                if name is not None:
                    raise
                failed.append(f"{lesson.name}: {exc}")
                continue
            if all and recorded == lesson.recorded and "fingerprint-recorded" in lesson.meta:
                continue
            lesson.meta["fingerprint-recorded"] = recorded
            lesson.meta["refreshed-at"] = project.now().date()
            store.save(lesson)
            refreshed.append(lesson)
    if failed:
        raise InvalidFingerprintError(
            f"refreshed {len(refreshed)} lesson(s), but not: {'; '.join(failed)}; "
            "fix those entries (see `reasonlessons validate`)"
        )
    return refreshed


def _state_dir(project: Project) -> Path | None:
    """The local state dir, or None (no caching) when it cannot be created, e.g. a read-only checkout."""
    try:
        return project.loc.ensure_state_dir()
    except StoreWriteError:
        return None
