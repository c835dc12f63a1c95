"""What a staleness check looked at: every path it stat'ed, with its stamp (reasonlessons.support.stamp).

A check is a pure function of these paths' stat data (file content is read only after its stat, and
a directory is listed only after its stat), so a later run whose stamps all come out equal would
compute the same answer; `reasonlessons.stale.answer_cache` uses that to skip the whole check. Paths
changed within the racy window of the check are not trusted (see `newest`).
"""

from __future__ import annotations

import os

from reasonlessons.support import stamp as stamps
from reasonlessons.support.stamp import Stamp


class Deps:
    """Paths seen through stat() (links followed) and lstat(), each with its stamp or None."""

    __slots__ = ("lstat", "stat")

    def __init__(self) -> None:
        self.stat: dict[str, Stamp | None] = {}
        self.lstat: dict[str, Stamp | None] = {}

    def saw(self, path: str, st: os.stat_result | None, *, follow: bool) -> None:
        (self.stat if follow else self.lstat).setdefault(path, stamps.of(st) if st is not None else None)

    def newest(self) -> int:
        """The latest change (mtime or ctime) among the paths seen (0 when none)."""
        seen = (*self.stat.values(), *self.lstat.values())
        return max((stamps.changed_ns(s) for s in seen if s is not None), default=0)
