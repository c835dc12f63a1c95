"""The lesson model (docs/lesson-format.md): what keys mean, and checks that need no file system."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from reasonlessons.constants import AGENT_RE, NAME_RE, TASK_TYPES
from reasonlessons.errors import InvalidNameError

REQUIRED_KEYS = ("name", "description", "fingerprint", "captured-at")
# Canonical key order on write; unknown keys follow in the order they were found.
KNOWN_KEYS = (
    *REQUIRED_KEYS,
    "fingerprint-recorded",
    "applies-when",
    "refreshed-at",
    "triggers",
    "task-types",
    "tags",
    "agents",
    "confidence",
    "expires-at",
    "supersedes",
    "status",
    "outcome",
    "source",
    "evidence",
    # Fields of another lesson format with no reasonlessons equivalent, kept for a lossless
    # round trip (reasonlessons/interop/): `interop: {aip11: {...}, agentsmesh: {...}}`.
    "interop",
)
TRIGGER_KINDS = ("files", "commands", "keywords")
# A global lesson's fingerprint entries are conditions on a repository (fingerprint/applies.py).
APPLIES_KEY = "applies-when"
APPLIES_CONDITIONS = ("present", "absent")
OUTCOMES = ("success", "failure", "mixed")
STATUSES = ("deprecated", "superseded")


def check_name(name: str) -> str:
    """Return `name` if it is a valid lesson name, else raise with the rule spelled out."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        shown = name if isinstance(name, str) and len(name) <= 70 else f"{str(name)[:60]}..."
        raise InvalidNameError(
            f"invalid lesson name {shown!r}: use 1-64 characters from a-z, 0-9, '.', '_', '-', "
            "starting with a letter or digit (no '/', no uppercase)"
        )
    return name


class Lesson:
    """One lesson: its frontmatter mapping (source of truth), its body, and where it was read from.

    A plain class, not a dataclass: recall builds one per lesson it checks on every turn, and
    importing dataclasses would cost that turn half a Python start. Equal only to itself."""

    def __init__(
        self,
        meta: dict[str, Any],
        body: str,
        path: Path | None = None,
        scope: str | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.meta = meta
        self.body = body
        self.path = path
        self.scope = scope
        self.warnings: list[str] = [] if warnings is None else warnings

    def __repr__(self) -> str:
        return (
            f"Lesson(meta={self.meta!r}, body={self.body!r}, path={self.path!r}, scope={self.scope!r}, "
            f"warnings={self.warnings!r})"
        )

    @property
    def name(self) -> str:
        return str(self.meta.get("name", ""))

    @property
    def description(self) -> str:
        return str(self.meta.get("description", ""))

    @property
    def fingerprint(self) -> list[str]:
        value = self.meta.get("fingerprint") or []
        return [str(v) for v in value] if isinstance(value, list) else []

    @property
    def recorded(self) -> dict[str, Any]:
        value = self.meta.get("fingerprint-recorded") or {}
        return value if isinstance(value, dict) else {}

    @property
    def captured_at(self) -> dt.datetime | None:
        return as_datetime(self.meta.get("captured-at"))

    @property
    def expires_at(self) -> dt.datetime | None:
        return as_datetime(self.meta.get("expires-at"))

    @property
    def supersedes(self) -> list[str]:
        value = self.meta.get("supersedes") or []
        return [str(v) for v in value] if isinstance(value, list) else []

    @property
    def triggers(self) -> dict[str, list[str]]:
        value = self.meta.get("triggers") or {}
        if not isinstance(value, dict):
            return {}
        return {
            kind: [str(v) for v in value.get(kind) or [] if isinstance(v, str)]
            for kind in TRIGGER_KINDS
            if isinstance(value.get(kind), list)
        }

    @property
    def task_types(self) -> list[str]:
        value = self.meta.get("task-types")
        return [str(v) for v in value] if isinstance(value, list) else ["code-gen"]

    @property
    def agents(self) -> list[str]:
        """The agents the lesson is for (`agents`); empty: every agent."""
        value = self.meta.get("agents")
        return [str(v) for v in value if isinstance(v, str)] if isinstance(value, list) else []

    @property
    def declared_status(self) -> str | None:
        value = self.meta.get("status")
        return value if value in STATUSES else None


def as_datetime(value: object) -> dt.datetime | None:
    """Read a YAML date, datetime or ISO string as an aware UTC datetime; None when unreadable."""
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    if isinstance(value, str):
        try:
            parsed = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)
    return None


