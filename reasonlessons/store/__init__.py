"""The scopes as a whole: reading and mutating them, each lesson's status, local state, trust."""

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
