"""Recorded values versus current facts: what `fingerprint-recorded` holds, and what a drift says."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reasonlessons.fingerprint.entry import DIR, FIELD, GLOB, Entry
from reasonlessons.fingerprint.facts import ABSENT, MATCH, UNREADABLE, Fact, short
from reasonlessons.support.values import Value

CHANGED = "changed"
APPEARED = "appeared"
REMOVED = "removed"
UNREADABLE_REASON = "unreadable"
UNRECORDED = "unrecorded"

# Directory lists recorded in a lesson file stay short; the hash still covers all of them.
MAX_LISTED = 32


def to_record(entry: Entry, fact: Fact) -> dict[str, Any]:
    """The small, YAML-safe, deterministic mapping recorded for one entry."""
    if fact.key == UNREADABLE:
        return {"unreadable": fact.problem or "unreadable"}
    if entry.kind == GLOB:
        return {"matches": fact.key == MATCH}
    if fact.key == ABSENT:
        return {"absent": True}
    out: dict[str, Any] = {"hash": fact.key}
    if entry.kind == FIELD:
        out["value"] = fact.value
    elif entry.kind == DIR:
        out["dirs"] = list(fact.dirs[:MAX_LISTED])
        out["kinds"] = list(fact.kinds[:MAX_LISTED])
        if len(fact.dirs) > MAX_LISTED or len(fact.kinds) > MAX_LISTED:
            out["truncated"] = True
    return out


def from_record(entry: Entry, rec: object) -> Fact | None:
    """The recorded fact of an entry; None when nothing (usable) was recorded."""
    if not isinstance(rec, dict):
        return None
    if "unreadable" in rec:
        return Fact(UNREADABLE, problem=str(rec["unreadable"]))
    if entry.kind == GLOB and isinstance(rec.get("matches"), bool):
        return Fact(MATCH if rec["matches"] else ABSENT)
    if rec.get("absent") is True:
        return Fact(ABSENT)
    digest = rec.get("hash")
    if not isinstance(digest, str):
        return None
    value = rec.get("value")
    return Fact(
        digest,
        value=value if isinstance(value, str) else None,
        dirs=_names(rec.get("dirs")),
        kinds=_names(rec.get("kinds")),
        truncated=rec.get("truncated") is True,
    )


def _names(value: object) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


class Drift(Value):
    """One entry whose current value differs from the recorded one (a `drift` item of `stale --json`).

    Compared and shown by its fields, not by the facts, resolver and commit it carries along."""

    FIELDS = (
        "input", "reason", "kind", "was", "now", "detail",
        "added", "removed", "dirs_added", "dirs_removed", "match",
    )  # fmt: skip
    __hash__ = None  # type: ignore[assignment]  # mutable, as before: never a set member or key

    def __init__(
        self,
        input: str,  # noqa: A002 (the JSON key it is written under)
        reason: str,
        kind: str | None = None,
        was: str | None = None,
        now: str | None = None,
        detail: str | None = None,
        added: list[str] | None = None,
        removed: list[str] | None = None,
        dirs_added: list[str] | None = None,
        dirs_removed: list[str] | None = None,
        match: str | None = None,
        facts: tuple[Fact | None, Fact | None] = (None, None),
        # Finds the commit that introduced the drift; run once, when the drift is first shown.
        resolver: Callable[[Drift], dict[str, str] | None] | None = None,
        _commit: dict[str, str] | None = None,
    ) -> None:
        self.input = input
        self.reason = reason
        self.kind = kind
        self.was = was
        self.now = now
        self.detail = detail
        self.added = added
        self.removed = removed
        self.dirs_added = dirs_added
        self.dirs_removed = dirs_removed
        self.match = match
        self.facts = facts
        self.resolver = resolver
        self._commit = _commit

    @property
    def commit(self) -> dict[str, str] | None:
        """{"sha", "subject"} of the commit that introduced the drift, when it is committed."""
        if self.resolver is not None:
            resolver, self.resolver = self.resolver, None
            self._commit = resolver(self)
        return self._commit

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"input": self.input, "was": self.was, "now": self.now, "reason": self.reason}
        if self.kind is not None:
            out["kind"] = self.kind
        for key in ("detail", "added", "removed", "dirs_added", "dirs_removed", "match", "commit"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    def describe(self) -> str:
        """One line for a human: entry, was → now, what changed, and the commit when known."""
        if self.reason == UNRECORDED:
            text = f"{self.input}: never recorded; check the lesson, then `reasonlessons refresh NAME`"
        elif self.reason == UNREADABLE_REASON:
            text = f"{self.input}: unreadable: {self.detail or 'cannot read it'}"
        else:
            kinds = [f"+{k or '(no extension)'}" for k in self.added or []]
            kinds += [f"-{k or '(no extension)'}" for k in self.removed or []]
            dirs = [f"+{d}/" for d in self.dirs_added or []] + [f"-{d}/" for d in self.dirs_removed or []]
            changes = [
                f"{label} {' '.join(items)}" for label, items in (("kinds", kinds), ("dirs", dirs)) if items
            ]
            if self.reason == CHANGED and changes:
                text = f"{self.input}: {'; '.join(changes)}"
            else:
                text = f"{self.input}: {self.was} → {self.now}"
            if self.detail and self.reason == REMOVED:
                text += f" ({self.detail})"
        if self.commit:
            text += f" [{self.commit['sha']} {self.commit['subject']}]"
        return text


def compare(entry: Entry, was: Fact | None, now: Fact) -> Drift | None:
    """The drift of one entry, or None when the recorded value still holds."""
    if now.key == UNREADABLE:
        reason = UNREADABLE_REASON
    elif was is None:
        reason = UNRECORDED
    elif was.key == now.key:
        return None
    elif was.key == ABSENT:
        reason = APPEARED
    elif now.key == ABSENT:
        reason = REMOVED
    else:
        reason = CHANGED
    drift = Drift(
        entry.text,
        reason,
        kind=entry.kind,
        was=show(entry, was),
        now=show(entry, now),
        detail=now.problem,
        facts=(was, now),
    )
    if entry.kind == DIR and was is not None and reason in (CHANGED, APPEARED, REMOVED):
        drift.added, drift.removed = _diff(was.kinds, now.kinds, was.truncated)
        drift.dirs_added, drift.dirs_removed = _diff(was.dirs, now.dirs, was.truncated)
    if entry.kind == GLOB and now.key == MATCH:
        drift.match = now.value
    return drift


def _diff(was: tuple[str, ...], now: tuple[str, ...], truncated: bool) -> tuple[list[str], list[str]]:
    added = sorted(set(now) - set(was))
    if truncated:
        # Recorded lists are sorted and cut: names after the last one kept are unknown, not added.
        added = [name for name in added if was and name < was[-1]]
    return added, sorted(set(was) - set(now))


def show(entry: Entry, fact: Fact | None) -> str | None:
    """A short value for `was`/`now`."""
    if fact is None:
        return None
    if fact.key == UNREADABLE:
        return "unreadable"
    if entry.kind == GLOB:
        return "matches" if fact.key == MATCH else "no match"
    if fact.key == ABSENT:
        return "absent"
    if entry.kind == FIELD and fact.value is not None:
        return fact.value
    if entry.kind == DIR:
        kinds = ", ".join(k or "(no extension)" for k in fact.kinds) or "none"
        dirs = ", ".join(fact.dirs) or "none"
        return short(f"kinds: {kinds}; dirs: {dirs}")
    return fact.key
