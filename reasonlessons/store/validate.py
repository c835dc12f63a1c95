"""`validate`: every problem in every scope, reported together so one run shows all that needs fixing.

Besides the schema (checked on load), names, fingerprint entries and duplicates: `supersedes` that
names no lesson (warning), supersession cycles among promoted lessons (error: every lesson on the
cycle would hide another), and lessons past `expires-at` (warning: recall no longer returns them).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT
from reasonlessons.lessons.model import Lesson
from reasonlessons.safety.redact import find_secrets
from reasonlessons.store import trust
from reasonlessons.store.scopes import LessonStore, content_key

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
    problems.extend(_lifetime_problems(scan.lessons, now=store.now()))
    problems.extend(_trust_problems(store, scan.lessons))
    return problems


def _trust_problems(store: LessonStore, lessons: list[Lesson]) -> list[Problem]:
    """Hostile-looking lessons nobody trusted yet, and secrets in lesson files (docs/security.md)."""
    problems: list[Problem] = []
    trusted = {scope: trust.trusted_hashes(store.loc, scope) for scope in {x.scope or "" for x in lessons}}
    for lesson in lessons:
        flags = trust.scan(lesson)
        if flags and not trust.is_trusted(store.loc, lesson, trusted=trusted[lesson.scope or ""]):
            message = (
                f"untrusted: {'; '.join(map(str, flags))}; recall skips it: read it, then "
                f"`reasonlessons trust {lesson.name}` if it is fine, or remove it"
            )
            problems.append(_about(lesson, ERROR, message))
        try:
            text = lesson.path.read_text(encoding="utf-8") if lesson.path else lesson.body
        except (OSError, UnicodeDecodeError):
            continue  # changed since the scan; the next run sees it
        kinds = sorted(set(find_secrets(text)))
        if kinds:
            message = f"holds what looks like a secret ({', '.join(kinds)}); remove it from the file"
            problems.append(_about(lesson, ERROR, message))
    return problems


def _lifetime_problems(lessons: list[Lesson], *, now: dt.datetime) -> list[Problem]:
    """Supersession that points nowhere or in a circle, and lessons past their expiry date."""
    problems: list[Problem] = []
    names = {lesson.name for lesson in lessons}
    graph: dict[str, list[str]] = {}
    for lesson in lessons:
        expires = lesson.expires_at
        if expires is not None and expires <= now:
            when = expires.date().isoformat()
            message = f"expired on {when} (no longer recalled); extend expires-at or remove it"
            problems.append(_about(lesson, WARNING, message))
        for target in lesson.supersedes:
            if target != lesson.name and target not in names:
                message = f"supersedes {target!r}, which is no lesson in any scope; drop it from supersedes"
                problems.append(_about(lesson, WARNING, message))
        if lesson.scope != SCOPE_CANDIDATE:
            graph.setdefault(lesson.name, []).extend(t for t in lesson.supersedes if t != lesson.name)
    by_name = {lesson.name: lesson for lesson in lessons if lesson.scope != SCOPE_CANDIDATE}
    for cycle in supersession_cycles(graph):
        path = " -> ".join([*cycle, cycle[0]])
        message = f"supersession cycle {path}: each hides the next; remove one supersedes entry"
        problems.append(_about(by_name[cycle[0]], ERROR, message))
    return problems


def supersession_cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Each cycle of a `name -> names it supersedes` graph once, starting at its smallest name."""
    cycles: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :]
                start = cycle.index(min(cycle))
                key = tuple(cycle[start:] + cycle[:start])
                if key not in seen:
                    seen.add(key)
                    cycles.append(list(key))
            elif nxt not in state and nxt in graph:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def _about(lesson: Lesson, severity: str, message: str) -> Problem:
    return Problem(severity, lesson.path or Path(lesson.name), message, lesson.name, lesson.scope)
