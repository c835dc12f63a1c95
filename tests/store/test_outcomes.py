"""The outcomes document: written under the lock, read cheaply by recall; damage is not fatal."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from reasonlessons.store import outcomes
from reasonlessons.store.outcomes import OUTCOMES_FILE, Record


def _count(state: Path, lock: Path, key: str, *, success: bool) -> None:
    def change(records: Mapping[str, Record]) -> dict[str, Record]:
        old = records.get(key) or Record()
        return {key: old._replace(success=old.success + success, failure=old.failure + (not success))}

    outcomes.update(state, lock, change)


def test_outcomes_round_trip_and_ignore_damage(tmp_path: Path) -> None:
    lock = tmp_path / "lessons.lock"
    _count(tmp_path, lock, "project:flaky", success=False)
    _count(tmp_path, lock, "project:flaky", success=False)
    _count(tmp_path, lock, "project:flaky", success=True)
    assert outcomes.counts(tmp_path)[0] == {"project:flaky": (1, 2)}
    (tmp_path / OUTCOMES_FILE).write_text("garbage")
    assert outcomes.counts(tmp_path)[0] == {}
