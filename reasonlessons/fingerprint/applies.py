"""Where a global lesson applies: the kind of repository its fingerprint describes.

A project lesson's entries are facts of one repository, recorded as values that drift. A global
lesson travels between repositories, so comparing its recorded values with whichever repository it
is checked in would call it stale everywhere but at home. Its entries are conditions instead:
`applies-when` records, per entry, whether the fact must be `present` (the file or field exists, the
directory exists, the glob matches) or `absent`. Where every condition holds the lesson applies;
elsewhere it *does not apply* (docs/fingerprints.md#global-lessons): never stale, never recalled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reasonlessons.fingerprint.facts import ABSENT, UNREADABLE, Fact
from reasonlessons.lessons.model import APPLIES_CONDITIONS, APPLIES_KEY
from reasonlessons.support.values import Value

KEY = APPLIES_KEY
CONDITIONS = APPLIES_CONDITIONS
PRESENT, NOT_THERE = CONDITIONS


class NotApplying(Value):
    """One condition of a global lesson that this repository does not meet."""

    FIELDS = ("input", "needs", "now", "detail")
    __slots__ = FIELDS

    def __init__(
        self,
        input: str,  # noqa: A002 (the JSON key it is written under)
        needs: str,  # present | absent
        now: str,  # present | absent | unreadable
        detail: str | None = None,
    ) -> None:
        self.input = input
        self.needs = needs
        self.now = now
        self.detail = detail

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"input": self.input, "needs": self.needs, "now": self.now}
        if self.detail:
            out["detail"] = self.detail
        return out

    def describe(self) -> str:
        if self.now == UNREADABLE:
            return f"{self.input} cannot be read here ({self.detail or 'unreadable'})"
        return f"{self.input} is {self.now} here (the lesson applies where it is {self.needs})"


def condition(fact: Fact) -> str:
    """The condition a fact meets: present, or absent (an unreadable target exists: present)."""
    return NOT_THERE if fact.key == ABSENT else PRESENT


def conditions_of(meta: Mapping[str, Any], entries: list[str]) -> dict[str, str]:
    """Each entry's condition: from `applies-when`, else from an older `fingerprint-recorded`
    (absent or no match: absent; any recorded value: present), else present."""
    declared = meta.get(KEY)
    declared = declared if isinstance(declared, dict) else {}
    recorded = meta.get("fingerprint-recorded")
    recorded = recorded if isinstance(recorded, dict) else {}
    out: dict[str, str] = {}
    for entry in entries:
        value = declared.get(entry)
        if value in CONDITIONS:
            out[entry] = str(value)
            continue
        rec = recorded.get(entry)
        gone = isinstance(rec, dict) and (rec.get("absent") is True or rec.get("matches") is False)
        out[entry] = NOT_THERE if gone else PRESENT
    return out


def check(entry: str, needs: str, fact: Fact) -> NotApplying | None:
    """Why the entry's condition fails here, or None when it holds."""
    if fact.key == UNREADABLE:
        return NotApplying(entry, needs, UNREADABLE, fact.problem)
    now = condition(fact)
    return None if now == needs else NotApplying(entry, needs, now)


def as_global(meta: Mapping[str, Any]) -> dict[str, Any]:
    """A lesson's frontmatter as the global scope keeps it: conditions instead of recorded values
    (derived from the record, so promoting reads nothing)."""
    entries = meta.get("fingerprint")
    listed = [str(e) for e in entries] if isinstance(entries, list) else []
    out = {key: value for key, value in meta.items() if key != "fingerprint-recorded"}
    out[KEY] = conditions_of(meta, listed)
    return out
