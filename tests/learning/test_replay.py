"""Replay: sessions where a lesson is recalled confirm or contradict what it claims, move its counts
and its ranking the right way, and archive it once its claim is seen false twice (and revive it)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from reasonlessons.learning.loop import learn, revive
from reasonlessons.store import outcomes
from reasonlessons.store.project import Project, open_project
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
    return record.confirmed, record.contradicted


def gap(project: Project) -> float:
    """How far the lesson under test ranks above its neighbour (negative: below)."""
    result = recall_npm(project, session=None, now=dt.datetime(2026, 5, 11, tzinfo=dt.UTC), record=False)
    scores = {lesson.name: lesson.score for lesson in result.lessons}
    return scores[NPM_LESSON] - scores[LINT_LESSON]


def caution(project: Project) -> bool:
    result = recall_npm(project, session=None, now=dt.datetime(2026, 5, 11, tzinfo=dt.UTC), record=False)
    return next(lesson.caution for lesson in result.lessons if lesson.name == NPM_LESSON)


def test_decisions_move_counts_and_ranking(git_repo: Path) -> None:
    project = project_with_lessons(git_repo)
    start = gap(project)

    assert replay(project, "followed-ok") == [f"{NPM_LESSON}=confirmed"]
    assert counts(project) == (1, 0)
    assert gap(project) > start
    assert not caution(project)

    # `npx jest` failed just as the lesson warns: that confirms it, it does not count against it.
    assert replay(project, "warned-failure") == [f"{NPM_LESSON}=confirmed"]
    assert counts(project) == (2, 0)
    assert gap(project) > start

    # The advised `npm test` could not run here: the lesson's own advice is wrong here.
    assert replay(project, "advice-broken") == [f"{NPM_LESSON}=contradicted"]
    assert counts(project) == (2, 1)
    assert gap(project) < start  # now less sure than the untried neighbour
    assert not caution(project)  # confirmed more often than contradicted

    # A red test is the code's fault, an unrelated session says nothing: no decision, no change.
    assert replay(project, "tests-red") == []
    assert replay(project, "unrelated") == []
    assert counts(project) == (2, 1)

    assert replay(project, "warned-again") == [f"{NPM_LESSON}=confirmed"]
    assert counts(project) == (3, 1)
    assert project.entry(NPM_LESSON).status == "active"


def test_an_archived_lesson_is_listed_apart_not_recalled_and_revivable(git_repo: Path) -> None:
    project = project_with_lessons(git_repo)
    for name in ("jest-passes", "jest-passes-again"):  # the command it says fails here passes
        assert replay(project, name) == [f"{NPM_LESSON}=contradicted"]
    names = [
        lesson.name
        for lesson in recall_npm(project, session=None, now=dt.datetime(2026, 5, 11, tzinfo=dt.UTC)).lessons
    ]
    assert NPM_LESSON not in names
    assert LINT_LESSON in names
    entry = project.entry(NPM_LESSON)
    assert (entry.status, entry.archived) == ("deprecated", True)
    assert entry.reason is not None
    assert "below the floor 0.3" in entry.reason
    assert entry.lesson.path is not None
    assert entry.lesson.path.exists()  # still on disk

    later = open_project(git_repo, now=lambda: dt.datetime(2026, 5, 12, tzinfo=dt.UTC))
    revived = revive(later, NPM_LESSON)
    assert revived is not None
    assert (revived.confirmed, revived.contradicted) == (0, 0)  # counting starts over
    assert project.entry(NPM_LESSON).status == "active"
    assert not caution(project)
    assert revive(later, NPM_LESSON) is None  # nothing to do the second time


def test_a_session_is_judged_once(git_repo: Path) -> None:
    project = project_with_lessons(git_repo)
    replay(project, "followed-ok")
    log = LEARNING / "followed-ok.jsonl"
    again = learn(project, trace_of(log), now=dt.datetime(2026, 5, 12, tzinfo=dt.UTC))
    assert again.outcomes == []
    assert counts(project) == (1, 0)


def test_lessons_not_recalled_are_judged_on_their_claims_only(git_repo: Path) -> None:
    project = project_with_lessons(git_repo)  # captured 2026-05-10; the sessions ran that day
    every = project.store.scan().lessons
    passes = learn(
        project,
        trace_of(LEARNING / "jest-passes.jsonl"),
        now=dt.datetime(2026, 5, 11, tzinfo=dt.UTC),
        lessons=every,
    )
    assert passes.linked_by is None  # nothing was recalled into it
    (outcome,) = passes.outcomes
    assert (outcome.key, outcome.verdict, outcome.weight, outcome.recalled) == (
        f"project:{NPM_LESSON}", "contradicted", "direct", False,
    )  # fmt: skip
    # A session from before the lesson existed, or the one it was learned from, says nothing of it.
    older = open_project(git_repo, now=lambda: dt.datetime(2026, 6, 1, tzinfo=dt.UTC))
    older.store.add("later-lesson", description="`npx jest` fails here; run `npm test`")
    late = [lesson for lesson in older.store.scan().lessons if lesson.name == "later-lesson"]
    again = learn(
        older,
        trace_of(LEARNING / "jest-passes-again.jsonl"),
        now=dt.datetime(2026, 6, 2, tzinfo=dt.UTC),
        lessons=late,
    )
    assert again.outcomes == []
