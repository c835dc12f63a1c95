"""Recall: pick the fresh, relevant lessons for an agent turn and render them as background data.

Kept import-light on purpose: `reasonlessons recall` runs before every agent turn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: the loop notice of the PostToolUse hook quotes the call through render.py.
__all__ = ["render"]

if TYPE_CHECKING:
    from reasonlessons.recall import render


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.recall' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.recall.{name}")
