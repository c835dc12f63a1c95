"""Extract: observations to candidate drafts."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use, when a session is read (reasonlessons/capture/reading.py).
__all__ = ["heuristic"]

if TYPE_CHECKING:
    from reasonlessons.capture.extract import heuristic


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.capture.extract' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.capture.extract.{name}")
