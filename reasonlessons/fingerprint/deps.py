"""What a staleness check looked at: every path it stat'ed, with what stat said.

A check is a pure function of these paths' stat data (file content is read only after its stat, and
a directory is listed only after its stat), so a later run whose stats all come out equal would
compute the same answer; `reasonlessons.stale.answer_cache` uses that to skip the whole check. Paths changed
within RACY_NS of the check are not trusted (see `newest`), as git does with racily clean entries.
"""

from __future__ import annotations

import os

# Coarse file-system clocks (FAT: 2 s) can hide a change made in the same tick as a read.
RACY_NS = 2_000_000_000

Stamp = tuple[int, int, int, int, int]


def stamp(st: os.stat_result) -> Stamp:
    return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


def observe(path: str, *, follow: bool) -> Stamp | None:
    """The stamp of `path` now, or None when it cannot be stat'ed."""
    try:
        return stamp(os.stat(path) if follow else os.lstat(path))
    except OSError:
        return None


class Deps:
    """Paths seen through stat() (links followed) and lstat(), each with its stamp or None."""

    __slots__ = ("lstat", "stat")

    def __init__(self) -> None:
        self.stat: dict[str, Stamp | None] = {}
        self.lstat: dict[str, Stamp | None] = {}

    def saw(self, path: str, st: os.stat_result | None, *, follow: bool) -> None:
        (self.stat if follow else self.lstat).setdefault(path, stamp(st) if st is not None else None)

    def newest(self) -> int:
        """The latest mtime or ctime among the paths seen (0 when none)."""
        times = [max(s[2], s[4]) for s in (*self.stat.values(), *self.lstat.values()) if s is not None]
        return max(times, default=0)

    def racy(self, started_ns: int) -> bool:
        """Whether a path seen changed within RACY_NS of `started_ns`, too recently to trust."""
        return self.newest() >= started_ns - RACY_NS
