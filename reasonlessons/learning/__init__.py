"""The learning loop: lessons improve with evidence.

captured session ──trace──▶ which lessons were recalled into it (link.py)
                 ──outcomes.py──▶ success | failure | unsure, per recalled lesson
                 ──lifecycle.py──▶ counts in local state; caution; deactivation (revivable)
                 ──summaries.py──▶ per-session tokens for `reasonlessons stats`
promote ──supersede.py──▶ a newer candidate for the same fact supersedes the stale lesson
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: the command line imports this package and reaches for a module when one of
# its commands runs, so `reasonlessons --help` does not load them all.
__all__ = ["loop", "stats", "supersede"]

if TYPE_CHECKING:
    from reasonlessons.learning import loop, stats, supersede


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.learning' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.learning.{name}")
