"""The scopes as a whole: reading and mutating them, each lesson's status, local state, trust."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Submodules loaded on first use, for modules on the per-turn path: recall consults trust only for
# a flagged lesson.
_SUBMODULES = ("trust",)

__all__ = ["trust"]

if TYPE_CHECKING:
    from reasonlessons.store import trust


def __getattr__(name: str) -> Any:
    if name not in _SUBMODULES:
        raise AttributeError(f"module 'reasonlessons.store' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.store.{name}")
