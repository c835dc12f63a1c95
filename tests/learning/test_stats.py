"""`stats`: per-lesson counters and the cold-vs-warm token comparison, with honest sample sizes."""

from __future__ import annotations

import datetime as dt
import statistics
from pathlib import Path

from reasonlessons.learning.loop import learn
from reasonlessons.learning.stats import Sample, compute, similar, verdict
from reasonlessons.store.project import Project, open_project
from tests.invoke import Invoke
from tests.learningsupport import LEARNING, NPM_BODY, NPM_LESSON, recall_npm, session_of, trace_of

EXISTS = dt.date(2026, 5, 11)  # the lesson was written after the cold sessions ran
COLD = ("followed-ok", "warned-failure", "advice-broken", "tests-red")
WARM = ("followed-ok", "warned-failure", "warned-again")


def setup(repo: Path) -> Project:
    project = open_project(repo, now=lambda: dt.datetime(2026, 5, 12, tzinfo=dt.UTC))
    project.store.add(
        NPM_LESSON,
        description="Run the tests with `npm test`, not `npx jest`",
        body=NPM_BODY,
        extra={"triggers": {"commands": [r"\bnpm\s+test\b", r"\bjest\b"]}, "captured-at": EXISTS},
    )
    return project


def capture(project: Project, name: str, *, warm: bool) -> int:
    """Learn from one log (as a new session when warm, recalled into first); returns its tokens."""
    trace = trace_of(LEARNING / f"{name}.jsonl")
    if warm:
        session, start = session_of(LEARNING / f"{name}.jsonl")
        trace.session_id = f"warm-{session}"
        recall_npm(project, session=trace.session_id, now=start)
    learn(project, trace, now=dt.datetime(2026, 5, 12, tzinfo=dt.UTC))
    return trace.tokens.total


def test_cold_versus_warm(git_repo: Path) -> None:
    project = setup(git_repo)
    cold = [capture(project, name, warm=False) for name in (*COLD, "unrelated")][:-1]
    warm = [capture(project, name, warm=True) for name in WARM]
    result = compute(project)
    (lesson,) = result.lessons
    assert lesson.name == NPM_LESSON
    assert lesson.cold.totals == tuple(cold)  # the unrelated session is not a similar task
    assert lesson.warm.totals == tuple(warm)
    assert lesson.cold.median == round(statistics.median(cold))
    assert lesson.hits == 3
    assert (
        lesson.injected_tokens
        == 3
        * recall_npm(project, session=None, now=dt.datetime(2026, 5, 12, tzinfo=dt.UTC), record=False).tokens
    )
    # Warm: followed-ok, warned-failure and warned-again all confirm what the lesson claims.
    assert (lesson.success, lesson.failure) == (3, 0)
    doc = result.to_json()
    assert doc["sessions"] == {"captured": 8, "with_usage": 8}
    assert doc["cold"]["sessions"] == 4
    assert doc["warm"]["sessions"] == 3
    change = (statistics.median(warm) - statistics.median(cold)) / statistics.median(cold) * 100
    assert f"{abs(change):.0f}%" in doc["verdict"]
    assert "observational" in doc["verdict"]


def test_no_verdict_on_small_samples() -> None:
    assert verdict(Sample((10, 20)), Sample((5, 5, 5))).startswith(
        "not enough sessions to compare (cold 2, warm 3"
    )
    assert "fewer tokens" in verdict(Sample((100, 100, 100)), Sample((50, 50, 50)))
    assert "more tokens" in verdict(Sample((100, 100, 100)), Sample((150, 150, 150)))


def test_similarity_uses_triggers_and_shared_words(git_repo: Path) -> None:
    project = setup(git_repo)
    lesson = project.store.find(NPM_LESSON)
    assert similar({"commands": ["npx jest"]}, lesson)
    assert similar({"terms": ["jest", "found"]}, lesson)
    assert not similar({"terms": ["rename", "helper"], "commands": ["ls"]}, lesson)


def test_cli_stats(git_repo: Path, cli_invoke: Invoke) -> None:
    project = setup(git_repo)
    capture(project, "followed-ok", warm=True)
    doc = cli_invoke("stats", "--json", "--repo", git_repo).json()
    assert isinstance(doc, dict)
    (entry,) = doc["lessons"]
    assert {k: entry[k] for k in ("name", "hits", "success", "failure", "caution", "archived")} == {
        "name": NPM_LESSON, "hits": 1, "success": 1, "failure": 0, "caution": False, "archived": False,
    }  # fmt: skip
    assert entry["confidence"] == 0.775  # the default prior 0.7, confirmed once
    assert entry["warm"]["sessions"] == 1
    text = cli_invoke("stats", "--repo", git_repo).stdout
    assert NPM_LESSON in text
    assert "not enough sessions" in text
