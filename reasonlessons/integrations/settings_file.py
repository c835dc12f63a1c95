"""JSON settings files of other programs (Claude Code, Reasonix), merged into without losing a byte.

A missing file reads as nothing; a file that is not a JSON object is reported, so the caller can move
it aside to a timestamped backup (never overwrite it); a write keeps a symlinked file's link and the
file's mode, and lays JSON out with two-space indents, as both agents write their own.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

from reasonlessons.errors import StoreWriteError
from reasonlessons.support import jsonio
from reasonlessons.support.atomic import write_atomic


def load(path: Path) -> tuple[dict[str, Any] | None, bytes | None]:
    """(object, raw bytes): (None, None) when missing; (None, raw) when not a JSON object."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        raise StoreWriteError(f"cannot read {path}: {exc.strerror or exc}; check permissions") from exc
    if not raw.strip():
        return {}, raw
    try:
        doc = jsonio.loads(raw)
    except jsonio.JSONDecodeError:
        return None, raw
    return (doc, raw) if isinstance(doc, dict) else (None, raw)


def backup(path: Path, now: dt.datetime) -> Path:
    """Move `path` aside to `<name>.bak-<UTC stamp>` (numbered on a clash); the new name."""
    stamp = now.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.bak-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.bak-{stamp}-{n}")
    try:
        os.replace(path, target)
    except OSError as exc:
        raise StoreWriteError(f"cannot move {path} aside to {target}: {exc.strerror or exc}") from exc
    return target


def write(path: Path, doc: dict[str, Any]) -> None:
    target = Path(os.path.realpath(path))  # a symlinked settings file keeps its link
    try:
        mode = target.stat().st_mode & 0o777
    except OSError:
        mode = 0o644
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, jsonio.dumps(doc, indent=True), mode=mode)
