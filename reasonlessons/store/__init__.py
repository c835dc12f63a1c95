"""The store: one repository's lessons as a whole (docs/concepts.md).

Takes Locations; gives every lesson of every scope with its status, every mutation (add, promote,
reject, remove) under one lock, validation, and trust decisions, with counters in local state.

    project.py   Project: the store plus each lesson's status; the front door
    scopes.py    LessonStore: reading the scopes, and every mutation under a lock
    status.py    deprecated, superseded, expired, stale or active, in that precedence
    validate.py  every problem in every scope, reported together
    trust.py     what makes a lesson unfit to hand to an agent unreviewed, and trusting it anyway
    state.py     versioned JSON documents in the local state directory, rebuilt when damaged
    outcomes.py  each lesson's track record (lesson-outcomes.json), which recall and `list` read
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Submodules loaded on first use: recall consults trust only for a flagged lesson, and the command
# line reaches for the store when one of its commands runs (so `--help` does not load it).
__all__ = ["project", "trust", "validate"]

if TYPE_CHECKING:
    from reasonlessons.store import project, trust, validate


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.store' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.store.{name}")
