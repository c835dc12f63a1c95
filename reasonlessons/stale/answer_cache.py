"""The last `stale` answer, replayed while nothing it depended on has changed.

`stale` is a function of the paths it stat'ed (scope directories and lesson files, fingerprinted
files, every directory of a fingerprinted tree, ignore files, HEAD when a drift names a commit; see
fingerprint/deps.py) and of the clock, through `expires-at`. This module keeps the printed answer
with the stat stamp of each such path. The next run stats them again (a few thousand stats cost a few
milliseconds) and, when every stamp is equal and no `expires-at` has passed, prints the stored answer
without loading lessons or the checker. A run that saw a path change within the racy window stores
nothing, so a change in the same clock tick as the check can never be missed.

This module is imported on every `stale`: it imports nothing beyond the standard library's core and
reasonlessons.support.stamp; the atomic writer (support.atomic) is loaded when an answer is stored.
"""

from __future__ import annotations

import marshal
import os
import sys
import time
from operator import attrgetter
from stat import S_ISDIR

from reasonlessons import __version__, support
from reasonlessons.errors import StoreWriteError
from reasonlessons.support import stamp as stamps

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from typing import Any

    from reasonlessons.fingerprint.deps import Deps

    Table = tuple[str, bytes, list[str]]

RESULT_FILE = "stale-result.marshal"
# Bump when the printed output, the dependency rules or the stamps change.
FORMAT = 4
# A stat result's stamp (support/stamp.py's `of`), as one C call.
_STAMP = attrgetter(*(f"st_{name}" for name in stamps.FIELDS))


def _tag() -> tuple[Any, ...]:
    return ("stale-result", FORMAT, __version__, sys.implementation.cache_tag)


def lookup(state_dir: str, *, root: str, global_dir: str) -> dict[str, Any] | None:
    """The stored answer for this root and global scope if it still holds, else None."""
    try:
        with open(os.path.join(state_dir, RESULT_FILE), "rb") as handle:
            doc = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if (
        not isinstance(doc, dict)
        or doc.get("tag") != _tag()
        or doc.get("root") != root
        or doc.get("global") != global_dir
    ):
        return None
    until = doc.get("until")
    if until is not None and time.time_ns() >= until:
        return None
    for check, (paths, packed, absent) in ((os.stat, doc["stat"]), (os.lstat, doc["lstat"])):
        if not _same(check, paths, packed) or not _absent(check, absent):
            return None
    return doc


def _same(check: Any, paths: str, packed: bytes) -> bool:
    """Whether every path (joined by NUL) still has its stamp: the stats, the stamps and their
    comparison run in C, a loop over ~5,000 paths with no Python step per path."""
    if not paths:
        return packed == _packed([])
    try:
        return _packed(list(map(_STAMP, map(check, paths.split("\0"))))) == packed
    except OSError:
        return False


def _packed(values: list[Any]) -> bytes:
    # Marshal's version 2 writes equal values as equal bytes (later versions share repeated
    # objects, which depends on identity). Loaded as one string, the stamps cost a replay nothing;
    # as 5,000 tuples of 6 integers they cost more than the stats.
    return marshal.dumps(values, 2)


def _absent(check: Any, paths: list[str]) -> bool:
    """Whether each of these paths still cannot be stat'ed."""
    for path in paths:
        try:
            check(path)
        except OSError:
            continue
        return False
    return True


def store(
    state_dir: str,
    *,
    root: str,
    global_dir: str,
    deps: Deps,
    started_ns: int,
    until_ns: int | None,
    outputs: dict[str, Any],
) -> bool:
    """Keep `outputs` for replay; False (nothing stored) when a dependency changed too recently."""
    from pathlib import Path  # only when storing: a replayed answer never needs pathlib

    if deps.newest() >= started_ns - stamps.RACY_NS or not os.path.isdir(state_dir):
        return False
    doc = {
        "tag": _tag(),
        "root": root,
        "global": global_dir,
        "until": until_ns,
        "stat": _table(deps.stat, deps.lstat),
        "lstat": _table(deps.lstat, deps.lstat),
        **outputs,
    }
    try:
        support.atomic.write_atomic(Path(state_dir, RESULT_FILE), marshal.dumps(doc), durable=False)
    except StoreWriteError:
        return False
    return True


def _table(seen: dict[str, stamps.Stamp | None], dirs: dict[str, stamps.Stamp | None]) -> Table:
    """(paths with a stamp joined by NUL, their stamps packed, paths without one) of a Deps table.

    A path without a stamp is left out when no entry of that name is in its directory and the
    directory's own stamp is kept (`dirs`, lstat'ed): while that stamp holds, the directory's entries
    are the ones it had when checked, and a name it did not hold cannot be stat'ed. (A change to the
    directory after the check moves its mtime past the stamp: a directory changed within the racy
    window of the check stops the answer from being stored at all.) Most such paths are `.gitignore`
    files looked for in fingerprinted directories, ~600 failed stats of a replay."""
    present = [(path, stamp) for path, stamp in seen.items() if stamp is not None]
    packed = _packed([stamp for _, stamp in present])
    absent = [path for path, stamp in seen.items() if stamp is None and not _implied(path, dirs)]
    return "\0".join(path for path, _ in present), packed, absent


def _implied(path: str, dirs: dict[str, stamps.Stamp | None]) -> bool:
    """Whether `path` cannot be stat'ed while its directory keeps the stamp in `dirs`."""
    parent = dirs.get(os.path.dirname(path))
    if parent is None or not S_ISDIR(parent[stamps.MODE]):
        return False
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True  # no entry of that name (not a link to nowhere, not a permission problem)
    except OSError:
        return False
    return False
