"""`stale`: which lessons drifted from the repo (re-recording after review is refresh.py).

Checked: project and global lessons whose status would otherwise be active (deprecated, superseded
and expired lessons are never recalled, so their drift does not matter) and that are not shadowed by a
project lesson of the same name. Candidates are not checked: they are proposals, and a CI gate must
not fail on them. A lesson with entries but no recorded value for one of them (hand-written, or an
older file) is stale with reason `unrecorded` until `refresh` records it. A global lesson is
never stale by value: where its conditions fail it does not apply (fingerprint/applies.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonlessons.constants import SCOPE_GLOBAL, SCOPE_PROJECT, STATUS_ACTIVE
from reasonlessons.fingerprint import Checker
from reasonlessons.stale import meta_cache
from reasonlessons.stale.prefetch import split_check
from reasonlessons.store.status import status_of, superseded_names
from reasonlessons.support.values import Value

if TYPE_CHECKING:
    from reasonlessons.fingerprint import Drift
    from reasonlessons.fingerprint.applies import NotApplying
    from reasonlessons.fingerprint.deps import Deps
    from reasonlessons.lessons.model import Lesson
    from reasonlessons.store.project import Project


class StaleReport(Value):
    """One stale lesson and why."""

    FIELDS = ("name", "scope", "path", "drift")
    __slots__ = FIELDS

    def __init__(self, name: str, scope: str, path: Path | None, drift: list[Drift]) -> None:
        self.name = name
        self.scope = scope
        self.path = path
        self.drift = drift

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "scope": self.scope, "drift": [d.to_json() for d in self.drift]}


class NotApplyingReport(Value):
    """A global lesson that does not apply to this repository, and which conditions fail."""

    FIELDS = ("name", "path", "conditions")
    __slots__ = FIELDS

    def __init__(self, name: str, path: Path | None, conditions: list[NotApplying]) -> None:
        self.name = name
        self.path = path
        self.conditions = conditions


class StaleScan(Value):
    """What `stale` found: the stale lessons, how many were checked, global lessons that do not
    apply here (never stale: fingerprint/applies.py), and unreadable lesson files."""

    FIELDS = ("reports", "checked", "bad", "not_applying", "valid_until")
    __slots__ = FIELDS

    def __init__(
        self,
        reports: list[StaleReport] | None = None,
        checked: int = 0,
        bad: list[Any] | None = None,
        not_applying: list[NotApplyingReport] | None = None,
        # When the answer may change with no file changing: the next `expires-at` still to come.
        valid_until: dt.datetime | None = None,
    ) -> None:
        self.reports = [] if reports is None else reports
        self.checked = checked
        self.bad = [] if bad is None else bad
        self.not_applying = [] if not_applying is None else not_applying
        self.valid_until = valid_until


def scan_stale(
    project: Project, *, deps: Deps | None = None, progress: Callable[[int, int], None] | None = None
) -> StaleScan:
    """Check every project and global lesson against the work tree, commits of drifts included.

    `deps` learns every path the check looked at (see reasonlessons.stale.answer_cache);
    `progress(done, total)` follows a check long enough to want a progress bar."""
    loc = project.loc
    state_dir = loc.existing_state_dir()  # reading never creates it
    scopes = (SCOPE_PROJECT, SCOPE_GLOBAL)
    now = project.now()
    with Checker(loc.root, state_dir=state_dir, deps=deps) as checker:
        # Cold, half of the work goes to a forked process (see prefetch.py); the same answer.
        listed = meta_cache.files(loc, scopes)  # listed once for both (1,000 Paths cost ~10 ms)
        known, fresh = split_check(loc, scopes, checker, now=now, progress=progress, listed=listed)
        lessons, bad = meta_cache.scan(loc, scopes, deps, known=known, listed=listed)
        superseded = superseded_names(lessons)
        project_names = {lesson.name for lesson in lessons if lesson.scope == SCOPE_PROJECT}
        result = StaleScan(bad=bad)
        upcoming = [e for e in (lesson.expires_at for lesson in lessons) if e is not None and e > now]
        result.valid_until = min(upcoming, default=None)
        for done, lesson in enumerate(lessons, 1):
            if progress is not None:
                progress(done, len(lessons))
            if lesson.scope == SCOPE_GLOBAL and lesson.name in project_names:
                continue
            if status_of(lesson, now=now, superseded=superseded, drift=None) != STATUS_ACTIVE:
                continue
            result.checked += 1
            drift = [] if _checked_fresh(lesson, known, fresh) else checker.drift(lesson)
            missing = [] if drift else checker.applies(lesson)
            if missing:
                result.not_applying.append(NotApplyingReport(lesson.name, lesson.path, missing))
            if drift:
                for item in drift:
                    _ = item.commit  # resolve now, so the cache saved on exit keeps the answer
                result.reports.append(StaleReport(lesson.name, lesson.scope or "", lesson.path, drift))
    return result


def _checked_fresh(lesson: Lesson, known: dict[str, Any], fresh: set[str]) -> bool:
    """Whether split_check already found this lesson's fingerprint undrifted, from the same
    frontmatter (a drift depends on nothing else: the facts are this run's either way). Its final
    pass then skips parsing and comparing those entries again, half of them new to this process.
    A global lesson's check there is the stricter one (its entries compared, not only parsed)."""
    key = str(lesson.path)
    return key in fresh and known[key][1] == lesson.meta


def stale_lessons(project: Project) -> list[StaleReport]:
    """The stale project and global lessons, each with its drift."""
    return scan_stale(project).reports
