"""agentsmesh's own checks on a lessons graph, by its codes: what it refuses, we refuse.

agentsmesh reads `.agentsmesh/lessons/lessons.json` through a strict schema (unknown keys, missing
fields, non-kebab ids and malformed dates are errors) and `agentsmesh lessons validate` adds
error-level graph checks; its writes refuse a graph with any error. The same checks run here on
import (nothing is written when one fails) and on export (no graph agentsmesh would refuse is
written). Codes and levels follow agentsmesh 0.34-0.39 (`src/lessons/graph-schema.ts`,
`validate-checks.ts`, `validate-quality.ts`); its npm package is not installable here, so they are
matched from its documented behaviour (docs/interop.md#agentsmesh).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from reasonlessons.recall import globs
from reasonlessons.safety import linear_re

MAX_VERSION = 2
ERROR = "error"
WARNING = "warning"
ID_RE = re.compile(r"^[a-z0-9-]+$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z?)?$")
_TOP = ("version", "lessons", "topics", "triggers")
LESSON_KEYS = (
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
KINDS = ("file_glob", "command_pattern", "keyword")
STATUSES = ("active", "deprecated", "superseded")


@dataclass(frozen=True)
class Finding:
    code: str
    level: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


def findings(doc: object) -> list[Finding]:
    """Every agentsmesh finding on a graph; a schema failure stops there, as agentsmesh's does."""
    schema = schema_problems(doc)
    if schema:
        return [Finding("NEWER_VERSION" if "newer" in p else "SCHEMA_INVALID", ERROR, p) for p in schema]
    assert isinstance(doc, dict)
    out: list[Finding] = []
    lessons: dict[str, dict[str, Any]] = doc["lessons"]
    topics: dict[str, Any] = doc["topics"]
    triggers: dict[str, dict[str, str]] = doc["triggers"]
    for lesson_id, lesson in lessons.items():
        where = f"lesson {lesson_id!r}"
        out += [
            Finding("DANGLING_TOPIC", ERROR, f"{where}: topic {t!r} does not exist (dangling reference)")
            for t in lesson["topics"]
            if t not in topics
        ]
        out += [
            Finding("DANGLING_TRIGGER", ERROR, f"{where}: trigger {t!r} does not exist (dangling reference)")
            for t in lesson["triggers"]
            if t not in triggers
        ]
        successor = lesson.get("supersededBy")
        if successor is not None and successor not in lessons:
            message = f"{where}: supersededBy {successor!r} does not exist (dangling reference)"
            out.append(Finding("DANGLING_SUPERSEDER", ERROR, message))
        for key, code in (("topics", "DUPLICATE_TOPIC_REF"), ("triggers", "DUPLICATE_TRIGGER_REF")):
            repeated = sorted({x for x in lesson[key] if lesson[key].count(x) > 1})
            out += [Finding(code, ERROR, f"{where}: lists {key[:-1]} {x!r} more than once") for x in repeated]
        status = lesson["status"]
        if status == "superseded" and successor is None:
            out.append(
                Finding("SUPERSEDED_WITHOUT_TARGET", ERROR, f"{where}: superseded but no supersededBy")
            )
        if status == "active" and successor is not None:
            message = (
                f"{where}: status is active but it declares supersededBy {successor!r}; importing it "
                "would retire an active lesson: set status superseded, or drop supersededBy"
            )
            out.append(Finding("ACTIVE_WITH_SUPERSEDER", ERROR, message))
        if successor == lesson_id:
            out.append(Finding("SELF_SUPERSEDED", ERROR, f"{where}: superseded by itself"))
        elif successor in lessons and lessons[successor]["status"] != "active":
            message = f"{where}: superseded by {successor!r}, which is {lessons[successor]['status']}"
            out.append(Finding("INACTIVE_SUPERSEDER", ERROR, message))
        if status == "active" and not lesson["triggers"] and lesson.get("scope") != "always":
            message = f"{where}: active with no trigger, so agentsmesh never recalls it"
            out.append(Finding("UNREACHABLE_LESSON", WARNING, message))
    out += _cycles(lessons)
    out += _rules(lessons)
    out += _trigger_findings(triggers)
    topics_used = {t for lesson in lessons.values() for t in lesson["topics"]}
    out += [
        Finding("ORPHAN_TOPIC", WARNING, f"topic {t!r} is used by no lesson")
        for t in topics
        if t not in topics_used
    ]
    used = {t for lesson in lessons.values() for t in lesson["triggers"]}
    out += [
        Finding("ORPHAN_TRIGGER", WARNING, f"trigger {t!r} is used by no lesson")
        for t in triggers
        if t not in used
    ]
    return out


def errors(doc: object) -> list[Finding]:
    return [f for f in findings(doc) if f.level == ERROR]


