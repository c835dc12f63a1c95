"""The `stale` use case: which lessons drifted, answered from caches when nothing changed."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: the command line imports this package and reaches for a module when one of
# its commands runs, so `reasonlessons --help` does not load them all.
__all__ = ["scan"]

if TYPE_CHECKING:
    from reasonlessons.stale import scan


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.stale' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.stale.{name}")
