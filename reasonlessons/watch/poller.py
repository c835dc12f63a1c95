"""`--poll`: find changes by stat() on a timer, for file systems that deliver no native events.

watchdog's polling observer stats every file under a watched directory on every pass: on the
100,000-file benchmark repository that is half a CPU and 250 MB. The facts fingerprints depend on
need far less. Adding, removing or renaming an entry bumps its directory's mtime, so a pass lstat()s
each watched directory and lists only those whose stamp moved; file contents matter only for the
files the caller names (`content`: fingerprinted files, `.gitignore`, lesson files, session logs),
and only those are stat()ed. What a pass finds goes to `notify` as (path, is_dir) pairs, from the
poller's own thread, exactly like the native observer's.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from reasonlessons.support import stamp as stamps
from reasonlessons.support.stamp import RACY_NS, Stamp
from reasonlessons.watch.watchset import Watch

Notify = Callable[[list[tuple[str, bool]]], None]
# A stamp and whether it was racy when taken (support/stamp.py): after a racy look the next pass
# lists the directory again, or reports the file as possibly modified (a cheap re-check).
Seen = tuple[Stamp, bool]
_SEP = os.sep


_GONE: Seen = (stamps.NEVER, True)  # never the same as anything


def _seen(st: os.stat_result, now_ns: int, racy_ns: int) -> Seen:
    stamp = stamps.of(st)
    return (stamp, stamps.racy(stamp, now_ns, racy_ns))


def _same(old: Seen | None, new: Seen | None) -> bool:
    if old is None or new is None:
        return old is new
    return old[0] == new[0] and not old[1]


@dataclass
class _Dir:
    seen: Seen
    dirs: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    follow: dict[str, Seen | None] = field(default_factory=dict)  # files whose content matters


class StatPoller:
    """Polls the directories of `apply`'s watches every `interval` seconds on its own thread."""

    def __init__(
        self,
        notify: Notify,
        *,
        interval: float = 1.0,
        content: Callable[[str], bool],
        racy_ns: int = RACY_NS,
    ) -> None:
        self._notify = notify
        self._racy_ns = racy_ns
        self._interval = interval
        self._content = content
        self._lock = threading.Lock()
        self._watches: list[Watch] = []
        self._tree: dict[str, _Dir] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="reasonlessons-poller", daemon=True)

    @property
    def watches(self) -> list[Watch]:
        return list(self._watches)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def apply(self, watches: Iterable[Watch]) -> list[Watch]:
        """Poll these from now on; new ones get a silent baseline. Returns the missing ones."""
        wanted = sorted(set(watches))
        with self._lock:
            self._watches = [w for w in wanted if os.path.isdir(w.path)]
            keep = {p for w in self._watches for p in self._tree if _under(p, w)}
            self._tree = {p: d for p, d in self._tree.items() if p in keep}
            now = time.time_ns()
            for path, node in self._tree.items():  # the files to follow may have changed with the plan
                for name in node.files:
                    full = f"{path}{_SEP}{name}"
                    if not self._content(full):
                        node.follow.pop(name, None)
                    elif name not in node.follow:
                        node.follow[name] = self._file_stamp(full, now)
            for watch in self._watches:
                self._visit(watch.path, watch.recursive, None)
        return [w for w in wanted if w not in self._watches]

    def sweep(self) -> None:
        """One pass over every watch (the thread calls this; tests may too)."""
        changes: list[tuple[str, bool]] = []
        with self._lock:
            for watch in self._watches:
                self._visit(watch.path, watch.recursive, changes)
        if changes:
            self._notify(changes)

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.sweep()

    def _visit(self, path: str, recursive: bool, out: list[tuple[str, bool]] | None) -> None:
        try:
            st = os.lstat(path)
        except OSError:
            st = None
        old = self._tree.get(path)
        if st is None or not stat.S_ISDIR(st.st_mode):
            if old is not None:
                self._forget(path, out)
            return
        now_ns = time.time_ns()
        here = _seen(st, now_ns, self._racy_ns)
        if old is not None and _same(old.seen, here):
            node = old
            for name, seen in node.follow.items():
                current = self._file_stamp(f"{path}{_SEP}{name}", now_ns)
                if current != seen:
                    node.follow[name] = current
                if not _same(seen, current):
                    _report(out, f"{path}{_SEP}{name}", False)
        else:
            node = self._list(path, here, old, out, now_ns)
        if recursive:
            for name in node.dirs:
                child = f"{path}{_SEP}{name}"
                if child not in self._tree and old is not None:
                    self._visit(child, True, None)  # appeared: everything in it is new as well
                    self._report_all(child, out)
                else:
                    self._visit(child, True, out)

    def _list(
        self, path: str, here: Seen, old: _Dir | None, out: list[tuple[str, bool]] | None, now_ns: int
    ) -> _Dir:
        node = _Dir(here)
        try:
            with os.scandir(path) as it:
                for entry in it:
                    full = f"{path}{_SEP}{entry.name}"
                    if entry.is_dir(follow_symlinks=False):
                        node.dirs.add(entry.name)
                    else:
                        node.files.add(entry.name)
                        if self._content(full):
                            node.follow[entry.name] = self._file_stamp(full, now_ns)
        except OSError:
            pass
        self._tree[path] = node
        if old is not None:
            for name in old.dirs - node.dirs:
                self._forget(f"{path}{_SEP}{name}", out)
            for name in node.dirs - old.dirs:
                _report(out, f"{path}{_SEP}{name}", True)
            changed = node.files ^ old.files
            changed.update(n for n, seen in node.follow.items() if not _same(old.follow.get(n, _GONE), seen))
            for name in changed:
                _report(out, f"{path}{_SEP}{name}", False)
        return node

    def _file_stamp(self, path: str, now_ns: int) -> Seen | None:
        try:
            return _seen(os.stat(path), now_ns, self._racy_ns)
        except OSError:
            return None

    def _forget(self, path: str, out: list[tuple[str, bool]] | None) -> None:
        _report(out, path, True)
        for known in [p for p in self._tree if p == path or p.startswith(path + os.sep)]:
            del self._tree[known]

    def _report_all(self, path: str, out: list[tuple[str, bool]] | None) -> None:
        _report(out, path, True)
        for known, node in list(self._tree.items()):
            if known == path or known.startswith(path + os.sep):
                for name in node.files:
                    _report(out, f"{known}{_SEP}{name}", False)
                for name in node.dirs:
                    _report(out, f"{known}{_SEP}{name}", True)


def _under(path: str, watch: Watch) -> bool:
    if path == watch.path:
        return True
    return watch.recursive and path.startswith(watch.path + os.sep)


def _report(out: list[tuple[str, bool]] | None, path: str, is_dir: bool) -> None:
    if out is not None:
        out.append((path, is_dir))
