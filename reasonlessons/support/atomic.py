"""Atomic file writes and the inter-process lock around store mutations (the one filelock user:
Windows only; on POSIX the lock is the same `flock`, taken without filelock's import cost)."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from reasonlessons.errors import StoreWriteError

# Long enough for a slow disk under 16 writers, short enough that a wedged lock is reported.
LOCK_TIMEOUT_SECONDS = 30.0
LOCK_POLL_SECONDS = 0.05  # between tries of a held lock, as filelock polls


def write_atomic(path: Path, data: bytes, *, mode: int = 0o644, durable: bool = True) -> None:
    """Write `data` to `path` so that readers see the old bytes or the new bytes, never a mix.

    `durable=False` skips the fsyncs: for disposable state (caches, counters) written on the
    per-turn path, where a crash may lose the update but never leaves a torn file.
    """
    directory = path.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = _create_temp(directory, path.name)
    except OSError as exc:
        raise StoreWriteError(
            f"cannot write in {directory}: {exc.strerror or exc}; "
            "check that the directory exists and is writable"
        ) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError):
            raise StoreWriteError(
                f"cannot write {path}: {exc.strerror or exc}; check permissions and free space"
            ) from exc
        raise
    if durable:
        _fsync_dir(directory)


def _create_temp(directory: Path, name: str) -> tuple[int, str]:
    """mkstemp's guarantees (exclusive create, mode 0600) without importing tempfile and shutil,
    which would cost the per-turn path (recall, stale) several milliseconds."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp_name = os.path.join(directory, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp_name, flags, 0o600), tmp_name
        except FileExistsError:  # pragma: no cover (a 48-bit random name collided)
            continue
    raise FileExistsError(f"no free temporary name in {directory}")  # pragma: no cover


def _fsync_dir(directory: Path) -> None:
    # The rename is only durable once the directory entry is flushed; best effort off POSIX.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover (platforms without directory fds)
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover (filesystems that refuse fsync on dirs)
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(lock_path: Path, *, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Hold an exclusive inter-process lock on `lock_path` for the duration of the block."""
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreWriteError(
            f"cannot create {lock_path.parent}: {exc.strerror or exc}; check permissions"
        ) from exc
    if sys.platform == "win32":  # pragma: no cover (POSIX CI)
        with _filelock(lock_path, timeout):
            yield
        return
    # On POSIX this takes the same `flock` on the same file that filelock's UnixFileLock would, so
    # the two interoperate; importing filelock costs about 38 ms (logging, inspect, dataclasses),
    # as much as the interpreter's start, and a failing tool call in the Claude Code hook takes
    # this lock on the per-turn path.
    fd = _open_lock(lock_path)
    try:
        _flock(fd, lock_path, timeout)
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the lock


def _open_lock(lock_path: Path) -> int:
    try:
        return os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise _cannot_lock(lock_path, exc) from exc


def _flock(fd: int, lock_path: Path, timeout: float) -> None:
    """Take the lock on `fd`, trying until `timeout` (the caller closes `fd` either way)."""
    import fcntl

    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise _held(lock_path, timeout) from None
            time.sleep(LOCK_POLL_SECONDS)
        except OSError as exc:
            raise _cannot_lock(lock_path, exc) from exc


def _cannot_lock(lock_path: Path, exc: OSError) -> StoreWriteError:
    return StoreWriteError(f"cannot lock {lock_path}: {exc.strerror or exc}; check permissions")


def _held(lock_path: Path, timeout: float) -> StoreWriteError:
    return StoreWriteError(
        f"another reasonlessons process holds {lock_path} for more than {timeout:.0f}s; "
        "wait for it to finish, or delete the lock file if no such process is running"
    )


@contextlib.contextmanager
def _filelock(lock_path: Path, timeout: float) -> Iterator[None]:  # pragma: no cover (Windows)
    import filelock

    lock = filelock.FileLock(str(lock_path), timeout=timeout)
    try:
        lock.acquire()
    except filelock.Timeout as exc:
        raise _held(lock_path, timeout) from exc
    except OSError as exc:
        raise _cannot_lock(lock_path, exc) from exc
    try:
        yield
    finally:
        lock.release()
