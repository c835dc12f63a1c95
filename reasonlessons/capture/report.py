"""What a capture run reports: candidates written and updated, what was skipped and why, progress."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Item:
    """One line of the report: a candidate written or updated, or something skipped and why."""

    name: str  # candidate name, or the session / file that was skipped
    session: str = ""
    path: str = ""
    scope: str = ""
    reason: str = ""


@dataclass
class CaptureReport:
    """What one capture run did."""

    files: int = 0
    unchanged: int = 0
    sessions: int = 0
    written: list[Item] = field(default_factory=list)
    updated: list[Item] = field(default_factory=list)
    skipped: list[Item] = field(default_factory=list)
    # Logs named on the command line that are missing or cannot be read: the run goes on with the
    # others, and the command then fails (exit 1) naming them.
    errors: list[Item] = field(default_factory=list)
    dropped: list[Item] = field(default_factory=list)
    damage: Counter[str] = field(default_factory=Counter)
    outcomes: list[Any] = field(default_factory=list)  # learning.loop.Learned with verdicts
    notes: list[str] = field(default_factory=list)  # e.g. the LLM extractor fell back, and why

    def to_json(self) -> dict[str, Any]:
        """The `--json` document (docs/commands.md#capture), plus what was updated, skipped and damaged."""
        return {
            "sessions": self.sessions,
            "skipped": len(self.skipped),
            "candidates": [{"name": i.name, "path": i.path, "session": i.session} for i in self.written],
            "updated": [
                {"name": i.name, "scope": i.scope, "path": i.path, "session": i.session} for i in self.updated
            ],
            "skipped_items": [{"what": i.name, "reason": i.reason} for i in self.skipped],
            "warnings": dict(sorted(self.damage.items())),
            "files": self.files,
            "unchanged_files": self.unchanged,
            "outcomes": [learned.to_json() for learned in self.outcomes],
            "notes": list(self.notes),
            "errors": [{"path": i.name, "reason": i.reason} for i in self.errors],
        }


@dataclass(frozen=True)
class Progress:
    """How far a capture run is: bytes of log read out of those it has to read."""

    bytes_done: int
    bytes_total: int
    files_done: int
    files_total: int
    path: Path | None = None


ProgressCallback = Callable[[Progress], None]
