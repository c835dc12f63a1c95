"""Infrastructure every stage uses: atomic writes, JSON, hashing, file stamps, tokens, YAML, git."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# orjson costs ~20 ms to import: modules on the per-turn path import this package and reach for
# `support.jsonio` only when they parse or write a document that needs it.
_SUBMODULES = ("jsonio",)

__all__ = ["jsonio"]

if TYPE_CHECKING:
    from reasonlessons.support import jsonio


def __getattr__(name: str) -> Any:
    if name not in _SUBMODULES:
        raise AttributeError(f"module 'reasonlessons.support' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.support.{name}")
