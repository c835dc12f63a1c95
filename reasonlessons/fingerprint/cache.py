"""The fingerprint cache in the local state dir: current facts keyed by stat data, like git's index.

One marshal document (the fastest format to load from the stdlib, and this cache is local,
git-ignored and disposable): loading is a single read, saving one atomic replace, and only when a run
learned something. A damaged, foreign or older document reads as empty. Concurrent writers each write
a complete, self-consistent document; the last one wins.
"""

from __future__ import annotations

import contextlib
import marshal
import sys
from pathlib import Path
from typing import Any

from reasonlessons.errors import StoreWriteError
from reasonlessons.support.atomic import write_atomic

CACHE_FILE = "fingerprint-cache.marshal"
KIND = "fingerprint-cache"
VERSION = 2  # 2: stamps are support.stamp's (dev, ino, mode, size, mtime_ns, ctime_ns)
_TAG = (KIND, VERSION, sys.implementation.cache_tag)
SECTIONS = ("files", "fields", "dirs", "globs", "commits")


def empty() -> dict[str, Any]:
    doc: dict[str, Any] = {section: {} for section in SECTIONS}
    doc["tag"] = _TAG
    doc["gen"] = 0
    return doc


def load(path: Path | None) -> dict[str, Any]:
    """The cache document at `path`, or an empty one."""
    if path is None:
        return empty()
    try:
        doc = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return empty()
    if (
        not isinstance(doc, dict)
        or doc.get("tag") != _TAG
        or not isinstance(doc.get("gen"), int)
        or not all(isinstance(doc.get(section), dict) for section in SECTIONS)
    ):
        return empty()
    return doc


def save(path: Path, doc: dict[str, Any]) -> None:
    """Write the document atomically; a cache that cannot be written is simply not kept."""
    with contextlib.suppress(StoreWriteError):
        write_atomic(path, marshal.dumps(doc), durable=False)


def copy(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of the document deep enough for `changes` and `merge` (entries are immutable)."""
    out = {section: dict(doc[section]) for section in SECTIONS}
    out.update(tag=doc["tag"], gen=doc["gen"])
    return out


def changes(doc: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """The entries of `doc` that are not in `base` as they are there."""
    out: dict[str, Any] = {"tag": doc["tag"], "gen": base["gen"]}
    for section in SECTIONS:
        old = base[section]
        out[section] = {k: v for k, v in doc[section].items() if k not in old or old[k] != v}
    return out


def merge(doc: dict[str, Any], found: dict[str, Any], base: dict[str, Any]) -> bool:
    """Add to `doc` the `changes` of another copy of `base` (a forked process of the same run),
    except where `doc` changed an entry itself; False when `found` is not such changes."""
    if found.get("tag") != doc["tag"] or found.get("gen") != base["gen"] or doc["gen"] != base["gen"]:
        return False
    for section in SECTIONS:
        mine, old = doc[section], base[section]
        for key, value in found[section].items():
            if mine.get(key, _MISSING) == old.get(key, _MISSING):
                mine[key] = value
    return True


_MISSING = object()
