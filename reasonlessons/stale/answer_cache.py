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
from typing import TYPE_CHECKING, Any

from reasonlessons import __version__, support
from reasonlessons.errors import StoreWriteError
from reasonlessons.support import stamp as stamps

if TYPE_CHECKING:
    from reasonlessons.fingerprint.deps import Deps

RESULT_FILE = "stale-result.marshal"
# Bump when the printed output, the dependency rules or the stamps change.
FORMAT = 3


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
    of = stamps.of
    for check, table in ((os.stat, doc["stat"]), (os.lstat, doc["lstat"])):
        for path, stamp in table.items():
            try:
                st = check(path)
            except OSError:
                if stamp is not None:
                    return None
                continue
            if stamp != of(st):
                return None
    return doc


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
        "stat": deps.stat,
        "lstat": deps.lstat,
        **outputs,
    }
    try:
        support.atomic.write_atomic(Path(state_dir, RESULT_FILE), marshal.dumps(doc), durable=False)
    except StoreWriteError:
        return False
    return True
