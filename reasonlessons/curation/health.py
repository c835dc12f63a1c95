"""Library health for `stats`: how often recall finds nothing, what it injects, whether that beats
handing the agent every lesson, and how many lessons are unreachable or redundant.

The recall figures replay the turns of captured sessions (their commands, written files and prompt
words, as the learning loop summarized them) against the library as it is now, without counting a
hit: what recall would do today on the work this repository has seen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from reasonlessons.constants import SCOPE_CANDIDATE, STATUS_ACTIVE
from reasonlessons.curation.lint import validate_project
from reasonlessons.learning.summaries import Summaries
from reasonlessons.recall.api import Recaller
from reasonlessons.recall.rank import estimate_tokens
from reasonlessons.recall.render import lesson_text
from reasonlessons.store.project import Project

MAX_QUERIES = 2000
TASK = "code-gen"  # replayed turns are matched on triggers and words, not on a guessed task type


def percentile(values: list[int], p: float) -> int | None:
    """Nearest-rank percentile (p in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


@dataclass
class Health:
    queries: int
    no_match: int
    injected: list[int]
    preload_tokens: int
    active: int
    counts: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        matched = [t for t in self.injected if t]
        mean = sum(matched) / len(matched) if matched else None
        per_lesson = self.preload_tokens / self.active if self.active else None
        return {
            "queries": self.queries,
            "no_match": self.no_match,
            "no_match_rate": round(self.no_match / self.queries, 3) if self.queries else None,
            "injected_tokens": {"p50": percentile(matched, 50), "p90": percentile(matched, 90)},
            "preload_tokens": self.preload_tokens,
            "break_even_lessons": math.ceil(mean / per_lesson) if mean and per_lesson else None,
            **self.counts,
        }


def health(project: Project) -> Health:
    """Replay captured turns through recall, and count what `validate` says about reach and redundancy."""
    entries = [e for e in project.entries("all")[0] if e.lesson.scope != SCOPE_CANDIDATE and not e.shadowed]
    active = [e.lesson for e in entries if e.status == STATUS_ACTIVE]
    preload = sum(estimate_tokens(lesson_text(x.description, x.body)) for x in active)
    injected: list[int] = []
    recaller = Recaller(project, create_state=False)
    for prompt, files, cmd in _turns(Summaries.load(project.loc.state_dir).sessions()):
        result = recaller.recall(prompt, files=files, cmd=cmd, task_type=TASK, record=False)
        injected.append(result.tokens)
    problems = validate_project(project)
    codes = [p.code for p in problems]
    counts = {
        "reachable": len(active) - len({p.name for p in problems if p.code == "UNREACHABLE_LESSON"}),
        "unreachable": codes.count("UNREACHABLE_LESSON"),
        "dead_triggers": sum(codes.count(c) for c in _DEAD),
        "duplicates": codes.count("DUPLICATE_LESSON"),
        "near_duplicates": codes.count("NEAR_DUPLICATE_LESSON"),
        "high_fanout_triggers": codes.count("HIGH_FANOUT_TRIGGER"),
    }
    return Health(len(injected), sum(1 for t in injected if not t), injected, preload, len(active), counts)


_DEAD = (
    "INVALID_TRIGGER_PATTERN",
    "UNSAFE_TRIGGER_PATTERN",
    "UNSAFE_GLOB_PATTERN",
    "DEAD_FILE_GLOB",
    "STOPWORD_KEYWORD",
)


def _turns(sessions: list[dict[str, Any]]) -> list[tuple[str, list[str], str | None]]:
    """One query per command, per written file, and one from the prompt words, of each session."""
    out: list[tuple[str, list[str], str | None]] = []
    for session in sessions:
        terms = [str(t) for t in session.get("terms") or []]
        if terms:
            out.append((" ".join(terms), [], None))
        out.extend(("", [], str(c)) for c in session.get("commands") or [])
        out.extend(("", [str(f)], None) for f in session.get("files") or [])
    return out[:MAX_QUERIES]
