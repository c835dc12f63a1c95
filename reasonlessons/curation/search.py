"""`search`: lessons whose name, description, body, triggers or tags hold every word of a query."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from reasonlessons.lessons.model import Lesson
from reasonlessons.store.project import Project

# Where a word is found says how much it counts: a name or description says what a lesson is about.
WEIGHTS = {"name": 4, "description": 3, "triggers": 2, "tags": 2, "body": 1}


@dataclass(frozen=True)
class Hit:
    name: str
    scope: str
    status: str
    description: str
    path: str
    fields: list[str]
    score: int

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": self.scope,
            "status": self.status,
            "description": self.description,
            "path": self.path,
            "fields": self.fields,
            "score": self.score,
        }


def search(project: Project, query: str, *, scope: str = "all") -> list[Hit]:
    """Every lesson holding each word of `query` (case-insensitive) in some field, best first."""
    words = [w for w in re.split(r"\s+", query.lower().strip()) if w]
    if not words:
        return []
    entries, _ = project.entries(scope)
    hits: list[Hit] = []
    for entry in entries:
        texts = _fields(entry.lesson)
        found: dict[str, int] = {}
        for word in words:
            where = [f for f, text in texts.items() if word in text]
            if not where:
                break
            for f in where:
                found[f] = found.get(f, 0) + 1
        else:
            lesson = entry.lesson
            score = sum(WEIGHTS[f] * n for f, n in found.items())
            fields = [f for f in WEIGHTS if f in found]
            hits.append(
                Hit(
                    lesson.name,
                    lesson.scope or "",
                    entry.status,
                    lesson.description,
                    str(lesson.path or ""),
                    fields,
                    score,
                )  # fmt: skip
            )
    return sorted(hits, key=lambda h: (-h.score, h.name, h.scope))


def _fields(lesson: Lesson) -> dict[str, str]:
    tags = lesson.meta.get("tags")
    return {
        "name": lesson.name.lower(),
        "description": lesson.description.lower(),
        "triggers": "\n".join(v for values in lesson.triggers.values() for v in values).lower(),
        "tags": " ".join(str(t) for t in tags).lower() if isinstance(tags, list) else "",
        "body": lesson.body.lower(),
    }
