"""The learning step run for each captured session: link, judge, count, summarize.

Capture feeds every event it reads to the session's SessionTrace and hands the trace to
`SessionLearner.finish` when the session ends; the learner never raises into capture (a failed
step is reported as a warning and retried by no one: counts are best effort, the lessons
themselves are never touched).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reasonlessons.constants import SCOPE_PROJECT, SCOPES
from reasonlessons.errors import ReasonLessonsError
from reasonlessons.learning import lifecycle
from reasonlessons.learning.link import recalled_into
from reasonlessons.learning.outcomes import Outcome, Recalled, evaluate
from reasonlessons.learning.summaries import Summaries, session_key
from reasonlessons.learning.trace import SessionTrace
from reasonlessons.lessons.model import Lesson
from reasonlessons.recall.counters import Counters
from reasonlessons.store.outcomes import Record
from reasonlessons.support.atomic import locked

if TYPE_CHECKING:
    from reasonlessons.store.project import Project

LEARN_LOCK = "learning.lock"


@dataclass
class Learned:
    """What one session taught: verdicts on the lessons recalled into it, and deactivations."""

    agent: str
    session: str
    linked_by: str | None = None
    outcomes: list[Outcome] = field(default_factory=list)
    deactivated: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "session": self.session,
            "linked_by": self.linked_by,
            "outcomes": [o.to_json() for o in self.outcomes],
            "deactivated": self.deactivated,
        }


def _lesson(project: Project, key: str) -> Lesson | None:
    scope, _, name = key.partition(":")
    if scope not in SCOPES:
        return None
    try:
        return project.store.find(name, (scope,))
    except (ReasonLessonsError, OSError):
        return None  # removed or broken since it was recalled: nothing to count


def learn(
    project: Project,
    trace: SessionTrace,
    *,
    now: dt.datetime,
    successful: bool | None = None,
    summaries: Summaries | None = None,
    counters: Counters | None = None,
) -> Learned:
    """Judge the lessons recalled into `trace`'s session and record the verdicts and the summary.

    With `summaries`, the caller owns that document and saves it once for a whole run: saving it per
    session re-scrubbed the whole document every time, which made capturing many sessions quadratic.
    Likewise `counters`, the recall counters the run read once (they tie sessions to recalls).
    """
    state = project.loc.state_dir if summaries is not None else project.loc.ensure_state_dir()
    link = recalled_into(state, trace.session_id, trace.started, trace.ended, counters=counters)
    ended_well = trace.successful if successful is None else successful
    result = Learned(trace.agent, trace.session_id, link.how)
    if not link.keys and summaries is not None:
        # Nothing was recalled into this session (the common case): no verdict to apply under the
        # lock, only the summary to note in the caller's document.
        summaries.record(trace, link, [], successful=ended_well)
        return result
    with locked(state / LEARN_LOCK):
        owned = summaries is None
        if summaries is None:
            summaries = Summaries.load(state)
        judged = summaries.judged(session_key(trace.agent, trace.session_id))
        recalled = [
            Recalled(lesson, since)
            for key, since in sorted(link.keys.items())
            if key not in judged and (lesson := _lesson(project, key)) is not None
        ]
        result.outcomes = evaluate(trace, recalled, successful=ended_well)
        applied = lifecycle.apply(
            state,
            project.loc.lock_path(SCOPE_PROJECT),
            [(o.key, o.success) for o in result.outcomes],
            now=now,
        )
        result.deactivated = [a.key for a in applied if a.deactivated_now]
        summaries.record(trace, link, result.outcomes, successful=ended_well)
        if owned:
            summaries.save()
    return result


class SessionLearner:
    """Learns from the sessions of one capture run, one ended session at a time."""

    def __init__(self, project: Project, *, now: dt.datetime) -> None:
        self.project = project
        self.now = now
        self.results: list[Learned] = []
        self.warnings: list[str] = []
        self._summaries: Summaries | None = None
        self._counters: Counters | None = None  # read once per run: recall writes them, not capture

    def finish(self, trace: SessionTrace, *, successful: bool | None = None) -> Learned | None:
        """Learn from one ended session's trace; None when that failed (noted in `warnings`)."""
        try:
            if self._summaries is None or self._counters is None:
                state = self.project.loc.ensure_state_dir()
                self._summaries = Summaries.load(state)
                self._counters = Counters.load(state)
            learned = learn(
                self.project,
                trace,
                now=self.now,
                successful=successful,
                summaries=self._summaries,
                counters=self._counters,
            )
        except (ReasonLessonsError, OSError) as exc:
            self.warnings.append(f"learning from session {trace.session_id} failed: {exc}")
            return None
        self.results.append(learned)
        return learned

    def save(self) -> None:
        """Write the session summaries gathered by this run, once."""
        if self._summaries is None:
            return
        try:
            with locked(self.project.loc.state_dir / LEARN_LOCK):
                self._summaries.save()
        except (ReasonLessonsError, OSError) as exc:
            self.warnings.append(f"saving session summaries failed: {exc}")


def revive(project: Project, name: str, *, scope: str = SCOPE_PROJECT) -> Record | None:
    """Bring a deactivated lesson back (recall returns it again); None when it was not deactivated."""
    lesson = project.store.find(name, (scope,))  # raises, saying how to find the name, when absent
    key = f"{lesson.scope}:{lesson.name}"
    state = project.loc.ensure_state_dir()
    return lifecycle.revive(state, project.loc.lock_path(SCOPE_PROJECT), key)
