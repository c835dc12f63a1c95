"""File stamps: what stat() says about a path, compared whole to tell whether the path changed.

Every cache keyed by file identity uses this one Stamp: the fingerprint cache, the lesson meta
cache, the `stale` answer, the recall index, `watch --poll` and capture checkpoints. It holds

    dev, ino    which file: a file replaced by a rename (how editors, git and our own atomic
                writes save) gets a new inode, even with the same size and mtime
    mode        what it is: its type (file, directory, link) and permissions (readability)
    size        cheap proof of most edits, and how a capture checkpoint tells a grown log
    mtime_ns    when the content last changed
    ctime_ns    when the inode last changed: it moves too when a tool writes content and then
                sets mtime back (`cp -p`, tar, rsync), or on chmod, which mtime alone misses

It is a plain tuple, not a class: marshal (the state caches' format) stores it as is, and building
and comparing one costs no more than the stat call it comes from (a warm `stale` compares ~5,000).

A stamp taken within RACY_NS of its file's last change is *racy*: a second change in the same tick
of a coarse file-system clock (FAT: 2 s) would leave it equal, as git found with "racily clean"
index entries. What a racy stamp means is each cache's choice (not stored, stored as NEVER, or
re-checked later); `racy()` is the one test. Imported on every per-turn path: standard library only.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from collections.abc import Mapping

Stamp = tuple[int, int, int, int, int, int]
DEV, INO, MODE, SIZE, MTIME, CTIME = range(6)
FIELDS = ("dev", "ino", "mode", "size", "mtime_ns", "ctime_ns")  # names in JSON documents

RACY_NS = 2_000_000_000

# Equal to no stamp stat() gives: a cache entry holding it is read again next time.
NEVER: Stamp = (-1, -1, -1, -1, -1, -1)


def of(st: os.stat_result) -> Stamp:
    return (st.st_dev, st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def observe(path: str, *, follow: bool = True) -> Stamp | None:
    """The stamp of `path` now (stat() when `follow`, else lstat()), or None when it cannot be stat'ed."""
    try:
        return of(os.stat(path, follow_symlinks=follow))
    except OSError:
        return None


def changed_ns(stamp: Stamp) -> int:
    """When the file last changed, content or inode."""
    return max(stamp[MTIME], stamp[CTIME])


def racy(stamp: Stamp, now_ns: int, window_ns: int = RACY_NS) -> bool:
    """Whether a change made now could leave the file's stamp equal to `stamp` (see the module doc)."""
    return max(stamp[MTIME], stamp[CTIME]) >= now_ns - window_ns


def same_file(a: Stamp, b: Stamp) -> bool:
    """Whether two stamps are of one file (in any state): same device and inode."""
    return a[DEV] == b[DEV] and a[INO] == b[INO]


def text(stamp: Stamp) -> str:
    """The stamp as one string (for a database column)."""
    return "%d:%d:%d:%d:%d:%d" % stamp  # noqa: UP031 (twice as fast as join or an f-string)


def to_json(stamp: Stamp) -> dict[str, int]:
    return dict(zip(FIELDS, stamp, strict=True))


def from_json(data: Mapping[str, object]) -> Stamp:
    """A stamp from `to_json`. A field missing (a document written before it was kept) reads as -1,
    so such a stamp equals no real one; a field that is not an integer raises ValueError."""
    values = [data.get(name, -1) for name in FIELDS]
    dev, ino, mode, size, mtime, ctime = (v if type(v) is int else _bad(v) for v in values)
    return (dev, ino, mode, size, mtime, ctime)


def _bad(value: object) -> int:
    raise ValueError(f"not a stamp field: {value!r}")
