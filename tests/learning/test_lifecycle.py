"""Counts in local state, caution and deactivation thresholds, revival; status and recall honour it."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from reasonlessons.learning import lifecycle
from reasonlessons.learning.lifecycle import DEACTIVATE_STREAK, apply, next_record
from reasonlessons.store import outcomes
from reasonlessons.store.outcomes import OUTCOMES_FILE, Record
from tests.invoke import Invoke

NOW = dt.datetime(2026, 5, 10, tzinfo=dt.UTC)


def test_caution_and_deactivation_thresholds() -> None:
    record = Record(success=2)
    for _ in range(DEACTIVATE_STREAK):
        record = next_record(record, success=False, now=NOW)
    assert record.failure == 3
    assert record.caution
    assert record.deactivated  # three in a row, and more failures than successes

    steady = Record(success=5)
    for _ in range(DEACTIVATE_STREAK):
        steady = next_record(steady, success=False, now=NOW)
    assert not steady.deactivated  # a long good record is not thrown away by a bad streak
    assert not steady.caution

    interrupted = Record()
    for success in (False, False, True, False, False):
        interrupted = next_record(interrupted, success=success, now=NOW)
    assert interrupted.streak == 2
    assert not interrupted.deactivated


def test_apply_writes_the_document_recall_reads(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    applied = apply(tmp_path, lock, [("project:a", False)] * 3 + [("project:b", True)], now=NOW)
    assert [a.deactivated_now for a in applied] == [False, False, True, False]
    counts, off = outcomes.counts(tmp_path)
    assert counts == {"project:a": (0, 3), "project:b": (1, 0)}
    assert off == {"project:a"}
    assert "project:a" in outcomes.deactivated(tmp_path)
    # Another writer of the document keeps the learning loop's keys.
    outcomes.update(tmp_path, lock, lambda got: {"project:a": got["project:a"]._replace(success=1)})
    assert outcomes.load(tmp_path)["project:a"].deactivated
    assert outcomes.counts(tmp_path)[0]["project:a"] == (1, 3)


def test_revive_clears_the_flag_and_the_streak_but_keeps_counts(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    apply(tmp_path, lock, [("project:a", False)] * 3, now=NOW)
    revived = lifecycle.revive(tmp_path, lock, "project:a")
    assert revived == Record(0, 3, 0, NOW.isoformat())
    assert outcomes.counts(tmp_path)[1] == set()
    assert lifecycle.revive(tmp_path, lock, "project:a") is None


def test_a_damaged_or_hand_edited_document_is_not_trusted(tmp_path: Path) -> None:
    (tmp_path / OUTCOMES_FILE).write_text("{not json")
    assert outcomes.load(tmp_path) == {}
    doc = {"kind": "lesson-outcomes", "version": 1, "data": {"project:a": {"success": -5, "failure": "9"}}}
    (tmp_path / OUTCOMES_FILE).write_text(json.dumps(doc))
    assert outcomes.load(tmp_path)["project:a"] == Record(0, 0)
    apply(tmp_path, tmp_path / "lock", [("project:a", True)], now=NOW)
    assert outcomes.counts(tmp_path)[0] == {"project:a": (1, 0)}


def test_list_shows_a_deactivated_lesson_as_deprecated_with_why(git_repo: Path, cli_invoke: Invoke) -> None:
    cli_invoke("add", "flaky", "-d", "Run the e2e suite with `make e2e`", "--repo", git_repo)
    state = git_repo / ".reasonix" / "state"
    apply(state, state / "lessons.lock", [("project:flaky", False)] * 3, now=NOW)
    (entry,) = cli_invoke("list", "--json", "--repo", git_repo).json()
    assert entry["status"] == "deprecated"
    assert "revive" in entry["reason"]
    assert "deprecated" in cli_invoke("list", "--repo", git_repo).stdout
    assert "revived flaky" in cli_invoke("revive", "flaky", "--repo", git_repo).stdout
    (entry,) = cli_invoke("list", "--json", "--repo", git_repo).json()
    assert entry["status"] == "active"
    assert "reason" not in entry
    assert "nothing to do" in cli_invoke("revive", "flaky", "--repo", git_repo).stdout
    cli_invoke("revive", "missing", "--repo", git_repo, expect=1)
