"""Each lesson's outcomes in local state: which session decided what, and the counts recall reads.

Two documents in the state.py envelope, written together under the lock by `update`:

* `lesson-decisions.json` (kind `lesson-decisions`, version 1), the source. Per `<scope>:<name>`:
  `{"decisions": {"<agent>:<session>": {"verdict", "weight"?, "at"?, "ref", "reason"}},
  "revived"?: {"at", "base"}, "folded"?: {...}, "legacy"?: {...}}`. `verdict` is `confirmed`,
  `repeated` (capture found the same lesson again) or `contradicted`, with `weight` `direct` or
  `soft`; `at` is when the deciding event happened, `ref` which event it was. One decision per
  session: a session decided twice keeps the stronger decision (contradicted-direct, then -soft,
  then confirmed, then repeated; ties by time and event), so neither capturing a session twice nor
  the order sessions come in changes anything. Past MAX_DECISIONS the oldest are folded into counts.
* `lesson-outcomes.json` (kind `lesson-outcomes`, version 2), derived from it: per lesson the counts
  since it was last revived. Recall reads it every turn through store/counts.py, which builds none
  of this module's types. Confidence itself is computed from these counts and the lesson's own
  prior (store/confidence.py), so editing a lesson's `confidence` takes effect at once.

Version 1 of lesson-outcomes.json (`{"success", "failure", "streak", "last", "deactivated"}`, before
outcomes were judged by what a lesson claims) is migrated when first written: its successes count
as confirmations; its failures and deactivation are kept under `legacy` for `show` but not counted,
because that version counted a lesson's own warned failure against it. Counts come only from
outcomes observed here, never from a file (AIP-11's "confidence laundering"). A damaged document
reads as empty and is rewritten whole: never fatal.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from reasonlessons.store.counts import (
    OUTCOMES_FILE,
    OUTCOMES_KIND,
    OUTCOMES_VERSION,
    Record,
    count_of,
    counts,
    text_of,
    unit_of,
    version_1,
)
from reasonlessons.store.state import load_state, save_state
from reasonlessons.support.atomic import locked

__all__ = ["OUTCOMES_FILE", "Decision", "History", "Record", "counts", "histories", "load", "update"]

DECISIONS_FILE = "lesson-decisions.json"
DECISIONS_KIND = "lesson-decisions"
DECISIONS_VERSION = 1
MAX_DECISIONS = 100

CONFIRMED = "confirmed"
REPEATED = "repeated"
CONTRADICTED = "contradicted"
DIRECT = "direct"
SOFT = "soft"
VERDICTS = (CONFIRMED, REPEATED, CONTRADICTED)
WEIGHTS = (DIRECT, SOFT)


class Decision(NamedTuple):
    """What one session decided about one lesson, and the event that decided it."""

    verdict: str  # confirmed | repeated | contradicted
    weight: str = ""  # direct | soft, for a contradiction
    at: str | None = None  # ISO time of the deciding event (UTC)
    ref: str = ""  # the deciding event: `<log>:<line>` or an agent's own reference
    reason: str = ""

    @property
    def rank(self) -> int:
        if self.verdict == CONTRADICTED:
            return 4 if self.weight == DIRECT else 3
        return 2 if self.verdict == CONFIRMED else 1

    @property
    def positive(self) -> bool:
        return self.verdict in (CONFIRMED, REPEATED)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict}
        if self.weight:
            out["weight"] = self.weight
        if self.at:
            out["at"] = self.at
        out["ref"] = self.ref
        out["reason"] = self.reason
        return out


def join(old: Decision | None, new: Decision) -> Decision:
    """The decision a session keeps when decided twice: stronger first, then earlier, then by event."""
    if old is None:
        return new
    return min(old, new, key=lambda d: (-d.rank, d.at or "", d.ref, d.reason, d.weight))


class Folded(NamedTuple):
    """Decisions no longer kept one by one (past MAX_DECISIONS, or migrated from version 1)."""

    confirmed: int = 0
    soft: int = 0
    direct: int = 0
    last_confirmed: str | None = None


class History(NamedTuple):
    """Everything local state holds about one lesson's outcomes (the source of its Record)."""

    decisions: Mapping[str, Decision] = {}
    revived_at: str | None = None
    base: float | None = None
    folded: Folded = Folded()
    legacy: Mapping[str, Any] | None = None

    @property
    def empty(self) -> bool:
        return not self.decisions and self.revived_at is None and not any(self.folded[:3]) and not self.legacy

    def decide(self, session: str, decision: Decision) -> History:
        decisions = dict(self.decisions)
        decisions[session] = join(decisions.get(session), decision)
        return self._replace(decisions=decisions)

    def counted(self) -> dict[str, Decision]:
        """The decisions that count: all of them, or those after the last revival."""
        if self.revived_at is None:
            return dict(self.decisions)
        since = _ts(self.revived_at)
        return {s: d for s, d in self.decisions.items() if since is not None and (_ts(d.at) or -1) >= since}

    def summary(self) -> Record:
        counted = self.counted().values()
        folded = self.folded if self.revived_at is None else Folded()
        positive = [d.at for d in counted if d.positive and d.at]
        if folded.last_confirmed:
            positive.append(folded.last_confirmed)
        return Record(
            confirmed=sum(d.positive for d in counted) + folded.confirmed,
            soft=sum(d.verdict == CONTRADICTED and d.weight != DIRECT for d in counted) + folded.soft,
            direct=sum(d.verdict == CONTRADICTED and d.weight == DIRECT for d in counted) + folded.direct,
            last_confirmed=max(positive, key=lambda at: _ts(at) or 0.0) if positive else None,
            base=self.base,
        )

    def bounded(self) -> History:
        """At most MAX_DECISIONS kept one by one; older ones folded into counts."""
        if len(self.decisions) <= MAX_DECISIONS:
            return self
        order = sorted(self.decisions, key=lambda s: (_ts(self.decisions[s].at) or 0.0, s))
        drop = order[: len(order) - MAX_DECISIONS]
        kept = {s: d for s, d in self.decisions.items() if s not in drop}
        old = [self.decisions[s] for s in drop if self._counts(self.decisions[s])]
        last = [at for at in (*(d.at for d in old if d.positive), self.folded.last_confirmed) if at]
        folded = Folded(
            self.folded.confirmed + sum(d.positive for d in old),
            self.folded.soft + sum(d.verdict == CONTRADICTED and d.weight != DIRECT for d in old),
            self.folded.direct + sum(d.verdict == CONTRADICTED and d.weight == DIRECT for d in old),
            max(last, key=lambda at: _ts(at) or 0.0) if last else None,
        )
        return self._replace(decisions=kept, folded=folded)

    def _counts(self, decision: Decision) -> bool:
        since = _ts(self.revived_at) if self.revived_at else None
        return since is None or (_ts(decision.at) or -1) >= since

    def rows(self) -> list[dict[str, Any]]:
        """The decisions, oldest first, each with its session and whether it counts (for `show`)."""
        counted = self.counted()
        order = sorted(self.decisions.items(), key=lambda item: (_ts(item[1].at) or 0.0, item[0]))
        return [{"session": s, **d.to_json(), "counted": s in counted} for s, d in order]

    def revive(self, now: dt.datetime, base: float) -> History:
        """Count only what happens from now on, starting from at least `base`."""
        return self._replace(revived_at=iso(now), base=base, folded=Folded())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"decisions": {s: d.to_json() for s, d in sorted(self.decisions.items())}}
        if self.revived_at:
            out["revived"] = {"at": self.revived_at, "base": self.base}
        if any(self.folded[:3]):
            out["folded"] = {
                "confirmed": self.folded.confirmed,
                "soft": self.folded.soft,
                "direct": self.folded.direct,
                "last-confirmed": self.folded.last_confirmed,
            }
        if self.legacy:
            out["legacy"] = dict(self.legacy)
        return out


