"""The outcomes document in local state, `lesson-outcomes.json`: each lesson's track record.

`{"<scope>:<name>": {"success": N, "failure": N, "streak": N, "last": ISO,
"deactivated": {"at": ISO, "reason": str}}}`, in the state.py envelope. Counts come only from outcomes
the tool observed, never from a file (AIP-11's "confidence laundering"). The learning loop writes it
(reasonlessons/learning/lifecycle.py decides what an outcome does) through `update`, under the store
lock; recall reads it every turn (`counts`); `list`, `show`, `stats` and the AIP-11 export read it too.

`counts` uses the stdlib json module, not reasonlessons.support.jsonio: importing orjson costs more
than the whole per-turn budget. A damaged document reads as empty and is rewritten whole: never fatal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from reasonlessons.constants import STATE_SCHEMA_VERSION
from reasonlessons.store.state import load_state, save_state
from reasonlessons.support.atomic import locked

OUTCOMES_FILE = "lesson-outcomes.json"
OUTCOMES_KIND = "lesson-outcomes"


class Record(NamedTuple):
    """What local state knows about one lesson's track record.

    A NamedTuple, not a frozen dataclass: recall imports this module every turn, and building the
    dataclass would cost that import four times what the NamedTuple does (valgrind, ~5M vs ~1.2M
    instructions)."""

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


def record_of(entry: object) -> Record:
    """The Record an entry of the document stands for; anything malformed counts as nothing."""
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
    return {str(key): record_of(entry) for key, entry in data.items()}


def counts(state_dir: Path) -> tuple[dict[str, tuple[int, int]], set[str]]:
    """(successes, failures) per lesson key, and the keys deactivated: the cheap read recall makes."""
    try:
        doc = json.loads((state_dir / OUTCOMES_FILE).read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}, set()
    if (
        not isinstance(doc, dict)
        or doc.get("kind") != OUTCOMES_KIND
        or doc.get("version") != STATE_SCHEMA_VERSION
        or not isinstance(doc.get("data"), dict)
    ):
        return {}, set()
    out: dict[str, tuple[int, int]] = {}
    off: set[str] = set()
    for key, entry in doc["data"].items():
        if isinstance(entry, dict):
            success, failure = entry.get("success", 0), entry.get("failure", 0)
            if isinstance(success, int) and isinstance(failure, int):
                out[key] = (max(success, 0), max(failure, 0))
            if entry.get("deactivated"):
                off.add(key)
    return out, off


def deactivated(state_dir: Path) -> dict[str, str]:
    """Deactivated lesson keys and why (for `list` and `show`)."""
    return {key: rec.reason or "deactivated" for key, rec in load(state_dir).items() if rec.deactivated}


def update(
    state_dir: Path, lock_path: Path, change: Callable[[Mapping[str, Record]], dict[str, Record]]
) -> dict[str, Record]:
    """One locked read-modify-write: `change` gets every record and returns the ones to replace.

    Keys of an entry that a Record does not know are kept as they are; nothing is written when
    `change` replaces nothing. Returns what `change` returned."""
    path = state_dir / OUTCOMES_FILE
    with locked(lock_path):
        data = load_state(path, kind=OUTCOMES_KIND)
        changed = change({str(key): record_of(entry) for key, entry in data.items()})
        if changed:
            for key, record in changed.items():
                entry = dict(data[key]) if isinstance(data.get(key), dict) else {}
                entry.pop("deactivated", None)
                entry.update(record.to_json())
                data[key] = entry
            save_state(path, data, kind=OUTCOMES_KIND)
    return changed
