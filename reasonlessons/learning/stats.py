"""`stats`: does each lesson pay its way here? Hits, injected tokens, outcomes, and cold vs warm.

The cold-vs-warm comparison uses the agents' own usage records of captured sessions (token counts
normalized as docs/log-formats.md#tokens says, kept by the learning loop in `session-summaries.json`):

* warm: sessions the lesson was injected into;
* cold: sessions on a similar task from before the lesson existed (started before its captured-at
  date, or the session it was learned from) that it was not injected into. Similar means the
  lesson's triggers would have fired on the session (keywords in its first prompts, a command it
  ran, a file it wrote) or the session's prompts share MIN_SHARED_TERMS words with the lesson.

Medians with the sample sizes, and no verdict below MIN_SAMPLE sessions on either side: this is an
observational comparison (tasks differ, repos change), not an experiment, and it says so.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from reasonlessons.constants import SCOPE_CANDIDATE
from reasonlessons.learning.summaries import Summaries
from reasonlessons.lessons.model import Lesson, as_datetime
from reasonlessons.recall.counters import Counters
from reasonlessons.recall.match import command_matches, glob_matches
from reasonlessons.recall.rank import estimate_tokens
from reasonlessons.recall.render import lesson_text
from reasonlessons.store.project import Entry, Project
from reasonlessons.support.tokens import GENERIC, tokenize

MIN_SAMPLE = 3
MIN_SHARED_TERMS = 2


@dataclass(frozen=True)
class Sample:
    """Total tokens per session of a group of sessions."""

    totals: tuple[int, ...] = ()

    @property
    def n(self) -> int:
        return len(self.totals)

    @property
    def median(self) -> int | None:
        return round(statistics.median(self.totals)) if self.totals else None

    @property
    def mean(self) -> int | None:
        return round(statistics.fmean(self.totals)) if self.totals else None

    def to_json(self) -> dict[str, Any]:
        return {"sessions": self.n, "median_tokens": self.median, "mean_tokens": self.mean}


def verdict(cold: Sample, warm: Sample) -> str:
    """One honest sentence about a cold/warm pair."""
    if cold.n < MIN_SAMPLE or warm.n < MIN_SAMPLE:
        return (
            f"not enough sessions to compare (cold {cold.n}, warm {warm.n}; {MIN_SAMPLE} needed on each side)"
        )
    cold_median, warm_median = cold.median or 0, warm.median or 0
    if cold_median == 0:
        return "cold sessions recorded no tokens; nothing to compare"
    change = (warm_median - cold_median) / cold_median * 100
    direction = "fewer" if change < 0 else "more"
    return (
        f"warm sessions used {abs(change):.0f}% {direction} tokens (median {warm_median:,} vs "
        f"{cold_median:,}; {warm.n} warm vs {cold.n} cold sessions; observational, tasks differ)"
    )


@dataclass
class LessonStats:
    name: str
    scope: str
    status: str
    hits: int
    injected_tokens: int
    success: int
    failure: int
    archived: bool
    confidence: float = 0.0
    cold: Sample = field(default_factory=Sample)
    warm: Sample = field(default_factory=Sample)

    @property
    def caution(self) -> bool:
        """Contradicted more often than confirmed (docs/learning.md)."""
        return self.failure > self.success

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": self.scope,
            "status": self.status,
            "hits": self.hits,
            "injected_tokens": self.injected_tokens,
            "success": self.success,
            "failure": self.failure,
            "caution": self.caution,
            "confidence": self.confidence,
            "archived": self.archived,
            "cold": self.cold.to_json(),
            "warm": self.warm.to_json(),
            "verdict": verdict(self.cold, self.warm),
        }


@dataclass
class Stats:
    lessons: list[LessonStats]
    sessions: int
    with_usage: int
    cold: Sample
    warm: Sample

    def to_json(self) -> dict[str, Any]:
        return {
            "lessons": [s.to_json() for s in self.lessons],
            "sessions": {"captured": self.sessions, "with_usage": self.with_usage},
            "cold": self.cold.to_json(),
            "warm": self.warm.to_json(),
            "verdict": verdict(self.cold, self.warm),
        }


def compute(project: Project) -> Stats:
    """Per-lesson statistics and the cold-vs-warm comparison for one repository."""
    state = project.loc.state_dir
    counters = Counters.load(state)
    sessions = Summaries.load(state).sessions()
    usable = [s for s in sessions if _total(s) > 0]
    entries = [e for e in project.entries("all", check_drift=True)[0] if e.lesson.scope != SCOPE_CANDIDATE]
    out: list[LessonStats] = []
    cold_all: dict[str, int] = {}
    warm_all = {_sid(s): _total(s) for s in usable if s.get("recalled")}
    for entry in entries:
        lesson = entry.lesson
        key = f"{lesson.scope}:{lesson.name}"
        record = entry.record
        hits = counters.hits(key)
        injected = counters.tokens(key) or hits * estimate_tokens(
            lesson_text(lesson.description, lesson.body)
        )
        stats = LessonStats(
            lesson.name, lesson.scope or "", entry.status, hits, injected,
            record.confirmed, record.contradicted, entry.archived, entry.confidence,
        )  # fmt: skip
        warm = [s for s in usable if key in (s.get("recalled") or [])]
        cold = [s for s in usable if key not in (s.get("recalled") or []) and _cold_for(s, entry)]
        stats.warm = Sample(tuple(_total(s) for s in warm))
        stats.cold = Sample(tuple(_total(s) for s in cold))
        cold_all.update((_sid(s), _total(s)) for s in cold if _sid(s) not in warm_all)
        out.append(stats)
    return Stats(
        out, len(sessions), len(usable), Sample(tuple(cold_all.values())), Sample(tuple(warm_all.values()))
    )


def _sid(session: dict[str, Any]) -> str:
    return f"{session.get('agent')}:{session.get('session')}"


def _total(session: dict[str, Any]) -> int:
    total = session.get("total")
    return total if isinstance(total, int) and total > 0 else 0


def _cold_for(session: dict[str, Any], entry: Entry) -> bool:
    """The session ran before the lesson existed (or taught it), on a task the lesson is about."""
    lesson = entry.lesson
    born = lesson.captured_at
    started = as_datetime(session.get("started"))
    taught = session.get("session") in _evidence_sessions(lesson)
    before = born is not None and started is not None and started < born
    return (before or taught) and similar(session, lesson)


def _evidence_sessions(lesson: Lesson) -> set[str]:
    evidence = lesson.meta.get("evidence")
    items = evidence if isinstance(evidence, list) else []
    return {str(i["session"]) for i in items if isinstance(i, dict) and i.get("session")}


def similar(session: dict[str, Any], lesson: Lesson) -> bool:
    """Whether a captured session was on a task this lesson is about (see the module docstring)."""
    terms = {str(t) for t in session.get("terms") or []}
    triggers = lesson.triggers
    for keyword in triggers.get("keywords", []):
        needle = tokenize(keyword)
        if needle and all(t in terms for t in needle):
            return True
    commands = [str(c) for c in session.get("commands") or []]
    if any(command_matches(p, c) for p in triggers.get("commands", []) for c in commands):
        return True
    files = [str(f) for f in session.get("files") or []]
    if any(glob_matches(g, f) for g in triggers.get("files", []) for f in files):
        return True
    words = {t for t in tokenize(f"{lesson.description} {lesson.body}") if t not in GENERIC}
    return len(words & terms) >= MIN_SHARED_TERMS
