"""A cold `stale` on two processors: a forked child checks about half of the lessons, this process the rest.

A cold check (the first after a clone, or with the local caches gone) parses every lesson file and
lists every fingerprinted tree, all of it Python work that divides by lesson. When there is enough
of it, `scan_stale` forks once: the child reads the later lesson files (55%: OWN_SHARE says why) and
computes the facts of their entries (with the commits of drifts), while this process does the first. The
child sends back the lesson meta cache entries it parsed (each keyed by the stat data it was read with,
and used only while that holds), its facts with every path it looked at and the stamp it saw (so a
stored answer depends on them as on this process's own), and its additions to the fact cache. The
check then runs as always, its facts already known. Whether the child ran, finished or failed, the
facts are computed once each, during this run, from the work tree: the answer is the same.

Forking is only done on Linux, by a process running a single thread (a fork of a process holding
other threads may deadlock), when another processor is idle (per the kernel's count of running
tasks: two processes sharing one processor are slower than one doing all the work), and only when
the fact cache or the lesson meta cache is missing, as after a clone (with both, a check is cheap).
"""

from __future__ import annotations

import datetime as dt
import gc
import marshal
import os
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonlessons import support
from reasonlessons.constants import STATUS_ACTIVE
from reasonlessons.lessons.model import Lesson
from reasonlessons.stale import meta_cache
from reasonlessons.store.status import status_of

if TYPE_CHECKING:
    from reasonlessons.fingerprint import Checker
    from reasonlessons.lessons.locations import Locations

# Below this many lesson files a fork costs more than it saves.
MIN_LESSONS = 200
# The share of the lessons this process checks. Less than half: after the fork both processes share
# every page copy-on-write, and this one, running on at once, writes to most of them first (a
# reference count is a write), so it pays for copying them. Measured on bench_stale.py's
# repository (CPU time, fork forced): at half, this process reached the join ~100 ms after the
# child's end; at 45% the two ended within ~30 ms of each other, and the check's critical path
# (the later of the two, then the rest of the check) was ~15% shorter.
OWN_SHARE = 0.45


def split_check(
    loc: Locations,
    scopes: Iterable[str],
    checker: Checker,
    *,
    now: dt.datetime,
    progress: Callable[[int, int], None] | None = None,
    listed: list[tuple[Path, str, str | None]] | None = None,
) -> tuple[dict[str, Any], set[str]]:
    """Check some of the lessons here and, when worth it, the rest in a forked child whose findings go
    into `checker`. Returns the lesson meta cache entries parsed by either, for
    `meta_cache.scan(known=...)`, and the keys of those whose fingerprint did not drift (`fresh`).
    `listed` is `meta_cache.files(loc, scopes)` when the caller has it."""
    if not _worth_forking(loc, checker):
        return {}, set()
    if listed is None:
        listed = meta_cache.files(loc, scopes)
    paths = [path for path, _, problem in listed if problem is None]
    if len(paths) < MIN_LESSONS:
        return {}, set()
    own = int(len(paths) * OWN_SHARE)
    base = checker.snapshot()
    old = meta_cache.stored(loc)
    _preload()

    def child_work() -> dict[str, Any]:
        index, fresh = _check(checker, paths[own:], old, now)
        checker.close()
        return {"index": index, "fresh": sorted(fresh), "checker": checker.learned(base)}

    child = _fork(child_work)
    try:
        # The child checks the rest at about the same pace: this share's progress counts for both.
        total, scale = len(paths), len(paths) / max(own, 1)
        tick = None if progress is None else lambda done: progress(min(int(scale * done), total), total)
        known, fresh = _check(checker, paths[:own], old, now, tick)
    finally:
        found = _join(child) if child is not None else None
    if isinstance(found, dict) and isinstance(found.get("index"), dict):
        known.update(found["index"])
        fresh.update(found["fresh"])
        checker.absorb(found["checker"], base)
    return known, fresh


def _preload() -> None:
    """Import what both processes will need once, before forking, rather than once in each (the
    field parsers, fingerprint/fields.py, came with the checker; TOML's is loaded only when used,
    and the YAML reader of lessons and config files, ~10 ms with its patterns, on first use)."""
    import tomllib  # noqa: F401

    _ = support.yamlread


def _worth_forking(loc: Locations, checker: Checker) -> bool:
    cold = checker.gen == 1 or not (loc.state_dir / meta_cache.META_FILE).is_file()
    return (
        cold
        and sys.platform == "linux"
        and threading.active_count() == 1
        and checker.idle()
        and _idle_processors() >= 1
    )


def _idle_processors() -> float:
    """Roughly how many of the processors this process may run on are idle now: two processes
    sharing one processor take longer than one doing all the work."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return 0
    try:  # tasks running now, this one included ("0.52 0.61 0.70 2/153 4242")
        with open("/proc/loadavg", encoding="ascii") as handle:
            busy = float(handle.read().split()[3].split("/")[0]) - 1
    except (OSError, ValueError, IndexError):
        return 0
    return usable - busy


def _check(
    checker: Checker,
    paths: list[Path],
    old: dict[str, Any],
    now: dt.datetime,
    tick: Callable[[int], None] | None = None,
) -> tuple[dict[str, Any], set[str]]:
    """Read these lesson files and compute what checking them needs; their meta cache entries, and
    the keys of those whose fingerprint did not drift."""
    index = meta_cache.parse(paths, old)
    fresh: set[str] = set()
    for done, (key, (_, meta, _)) in enumerate(index.items(), 1):
        if tick is not None:
            tick(done)
        if meta is None:
            continue
        lesson = Lesson(meta=dict(meta), body="", path=Path(key))
        # Superseded names are known only once every lesson is read: checking a few lessons the
        # real pass skips costs a little time, never a different answer.
        if status_of(lesson, now=now, superseded=set(), drift=None) == STATUS_ACTIVE:
            drifts = checker.drift(lesson)
            for drift in drifts:
                _ = drift.commit
            if not drifts:
                fresh.add(key)
    return index, fresh


def _fork(work: Callable[[], Any]) -> tuple[int, int, bool] | None:
    """(pid, read end of a pipe, whether objects were frozen) of a child sending back `work()`
    marshalled, or None."""
    try:
        read, write = os.pipe()
    except OSError:
        return None
    # Objects that exist now stay out of the collector's reach in both processes: a collection
    # would write to every one of them, copying the parent's memory into the child page by page.
    # (Not when the program froze objects itself: unfreezing would undo that.)
    froze = gc.get_freeze_count() == 0
    if froze:
        gc.freeze()
    try:
        pid = os.fork()
    except OSError:
        if froze:
            gc.unfreeze()
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: never returns, never runs the parent's cleanup or writes its files
        code = 1
        try:
            os.close(read)
            data = marshal.dumps(work())
            with os.fdopen(write, "wb") as pipe:
                pipe.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read, froze


def _join(child: tuple[int, int, bool]) -> object:
    """What the child sent, or None when it failed."""
    pid, read, froze = child
    try:
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
    finally:
        _, status = os.waitpid(pid, 0)
        if froze:
            gc.unfreeze()
    if status != 0:
        return None
    try:
        return marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
