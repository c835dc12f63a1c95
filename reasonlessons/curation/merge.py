"""`merge`: two lessons become one, and nothing either knew is lost.

The merged lesson has the first's description (or a new one), the first's body followed by the
lines of the second it does not already say, the union of their triggers, fingerprint entries,
tags, task types and evidence, and both old names in its `supersedes`. The old lessons' counts
(recall hits, observed successes and failures) are added to it, so its track record starts where
theirs left off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reasonlessons.constants import SCOPE_PROJECT
from reasonlessons.curation.edits import PROMOTED, as_list, union
from reasonlessons.errors import LessonExistsError, UsageError
from reasonlessons.lessons.model import TRIGGER_KINDS, Lesson
from reasonlessons.recall.counters import Counters, lesson_key
from reasonlessons.store import outcomes
from reasonlessons.store.outcomes import History
from reasonlessons.store.project import Project


@dataclass
class Merged:
    lesson: Lesson
    superseded: list[str]
    evidence: int
    counts: dict[str, int] = field(default_factory=dict)


def merge(project: Project, a: str, b: str, *, into: str, description: str | None = None) -> Merged:
    """Combine lessons `a` and `b` into `into` (which may be `a` or `b`): bodies, triggers,
    fingerprints, tags, task types and every evidence entry joined; `a` and `b` (less `into`) join
    its `supersedes`; their counts are added to it."""
    if a == b:
        raise UsageError("merge needs two different lessons")
    first = project.store.find(a, PROMOTED)
    second = project.store.find(b, PROMOTED)
    scope = first.scope or SCOPE_PROJECT
    if into not in (a, b):
        target = project.store.path_for(into, scope)
        if target.exists() or target.is_symlink():
            raise LessonExistsError(f"{target} already exists; merge into a new name, or into {a} or {b}")
    meta = _merged_meta(first, second, into=into)
    body = _merged_body(first.body, second.body)
    core = {"name", "description", "fingerprint", "fingerprint-recorded"}
    extra = {k: v for k, v in meta.items() if k not in core}
    lesson = project.store.add(
        into,
        description=description or first.description,
        fingerprint=meta["fingerprint"],
        body=body,
        scope=scope,
        extra=extra,
        replace=into in (a, b),
    )
    old = [x for x in (first, second) if x.name != into]
    for retired in old:
        # Their own supersedes moved to the merged lesson: a retired lesson hides nothing.
        if retired.supersedes and retired.scope == scope:
            retired.meta.pop("supersedes", None)
            project.store.save(retired)
    counts = _add_counts(project, [first, second], lesson)
    evidence = meta.get("evidence")
    return Merged(lesson, [x.name for x in old], len(evidence) if isinstance(evidence, list) else 0, counts)


def _merged_meta(first: Lesson, second: Lesson, *, into: str) -> dict[str, Any]:
    meta: dict[str, Any] = dict(first.meta)
    for key, value in second.meta.items():
        meta.setdefault(key, value)  # keys only the second has (unknown ones too) are kept
    meta["fingerprint"] = union(first.fingerprint, second.fingerprint)
    triggers = {
        kind: union(first.triggers.get(kind, []), second.triggers.get(kind, []))
        for kind in TRIGGER_KINDS
        if first.triggers.get(kind) or second.triggers.get(kind)
    }
    if triggers:
        meta["triggers"] = triggers
    for key in ("tags", "task-types"):
        values = [
            v for x in (first, second) for v in (x.meta.get(key) or []) if isinstance(x.meta.get(key), list)
        ]
        if values:
            meta[key] = union(values, [])
    evidence = [e for x in (first, second) for e in as_list(x.meta.get("evidence"))]
    if evidence:
        meta["evidence"] = union(evidence, [])
    supersedes = union([*first.supersedes, *second.supersedes], [first.name, second.name])
    supersedes = [n for n in supersedes if n != into]
    if supersedes:
        meta["supersedes"] = supersedes
    if first.meta.get("outcome") != second.meta.get("outcome"):
        meta["outcome"] = "mixed" if first.meta.get("outcome") and second.meta.get("outcome") else (
            first.meta.get("outcome") or second.meta.get("outcome"))  # fmt: skip
        if meta["outcome"] is None:
            del meta["outcome"]
    captured = [when for x in (first, second) if (when := x.captured_at) is not None]
    if captured:
        meta["captured-at"] = min(captured).date()
    expires = [x.expires_at for x in (first, second)]
    if None in expires:
        meta.pop("expires-at", None)  # one of them never expires, so the merged one does not
    else:
        meta["expires-at"] = max(e for e in expires if e is not None).date()
    meta.pop("status", None)
    meta.pop("refreshed-at", None)
    return meta


def _merged_body(first: str, second: str) -> str:
    """The first body, then the lines of the second it does not already say."""
    seen = {" ".join(line.lower().split()) for line in first.splitlines() if line.strip()}
    extra = [
        line for line in second.splitlines() if line.strip() and " ".join(line.lower().split()) not in seen
    ]
    body = first.rstrip()
    if extra:
        body = f"{body}\n" + "\n".join(extra) if body else "\n".join(extra)
    return body + "\n" if body else ""


def _add_counts(project: Project, old: list[Lesson], merged: Lesson) -> dict[str, int]:
    """Recall hits and tokens, and observed successes and failures, of the old lessons added to the
    merged one's (once: a lesson merged into itself keeps its own counts as they are)."""
    state = project.loc.state_dir
    target = lesson_key(merged.scope or "", merged.name)
    sources = [lesson_key(x.scope or "", x.name) for x in old if lesson_key(x.scope or "", x.name) != target]
    counters = Counters.load(state)
    hits = sum(counters.hits(k) for k in sources)
    tokens = sum(counters.tokens(k) for k in sources)
    if hits or tokens:
        entry = dict(counters.lessons.get(target) or {})
        entry["hits"] = counters.hits(target) + hits
        if tokens or counters.tokens(target):
            entry["tokens"] = counters.tokens(target) + tokens
        entry.setdefault("last", max(str(counters.last_seen(k) or "") for k in [target, *sources]) or None)
        counters.lessons[target] = entry
        project.loc.ensure_state_dir()
        counters.save()
    added = {"success": 0, "failure": 0}  # sessions that confirmed / contradicted (docs/learning.md)

    def change(current: Mapping[str, History]) -> dict[str, History]:
        mine = current.get(target) or History()
        merged = mine
        for key in sources:  # one decision per session, as the learning loop keeps them
            for session, decision in (current.get(key) or History()).decisions.items():
                merged = merged.decide(session, decision)
        if merged == mine:
            return {}
        before, after = mine.summary(), merged.summary()
        added.update(
            success=after.confirmed - before.confirmed, failure=after.contradicted - before.contradicted
        )
        return {target: merged}

    if (state / outcomes.DECISIONS_FILE).exists():
        outcomes.update(state, project.loc.lock_path(SCOPE_PROJECT), change)  # as the learning loop
    return {"hits": hits, **added}
