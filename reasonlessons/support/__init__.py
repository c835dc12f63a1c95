"""Infrastructure every stage uses: atomic writes, JSON, hashing, file stamps, tokens, YAML, git."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Submodules loaded on first use, for modules on the per-turn path that need them only now and
# then: jsonio imports orjson (~20 ms), yamlread is needed only to parse a changed lesson or config
# file, atomic only to write (the warm `stale` replays its answer without writing anything).
__all__ = ["atomic", "jsonio", "yamlread"]

if TYPE_CHECKING:
    from reasonlessons.support import atomic, jsonio, yamlread


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.support' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.support.{name}")
