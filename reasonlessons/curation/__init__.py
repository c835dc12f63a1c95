"""Curation: keeping a library of lessons small and true (docs/commands.md#validate).

Takes every lesson of a project and the repository; gives lint findings with stable codes, and the
operations that act on them: search, prune, deprecate, merge, untrigger, edit.

    lint.py     the lint rules `validate` runs: triggers, reachability, near-duplicates, fingerprints
    repofiles.py  the repository's files (git ls-files), and which globs match any
    prune.py    archive expired, deactivated, long-stale, dead, duplicate and never-recalled lessons
    search.py   lessons whose name, description, body, triggers or tags hold a query's words
    edits.py    edit, deprecate, untrigger; the fields and the duplicate check add shares
    merge.py    two lessons into one: bodies, triggers, every evidence entry and the counts kept
    health.py   library health for `stats`: no-match rate, injected tokens, break-even, reach
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: the command line imports this package, and `--help` should not load them.
__all__ = ["edits", "health", "lint", "merge", "prune", "repofiles", "search"]

if TYPE_CHECKING:
    from reasonlessons.curation import edits, health, lint, merge, prune, repofiles, search


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.curation' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.curation.{name}")
