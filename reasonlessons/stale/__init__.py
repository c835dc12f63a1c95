"""The `stale` use case: which lessons drifted from the repository (docs/fingerprints.md).

Takes a Project (or, on the per-turn path, only its root); gives each stale lesson with what
drifted, answered from caches while nothing it read has changed, and re-records after review.

    scan.py          scan_stale: the library call behind `stale`
    refresh.py       plan and apply: re-recording after review, was → now shown first
    answer_cache.py  the last answer, replayed while every path it depended on is unchanged
    meta_cache.py    a cached read of the scopes for the per-turn path
    prefetch.py      a cold check on two processors: a forked child checks half of the lessons
"""

from __future__ import annotations

import importlib

# Loaded on first use: the command line imports this package and reaches for a module when one of
# its commands runs, so `reasonlessons --help` does not load them all.
__all__ = ["refresh", "scan"]

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from typing import Any

    from reasonlessons.stale import refresh, scan


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.stale' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.stale.{name}")
