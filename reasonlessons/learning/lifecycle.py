"""What outcome counts do to a lesson: caution, deactivation, revival (the policy).

The counts live in local state, in the outcomes document (reasonlessons/store/outcomes.py, which
recall reads); they come only from outcomes the tool observed, never from a file.

* caution: failures outnumber successes; recall still returns the lesson, marked as a caution.
* deactivated: DEACTIVATE_STREAK failures in a row while failures outnumber successes; recall skips
  it and `list` shows it as `deprecated` with the reason. The file stays; `reasonlessons revive NAME`
  clears the flag and the streak (the counts stay, so it comes back as a caution).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from reasonlessons.store import outcomes
from reasonlessons.store.outcomes import Record

DEACTIVATE_STREAK = 3


def should_deactivate(record: Record) -> bool:
    """It keeps failing: DEACTIVATE_STREAK failures in a row, and more failures than successes."""
    return record.streak >= DEACTIVATE_STREAK and record.failure > record.success


def next_record(record: Record, *, success: bool, now: dt.datetime) -> Record:
    """The record after one more observed outcome (deactivating it when it keeps failing)."""
    success_n, failure_n = record.success + int(success), record.failure + int(not success)
    streak = 0 if success else record.streak + 1
    new = Record(success_n, failure_n, streak, now.isoformat(), record.deactivated_at, record.reason)
    if not new.deactivated and should_deactivate(new):
        reason = (
            f"failed {new.streak} times in a row ({new.failure} failures, {new.success} successes); "
            "`reasonlessons revive NAME` brings it back"
        )
        new = Record(new.success, new.failure, new.streak, new.last, now.isoformat(), reason)
    return new


@dataclass(frozen=True)
class Applied:
    """One outcome as recorded: the key, whether it was a success, and a deactivation it caused."""

    key: str
    success: bool
    record: Record
    deactivated_now: bool


def apply(
    state_dir: Path, lock_path: Path, observed: Iterable[tuple[str, bool]], *, now: dt.datetime
) -> list[Applied]:
    """Record (key, success) outcomes in one locked read-modify-write of the outcomes document."""
    observed = list(observed)
    if not observed:
        return []
    applied: list[Applied] = []

    def change(records: Mapping[str, Record]) -> dict[str, Record]:
        new_records: dict[str, Record] = {}
        for key, success in observed:
            old = new_records.get(key) or records.get(key) or Record()
            new = next_record(old, success=success, now=now)
            new_records[key] = new
            applied.append(Applied(key, success, new, new.deactivated and not old.deactivated))
        return new_records

    outcomes.update(state_dir, lock_path, change)
    return applied


def revive(state_dir: Path, lock_path: Path, key: str) -> Record | None:
    """Clear a deactivation (and the failure streak); None when the lesson was not deactivated."""

    def change(records: Mapping[str, Record]) -> dict[str, Record]:
        old = records.get(key) or Record()
        return {key: Record(old.success, old.failure, 0, old.last)} if old.deactivated else {}

    return outcomes.update(state_dir, lock_path, change).get(key)
