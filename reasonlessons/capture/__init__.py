"""Reading agent session logs: normalized events (`events`), one adapter per format (`adapters`),
and finding a repository's sessions (`discovery`)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Stages loaded on first use: a capture whose logs did not change reads, gates and applies nothing,
# and starts no pool.
__all__ = ["apply", "gates", "pool"]

if TYPE_CHECKING:
    from reasonlessons.capture import apply, gates, pool


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.capture' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.capture.{name}")
