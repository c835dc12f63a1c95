"""Library health in `stats`: captured turns replayed through recall, and validate's counts."""

from __future__ import annotations

import shutil
from pathlib import Path

from reasonlessons.curation.health import health, percentile
from reasonlessons.recall.rank import estimate_tokens
from reasonlessons.recall.render import lesson_text
from reasonlessons.store.project import open_project
from tests.invoke import Invoke
from tests.jsonshape import command_problems
from tests.paths import EXAMPLE
from tests.repos import commit_all, git


def test_percentile_is_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert percentile([30, 10, 20], 50) == 20
    assert percentile(list(range(1, 11)), 90) == 9
    assert percentile([5], 90) == 5


def test_health_replays_captured_turns(tmp_path: Path, cli_invoke: Invoke) -> None:
    repo = tmp_path / "demo"
    shutil.copytree(EXAMPLE, repo)
    git(repo, "init", "-q")
    commit_all(repo, "the example repository")
    project = open_project(repo)
    empty = health(project).to_json()
    assert (empty["queries"], empty["no_match_rate"], empty["break_even_lessons"]) == (0, None, None)
    active = [e.lesson for e in project.entries("project")[0] if e.status == "active"]
    assert empty["preload_tokens"] == sum(estimate_tokens(lesson_text(x.description, x.body)) for x in active)
    assert (empty["reachable"], empty["unreachable"], empty["duplicates"]) == (len(active), 0, 0)

    cli_invoke("capture", *sorted((repo / "sessions").glob("*.events.jsonl")), "--repo", repo)
    state = repo / ".reasonix" / "state"
    counters = [state / "recall-counters.json", state / "recall-counters.log"]  # document, journal
    before = [path.read_bytes() if path.exists() else None for path in counters]
    found = health(open_project(repo)).to_json()
    assert found["queries"] > 0
    assert 0 <= found["no_match"] < found["queries"]
    assert found["no_match_rate"] == round(found["no_match"] / found["queries"], 3)
    p50, p90 = found["injected_tokens"]["p50"], found["injected_tokens"]["p90"]
    assert 0 < p50 <= p90 <= found["preload_tokens"]
    assert found["break_even_lessons"] >= 1
    after = [path.read_bytes() if path.exists() else None for path in counters]
    assert after == before  # replaying counts no hit
    doc = cli_invoke("stats", "--json", "--repo", repo).json()
    assert command_problems("stats", doc) == []
    assert doc["health"] == found  # type: ignore[index]
    assert "library health:" in cli_invoke("stats", "--repo", repo).stdout


def test_health_counts_unreachable_and_redundant_lessons(git_repo: Path) -> None:
    project = open_project(git_repo)
    project.store.add("a", description="Do it", body="")
    project.store.add("b", description="Queue drains run in order", body="- drain the queue first")
    project.store.add("c", description="Queue drains run in order.", body="- Drain the queue FIRST")
    found = health(project).to_json()
    assert (found["unreachable"], found["duplicates"], found["reachable"]) == (1, 1, 2)
