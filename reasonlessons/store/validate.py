"""`validate`: every problem in every scope, reported together so one run shows all that needs fixing.

Besides the schema (checked on load), names, fingerprint entries and duplicates: `supersedes` that
names no lesson (warning), supersession cycles among promoted lessons (error: every lesson on the
cycle would hide another), and lessons past `expires-at` (warning: recall no longer returns them).
Every finding carries a stable code (docs/commands.md#validate); the lint rules that need the
repository, recall's matchers or the fingerprint layer come in through `lint`
(reasonlessons/curation/lint.py).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reasonlessons.constants import SCOPE_CANDIDATE, SCOPE_GLOBAL, SCOPE_PROJECT
from reasonlessons.lessons.model import Lesson
from reasonlessons.safety.redact import find_secrets
from reasonlessons.store import trust
from reasonlessons.store.scopes import LessonStore
from reasonlessons.store.status import superseded_names

ERROR = "error"
WARNING = "warning"

# Returns a problem description for a malformed fingerprint entry, or None; from the fingerprint layer.
EntryCheck = Callable[[str], str | None]

# The codes of the checks made here (the lint rules have theirs in reasonlessons/curation/lint.py).
CODES = {
    "SCHEMA_INVALID": (ERROR, "a lesson file that does not load: YAML, required keys, name, shapes"),
    "SCHEMA_WARNING": (WARNING, "a lesson that loads with a remark, e.g. unknown keys kept as they are"),
    "INVALID_FINGERPRINT_ENTRY": (ERROR, "a fingerprint entry that is malformed or leaves the repo"),
    "SUPERSEDES_SELF": (ERROR, "a lesson listing itself in supersedes"),
    "NAME_CONFLICT": (WARNING, "a candidate named like a promoted lesson"),
    "SHADOWED_LESSON": (WARNING, "a global lesson hidden by the project lesson of the same name"),
    "DUPLICATE_LESSON": (ERROR, "two live lessons saying the same up to case, spacing, punctuation"),
    "EXPIRED_LESSON": (WARNING, "a lesson past its expires-at"),
    "DANGLING_SUPERSEDES": (WARNING, "supersedes naming no lesson in any scope"),
    "SUPERSESSION_CYCLE": (ERROR, "lessons superseding each other in a circle"),
    "UNTRUSTED_LESSON": (ERROR, "a lesson flagged as hostile that nobody trusted yet"),
    "SECRET_IN_LESSON": (ERROR, "a lesson file holding what looks like a secret"),
}


@dataclass(frozen=True)
class Problem:
    """One finding of `validate`."""

    severity: str
    path: Path
    message: str
    name: str | None = None
    scope: str | None = None
    code: str = ""
    field: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {
            "code": self.code,
            "severity": self.severity,
            "path": str(self.path),
            "name": self.name,
            "scope": self.scope,
            "field": self.field,
            "message": self.message,
        }


# Lint rules over every loaded lesson, with the repository's root and the time: the curation layer.
Lint = Callable[[list[Lesson]], list[Problem]]


def validate(
    store: LessonStore, *, check_entry: EntryCheck | None = None, lint: Lint | None = None
) -> list[Problem]:
    """Check every lesson file in every scope; errors make the command fail, warnings do not."""
    scan = store.scan()
    problems = [
        Problem(ERROR, bad.path, bad.message, scope=bad.scope, code="SCHEMA_INVALID") for bad in scan.bad
    ]
    by_name: defaultdict[str, list[Lesson]] = defaultdict(list)
    by_content: defaultdict[str, list[Lesson]] = defaultdict(list)
    promoted = {lesson.name for lesson in scan.lessons if lesson.scope != SCOPE_CANDIDATE}
    retired = superseded_names(scan.lessons)
    for lesson in scan.lessons:
        for warning in lesson.warnings:
            problems.append(_about(lesson, WARNING, warning, "SCHEMA_WARNING"))
        for i, entry in enumerate(lesson.fingerprint):
            problem = check_entry(entry) if check_entry else None
            if problem:
                message = f"fingerprint entry {entry!r}: {problem}"
                field = f"fingerprint[{i}]"
                problems.append(_about(lesson, ERROR, message, "INVALID_FINGERPRINT_ENTRY", field))
        if lesson.name in lesson.supersedes:
            problems.append(_about(lesson, ERROR, "supersedes itself", "SUPERSEDES_SELF", "supersedes"))
        by_name[lesson.name].append(lesson)
        if lesson.declared_status is None and lesson.name not in retired:
            by_content[text_key(lesson)].append(lesson)
        if lesson.scope == SCOPE_CANDIDATE and lesson.name in promoted:
            message = "a promoted lesson has the same name; promoting would conflict"
            problems.append(_about(lesson, WARNING, message, "NAME_CONFLICT", "name"))
    for same in by_name.values():
        if {SCOPE_PROJECT, SCOPE_GLOBAL} <= {lesson.scope for lesson in same}:
            shadowed = next(lesson for lesson in same if lesson.scope == SCOPE_GLOBAL)
            message = "shadowed by the project lesson of the same name"
            problems.append(_about(shadowed, WARNING, message, "SHADOWED_LESSON", "name"))
    for same in by_content.values():
        first, *rest = sorted(same, key=lambda x: (x.scope == SCOPE_CANDIDATE, x.name))
        for other in rest:
            if other.name == first.name:
                continue  # the same lesson in two scopes: SHADOWED_LESSON or NAME_CONFLICT says so
            # A candidate repeating a promoted lesson is capture's business, not a broken library.
            severity = WARNING if other.scope == SCOPE_CANDIDATE else ERROR
            message = f"says the same as {first.scope} lesson {first.name!r}; remove one or merge them"
            problems.append(_about(other, severity, message, "DUPLICATE_LESSON", "body"))
    problems.extend(_lifetime_problems(scan.lessons, now=store.now()))
    problems.extend(_trust_problems(store, scan.lessons))
    if lint is not None:
        problems.extend(lint(scan.lessons))
    return problems


def text_key(lesson: Lesson) -> str:
    """What a lesson says, up to case, whitespace and punctuation: duplicates share it."""
    words = re.split(r"[^a-z0-9]+", f"{lesson.description}\n{lesson.body}".lower())
    return " ".join(w for w in words if w)


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
            problems.append(_about(lesson, ERROR, message, "UNTRUSTED_LESSON"))
        try:
            text = lesson.path.read_text(encoding="utf-8") if lesson.path else lesson.body
        except (OSError, UnicodeDecodeError):
            continue  # changed since the scan; the next run sees it
        kinds = sorted(set(find_secrets(text)))
        if kinds:
            message = f"holds what looks like a secret ({', '.join(kinds)}); remove it from the file"
            problems.append(_about(lesson, ERROR, message, "SECRET_IN_LESSON"))
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
            problems.append(_about(lesson, WARNING, message, "EXPIRED_LESSON", "expires-at"))
        for target in lesson.supersedes:
            if target != lesson.name and target not in names:
                message = f"supersedes {target!r}, which is no lesson in any scope; drop it from supersedes"
                problems.append(_about(lesson, WARNING, message, "DANGLING_SUPERSEDES", "supersedes"))
        if lesson.scope != SCOPE_CANDIDATE:
            graph.setdefault(lesson.name, []).extend(t for t in lesson.supersedes if t != lesson.name)
    by_name = {lesson.name: lesson for lesson in lessons if lesson.scope != SCOPE_CANDIDATE}
    for cycle in supersession_cycles(graph):
        path = " -> ".join([*cycle, cycle[0]])
        message = f"supersession cycle {path}: each hides the next; remove one supersedes entry"
        problems.append(_about(by_name[cycle[0]], ERROR, message, "SUPERSESSION_CYCLE", "supersedes"))
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


def _about(lesson: Lesson, severity: str, message: str, code: str, field: str | None = None) -> Problem:
    path = lesson.path or Path(lesson.name)
    return Problem(severity, path, message, lesson.name, lesson.scope, code=code, field=field)
