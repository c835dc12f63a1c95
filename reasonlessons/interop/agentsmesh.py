"""agentsmesh `.agentsmesh/lessons/lessons.json` (docs/interop.md#agentsmesh), imported into lessons.

Strict like agentsmesh itself: whatever agentsmesh refuses (its schema and the error-level codes of
`agentsmesh lessons validate`, reasonlessons/interop/agentsmesh_checks.py) is refused here, and
nothing is written; its warnings become notes.

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
from reasonlessons.interop import agentsmesh_checks as checks
from reasonlessons.interop.common import Imported, InteropError, read_input

_KINDS = {"file_glob": "files", "command_pattern": "commands", "keyword": "keywords"}
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
    found = checks.findings(doc)
    errors = [f for f in found if f.level == checks.ERROR]
    if errors:
        listed = "\n".join(f"  - {e}" for e in errors)
        raise InteropError(
            f"cannot import {path}: {len(errors)} problem(s) agentsmesh itself refuses, "
            f"nothing written:\n{listed}"
        )
    notes: list[str] = [f"{path.name}: {f}" for f in found if f.level != checks.ERROR]
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
    """Everything agentsmesh refuses in a lessons.json document (empty when it can be imported)."""
    return [f.message for f in checks.errors(doc)]


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
    for trigger_id in lesson["triggers"]:
        trigger = doc["triggers"][trigger_id]
        triggers.setdefault(_KINDS[trigger["kind"]], []).append(trigger["pattern"])
    extra: dict[str, Any] = {}
    if triggers:
        extra["triggers"] = triggers
    extra["tags"] = list(lesson["topics"])
    if lesson["status"] == "deprecated":
        extra["status"] = "deprecated"
    if supersedes:
        extra["supersedes"] = supersedes
    if lesson.get("evidence"):
        extra["evidence"] = list(lesson["evidence"])
    if lesson.get("createdAt"):
        extra["captured-at"] = lesson["createdAt"]
    mesh: dict[str, Any] = {}
    if lesson.get("scope") == "always":
        mesh["scope"] = "always"
    summaries = {t: doc["topics"][t]["summary"] for t in lesson["topics"] if doc["topics"][t]["summary"] != t}
    if summaries:
        mesh["topics"] = summaries  # so an export writes the summaries back
    if mesh:
        extra["interop"] = {"agentsmesh": mesh}
    return Imported(lesson_id, description, body, [], extra, str(path))
