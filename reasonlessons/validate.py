"""`validate`: every problem in every scope, reported together so one run shows all that needs fixing."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT
from reasonlessons.lesson import Lesson
from reasonlessons.store import LessonStore, content_key

ERROR = "error"
WARNING = "warning"

# Returns a problem description for a malformed fingerprint entry, or None; from the fingerprint layer.
EntryCheck = Callable[[str], str | None]


@dataclass(frozen=True)
class Problem:
    """One finding of `validate`."""

    severity: str
    path: Path
    message: str
    name: str | None = None
    scope: str | None = None


def validate(store: LessonStore, *, check_entry: EntryCheck | None = None) -> list[Problem]:
    """Check every lesson file in every scope; errors make the command fail, warnings do not."""
    scan = store.scan()
    problems = [Problem(ERROR, bad.path, bad.message, scope=bad.scope) for bad in scan.bad]
    by_name: defaultdict[str, list[Lesson]] = defaultdict(list)
    by_content: defaultdict[str, list[Lesson]] = defaultdict(list)
    promoted = {lesson.name for lesson in scan.lessons if lesson.scope != SCOPE_CANDIDATE}
    for lesson in scan.lessons:
        for warning in lesson.warnings:
            problems.append(_about(lesson, WARNING, warning))
        for entry in lesson.fingerprint:
            problem = check_entry(entry) if check_entry else None
            if problem:
                problems.append(_about(lesson, ERROR, f"fingerprint entry {entry!r}: {problem}"))
        if lesson.name in lesson.supersedes:
            problems.append(_about(lesson, ERROR, "supersedes itself"))
        by_name[lesson.name].append(lesson)
        by_content[content_key(lesson)].append(lesson)
        if lesson.scope == SCOPE_CANDIDATE and lesson.name in promoted:
            problems.append(
                _about(lesson, WARNING, "a promoted lesson has the same name; promoting would conflict")
            )
    for same in by_name.values():
        if {SCOPE_PROJECT, SCOPE_GLOBAL} <= {lesson.scope for lesson in same}:
            shadowed = next(lesson for lesson in same if lesson.scope == SCOPE_GLOBAL)
            message = "shadowed by the project lesson of the same name"
            problems.append(_about(shadowed, WARNING, message))
    for first, *rest in by_content.values():
        for other in rest:
            message = f"says the same as {first.scope} lesson {first.name!r}; remove one"
            problems.append(_about(other, WARNING, message))
    return problems


def _about(lesson: Lesson, severity: str, message: str) -> Problem:
    return Problem(severity, lesson.path or Path(lesson.name), message, lesson.name, lesson.scope)
