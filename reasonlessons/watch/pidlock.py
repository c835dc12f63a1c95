"""One daemon per repository: an exclusive lock held for the daemon's life, and a pid file saying who.

The lock is an OS file lock (through `reasonlessons.support.atomic.locked`), so the kernel drops it when its
holder dies: a pid file left behind by a killed daemon is simply taken over.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reasonlessons.errors import ReasonLessonsError, StoreWriteError
from reasonlessons.support import jsonio
from reasonlessons.support.atomic import locked, write_atomic

LOCK_FILE = "watch.lock"
PID_FILE = "watch.pid"


class WatchRunningError(ReasonLessonsError):
    """Another `reasonlessons watch` already serves this repository."""


def read_holder(state_dir: Path) -> dict[str, Any] | None:
    """What the pid file says about the running daemon, or None."""
    try:
        doc = jsonio.loads((state_dir / PID_FILE).read_bytes())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("pid"), int) else None


@contextlib.contextmanager
def daemon_lock(state_dir: Path, *, root: Path, now: dt.datetime | None = None) -> Iterator[dict[str, Any]]:
    """Hold the repository's watch lock for the block; raise WatchRunningError when another holds it."""
    stack = contextlib.ExitStack()
    try:
        stack.enter_context(locked(state_dir / LOCK_FILE, timeout=0))
    except StoreWriteError:
        holder = read_holder(state_dir)
        if holder is None and not (state_dir / LOCK_FILE).exists():
            raise
        who = f"pid {holder['pid']}, since {holder.get('started', '?')}" if holder else "pid unknown"
        stop = f"stop it first (kill {holder['pid']})" if holder else "stop it first"
        raise WatchRunningError(
            f"reasonlessons watch is already running for {root} ({who}); {stop}, "
            "or leave it running: one daemon serves every terminal"
        ) from None
    with stack:
        me = {
            "pid": os.getpid(),
            "started": (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"),
            "root": str(root),
        }
        write_atomic(state_dir / PID_FILE, jsonio.dumps(me, indent=True), durable=False)  # gone at reboot
        try:
            yield me
        finally:
            holder = read_holder(state_dir)
            if holder is not None and holder.get("pid") == me["pid"]:
                with contextlib.suppress(OSError):
                    (state_dir / PID_FILE).unlink()
