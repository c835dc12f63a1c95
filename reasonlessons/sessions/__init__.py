"""Agent session logs as normalized events: one adapter per format, discovery, shell and edit parsing."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Submodules loaded on first use: a capture given its logs never looks for others (discovery) or
# explains a file it skipped (otherfiles), and one whose logs did not change reads none (jsonl).
__all__ = ["discovery", "jsonl", "otherfiles"]

if TYPE_CHECKING:
    from reasonlessons.sessions import discovery, jsonl, otherfiles


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.sessions' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.sessions.{name}")
