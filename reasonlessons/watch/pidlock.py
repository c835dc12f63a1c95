"""One daemon per repository: exclusive locks held for the daemon's life, and a pid file saying who.

Two locks, both dropped by the kernel when their holder dies (a pid file left behind by a killed
daemon is simply taken over): `watch.lock` in the state directory, through
`reasonlessons.support.atomic.locked`, and a `flock` on the repository's own directory. The state
directory may be deleted under a running daemon (`rm -rf .reasonix/state`), and a lock on a deleted
file no longer keeps anyone out; the repository directory cannot be deleted while the daemon serves
it, so the second lock still refuses a second daemon.
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


def _running(root: Path, holder: dict[str, Any] | None) -> str:
    who = f"pid {holder['pid']}, since {holder.get('started', '?')}" if holder else "pid unknown"
    stop = f"stop it first (kill {holder['pid']})" if holder else "stop it first"
    return (
        f"reasonlessons watch is already running for {root} ({who}); {stop}, "
        "or leave it running: one daemon serves every terminal"
    )


@contextlib.contextmanager
def _directory_lock(root: Path) -> Iterator[bool]:
    """An exclusive, non-blocking flock on the repository directory: True when held."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover (no flock off POSIX: the state-directory lock alone)
        yield True
        return
    try:
        fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise StoreWriteError(f"cannot open {root} to lock it: {exc.strerror or exc}") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def read_holder(state_dir: Path) -> dict[str, Any] | None:
    """What the pid file says about the running daemon, or None."""
    try:
        doc = jsonio.loads((state_dir / PID_FILE).read_bytes())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("pid"), int) else None


@contextlib.contextmanager
def daemon_lock(state_dir: Path, *, root: Path, now: dt.datetime | None = None) -> Iterator[dict[str, Any]]:
    """Hold the repository's watch locks for the block; raise WatchRunningError when another holds one."""
    stack = contextlib.ExitStack()
    try:
        if not stack.enter_context(_directory_lock(root)):
            raise WatchRunningError(_running(root, read_holder(state_dir)))
        try:
            stack.enter_context(locked(state_dir / LOCK_FILE, timeout=0))
        except StoreWriteError:
            holder = read_holder(state_dir)
            if holder is None and not (state_dir / LOCK_FILE).exists():
                raise
            raise WatchRunningError(_running(root, holder)) from None
    except BaseException:
        stack.close()
        raise
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
