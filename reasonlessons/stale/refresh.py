"""`refresh`: re-record what a lesson's fingerprint says about the repository, after a human review.

In two steps, so a person sees what would change before anything is written: `plan` says, per
lesson, each entry's recorded value and its value now (was → now); `apply` writes. `--all` takes
the project lessons and candidates whose record no longer matches and leaves the rest untouched (it
never rewrites a file for nothing). Global lessons record conditions, not values
(fingerprint/applies.py): `--all` leaves them alone, and refreshing one by name records where it
applies from this repository.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT
from reasonlessons.errors import InvalidFingerprintError, UsageError
from reasonlessons.fingerprint import Checker
from reasonlessons.fingerprint.applies import KEY as APPLIES_KEY
from reasonlessons.fingerprint.applies import conditions_of

if TYPE_CHECKING:
    from reasonlessons.lessons.model import Lesson
    from reasonlessons.store.project import Project

RECORD_KEY = "fingerprint-recorded"


@dataclass
class Change:
    """One entry whose record changes: its recorded value (None: never recorded) and its value now."""

    input: str
    was: str | None
    now: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"input": self.input, "was": self.was, "now": self.now, "reason": self.reason}

    def describe(self) -> str:
        was = "never recorded" if self.was is None else self.was
        return f"{self.input}: {was} → {self.now}"


@dataclass
class Refresh:
    """One lesson to re-record: the frontmatter keys to set, and what changes."""

    lesson: Lesson
    record: dict[str, Any]
    changes: list[Change] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        lesson = self.lesson
        return {
            "name": lesson.name,
            "scope": lesson.scope,
            "path": str(lesson.path) if lesson.path else None,
            "changes": [c.to_json() for c in self.changes],
        }


@dataclass
class Plan:
    """What `refresh` would do: the lessons to re-record, and those it cannot (malformed entries)."""

    refreshes: list[Refresh] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def error(self, done: int) -> InvalidFingerprintError | None:
        """The error to end with when some lessons could not be refreshed (`done` were)."""
        if not self.failed:
            return None
        return InvalidFingerprintError(
            f"refreshed {done} lesson(s), but not: {'; '.join(self.failed)}; "
            "fix those entries (see `reasonlessons validate`)"
        )


def plan(project: Project, name: str | None = None, *, all: bool = False) -> Plan:
    """What re-recording one lesson (any scope), or every project lesson and candidate whose record
    no longer matches, would change; reads the repository, writes nothing."""
    if (name is None) == (not all):
        raise UsageError("give a lesson NAME or --all (not both)")
    store = project.store
    if name is not None:
        targets = [store.find(name, (SCOPE_PROJECT, SCOPE_GLOBAL, SCOPE_CANDIDATE))]
    else:
        targets = store.scan((SCOPE_PROJECT, SCOPE_CANDIDATE)).lessons
    out = Plan()
    with Checker(project.loc.root, state_dir=project.loc.existing_state_dir()) as checker:
        for lesson in targets:
            try:
                record = checker.record_for(lesson.scope, lesson.fingerprint)
            except InvalidFingerprintError as exc:
                if name is not None:
                    raise
                out.failed.append(f"{lesson.name}: {exc}")
                continue
            changes = _changes(checker, lesson, record)
            if all and not changes and RECORD_KEY in lesson.meta:
                continue
            out.refreshes.append(Refresh(lesson, record, changes))
    return out


def apply(project: Project, planned: Plan) -> list[Lesson]:
    """Write what `plan` found, setting each lesson's `refreshed-at`; the lessons written."""
    project.loc.guard_writes()  # a lessons directory symlinked out of its scope is not written
    today = project.now().date()
    done: list[Lesson] = []
    for item in planned.refreshes:
        lesson = item.lesson
        lesson.meta.update(item.record)
        if lesson.scope == SCOPE_GLOBAL:
            lesson.meta.pop(RECORD_KEY, None)  # superseded by its conditions
        lesson.meta["refreshed-at"] = today
        project.store.save(lesson)
        done.append(lesson)
    return done


def refresh(project: Project, name: str | None = None, *, all: bool = False) -> list[Lesson]:
    """Plan and apply in one go; lessons with malformed entries are reported after the others."""
    planned = plan(project, name, all=all)
    done = apply(project, planned)
    error = planned.error(len(done))
    if error is not None:
        raise error
    return done


def _changes(checker: Checker, lesson: Lesson, record: dict[str, Any]) -> list[Change]:
    if lesson.scope == SCOPE_GLOBAL:
        old = conditions_of(lesson.meta, lesson.fingerprint)
        new = record[APPLIES_KEY]
        return [Change(e, old.get(e), new[e], "changed") for e in new if old.get(e) != new[e]]
    return [Change(d.input, d.was, d.now, d.reason) for d in checker.drift(lesson)]
