"""Acceptance replay: sessions where a lesson is recalled and its advice works or fails move its
counts and its ranking the right way, until it keeps failing and is deactivated (and revived)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from reasonlessons.learning.loop import learn, revive
from reasonlessons.store import outcomes
from reasonlessons.store.project import Project
from tests.learningsupport import (
    LEARNING,
    LINT_LESSON,
    NPM_LESSON,
    project_with_lessons,
    recall_npm,
    session_of,
    trace_of,
)


def replay(project: Project, name: str) -> list[str]:
    """Recall into the session just before it starts, then capture it; returns the verdicts."""
    log = LEARNING / f"{name}.jsonl"
    session, start = session_of(log)
    recall_npm(project, session=session, now=start - dt.timedelta(seconds=30))
    learned = learn(project, trace_of(log), now=start + dt.timedelta(hours=1))
    assert learned.linked_by == "session-id"
    return [f"{o.key.split(':')[1]}={o.verdict}" for o in learned.outcomes]


def counts(project: Project) -> tuple[int, int]:
    record = outcomes.load(project.loc.state_dir).get(f"project:{NPM_LESSON}") or outcomes.Record()
    return record.success, record.failure


def gap(project: Project) -> float:
    """How far the lesson under test ranks above its neighbour (negative: below)."""
    result = recall_npm(project, session=None, now=dt.datetime(2026, 5, 11, tzinfo=dt.UTC), record=False)
    scores = {lesson.name: lesson.score for lesson in result.lessons}
    return scores[NPM_LESSON] - scores[LINT_LESSON]


def caution(project: Project) -> bool:
    result = recall_npm(project, session=None, now=dt.datetime(2026, 5, 11, tzinfo=dt.UTC), record=False)
    return next(lesson.caution for lesson in result.lessons if lesson.name == NPM_LESSON)


def test_outcomes_move_counts_and_ranking(git_repo: Path) -> None:
    project = project_with_lessons(git_repo)
    start = gap(project)

    assert replay(project, "followed-ok") == [f"{NPM_LESSON}=success"]
    assert counts(project) == (1, 0)
    assert gap(project) > start
    assert not caution(project)

    assert replay(project, "warned-failure") == [f"{NPM_LESSON}=failure"]
    assert counts(project) == (1, 1)
    assert gap(project) == start  # as effective as the untried neighbour again

    assert replay(project, "advice-broken") == [f"{NPM_LESSON}=failure"]
    assert counts(project) == (1, 2)
    assert gap(project) < start
    assert caution(project)  # more failures than successes: shown as a caution

    # A red test is the code's fault, an unrelated session says nothing: no verdict, no change.
    assert replay(project, "tests-red") == []
    assert replay(project, "unrelated") == []
    assert counts(project) == (1, 2)

    assert replay(project, "warned-again") == [f"{NPM_LESSON}=failure"]
    assert counts(project) == (1, 3)
    record = outcomes.load(project.loc.state_dir)[f"project:{NPM_LESSON}"]
    assert record.deactivated
    assert record.streak == 3


def test_a_deactivated_lesson_is_listed_not_recalled_and_revivable(git_repo: Path) -> None:
    project = project_with_lessons(git_repo)
    for name in ("warned-failure", "advice-broken", "warned-again"):
        replay(project, name)
    names = [
        lesson.name
        for lesson in recall_npm(project, session=None, now=dt.datetime(2026, 5, 11, tzinfo=dt.UTC)).lessons
    ]
    assert NPM_LESSON not in names
    assert LINT_LESSON in names
    entry = project.entry(NPM_LESSON)
    assert entry.status == "deprecated"
    assert entry.reason is not None
    assert "failed 3 times in a row" in entry.reason
    assert entry.lesson.path is not None
    assert entry.lesson.path.exists()  # still on disk

    revived = revive(project, NPM_LESSON)
    assert revived is not None
    assert (revived.success, revived.failure, revived.streak) == (0, 3, 0)
    assert project.entry(NPM_LESSON).status == "active"
    assert caution(project)  # back, but as a caution: its record stays
    assert revive(project, NPM_LESSON) is None  # nothing to do the second time


def test_a_session_is_judged_once(git_repo: Path) -> None:
    project = project_with_lessons(git_repo)
    replay(project, "followed-ok")
    log = LEARNING / "followed-ok.jsonl"
    again = learn(project, trace_of(log), now=dt.datetime(2026, 5, 12, tzinfo=dt.UTC))
    assert again.outcomes == []
    assert counts(project) == (1, 0)
