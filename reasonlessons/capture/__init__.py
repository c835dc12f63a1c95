"""Reading agent session logs: normalized events (`events`), one adapter per format (`adapters`),
and finding a repository's sessions (`discovery`)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: a capture whose logs did not change loads no log adapter (`adapters` is
# reasonlessons.sessions.adapters, which the sessions package cannot offer: the adapters build on it),
# and reads, gates and applies nothing, and starts no pool.
__all__ = ["adapters", "apply", "gates", "pool"]

if TYPE_CHECKING:
    from reasonlessons.capture import apply, gates, pool
    from reasonlessons.sessions import adapters


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.capture' has no attribute {name!r}")
    if name == "adapters":
        return importlib.import_module("reasonlessons.sessions.adapters")
    return importlib.import_module(f"reasonlessons.capture.{name}")
