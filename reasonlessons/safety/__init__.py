"""What keeps secrets and hostile text out of lessons: redaction, the secret scanner, linear-time patterns."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: redaction compiles its pattern table on import, and modules on the per-turn
# path (recall, state documents, lesson files) need it only when they write or index a lesson.
__all__ = ["redact"]

if TYPE_CHECKING:
    from reasonlessons.safety import redact


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.safety' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.safety.{name}")
