"""A newer candidate for the same fact supersedes the stale lesson when it is promoted.

"The same fact": the promoted lesson is stale, the candidate depends on a fingerprint entry that
drifted for it (so the candidate was recorded against the fact's new value), and the two are about
the same thing: the same name apart from a `-N` suffix, or a shared tag, trigger keyword or
command pattern. Then the candidate gets `supersedes: [old]` before it is promoted; the old lesson
stays on disk with status `superseded` (and out of recall), as AIP-11 asks.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from reasonlessons.constants import (
    SCOPE_CANDIDATE,
    SCOPE_GLOBAL,
    SCOPE_PROJECT,
    STATUS_ACTIVE,
    STATUS_STALE,
    STATUS_SUPERSEDED,
)
from reasonlessons.learning import lifecycle
from reasonlessons.lessons.model import Lesson
from reasonlessons.store import confidence, outcomes
from reasonlessons.store.outcomes import Record

if TYPE_CHECKING:
    from reasonlessons.store.project import Project

_SUFFIX = re.compile(r"-\d+$")


@dataclass
class Promotion:
    """A promoted lesson and the names it now supersedes."""

    lesson: Lesson
    superseded: list[str] = field(default_factory=list)


def _topic(lesson: Lesson) -> set[str]:
    triggers = lesson.triggers
    tags = lesson.meta.get("tags")
    out = {f"name:{_SUFFIX.sub('', lesson.name)}"}
    if isinstance(tags, list):
        out.update(f"tag:{t}" for t in tags if isinstance(t, str))
    out.update(f"kw:{k.lower()}" for k in triggers.get("keywords", []))
    out.update(f"cmd:{c}" for c in triggers.get("commands", []))
    return out


def superseded_by(project: Project, candidate: Lesson, *, scope: str) -> list[str]:
    """Names of stale `scope` lessons that `candidate` is the newer version of."""
    return Promoted(project, scope).superseded_by(candidate)


class Promoted:
    """The promoted lessons of one scope, read once and filed by topic, so that `promote --auto`
    over many candidates looks at the few lessons each one could replace, not at all of them
    again for every candidate (which made it quadratic)."""

    def __init__(self, project: Project, scope: str) -> None:
        self.project = project
        self.scope = scope
        entries, _ = project.entries("global" if scope == SCOPE_GLOBAL else "project", check_drift=False)
        self.status: dict[str, str] = {}
        self.lessons: dict[str, Lesson] = {}
        self.by_topic: dict[str, list[str]] = {}
        self._drifted: dict[str, set[str]] = {}
        for entry in entries:
            if entry.lesson.scope == scope:
                self._file(entry.lesson, entry.status)

    def _file(self, lesson: Lesson, status: str) -> None:
        self.status[lesson.name] = status
        self.lessons[lesson.name] = lesson
        for topic in _topic(lesson):
            self.by_topic.setdefault(topic, []).append(lesson.name)

    def superseded_by(self, candidate: Lesson) -> list[str]:
        wanted = set(candidate.fingerprint)
        out: set[str] = set()
        for name in {n for topic in _topic(candidate) for n in self.by_topic.get(topic, ())}:
            old = self.lessons[name]
            # Drift is not checked yet (cheap first), so a stale lesson still reads as active here.
            if name == candidate.name or self.status[name] not in (STATUS_ACTIVE, STATUS_STALE):
                continue
            if wanted & set(old.fingerprint) and self._drift(old) & wanted:
                out.add(name)
        return sorted(out)

    def _drift(self, lesson: Lesson) -> set[str]:
        if lesson.name not in self._drifted:  # the repository does not change during one promote
            self._drifted[lesson.name] = {d.input for d in self.project.drift(lesson)}
        return self._drifted[lesson.name]

    def promoted(self, lesson: Lesson, replaced: list[str]) -> None:
        """Record a promotion: the lesson is now one of them, the ones it replaced are superseded."""
        for name in replaced:
            self.status[name] = STATUS_SUPERSEDED
        self._file(lesson, STATUS_ACTIVE)


def promote(
    project: Project,
    name: str,
    *,
    to_global: bool = False,
    candidate: Lesson | None = None,
    known: Promoted | None = None,
) -> Promotion:
    """Promote a candidate, first marking the stale lessons it replaces as superseded by it.

    `candidate` (the candidate as read) and `known` (the target scope's lessons, read once) spare
    reading them again when many candidates are promoted in a row."""
    store = project.store
    scope = SCOPE_GLOBAL if to_global else SCOPE_PROJECT
    if candidate is None:
        candidate = store.find(name, (SCOPE_CANDIDATE,))
    replaced = (known or Promoted(project, scope)).superseded_by(candidate)
    if replaced:
        already = candidate.supersedes
        candidate.meta["supersedes"] = already + [n for n in replaced if n not in already]
        store.save(candidate)
    promoted = store.promote(name, to_global=to_global)
    if known is not None:
        known.promoted(promoted, replaced)
    # Its outcomes follow it: what sessions said about the candidate holds for the lesson.
    lifecycle.rename(
        project.loc.ensure_state_dir(),
        project.loc.lock_path(SCOPE_PROJECT),
        f"{SCOPE_CANDIDATE}:{name}",
        f"{promoted.scope}:{promoted.name}",
    )
    return Promotion(promoted, replaced)


def promote_auto(project: Project, after: dt.timedelta) -> list[Promotion]:
    """`promote --auto`: every candidate older than `after` that was not rejected or archived (later
    sessions contradicted it), superseding as above.

    The candidates, the rejections, the outcomes and the project's lessons are read once: linear in
    the number of candidates (500 take seconds; each used to re-read the whole store)."""
    cutoff = project.now() - after
    store = project.store
    rejections = store.rejections()
    records = outcomes.load(project.loc.state_dir)
    floor = project.config.archive_floor

    def archived(lesson: Lesson) -> bool:
        record = records.get(f"{lesson.scope}:{lesson.name}") or Record()
        return confidence.archived(record.confidence_of(lesson.meta), floor)

    due = [
        lesson
        for lesson in store.scan([SCOPE_CANDIDATE]).lessons
        if lesson.captured_at is not None
        and lesson.captured_at <= cutoff
        and not store.is_rejected(lesson, rejections=rejections)
        and not archived(lesson)
    ]
    if not due:
        return []
    known = Promoted(project, SCOPE_PROJECT)
    return [promote(project, lesson.name, candidate=lesson, known=known) for lesson in due]