def schema_problems(doc: object) -> list[str]:
    """What agentsmesh's strict schema rejects (its loader reads nothing of such a graph)."""
    if not isinstance(doc, dict):
        return ["the document must be a JSON object"]
    version = doc.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > MAX_VERSION:
        return [f"version {version} is newer than this reasonlessons understands ({MAX_VERSION}); upgrade it"]
    out = [f"unknown top-level key {k!r}" for k in doc if k not in _TOP]
    if version not in (1, 2) or isinstance(version, bool):
        out.append("version must be 1 or 2")
    for key in ("lessons", "topics", "triggers"):
        value = doc.get(key)
        if not isinstance(value, dict):
            out.append(f"{key} must be an object keyed by id")
            continue
        out += [f"{key}: id {i!r} is not kebab-case (a-z, 0-9, '-')" for i in value if not ID_RE.match(i)]
    sections = {k: v if isinstance(v := doc.get(k), dict) else {} for k in ("lessons", "topics", "triggers")}
    for topic_id, topic in sections["topics"].items():
        if not isinstance(topic, dict) or set(topic) != {"summary"} or not _text(topic.get("summary")):
            out.append(f"topic {topic_id!r} must be {{summary}} with a non-empty summary")
    for trigger_id, trigger in sections["triggers"].items():
        if not isinstance(trigger, dict) or set(trigger) != {"kind", "pattern"}:
            out.append(f"trigger {trigger_id!r} must be {{kind, pattern}}")
        elif trigger["kind"] not in KINDS or not _text(trigger["pattern"]):
            out.append(f"trigger {trigger_id!r}: kind must be one of {', '.join(KINDS)}, pattern non-empty")
    for lesson_id, lesson in sections["lessons"].items():
        out += [f"lesson {lesson_id!r}: {p}" for p in _lesson_schema(lesson, version)]
    return out


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _ids(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and ID_RE.match(v) for v in value)


def _lesson_schema(lesson: object, version: object) -> list[str]:
    if not isinstance(lesson, dict):
        return ["must be an object"]
    out = [f"unknown key {k!r}" for k in lesson if k not in LESSON_KEYS]
    if not _text(lesson.get("rule")):
        out.append("rule must be non-empty text")
    if "rationale" in lesson and not _text(lesson["rationale"]):
        out.append("rationale, when present, must be non-empty text")
    if not _ids(lesson.get("topics")) or not lesson.get("topics"):
        out.append("topics must list at least one kebab-case topic id")
    if not _ids(lesson.get("triggers")):
        out.append("triggers must be a list of kebab-case trigger ids")
    evidence = lesson.get("evidence")
    if not isinstance(evidence, list) or not all(_text(e) for e in evidence):
        out.append("evidence must be a list of non-empty strings")
    if lesson.get("status") not in STATUSES:
        out.append(f"status must be one of {', '.join(STATUSES)}")
    if "supersededBy" in lesson and not (
        isinstance(lesson["supersededBy"], str) and ID_RE.match(lesson["supersededBy"])
    ):
        out.append("supersededBy must be a kebab-case lesson id")
    created = lesson.get("createdAt")
    if not isinstance(created, str) or not DATE_RE.match(created):
        out.append("createdAt must be an ISO-8601 date or date-time")
    if "scope" in lesson and (lesson["scope"] != "always" or version != 2):
        out.append("scope may only be 'always', and only in version 2")
    return out


def _cycles(lessons: dict[str, dict[str, Any]]) -> list[Finding]:
    """supersededBy chains that loop back: each lesson would hide the next forever."""
    out: list[Finding] = []
    reported: set[str] = set()
    for start in sorted(lessons):
        chain = [start]
        node: Any = start
        while True:
            node = lessons[node].get("supersededBy")
            if not isinstance(node, str) or node not in lessons or node == chain[-1]:
                break
            if node in chain:
                cycle = chain[chain.index(node) :]
                if not reported & set(cycle):
                    reported.update(cycle)
                    message = f"supersession cycle {' -> '.join([*cycle, node])}; remove one supersededBy"
                    out.append(Finding("SUPERSEDE_CYCLE", ERROR, message))
                break
            chain.append(node)
    return out


def normalize_rule(rule: str) -> str:
    """agentsmesh's dedupe key: trimmed, whitespace collapsed, lowercased."""
    return " ".join(rule.split()).lower()


def _rules(lessons: dict[str, dict[str, Any]]) -> list[Finding]:
    by_key: dict[str, list[str]] = {}
    for lesson_id, lesson in sorted(lessons.items()):
        if lesson["status"] == "active":
            by_key.setdefault(normalize_rule(lesson["rule"]), []).append(lesson_id)
    return [
        Finding(
            "DUPLICATE_RULE",
            ERROR,
            f"lesson {lesson_id!r} repeats the rule of {', '.join(i for i in ids if i != lesson_id)}",
        )
        for ids in by_key.values()
        if len(ids) > 1
        for lesson_id in ids
    ]


def _trigger_findings(triggers: dict[str, dict[str, str]]) -> list[Finding]:
    out: list[Finding] = []
    seen: dict[tuple[str, str], str] = {}
    for trigger_id, trigger in sorted(triggers.items()):
        kind, pattern = trigger["kind"], trigger["pattern"]
        where = f"trigger {trigger_id!r} ({pattern})"
        if (kind, pattern) in seen:
            message = f"{where} repeats (kind, pattern) of {seen[(kind, pattern)]!r}"
            out.append(Finding("DUPLICATE_TRIGGER", ERROR, message))
        seen.setdefault((kind, pattern), trigger_id)
        if kind == "command_pattern":
            why = linear_re.problem(pattern)
            if why is not None:
                unsafe = why.startswith(("backreferences", "lookarounds"))
                code = "UNSAFE_TRIGGER_PATTERN" if unsafe else "INVALID_TRIGGER_PATTERN"
                out.append(Finding(code, ERROR, f"{where}: {why}"))
        elif kind == "file_glob":
            if "\\" in pattern:
                message = f"{where}: a backslash never matches (paths use /); replace \\ with /"
                out.append(Finding("BACKSLASH_GLOB_PATTERN", ERROR, message))
            elif globs.check(pattern) is not None:
                out.append(Finding("UNSAFE_GLOB_PATTERN", ERROR, f"{where}: {globs.check(pattern)}"))
    return out
