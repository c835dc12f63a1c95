"""The files an export to Reasonix owns: the manifest that names them, careful reads and deletes,
and the report of what the export did to each (memory facts, reasonix_export.py; skills,
reasonix_skills.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonlessons.errors import StoreWriteError

# In each target directory: a dot file that is not `.md`, so Reasonix never reads it.
MANIFEST = ".reasonlessons-export.json"
KIND = "reasonix-export"


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
    written: list[Item] = field(default_factory=list)
    unchanged: list[Item] = field(default_factory=list)
    withdrawn: list[Item] = field(default_factory=list)
    skipped: list[Item] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_dirs": self.memory_dirs,
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


def unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise StoreWriteError(f"cannot delete {path}: {exc.strerror or exc}; check permissions") from exc
