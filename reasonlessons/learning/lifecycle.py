"""What decisions do to a lesson: counts, confidence, archiving, revival (the policy).

Decisions live in local state (reasonlessons/store/outcomes.py, which recall reads); they come only
from outcomes the tool observed, never from a file. Confidence is a function of the lesson's prior
and the counts (reasonlessons/store/confidence.py); below the archive floor (config
`learning.archive-floor`) the lesson is archived: recall skips it, `list` hides it unless asked
(`--archived`), the file stays, and `reasonlessons revive NAME` restores it (counting starts over
from its prior, or REVIVE_BASE when that is higher).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from reasonlessons.store import confidence, outcomes
from reasonlessons.store.outcomes import Decision, History, Record


@dataclass(frozen=True)
class Applied:
    """One lesson after a batch of decisions: its record before and after, and its confidence."""

    key: str
    before: Record
    record: Record
    confidence: float
    archived_now: bool


def apply(
    state_dir: Path,
    lock_path: Path,
    decided: Iterable[tuple[str, str, Decision]],
    *,
    priors: Mapping[str, float] | None = None,
    floor: float = 0.0,
) -> list[Applied]:
    """Record (lesson key, session key, decision) triples in one locked read-modify-write.

    `priors` (lesson key -> prior confidence) and `floor` tell which lessons this archived."""
    decided = list(decided)
    if not decided:
        return []
    priors = priors or {}
    applied: list[Applied] = []

    def change(current: Mapping[str, History]) -> dict[str, History]:
        new: dict[str, History] = {}
        for key, session, decision in decided:
            new[key] = (new.get(key) or current.get(key) or History()).decide(session, decision)
        for key, history in sorted(new.items()):
            before = (current.get(key) or History()).summary()
            after = history.summary()
            prior = priors.get(key, confidence.DEFAULT_PRIOR)
            value = after.confidence(prior)
            was = confidence.archived(before.confidence(prior), floor)
            applied.append(Applied(key, before, after, value, confidence.archived(value, floor) and not was))
        return new

    outcomes.update(state_dir, lock_path, change)
    return applied


def revive(
    state_dir: Path, lock_path: Path, key: str, *, prior: float, floor: float, now: dt.datetime
) -> Record | None:
    """Restore an archived lesson (decisions are kept, counting starts over); None if not archived."""

    def change(current: Mapping[str, History]) -> dict[str, History]:
        old = current.get(key) or History()
        if not confidence.archived(old.summary().confidence(prior), floor):
            return {}
        # Restart above the floor whatever it is set to, or the lesson would stay archived.
        return {key: old.revive(now, max(prior, confidence.REVIVE_BASE, min(1.0, floor + 0.1)))}

    changed = outcomes.update(state_dir, lock_path, change)
    return changed[key].summary() if key in changed else None


def rename(state_dir: Path, lock_path: Path, old: str, new: str) -> None:
    """Move a lesson's outcomes to its new key (a candidate promoted), joining any already there."""

    def change(current: Mapping[str, History]) -> dict[str, History]:
        moved = current.get(old)
        if moved is None:
            return {}
        target = current.get(new) or History()
        for session, decision in moved.decisions.items():
            target = target.decide(session, decision)
        return {new: target, old: History()}

    outcomes.update(state_dir, lock_path, change)
