"""Changes to lessons a curator makes by hand: edit, deprecate, untrigger (merge: merge.py); and
the fields and the duplicate check `add` shares with `edit`.

Each rewrites lesson files through the store (atomic, under the scope's lock) and keeps unknown
keys as they were.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reasonlessons.constants import (
    SCOPE_CANDIDATE,
    SCOPE_GLOBAL,
    SCOPE_PROJECT,
    STATUS_DEPRECATED,
    STATUS_SUPERSEDED,
    TASK_TYPES,
)
from reasonlessons.curation.lint import (
    NEAR_DUPLICATE,
    NEAR_DUPLICATE_MIN_TOKENS,
    lesson_tokens,
    similarity,
)
from reasonlessons.errors import LessonExistsError, UsageError
from reasonlessons.fingerprint.checker import record as fingerprint_record
from reasonlessons.lessons.model import TRIGGER_KINDS, Lesson, as_datetime, schema_problems
from reasonlessons.store.project import Project
from reasonlessons.store.validate import text_key

PROMOTED = (SCOPE_PROJECT, SCOPE_GLOBAL)


def deprecate(project: Project, name: str, *, by: str | None = None) -> tuple[Lesson, Lesson | None]:
    """Mark `name` deprecated (recall drops it); with `by`, that lesson lists it in `supersedes`."""
    lesson = project.store.find(name, PROMOTED)
    other = None
    if by is not None:
        if by == name:
            raise UsageError(f"--by {by!r}: a lesson cannot replace itself; name the lesson that does")
        other = project.store.find(by, PROMOTED)
        if name not in other.supersedes:
            other.meta["supersedes"] = [*other.supersedes, name]
            project.store.save(other)
    lesson.meta["status"] = STATUS_DEPRECATED
    project.store.save(lesson)
    return lesson, other


def untrigger(project: Project, name: str, trigger: str, *, kind: str | None = None) -> list[str]:
    """Remove `trigger` from the lesson's triggers (any kind, or only `kind`); return the kinds it
    was removed from. A keyword matches by its words, so `Unit Tests` removes `unit tests`."""
    if kind is not None and kind not in TRIGGER_KINDS:
        raise UsageError(f"--kind {kind!r}: use {', '.join(TRIGGER_KINDS)}")
    lesson = project.store.find(name, (*PROMOTED, SCOPE_CANDIDATE))
    triggers = lesson.meta.get("triggers")
    triggers = triggers if isinstance(triggers, dict) else {}
    removed: list[str] = []
    for each in TRIGGER_KINDS:
        values = triggers.get(each)
        if (kind is not None and each != kind) or not isinstance(values, list):
            continue
        kept = [v for v in values if not _same_trigger(each, v, trigger)]
        if len(kept) != len(values):
            removed.append(each)
            if kept:
                triggers[each] = kept
            else:
                del triggers[each]
    if not removed:
        have = [f"{k}: {v}" for k, vs in lesson.triggers.items() for v in vs]
        listed = "; ".join(have) if have else "none"
        raise UsageError(f"{name} has no trigger {trigger!r} (its triggers: {listed})")
    if triggers:
        lesson.meta["triggers"] = triggers
    else:
        lesson.meta.pop("triggers", None)
    project.store.save(lesson)
    return removed


def _same_trigger(kind: str, value: object, wanted: str) -> bool:
    if not isinstance(value, str):
        return False
    if kind == "keywords":
        return _words(value) == _words(wanted)
    if kind == "files":
        return value.removeprefix("./") == wanted.removeprefix("./")
    return value == wanted


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]


def as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def union(first: list[Any], second: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in [*first, *second]:
        if value not in out:
            out.append(value)
    return out


# -- the fields `add` and `edit` set -------------------------------------------------------------


def parse_expires(text: str, *, now: dt.datetime) -> dt.date | None:
    """`2027-01-01`, or a span from now such as `90d`, `12w`; `never` clears it (None)."""
    if text.strip().lower() == "never":
        return None
    units = {"d": "days", "w": "weeks"}
    if text[-1:].lower() in units and text[:-1].isdigit():
        return (now + dt.timedelta(**{units[text[-1].lower()]: int(text[:-1])})).date()
    when = as_datetime(text)
    if when is None:
        raise UsageError(f"--expires {text!r}: give a date such as 2027-01-01, a span such as 90d, or never")
    return when.date()


def lesson_fields(
    project: Project,
    *,
    name: str,
    task_types: Sequence[str] = (),
    supersedes: Sequence[str] = (),
    expires: str | None = None,
    agents: Sequence[str] = (),
) -> dict[str, Any]:
    """The frontmatter keys these flags set, checked: task types known, superseded lessons real."""
    out: dict[str, Any] = {}
    for task in task_types:
        if task not in TASK_TYPES:
            raise UsageError(f"--task-type {task!r}: use {', '.join(TASK_TYPES)}")
    if task_types:
        out["task-types"] = list(dict.fromkeys(task_types))
    known = {x.name for x in project.store.scan().lessons}
    for old in supersedes:
        if old == name:
            raise UsageError(f"--supersedes {old!r}: a lesson cannot supersede itself")
        if old not in known:
            raise UsageError(f"--supersedes {old!r}: no lesson of that name; see `reasonlessons list`")
    if supersedes:
        out["supersedes"] = list(dict.fromkeys(supersedes))
    if expires is not None:
        out["expires-at"] = parse_expires(expires, now=project.now())
    if agents:
        out["evidence"] = [{"agent": agent, "ref": "added by hand"} for agent in dict.fromkeys(agents)]
    return out


def duplicate_of(project: Project, *, name: str, description: str, body: str) -> str | None:
    """Why a lesson with this text would duplicate a live one (which, and how), or None."""
    probe = Lesson(meta={"name": name, "description": description}, body=body)
    key, words = text_key(probe), lesson_tokens(probe)
    for entry in project.entries("all", check_drift=False)[0]:
        other = entry.lesson
        if other.name == name or entry.status in (STATUS_DEPRECATED, STATUS_SUPERSEDED):
            continue
        if text_key(other) == key:
            return f"it says what {other.scope} lesson {other.name!r} says"
        theirs = lesson_tokens(other)
        if min(len(words), len(theirs)) >= NEAR_DUPLICATE_MIN_TOKENS:
            score = similarity(words, theirs)
            if score >= NEAR_DUPLICATE:
                return f"{score:.0%} of its words overlap {other.scope} lesson {other.name!r}"
    return None


def refuse_duplicate(project: Project, *, name: str, description: str, body: str) -> None:
    why = duplicate_of(project, name=name, description=description, body=body)
    if why:
        raise LessonExistsError(
            f"not written: {why}; edit that lesson (`reasonlessons edit`), or merge them "
            "(`reasonlessons merge`)"
        )


@dataclass
class Edited:
    lesson: Lesson
    changed: list[str]


def edit(
    project: Project,
    name: str,
    *,
    description: str | None = None,
    body: str | None = None,
    fingerprint: Sequence[str] | None = None,
    triggers: dict[str, list[str]] | None = None,
    fields: dict[str, Any] | None = None,
) -> Edited:
    """Change a lesson in place: description, body, fingerprint (re-recorded), added triggers, and
    the keys of `lesson_fields` (supersedes and evidence are added to, the others replaced)."""
    lesson = project.store.find(name, (*PROMOTED, SCOPE_CANDIDATE))
    meta = lesson.meta
    before = copy.deepcopy(meta), lesson.body
    if description is not None:
        if not description.strip() or "\n" in description.strip():
            raise UsageError("--description must be one non-empty line")
        meta["description"] = description.strip()
    if body is not None:
        lesson.body = body.rstrip("\n")  # as the file reader gives it back
    for kind, values in (triggers or {}).items():
        current = lesson.triggers.get(kind, [])
        meta.setdefault("triggers", {})
        meta["triggers"][kind] = union(current, values)
    for key, value in (fields or {}).items():
        if key in ("supersedes", "evidence"):
            meta[key] = union(as_list(meta.get(key)), value)
        elif key == "expires-at" and value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    if fingerprint is not None:
        meta["fingerprint"] = list(fingerprint)
        meta["fingerprint-recorded"] = fingerprint_record(project.loc.root, list(fingerprint))
    changed = sorted({k for k in {*before[0], *meta} if before[0].get(k) != meta.get(k)})
    if lesson.body.rstrip("\n") != before[1].rstrip("\n"):
        changed.append("body")
    if not changed:
        return Edited(lesson, [])
    if description is not None or body is not None:
        refuse_duplicate(project, name=name, description=lesson.description, body=lesson.body)
    errors, _ = schema_problems(meta, stem=name)
    if errors:
        raise UsageError(f"lesson {name!r}: {'; '.join(errors)}")
    project.store.save(lesson)
    return Edited(lesson, changed)