def iso(when: dt.datetime) -> str:
    """The one way times are written here: UTC, ISO 8601."""
    return (when if when.tzinfo else when.replace(tzinfo=dt.UTC)).astimezone(dt.UTC).isoformat()


def _ts(value: object) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=dt.UTC)).timestamp()


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def decision_of(entry: object) -> Decision | None:
    if not isinstance(entry, dict) or entry.get("verdict") not in VERDICTS:
        return None
    weight = entry.get("weight") if entry.get("verdict") == CONTRADICTED else ""
    return Decision(
        str(entry["verdict"]),
        weight if weight in WEIGHTS else (SOFT if entry.get("verdict") == CONTRADICTED else ""),
        text_of(entry.get("at")),
        str(entry.get("ref") or ""),
        str(entry.get("reason") or ""),
    )


def history_of(entry: object) -> History:
    """The History an entry of the decisions document stands for; malformed parts count as nothing."""
    if not isinstance(entry, dict):
        return History()
    raw = entry.get("decisions")
    decisions = {
        str(s): d
        for s, e in (raw.items() if isinstance(raw, dict) else ())
        if (d := decision_of(e)) is not None
    }
    revived = _mapping(entry.get("revived"))
    folded = _mapping(entry.get("folded"))
    legacy = entry.get("legacy")
    return History(
        decisions,
        text_of(revived.get("at")),
        unit_of(revived.get("base")),
        Folded(
            count_of(folded.get("confirmed")),
            count_of(folded.get("soft")),
            count_of(folded.get("direct")),
            text_of(folded.get("last-confirmed")),
        ),
        dict(legacy) if isinstance(legacy, dict) else None,
    )


