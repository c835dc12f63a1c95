"""A cached read of the lesson scopes for the per-turn path (`stale`, later `recall`).

Parsing 1,000 YAML frontmatters costs far more than the staleness check itself, so the keys the
checks need are kept in the local state dir, keyed by each lesson file's stamp (support/stamp.py),
and a file is parsed again only when that changes; an entry read while its stamp was racy is kept
with the stamp NEVER, so the next run parses it again. The lessons returned are read-only
views (dates as ISO strings, no body): write a lesson only after loading it with the store.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import marshal
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reasonlessons.errors import LessonFileError, StoreWriteError
from reasonlessons.fingerprint.deps import Deps
from reasonlessons.lessons.file import read_lesson_meta
from reasonlessons.lessons.locations import Locations
from reasonlessons.lessons.model import Lesson
from reasonlessons.store.scopes import BadEntry, LessonStore
from reasonlessons.support import stamp as stamps
from reasonlessons.support.atomic import write_atomic

# Not "lesson index": that is recall's (recall/index.py), a different cache of the same files.
META_FILE = "lesson-meta.marshal"
_TAG = ("lesson-meta", 2, sys.implementation.cache_tag)
# The keys staleness, status and recall decide on; the body and evidence stay in the file.
KEYS = (
    "name",
    "description",
    "fingerprint",
    "fingerprint-recorded",
    "applies-when",
    "captured-at",
    "refreshed-at",
    "expires-at",
    "status",
    "supersedes",
    "task-types",
    "triggers",
)


def files(loc: Locations, scopes: Iterable[str]) -> list[tuple[Path, str, str | None]]:
    """(path, scope, problem or None) of every entry of the scope directories, in store order."""
    store = LessonStore(loc)
    return [(file, scope, problem) for scope in scopes for file, problem in store._entries(scope)]


def stored(loc: Locations) -> dict[str, Any]:
    """The entries kept in the state dir (empty when there are none)."""
    return _load(loc.state_dir / META_FILE)


def parse(paths: Iterable[Path], old: dict[str, Any]) -> dict[str, Any]:
    """Entries of these lesson files as they are now, parsed unless `old` (`stored`) has
    them, for `scan`'s `known`: a forked helper reads part of a cold scope with this
    (reasonlessons/stale/prefetch.py)."""
    out: dict[str, Any] = {}
    for file in paths:
        try:
            st = os.lstat(file)
        except OSError:
            continue
        key, stamp = str(file), stamps.of(st)
        hit = old.get(key)
        out[key] = hit if hit is not None and hit[0] == stamp else _parsed(file, st)
    return out


def scan(
    loc: Locations,
    scopes: Iterable[str],
    deps: Deps | None = None,
    *,
    known: dict[str, Any] | None = None,
    listed: list[tuple[Path, str, str | None]] | None = None,
) -> tuple[list[Lesson], list[Any]]:
    """Lessons of the given scopes in store order, plus the store's BadEntry for unreadable files.

    `deps` learns every scope directory and lesson file looked at. `known` holds entries parsed
    earlier in this run (`parse`); like the stored entries, each is used only while its stamp holds.
    `listed` is `files(loc, scopes)` when the caller listed them already in this run (a stored
    answer is safe all the same: it is not kept when a scope directory changed after the run began)."""
    path = loc.state_dir / META_FILE
    old = _load(path)
    new: dict[str, Any] = {}
    now = time.time_ns()
    lessons: list[Lesson] = []
    bad: list[BadEntry] = []
    scopes = list(scopes)
    if deps is not None:
        for scope in scopes:
            directory = str(loc.scope_dir(scope))
            deps.saw(directory, _stat(directory), follow=True)
    for file, scope, problem in files(loc, scopes) if listed is None else listed:  # the store's rules
        if problem is not None:
            bad.append(BadEntry(file, scope, problem))
            continue
        key = str(file)
        try:
            st = os.lstat(file)
        except OSError:
            continue  # removed since the listing
        if deps is not None:
            deps.saw(key, st, follow=False)
        stamp = stamps.of(st)
        hit = old.get(key)
        if hit is None or hit[0] != stamp:
            hit = known.get(key) if known is not None else None
            if hit is None or hit[0] != stamp:
                hit = _parsed(file, st)
            if stamps.racy(stamp, now):
                hit = (stamps.NEVER, *hit[1:])
        new[key] = hit
        if hit[1] is None:
            bad.append(BadEntry(file, scope, hit[2]))
        else:
            lessons.append(Lesson(meta=dict(hit[1]), body="", path=file, scope=scope))
    if new != old and loc.state_dir.is_dir():
        try:
            data = marshal.dumps({"tag": _TAG, "lessons": new})
        except ValueError:  # a hand-written value marshal cannot hold: store it as text
            data = marshal.dumps(
                {"tag": _TAG, "lessons": {k: (v[0], _plain(v[1]), v[2]) for k, v in new.items()}}
            )
        with contextlib.suppress(StoreWriteError):  # a cache that cannot be written is not kept
            write_atomic(path, data, durable=False)
    return lessons, bad


def _parsed(file: Path, st: os.stat_result) -> tuple[Any, ...]:
    """The cache entry of a lesson file just lstat'ed (`st`): read with that stat, stamped with it."""
    stamp = stamps.of(st)
    try:
        return (stamp, _subset(read_lesson_meta(file, st)), None)
    except LessonFileError as exc:
        return (stamp, None, f"{exc.problem}; {exc.fix}")


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _load(path: Path) -> dict[str, Any]:
    try:
        doc = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(doc, dict) or doc.get("tag") != _TAG or not isinstance(doc.get("lessons"), dict):
        return {}
    lessons: dict[str, Any] = doc["lessons"]
    return lessons


def _subset(meta: dict[str, Any]) -> dict[str, Any]:
    # Only dates need converting in practice; anything odder is caught when the cache is written.
    return {
        key: meta[key].isoformat() if isinstance(meta[key], dt.date) else meta[key]
        for key in KEYS
        if key in meta
    }


def _plain(value: object) -> object:
    """Marshal-ready data: dates as ISO strings (Lesson reads those too), other oddities as text."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return str(value)