def ordered_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """Known keys in canonical order, then unknown keys as found: the order every write uses."""
    out = {key: meta[key] for key in KNOWN_KEYS if key in meta}
    out.update((key, value) for key, value in meta.items() if key not in out)
    return out


def schema_problems(meta: dict[str, Any], *, stem: str | None) -> tuple[list[str], list[str]]:
    """Check a frontmatter mapping against docs/lesson-format.md; return (errors, warnings)."""
    errors: list[str] = []
    warnings: list[str] = []
    missing = [key for key in REQUIRED_KEYS if key not in meta]
    if missing:
        errors.append(f"missing required key(s) {', '.join(missing)}")
    name = meta.get("name")
    if "name" in meta:
        if not isinstance(name, str) or not NAME_RE.match(name):
            errors.append(f"name {name!r} is not a valid lesson name")
        elif stem is not None and name != stem:
            errors.append(f"name {name!r} differs from the file name {stem!r}.md")
    description = meta.get("description")
    if "description" in meta and (not isinstance(description, str) or not description.strip()):
        errors.append("description must be a non-empty string")
    elif isinstance(description, str) and "\n" in description.strip():
        errors.append("description must be one line")
    fingerprint = meta.get("fingerprint")
    if (
        "fingerprint" in meta
        and fingerprint is not None
        and (not isinstance(fingerprint, list) or not all(isinstance(e, str) for e in fingerprint))
    ):
        errors.append("fingerprint must be a list of strings")
    if "captured-at" in meta and as_datetime(meta["captured-at"]) is None:
        errors.append("captured-at must be a date such as 2026-05-05")
    if "expires-at" in meta and as_datetime(meta["expires-at"]) is None:
        errors.append("expires-at must be a date such as 2027-01-01")
    errors.extend(_optional_shape_problems(meta))
    unknown = [key for key in meta if key not in KNOWN_KEYS]
    if unknown:
        warnings.append(f"unknown key(s) kept as is: {', '.join(map(str, unknown))}")
    return errors, warnings


def _optional_shape_problems(meta: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    triggers = meta.get("triggers")
    if triggers is not None:
        if not isinstance(triggers, dict):
            errors.append("triggers must be a mapping of files/commands/keywords to lists")
        else:
            for kind, values in triggers.items():
                if kind not in TRIGGER_KINDS:
                    errors.append(f"triggers.{kind} is not one of {', '.join(TRIGGER_KINDS)}")
                elif not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                    errors.append(f"triggers.{kind} must be a list of strings")
    task_types = meta.get("task-types")
    if task_types is not None and (
        not isinstance(task_types, list) or not all(t in TASK_TYPES for t in task_types)
    ):
        errors.append(f"task-types must be a list drawn from {', '.join(TASK_TYPES)}")
    supersedes = meta.get("supersedes")
    if supersedes is not None and (
        not isinstance(supersedes, list)
        or not all(isinstance(s, str) and NAME_RE.match(s) for s in supersedes)
    ):
        errors.append("supersedes must be a list of lesson names")
    if meta.get("outcome") is not None and meta.get("outcome") not in OUTCOMES:
        errors.append(f"outcome must be one of {', '.join(OUTCOMES)}")
    if meta.get("status") is not None and meta.get("status") not in STATUSES:
        errors.append(f"status must be one of {', '.join(STATUSES)}")
    agents = meta.get("agents")
    if agents is not None and (
        not isinstance(agents, list) or not all(isinstance(a, str) and AGENT_RE.match(a) for a in agents)
    ):
        errors.append("agents must be a list of agent names such as claude-code, codex, reasonix")
    value = meta.get("confidence")
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1
    ):
        errors.append("confidence must be a number from 0 to 1")
    recorded = meta.get("fingerprint-recorded")
    if recorded is not None and not isinstance(recorded, dict):
        errors.append("fingerprint-recorded must be a mapping (written by reasonlessons)")
    applies = meta.get(APPLIES_KEY)
    if applies is not None:
        if not isinstance(applies, dict):
            errors.append(f"{APPLIES_KEY} must be a mapping of fingerprint entries to present or absent")
        else:
            errors.extend(
                f"{APPLIES_KEY}.{key} must be present or absent"
                for key, value in applies.items()
                if value not in APPLIES_CONDITIONS
            )
    return errors
