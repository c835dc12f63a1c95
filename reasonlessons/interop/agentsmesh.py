"""agentsmesh `.agentsmesh/lessons/lessons.json` (docs/interop.md#agentsmesh), imported into lessons.

Strict like agentsmesh itself: unknown keys, ids that are not kebab-case, references to topics,
triggers or lessons that do not exist, and supersession cycles are errors, and nothing is written.

| agentsmesh | reasonlessons |
|---|---|
| lesson id | name |
| rule (first sentence) / rule + rationale | description / body |
| triggers: file_glob, command_pattern, keyword | triggers: files, commands, keywords |
| topics | tags |
| evidence (strings) | evidence |
| status deprecated | status: deprecated |
| supersededBy X | X's `supersedes` lists the lesson |
| createdAt | captured-at |
| scope: always | interop.agentsmesh.scope (no equivalent: recalled by relevance only) |
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from reasonlessons.constants import NAME_RE
from reasonlessons.interop.common import Imported, InteropError, read_input
from reasonlessons.lessons.model import as_datetime
from reasonlessons.safety import linear_re

MAX_VERSION = 2
_ID = re.compile(r"^[a-z0-9-]+$")
_TOP = ("version", "lessons", "topics", "triggers")
_LESSON = (
    "rule",
    "rationale",
    "topics",
    "triggers",
    "evidence",
    "status",
    "supersededBy",
    "createdAt",
    "scope",
)
_KINDS = {"file_glob": "files", "command_pattern": "commands", "keyword": "keywords"}
_STATUSES = ("active", "deprecated", "superseded")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def find_file(path: Path) -> Path:
    """The lessons.json to read: the path itself, or the one under `.agentsmesh/lessons/` of a folder."""
    if path.is_dir():
        for candidate in (path / ".agentsmesh" / "lessons" / "lessons.json", path / "lessons.json"):
            if candidate.is_file():
                return candidate
        raise InteropError(f"{path}: no .agentsmesh/lessons/lessons.json in this folder; pass the file")
    return path


def read_lessons(path: Path) -> tuple[list[Imported], list[str]]:
    """Every lesson of a lessons.json, or InteropError listing every problem; plus notes."""
    path = find_file(path)
    try:
        doc = json.loads(read_input(path, "lessons.json"))
    except (ValueError, RecursionError) as exc:
        raise InteropError(f"{path}: not valid JSON ({exc}); fix or regenerate it with agentsmesh") from None
    errors = problems(doc)
    if errors:
        listed = "\n".join(f"  - {e}" for e in errors)
        raise InteropError(f"cannot import {path}: {len(errors)} problem(s), nothing written:\n{listed}")
    notes: list[str] = []
    lessons = doc["lessons"]
    superseders: dict[str, list[str]] = {}
    for lesson_id, lesson in sorted(lessons.items()):
        if lesson.get("supersededBy"):
            superseders.setdefault(lesson["supersededBy"], []).append(lesson_id)
    out = [
        _imported(lesson_id, lesson, doc, superseders.get(lesson_id, []), notes, path)
        for lesson_id, lesson in sorted(lessons.items())
    ]
    return out, notes


def problems(doc: object) -> list[str]:
    """Everything wrong with a lessons.json document (empty when it can be imported)."""
    if not isinstance(doc, dict):
        return ["the document must be a JSON object"]
    errors = [f"unknown top-level key {k!r}" for k in doc if k not in _TOP]
    version = doc.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > MAX_VERSION:
        return [f"version {version} is newer than this reasonlessons understands ({MAX_VERSION}); upgrade it"]
    if version not in (1, 2):
        errors.append("version must be 1 or 2")
    sections = {}
    for key in ("lessons", "topics", "triggers"):
        value = doc.get(key, {})
        if not isinstance(value, dict):
            errors.append(f"{key} must be an object keyed by id")
            value = {}
        errors += [f"{key}: id {i!r} is not kebab-case (a-z, 0-9, '-')" for i in value if not _ID.match(i)]
        sections[key] = value
    for trigger_id, trigger in sections["triggers"].items():
        if not isinstance(trigger, dict) or set(trigger) - {"kind", "pattern"}:
            errors.append(f"trigger {trigger_id!r} must be {{kind, pattern}}")
        elif trigger.get("kind") not in _KINDS or not isinstance(trigger.get("pattern"), str):
            errors.append(
                f"trigger {trigger_id!r}: kind must be one of {', '.join(_KINDS)}, pattern a string"
            )
    for lesson_id, lesson in sections["lessons"].items():
        errors += [f"lesson {lesson_id!r}: {p}" for p in _lesson_problems(lesson, sections, version)]
    errors += _cycles(sections["lessons"])
    return errors


def _lesson_problems(lesson: object, sections: dict[str, dict[str, Any]], version: object) -> list[str]:
    if not isinstance(lesson, dict):
        return ["must be an object"]
    out = [f"unknown key {k!r}" for k in lesson if k not in _LESSON]
    rule = lesson.get("rule")
    if not isinstance(rule, str) or not rule.strip() or len(rule) > 2000:
        out.append("rule must be non-empty text of at most 2000 characters")
    topics, triggers = lesson.get("topics"), lesson.get("triggers", [])
    if not isinstance(topics, list) or not topics:
        out.append("topics must list at least one topic id")
    else:
        out += [
            f"topic {t!r} does not exist (dangling reference)" for t in topics if t not in sections["topics"]
        ]
    if not isinstance(triggers, list):
        out.append("triggers must be a list of trigger ids")
    else:
        out += [
            f"trigger {t!r} does not exist (dangling reference)"
            for t in triggers
            if t not in sections["triggers"]
        ]
    evidence = lesson.get("evidence", [])
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        out.append("evidence must be a list of strings")
    if lesson.get("status", "active") not in _STATUSES:
        out.append(f"status must be one of {', '.join(_STATUSES)}")
    successor = lesson.get("supersededBy")
    if successor is not None and successor not in sections["lessons"]:
        out.append(f"supersededBy {successor!r} does not exist (dangling reference)")
    created = lesson.get("createdAt")
    if created is not None and as_datetime(created) is None:
        out.append("createdAt must be an ISO date or date-time")
    if "scope" in lesson and (lesson["scope"] != "always" or version != 2):
        out.append("scope may only be 'always', and only in version 2")
    return out


def _cycles(lessons: dict[str, Any]) -> list[str]:
    """supersededBy chains that loop back: each lesson would hide the next forever."""
    out: list[str] = []
    reported: set[str] = set()
    for start in sorted(lessons):
        chain = [start]
        node: Any = start
        while True:
            entry = lessons.get(node)
            node = entry.get("supersededBy") if isinstance(entry, dict) else None
            if not isinstance(node, str) or node not in lessons:
                break
            if node in chain:
                cycle = chain[chain.index(node) :]
                if not reported & set(cycle):
                    reported.update(cycle)
                    out.append(f"supersession cycle {' -> '.join([*cycle, node])}; remove one supersededBy")
                break
            chain.append(node)
    return out


def _imported(
    lesson_id: str,
    lesson: dict[str, Any],
    doc: dict[str, Any],
    supersedes: list[str],
    notes: list[str],
    path: Path,
) -> Imported:
    if not NAME_RE.match(lesson_id):
        raise InteropError(
            f"{path}: lesson id {lesson_id!r} is longer than a reasonlessons name (64 characters)"
        )
    rule = " ".join(lesson["rule"].split())
    first = _SENTENCE.split(rule, maxsplit=1)[0]
    description = first if len(first) <= 100 else first[:99].rsplit(" ", 1)[0] + "…"
    body = lesson["rule"].strip()
    if lesson.get("rationale"):
        body += f"\n\nWhy: {str(lesson['rationale']).strip()}"
    triggers: dict[str, list[str]] = {}
    for trigger_id in lesson.get("triggers", []):
        trigger = doc["triggers"][trigger_id]
        pattern = trigger["pattern"]
        if trigger["kind"] == "command_pattern" and _pattern_problem(pattern):
            notes.append(f"{lesson_id}: command pattern {pattern!r} skipped ({_pattern_problem(pattern)})")
            continue
        triggers.setdefault(_KINDS[trigger["kind"]], []).append(pattern)
    extra: dict[str, Any] = {}
    if triggers:
        extra["triggers"] = triggers
    extra["tags"] = list(lesson["topics"])
    if lesson.get("status") == "deprecated":
        extra["status"] = "deprecated"
    elif lesson.get("status") == "superseded" and not lesson.get("supersededBy"):
        extra["status"] = "superseded"
    if supersedes:
        extra["supersedes"] = supersedes
    if lesson.get("evidence"):
        extra["evidence"] = list(lesson["evidence"])
    if lesson.get("createdAt"):
        extra["captured-at"] = lesson["createdAt"]
    if lesson.get("scope") == "always":
        extra["interop"] = {"agentsmesh": {"scope": "always"}}
    return Imported(lesson_id, description, body, [], extra, str(path))


def _pattern_problem(pattern: str) -> str | None:
    return linear_re.problem(pattern)
