"""Decisions in local state, confidence, archiving below the floor, revival; status, list, show and
recall honour it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from reasonlessons.learning import lifecycle
from reasonlessons.learning.lifecycle import apply
from reasonlessons.store import outcomes
from reasonlessons.store.outcomes import Decision, Record
from tests.invoke import Invoke

NOW = dt.datetime(2026, 5, 10, tzinfo=dt.UTC)
FLOOR = 0.3


def passed(day: int) -> Decision:
    return Decision(
        "contradicted", "direct", f"2026-05-{day:02d}T09:00:00+00:00", f"s{day}.jsonl:4", "passed"
    )


def failed_as_said(day: int) -> Decision:
    return Decision("confirmed", "", f"2026-05-{day:02d}T09:00:00+00:00", f"s{day}.jsonl:4", "failed")


def test_apply_writes_the_counts_recall_reads_and_says_what_it_archived(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    priors = {"project:a": 0.75}
    first = apply(tmp_path, lock, [("project:a", "c:s1", failed_as_said(1))], priors=priors, floor=FLOOR)
    assert [(a.key, a.confidence, a.archived_now) for a in first] == [("project:a", 0.8125, False)]
    dropped = apply(tmp_path, lock, [("project:a", "c:s2", passed(2))], priors=priors, floor=FLOOR)
    assert [(a.confidence, a.archived_now) for a in dropped] == [(0.4125, False)]
    gone = apply(tmp_path, lock, [("project:a", "c:s3", passed(3))], priors=priors, floor=FLOOR)
    assert [(a.confidence, a.archived_now) for a in gone] == [(0.0125, True)]
    assert outcomes.counts(tmp_path)["project:a"] == Record(1, 0, 2, "2026-05-01T09:00:00+00:00")
    again = apply(tmp_path, lock, [("project:a", "c:s3", passed(3))], priors=priors, floor=FLOOR)
    assert again[0].record == gone[0].record  # the same session again: nothing new
    assert not again[0].archived_now


def test_revive_restores_an_archived_lesson_and_counts_start_over(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    apply(tmp_path, lock, [("project:a", "c:s1", passed(1)), ("project:a", "c:s2", passed(2))], floor=FLOOR)
    assert lifecycle.revive(tmp_path, lock, "project:b", prior=0.7, floor=FLOOR, now=NOW) is None
    revived = lifecycle.revive(tmp_path, lock, "project:a", prior=0.7, floor=FLOOR, now=NOW)
    assert revived == Record(base=0.7)
    assert outcomes.counts(tmp_path)["project:a"].confidence(0.7) == 0.7
    assert lifecycle.revive(tmp_path, lock, "project:a", prior=0.7, floor=FLOOR, now=NOW) is None
    # A lesson whose own prior is below the floor comes back above it.
    apply(tmp_path, lock, [("project:low", "c:s1", passed(1))], floor=FLOOR)
    low = lifecycle.revive(tmp_path, lock, "project:low", prior=0.2, floor=FLOOR, now=NOW)
    assert low is not None
    assert low.confidence(0.2) == 0.5


def test_promotion_carries_a_candidates_outcomes(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    apply(tmp_path, lock, [("candidate:a", "c:s1", failed_as_said(1))])
    lifecycle.rename(tmp_path, lock, "candidate:a", "project:a")
    counts = outcomes.counts(tmp_path)
    assert "candidate:a" not in counts
    assert counts["project:a"].confirmed == 1


def test_an_archived_lesson_is_hidden_listed_apart_shown_with_why_and_revivable(
    git_repo: Path, cli_invoke: Invoke
) -> None:
    cli_invoke("add", "flaky", "-d", "`make e2e` fails here; run `make e2e-local`", "--repo", git_repo)
    state = git_repo / ".reasonix" / "state"
    apply(state, state / "lessons.lock", [("project:flaky", "claude-code:s1", passed(1))], floor=FLOOR)
    (entry,) = cli_invoke("list", "--json", "--repo", git_repo).json()
    assert (entry["status"], entry["confidence"], entry["outcomes"]["direct"]) == ("active", 0.3, 1)
    apply(state, state / "lessons.lock", [("project:flaky", "claude-code:s2", passed(2))], floor=FLOOR)
    assert cli_invoke("list", "--json", "--repo", git_repo).json() == []
    assert "1 archived lesson(s) not shown" in cli_invoke("list", "--repo", git_repo).stdout
    (entry,) = cli_invoke("list", "--archived", "--json", "--repo", git_repo).json()
    assert (entry["status"], entry["archived"]) == ("deprecated", True)
    assert "revive" in entry["reason"]
    assert Path(entry["path"]).exists()  # kept on disk
    shown = cli_invoke("show", "flaky", "--repo", git_repo).stdout
    assert "claude-code:s1" in shown  # the sessions that decided it
    assert "claude-code:s2" in shown
    assert "contradicted (direct)" in shown
    doc = cli_invoke("show", "flaky", "--json", "--repo", git_repo).json()
    assert [d["session"] for d in doc["decisions"]] == ["claude-code:s1", "claude-code:s2"]
    assert "revived flaky" in cli_invoke("revive", "flaky", "--repo", git_repo).stdout
    (entry,) = cli_invoke("list", "--json", "--repo", git_repo).json()
    assert (entry["status"], entry["confidence"]) == ("active", 0.7)
    assert "reason" not in entry
    assert "[before revival: not counted]" in cli_invoke("show", "flaky", "--repo", git_repo).stdout
    assert "nothing to do" in cli_invoke("revive", "flaky", "--repo", git_repo).stdout
    cli_invoke("revive", "missing", "--repo", git_repo, expect=1)
