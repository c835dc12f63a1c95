"""Supersession and expiry: honoured by list, recall and validate; a newer candidate for the same
fact supersedes the stale lesson when it is promoted."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from reasonlessons.constants import SCOPE_CANDIDATE
from reasonlessons.learning.supersede import promote, promote_auto
from reasonlessons.recall.api import recall
from reasonlessons.store.project import Project, open_project
from reasonlessons.store.validate import ERROR, WARNING, supersession_cycles, validate
from tests.invoke import Invoke

NOW = dt.datetime(2026, 5, 10, tzinfo=dt.UTC)
ENTRY = "package.json#scripts.test"


def write_scripts(repo: Path, **scripts: str) -> None:
    (repo / "package.json").write_text(json.dumps({"name": "demo", "scripts": scripts}))


def setup(repo: Path) -> Project:
    write_scripts(repo, test="jest", lint="eslint .")
    project = open_project(repo, now=lambda: NOW)
    project.store.add(
        "test-command", description="Run tests with `npm test` (jest)", fingerprint=[ENTRY],
        body="- `npm test` runs jest.", extra={"tags": ["test"], "triggers": {"keywords": ["tests"]}},
    )  # fmt: skip
    return project


def candidate(project: Project, name: str, entry: str = ENTRY, tag: str = "test") -> None:
    project.store.add(
        name, description=f"{name}: run tests with `npm test` (vitest)", fingerprint=[entry],
        body="- `npm test` runs vitest now.", scope=SCOPE_CANDIDATE, extra={"tags": [tag]},
    )  # fmt: skip


def test_a_newer_candidate_for_the_drifted_fact_supersedes_the_stale_lesson(git_repo: Path) -> None:
    project = setup(git_repo)
    write_scripts(git_repo, test="vitest run", lint="eslint .")  # the fact changed: test-command is stale
    candidate(project, "test-command-2")
    result = promote(project, "test-command-2")
    assert result.superseded == ["test-command"]
    assert result.lesson.supersedes == ["test-command"]
    statuses = {e.lesson.name: e.status for e in project.entries("all")[0]}
    assert statuses == {"test-command": "superseded", "test-command-2": "active"}
    assert (git_repo / ".reasonix" / "lessons" / "test-command.md").exists()  # kept for the audit trail
    names = [r.name for r in recall(project.loc, "run the tests", task_type="code-gen", now=NOW).lessons]
    assert "test-command" not in names


def test_no_supersession_without_drift_or_topic(git_repo: Path) -> None:
    project = setup(git_repo)
    candidate(project, "test-command-2")
    assert promote(project, "test-command-2").superseded == []  # the old lesson is still fresh
    write_scripts(git_repo, test="vitest run", lint="eslint .")
    candidate(project, "deploy-notes", tag="deploy")  # same fact, another subject
    candidate(project, "lint-notes", entry="package.json#scripts.lint")  # the fact that did not drift
    assert promote(project, "deploy-notes").superseded == []
    assert promote(project, "lint-notes").superseded == []


def test_auto_promotion_supersedes_too(git_repo: Path) -> None:
    project = setup(git_repo)
    write_scripts(git_repo, test="vitest run")
    candidate(project, "test-command-2")
    later = open_project(git_repo, now=lambda: NOW + dt.timedelta(days=8))
    (result,) = promote_auto(later, dt.timedelta(days=7))
    assert result.superseded == ["test-command"]


def test_cli_promote_reports_supersession(git_repo: Path, cli_invoke: Invoke) -> None:
    project = setup(git_repo)
    write_scripts(git_repo, test="vitest run")
    candidate(project, "test-command-2")
    out = cli_invoke("promote", "test-command-2", "--repo", git_repo).stdout
    assert "test-command is stale and now superseded by test-command-2" in out


def test_validate_reports_dangling_supersedes_cycles_and_expiry(git_repo: Path) -> None:
    project = open_project(git_repo, now=lambda: NOW)
    store = project.store
    store.add("a", description="lesson a", extra={"supersedes": ["b"]})
    store.add("b", description="lesson b", extra={"supersedes": ["a"]})
    store.add("c", description="lesson c", extra={"supersedes": ["gone"], "expires-at": dt.date(2026, 1, 1)})
    store.add("d", description="lesson d", extra={"expires-at": dt.date(2027, 1, 1)})
    problems = [(p.severity, p.name, p.message) for p in validate(store)]
    assert (
        ERROR,
        "a",
        "supersession cycle a -> b -> a: each hides the next; remove one supersedes entry",
    ) in problems
    assert any(sev == WARNING and name == "c" and "'gone'" in msg for sev, name, msg in problems)
    assert any(
        sev == WARNING and name == "c" and "expired on 2026-01-01" in msg for sev, name, msg in problems
    )
    assert not any(name == "d" for _, name, _ in problems)
    statuses = {e.lesson.name: e.status for e in project.entries("all", check_drift=False)[0]}
    assert statuses["c"] == "expired"
    assert statuses["d"] == "active"


def test_cycles_are_found_once_each() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["d2"], "d2": ["d"], "e": ["a"]}
    assert supersession_cycles(graph) == [["a", "b", "c"], ["d", "d2"]]
    assert supersession_cycles({"a": ["b"], "b": []}) == []


def test_auto_promotion_reads_each_lesson_a_bounded_number_of_times(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`promote --auto` over n candidates used to re-read every promoted lesson for each of them:
    quadratic (500 candidates took minutes). Now each file is read a few times, whatever n is."""
    from reasonlessons.lessons import file

    project = setup(git_repo)
    write_scripts(git_repo, test="vitest run")
    n = 60
    for i in range(n):
        candidate(project, f"tip-{i:03d}", tag="test" if i == 0 else f"t{i % 3}")
    reads: list[Path] = []
    real = file.read_lesson_bytes
    monkeypatch.setattr(file, "read_lesson_bytes", lambda path: reads.append(path) or real(path))
    later = open_project(git_repo, now=lambda: NOW + dt.timedelta(days=8))
    promoted = promote_auto(later, dt.timedelta(days=7))
    assert len(promoted) == n
    assert len(reads) <= 4 * (n + 1), len(reads)  # the old way: about n * n / 2 * 2
    assert {p.lesson.name for p in promoted if p.superseded} == {"tip-000"}
