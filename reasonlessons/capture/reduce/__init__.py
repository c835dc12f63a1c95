"""Reduce: one session's events to observations."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use, when a session is read (reasonlessons/capture/reading.py).
__all__ = ["reducer"]

if TYPE_CHECKING:
    from reasonlessons.capture.reduce import reducer


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.capture.reduce' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.capture.reduce.{name}")
