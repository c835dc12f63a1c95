"""The files an export to Reasonix owns: the manifest that names them, careful reads and archiving,
and the report of what the export did to each (memory facts, reasonix_export.py; skills,
reasonix_skills.py).
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonlessons.errors import StoreWriteError

# In each target directory: a dot file that is not `.md`, so Reasonix never reads it.
MANIFEST = ".reasonlessons-export.json"
KIND = "reasonix-export"
# Where Reasonix's `forget` moves a fact, and the folder its loaders skip (a dot directory).
ARCHIVE = ".archive"


@dataclass(frozen=True)
class Item:
    """One file the export wrote, left alone, withdrew or skipped."""

    name: str
    scope: str
    kind: str  # fact | skill
    path: str
    revision: int | None = None
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "scope": self.scope, "kind": self.kind, "path": self.path}
        if self.revision is not None:
            out["revision"] = self.revision
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass
class ExportReport:
    """What one export did, per file."""

    memory_dirs: dict[str, str] = field(default_factory=dict)
    # Project memory under other spellings of the repository's path (symlinks, letter case).
    workspace_dirs: list[str] = field(default_factory=list)
    # (scope, lesson) -> the description its fact carries (redacted), for the SessionStart brief.
    descriptions: dict[tuple[str, str], str] = field(default_factory=dict)
    written: list[Item] = field(default_factory=list)
    unchanged: list[Item] = field(default_factory=list)
    withdrawn: list[Item] = field(default_factory=list)
    skipped: list[Item] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_dirs": self.memory_dirs,
            "workspace_dirs": self.workspace_dirs,
            **{
                key: [item.to_json() for item in getattr(self, key)]
                for key in ("written", "unchanged", "withdrawn", "skipped")
            },
        }


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreWriteError(f"cannot read {path}: {exc.strerror or exc}; check permissions") from exc


def archive(path: Path, now: dt.datetime) -> Path | None:
    """Move `path` into `.archive/` beside it, named as Reasonix's `forget` names what it archives
    (`<UTC yyyymmdd-hhmmss.mmm>-<stem>.md`, then `-1`, `-2`, ... on a clash); None when it is gone."""
    utc = now.astimezone(dt.UTC)
    stem = f"{utc:%Y%m%d-%H%M%S}.{utc.microsecond // 1000:03d}-{path.stem}"
    folder = path.parent / ARCHIVE
    try:
        folder.mkdir(exist_ok=True)
        target, n = folder / f"{stem}.md", 0
        while target.exists():
            n += 1
            target = folder / f"{stem}-{n}.md"
        os.replace(path, target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreWriteError(f"cannot archive {path}: {exc.strerror or exc}; check permissions") from exc
    return target
