"""`export agentsmesh`: the promoted lessons as an agentsmesh lessons graph it accepts.

The graph is written the way agentsmesh saves one (keys sorted at every depth, 2-space indent, one
trailing newline) at `<out>/.agentsmesh/lessons/lessons.json`, and only after the same checks its
writes apply (reasonlessons/interop/agentsmesh_checks.py) found no error. A graph already there
that holds lessons this export would drop is left alone: import them first.

| reasonlessons | agentsmesh |
|---|---|
| name (`.` and `_` become `-`) | lesson id |
| body (the part before `Why:`), else description | rule |
| body after `Why:` (as an import wrote it) | rationale |
| tags (else `general`); interop.agentsmesh.topics | topics and their summaries |
| triggers files / commands / keywords | file_glob / command_pattern / keyword, content-addressed ids |
| evidence | evidence (strings) |
| deprecated, expired, deactivated | status deprecated |
| superseded by a promoted lesson | status superseded, supersededBy |
| captured-at | createdAt |
| interop.agentsmesh.scope always | scope always (version 2) |
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from reasonlessons.constants import STATUS_ACTIVE, STATUS_SUPERSEDED
from reasonlessons.interop import agentsmesh_checks as checks
from reasonlessons.interop.common import InteropError, Item, Report, export_entries, write_file
from reasonlessons.lessons.model import Lesson, as_datetime
from reasonlessons.store.project import Entry, Project

GRAPH = Path(".agentsmesh") / "lessons" / "lessons.json"
VERSION = 2
DEFAULT_TOPIC = "general"
_KIND = {"files": "file_glob", "commands": "command_pattern", "keywords": "keyword"}
_PREFIX = {"file_glob": "t-glob-", "command_pattern": "t-cmd-", "keyword": "t-kw-"}
_WHY = "\n\nWhy: "


def trigger_id(kind: str, pattern: str) -> str:
    """agentsmesh's content address of a trigger, so a (kind, pattern) pair exists once."""
    return _PREFIX[kind] + hashlib.sha1(f"{kind}|{pattern}".encode()).hexdigest()[:8]


def lesson_id(name: str) -> str:
    return re.sub(r"[^a-z0-9-]", "-", name)


def export(project: Project, out: Path | None, *, scope: str = "project") -> Report:
    """Write the graph under `out` (default: the repository root); return what was written."""
    report = Report()
    target = (out or project.loc.root) / GRAPH
    entries = export_entries(project, scope, live_only=False, report=report)
    doc = build_graph(entries, report)
    problems = checks.errors(doc)
    if problems:
        listed = "\n".join(f"  - {p}" for p in problems)
        raise InteropError(f"agentsmesh would refuse this graph, so nothing was written:\n{listed}")
    _refuse_dropping(target, doc)
    data = (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    target.parent.mkdir(parents=True, exist_ok=True)
    written = write_file(target, data)
    item = Item(f"{len(doc['lessons'])} lessons", str(target))
    (report.written if written else report.unchanged).append(item)
    return report


def build_graph(entries: list[Entry], report: Report) -> dict[str, Any]:
    """The graph of these lessons (statuses as recall sees them now)."""
    ids: dict[str, str] = {}
    for entry in entries:
        wanted = lesson_id(entry.lesson.name)
        if wanted in ids.values():
            report.skipped.append(
                Item(entry.lesson.name, str(entry.lesson.path), f"its id {wanted} is taken")
            )
            continue
        ids[entry.lesson.name] = wanted
    live = {e.lesson.name for e in entries if e.lesson.name in ids and e.status != STATUS_SUPERSEDED}
    successor: dict[str, str] = {}
    for entry in entries:
        for old in entry.lesson.supersedes:
            if entry.lesson.name in live and old in ids and _active(entry):
                successor.setdefault(old, ids[entry.lesson.name])
    lessons: dict[str, Any] = {}
    topics: dict[str, Any] = {}
    triggers: dict[str, Any] = {}
    for entry in entries:
        if entry.lesson.name not in ids:
            continue
        node, node_topics = _lesson(entry, successor.get(entry.lesson.name), triggers)
        lessons[ids[entry.lesson.name]] = node
        for topic, summary in node_topics.items():
            topics.setdefault(topic, {"summary": summary})
    return {"version": VERSION, "lessons": lessons, "topics": topics, "triggers": triggers}


def _active(entry: Entry) -> bool:
    return entry.status == STATUS_ACTIVE or entry.status == "stale"  # agentsmesh has no staleness


def _lesson(
    entry: Entry, successor: str | None, triggers: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    lesson = entry.lesson
    body = lesson.body.strip()
    rule, _, rationale = body.partition(_WHY)  # how an import joined rule and rationale
    node: dict[str, Any] = {"rule": rule.strip() or lesson.description}
    if rationale.strip():
        node["rationale"] = rationale.strip()
    mesh = _mesh(lesson)
    tags = [t for t in lesson.meta.get("tags") or [] if isinstance(t, str) and checks.ID_RE.match(t)]
    names = list(dict.fromkeys(tags)) or [DEFAULT_TOPIC]
    found = mesh.get("topics")
    summaries: dict[str, Any] = found if isinstance(found, dict) else {}
    node["topics"] = names
    refs: list[str] = []
    for kind, values in lesson.triggers.items():
        for pattern in values:
            mesh_kind = _KIND[kind]
            tid = trigger_id(mesh_kind, pattern)
            triggers[tid] = {"kind": mesh_kind, "pattern": pattern}
            if tid not in refs:
                refs.append(tid)
    node["triggers"] = sorted(refs)  # a set to agentsmesh; sorted, so the bytes are stable
    node["evidence"] = [text for e in lesson.meta.get("evidence") or [] if (text := _evidence(e))]
    if successor is not None:
        node["status"], node["supersededBy"] = "superseded", successor
    else:
        node["status"] = "active" if _active(entry) else "deprecated"
    node["createdAt"] = _created(lesson)
    if mesh.get("scope") == "always":
        node["scope"] = "always"
    return node, {t: str(summaries.get(t) or t) for t in names}


def _mesh(lesson: Lesson) -> dict[str, Any]:
    interop = lesson.meta.get("interop")
    mesh = interop.get("agentsmesh") if isinstance(interop, dict) else None
    return mesh if isinstance(mesh, dict) else {}


def _evidence(value: object) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        ref: object = value.get("ref") or value.get("session") or value.get("path")
        return str(ref).strip() if ref else json.dumps(value, sort_keys=True, default=str)
    return str(value).strip() if value is not None else ""


def _created(lesson: Lesson) -> str:
    raw = lesson.meta.get("captured-at")
    if isinstance(raw, str) and checks.DATE_RE.match(raw):
        return raw
    if isinstance(raw, dt.date) and not isinstance(raw, dt.datetime):
        return raw.isoformat()
    when = as_datetime(raw) or dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _refuse_dropping(target: Path, doc: dict[str, Any]) -> None:
    try:
        old = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    theirs = set(old.get("lessons") or {}) if isinstance(old, dict) else set()
    dropped = sorted(theirs - set(doc["lessons"]))
    if dropped:
        shown = ", ".join(dropped[:5]) + (", ..." if len(dropped) > 5 else "")
        raise InteropError(
            f"{target} holds {len(dropped)} lesson(s) this export would drop ({shown}); "
            "`reasonlessons import agentsmesh` them first, or pass another --out"
        )
