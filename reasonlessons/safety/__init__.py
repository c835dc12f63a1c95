"""What keeps secrets and hostile text out of lessons: redaction, the secret scanner, linear-time patterns."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Redaction compiles its pattern table on import: modules on the per-turn path (recall, state
# documents) import this package and reach for these names only when they write or index a lesson.
_EXPORTS = {
    "SecretFoundError": "reasonlessons.safety.redact",
    "assert_clean": "reasonlessons.safety.redact",
    "find_secrets": "reasonlessons.safety.redact",
    "redact": "reasonlessons.safety.redact",
    "redact_value": "reasonlessons.safety.redact",
    "scrub": "reasonlessons.safety.redact",
}

__all__ = ["SecretFoundError", "assert_clean", "find_secrets", "redact", "redact_value", "scrub"]

if TYPE_CHECKING:
    from reasonlessons.safety.redact import (
        SecretFoundError,
        assert_clean,
        find_secrets,
        redact,
        redact_value,
        scrub,
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'reasonlessons.safety' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
