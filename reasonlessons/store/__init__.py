"""The store: one repository's lessons as a whole (docs/concepts.md).

Takes Locations; gives every lesson of every scope with its status, every mutation (add, promote,
reject, remove) under one lock, validation, and trust decisions, with counters in local state.

    project.py   Project: the store plus each lesson's status; the front door
    scopes.py    LessonStore: reading the scopes, and every mutation under a lock
    status.py    deprecated, superseded, expired, stale or active, in that precedence
    validate.py  every problem in every scope, reported together
    trust.py     what makes a lesson unfit to hand to an agent unreviewed, and trusting it anyway
    state.py     versioned JSON documents in the local state directory, rebuilt when damaged
    outcomes.py  which session decided what about each lesson, and the counts derived from it
    counts.py    those counts as recall reads them every turn (lesson-outcomes.json)
    confidence.py  a lesson's confidence from its prior and those counts; archiving, decay
    config.py    the settings in config.toml (project over global over defaults)
    configfile.py  reading and checking one config.toml (only when one exists)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Submodules loaded on first use: recall consults trust only for a flagged lesson, and the command
# line reaches for the store when one of its commands runs (so `--help` does not load it).
__all__ = ["confidence", "config", "configfile", "counts", "project", "trust", "validate"]

if TYPE_CHECKING:
    from reasonlessons.store import confidence, config, configfile, counts, project, trust, validate


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.store' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.store.{name}")