def _migrated(entry: object) -> History:
    """A version 1 entry: successes become confirmations; failures are kept, not counted."""
    if not isinstance(entry, dict):
        return History()
    success, failure = count_of(entry.get("success")), count_of(entry.get("failure"))
    last = version_1(entry).last_confirmed
    legacy: dict[str, Any] = {"success": success, "failure": failure}
    off = entry.get("deactivated")
    if isinstance(off, dict):
        legacy["deactivated"] = {"at": str(off.get("at") or "?"), "reason": str(off.get("reason") or "")}
    return History(folded=Folded(success, 0, 0, last), legacy=legacy)


def histories(state_dir: Path) -> dict[str, History]:
    """Every lesson's History, by `<scope>:<name>` key (a version 1 document migrated)."""
    data = load_state(state_dir / DECISIONS_FILE, kind=DECISIONS_KIND, version=DECISIONS_VERSION)
    if data:
        return {str(key): history_of(entry) for key, entry in data.items()}
    old = load_state(state_dir / OUTCOMES_FILE, kind=OUTCOMES_KIND, version=1)
    return {str(key): _migrated(entry) for key, entry in old.items()}


def load(state_dir: Path) -> dict[str, Record]:
    """Every lesson's Record (for `list`, `show`, `stats` and the AIP-11 export)."""
    return {key: history.summary() for key, history in histories(state_dir).items()}


def update(
    state_dir: Path, lock_path: Path, change: Callable[[Mapping[str, History]], dict[str, History]]
) -> dict[str, History]:
    """One locked read-modify-write: `change` gets every History and returns the ones to replace.

    Writes the decisions and the counts derived from them (nothing when `change` replaces
    nothing); an empty History removes the lesson's entry. Returns what `change` returned, bounded
    as stored."""
    with locked(lock_path):
        current = histories(state_dir)
        changed = {key: history.bounded() for key, history in change(current).items()}
        if changed:
            current.update(changed)
            for key in [key for key, history in changed.items() if history.empty]:
                del current[key]  # nothing left to say about it (a candidate's, moved on promotion)
            decisions = {key: history.to_json() for key, history in sorted(current.items())}
            save_state(state_dir / DECISIONS_FILE, decisions, kind=DECISIONS_KIND, version=DECISIONS_VERSION)
            summary = {key: history.summary().to_json() for key, history in sorted(current.items())}
            save_state(state_dir / OUTCOMES_FILE, summary, kind=OUTCOMES_KIND, version=OUTCOMES_VERSION)
    return changed
