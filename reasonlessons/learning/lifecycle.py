"""Outcome counts and what they do to a lesson: caution, deactivation, revival (all local state).

Counts live in `lesson-outcomes.json` (the document recall reads, reasonlessons/recall/counters.py):
`{"<scope>:<name>": {"success": N, "failure": N, "streak": N, "last": ISO,
"deactivated": {"at": ISO, "reason": str}}}`. They come only from outcomes the tool observed,
never from a file (AIP-11's "confidence laundering").

* caution: failures outnumber successes; recall still returns the lesson, marked as a caution.
* deactivated: DEACTIVATE_STREAK failures in a row while failures outnumber successes; recall skips
  it and `list` shows it as `deprecated` with the reason. The file stays; `reasonlessons revive NAME`
  clears the flag and the streak (the counts stay, so it comes back as a caution).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasonlessons.recall.counters import OUTCOMES_FILE, OUTCOMES_KIND
from reasonlessons.store.state import load_state, save_state
from reasonlessons.support.atomic import locked

DEACTIVATE_STREAK = 3


@dataclass(frozen=True)
class Record:
    """What local state knows about one lesson's track record."""

    success: int = 0
    failure: int = 0
    streak: int = 0
    last: str | None = None
    deactivated_at: str | None = None
    reason: str | None = None

    @property
    def caution(self) -> bool:
        return self.failure > self.success

    @property
    def deactivated(self) -> bool:
        return self.deactivated_at is not None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"success": self.success, "failure": self.failure, "streak": self.streak}
        if self.last:
            out["last"] = self.last
        if self.deactivated_at:
            out["deactivated"] = {"at": self.deactivated_at, "reason": self.reason or ""}
        return out


def _int(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def _record(entry: object) -> Record:
    if not isinstance(entry, dict):
        return Record()
    off = entry.get("deactivated")
    off = off if isinstance(off, dict) else None
    last = entry.get("last")
    return Record(
        success=_int(entry.get("success")),
        failure=_int(entry.get("failure")),
        streak=_int(entry.get("streak")),
        last=last if isinstance(last, str) else None,
        deactivated_at=str(off.get("at") or "?") if off is not None else None,
        reason=str(off.get("reason") or "") if off is not None else None,
    )


def load(state_dir: Path) -> dict[str, Record]:
    """Every lesson's record, by `<scope>:<name>` key."""
    data = load_state(state_dir / OUTCOMES_FILE, kind=OUTCOMES_KIND)
    return {str(key): _record(entry) for key, entry in data.items()}


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
    state_dir: Path, lock_path: Path, outcomes: Iterable[tuple[str, bool]], *, now: dt.datetime
) -> list[Applied]:
    """Record (key, success) outcomes in one locked read-modify-write of the outcomes document."""
    outcomes = list(outcomes)
    if not outcomes:
        return []
    path = state_dir / OUTCOMES_FILE
    applied: list[Applied] = []
    with locked(lock_path):
        data = load_state(path, kind=OUTCOMES_KIND)
        for key, success in outcomes:
            old = _record(data.get(key))
            new = next_record(old, success=success, now=now)
            entry = dict(data[key]) if isinstance(data.get(key), dict) else {}
            entry.pop("deactivated", None)
            entry.update(new.to_json())
            data[key] = entry
            applied.append(Applied(key, success, new, new.deactivated and not old.deactivated))
        save_state(path, data, kind=OUTCOMES_KIND)
    return applied


def revive(state_dir: Path, lock_path: Path, key: str) -> Record | None:
    """Clear a deactivation (and the failure streak); None when the lesson was not deactivated."""
    path = state_dir / OUTCOMES_FILE
    with locked(lock_path):
        data = load_state(path, kind=OUTCOMES_KIND)
        old = _record(data.get(key))
        if not old.deactivated:
            return None
        new = Record(old.success, old.failure, 0, old.last)
        entry = dict(data[key])
        entry.pop("deactivated", None)
        entry.update(new.to_json())
        data[key] = entry
        save_state(path, data, kind=OUTCOMES_KIND)
    return new


def deactivated(state_dir: Path) -> dict[str, str]:
    """Deactivated lesson keys and why (for `list` and `show`)."""
    return {key: rec.reason or "deactivated" for key, rec in load(state_dir).items() if rec.deactivated}
