"""The learning step run for each captured session: link, judge, count, summarize.

Capture feeds every event it reads to the session's SessionTrace and hands the trace to
`SessionLearner.finish` when the session ends: the lessons recalled into the session are judged in
full, every other lesson that existed before it only for its claims (learning/outcomes.py). When
capture then finds a lesson again, `SessionLearner.repeated` notes one more supporting session.
The learner never raises into capture (a failed step is reported as a warning and retried by no
one: counts are best effort, the lessons themselves are never touched).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
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
from reasonlessons.store import config
from reasonlessons.store.confidence import prior_of
from reasonlessons.store.outcomes import REPEATED, Decision, Record, iso
from reasonlessons.support.atomic import locked

if TYPE_CHECKING:
    from reasonlessons.store.project import Project

LEARN_LOCK = "learning.lock"


@dataclass
class Learned:
    """What one session taught: decisions on the lessons judged against it, and archivings."""

    agent: str
    session: str
    linked_by: str | None = None
    outcomes: list[Outcome] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "session": self.session,
            "linked_by": self.linked_by,
            "outcomes": [o.to_json() for o in self.outcomes],
            "archived": self.archived,
        }


def _lesson(project: Project, key: str, known: Mapping[str, Lesson]) -> Lesson | None:
    if key in known:
        return known[key]
    scope, _, name = key.partition(":")
    if scope not in SCOPES:
        return None
    try:
        return project.store.find(name, (scope,))
    except (ReasonLessonsError, OSError):
        return None  # removed or broken since it was recalled: nothing to count


def _evidence_sessions(lesson: Lesson) -> set[str]:
    evidence = lesson.meta.get("evidence")
    items = evidence if isinstance(evidence, list) else []
    return {str(i["session"]) for i in items if isinstance(i, dict) and i.get("session")}


def watched(lessons: Iterable[Lesson], trace: SessionTrace, skip: Collection[str]) -> list[Recalled]:
    """Lessons not injected into this session whose claims it may still check: those that existed
    before it started and were not learned from it (their own sessions are repeats, not checks)."""
    if trace.started is None or not trace.ran:
        return []
    out = []
    for lesson in lessons:
        key = f"{lesson.scope}:{lesson.name}"
        born = lesson.captured_at
        if key in skip or born is None or trace.started < born:
            continue
        if trace.session_id in _evidence_sessions(lesson):
            continue
        out.append(Recalled(lesson, None, recalled=False))
    return out


def learn(
    project: Project,
    trace: SessionTrace,
    *,
    now: dt.datetime,
    successful: bool | None = None,
    summaries: Summaries | None = None,
    counters: Counters | None = None,
    lessons: Sequence[Lesson] | None = None,
    floor: float | None = None,
) -> Learned:
    """Judge the lessons recalled into `trace`'s session, and the claims of the others, and record
    the decisions and the summary.

    With `summaries`, the caller owns that document and saves it once for a whole run: saving it per
    session re-scrubbed the whole document every time, which made capturing many sessions quadratic.
    Likewise `counters`, the recall counters the run read once (they tie sessions to recalls), and
    `lessons`, every lesson of the repository read once (those not recalled are checked for their
    claims). `floor` is the archive floor (config `learning.archive-floor` when None).
    """
    state = project.loc.state_dir if summaries is not None else project.loc.ensure_state_dir()
    link = recalled_into(state, trace.session_id, trace.started, trace.ended, counters=counters)
    ended_well = trace.successful if successful is None else successful
    result = Learned(trace.agent, trace.session_id, link.how)
    skey = session_key(trace.agent, trace.session_id)
    known = {f"{lesson.scope}:{lesson.name}": lesson for lesson in lessons or ()}
    candidates = watched(known.values(), trace, set(link.keys)) if lessons else []
    if not link.keys and not candidates and summaries is not None:
        # Nothing to judge (the common case): no decision to apply under the lock, only the summary
        # to note in the caller's document.
        summaries.record(trace, link, [], successful=ended_well)
        return result
    with locked(state / LEARN_LOCK):
        owned = summaries is None
        if summaries is None:
            summaries = Summaries.load(state)
        judged = summaries.judged(skey)
        items = [
            Recalled(lesson, since)
            for key, since in sorted(link.keys.items())
            if key not in judged and (lesson := _lesson(project, key, known)) is not None
        ]
        items += [item for item in candidates if item.key not in judged]
        result.outcomes = evaluate(trace, items, successful=ended_well)
        priors = {item.key: prior_of(item.lesson.meta) for item in items}
        default_at = trace.ended or now
        applied = lifecycle.apply(
            state,
            project.loc.lock_path(SCOPE_PROJECT),
            [(o.key, skey, o.decision(default_at=default_at)) for o in result.outcomes],
            priors=priors,
            floor=config.load(project.loc).archive_floor if floor is None else floor,
        )
        result.archived = [a.key for a in applied if a.archived_now]
        summaries.record(trace, link, result.outcomes, successful=ended_well)
        if owned:
            summaries.save()
    return result


class SessionLearner:
    """Learns from the sessions of one capture run, one ended session at a time.

    `lessons` gives every lesson of the repository (read once, when first needed; capture passes
    its writer's list, which holds the candidates this run wrote too)."""

    def __init__(
        self, project: Project, *, now: dt.datetime, lessons: Callable[[], Sequence[Lesson]] | None = None
    ) -> None:
        self.project = project
        self.now = now
        self.results: list[Learned] = []
        self.warnings: list[str] = []
        self._summaries: Summaries | None = None
        self._counters: Counters | None = None  # read once per run: recall writes them, not capture
        self._lessons = lessons or (lambda: project.store.scan().lessons)
        self._floor: float | None = None
        self._repeats: list[tuple[str, str, Decision, float]] = []

    @property
    def floor(self) -> float:
        if self._floor is None:
            self._floor = config.load(self.project.loc).archive_floor
        return self._floor

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
                lessons=self._lessons() if trace.ran and trace.started is not None else None,
                floor=self.floor,
            )
        except (ReasonLessonsError, OSError) as exc:
            self.warnings.append(f"learning from session {trace.session_id} failed: {exc}")
            return None
        self.results.append(learned)
        return learned

    def repeated(self, lesson: Lesson, trace: SessionTrace, refs: Sequence[str] = ()) -> None:
        """Capture found `lesson` again in this session: one more session supports it (saved by `save`)."""
        why = "capture found the same lesson again in this session"
        at = iso(trace.ended or trace.started or self.now)
        decision = Decision(REPEATED, "", at, refs[0] if refs else "", why)
        key = f"{lesson.scope}:{lesson.name}"
        self._repeats.append(
            (key, session_key(trace.agent, trace.session_id), decision, prior_of(lesson.meta))
        )

    def save(self) -> None:
        """Write the session summaries and repeats gathered by this run, once."""
        repeats, self._repeats = self._repeats, []
        try:
            if repeats:
                lifecycle.apply(
                    self.project.loc.ensure_state_dir(),
                    self.project.loc.lock_path(SCOPE_PROJECT),
                    [(key, session, decision) for key, session, decision, _ in repeats],
                    priors={key: prior for key, _, _, prior in repeats},
                    floor=self.floor,
                )
            if self._summaries is None:
                return
            with locked(self.project.loc.state_dir / LEARN_LOCK):
                self._summaries.save()
        except (ReasonLessonsError, OSError) as exc:
            self.warnings.append(f"saving what this capture learned failed: {exc}")


def revive(project: Project, name: str, *, scope: str = SCOPE_PROJECT) -> Record | None:
    """Restore an archived lesson (recall returns it again); None when it was not archived."""
    lesson = project.store.find(name, (scope,))  # raises, saying how to find the name, when absent
    key = f"{lesson.scope}:{lesson.name}"
    state = project.loc.ensure_state_dir()
    return lifecycle.revive(
        state,
        project.loc.lock_path(SCOPE_PROJECT),
        key,
        prior=prior_of(lesson.meta),
        floor=config.load(project.loc).archive_floor,
        now=project.now(),
    )
