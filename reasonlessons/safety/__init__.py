"""Safety: what keeps secrets and hostile text out of lessons and out of recall's time budget.

Takes any text reasonlessons is about to write, and the patterns lessons carry; gives it redacted
(or refused), and patterns that run in linear time.

    redact.py      redaction of secrets from everything written: the one place secrets are looked for
    formats.py     token formats recognised by shape (vendor prefixes, alphabets, lengths)
    positions.py   secret-bearing places whatever the value: password flags, `*_TOKEN=`, URLs, headers
    textview.py    text as a scanner reads it: escapes decoded, invisible characters gone, mapped back
    terminal.py    what a terminal is shown: control and invisible characters rendered visibly
    secretscan.py  detect-secrets as a span finder for redact.py
    needs.py       substrings every match of a regex must contain: a prefilter that skips running it
    linear_re.py   user-supplied patterns on RE2, so no `commands` trigger can hang recall
"""

from __future__ import annotations

import importlib

# Loaded on first use: redaction compiles its pattern table on import, and modules on the per-turn
# path (recall, state documents, lesson files) need it only when they write or index a lesson;
# textview (patterns and a dataclass) only when a lesson written holds non-ASCII text.
__all__ = ["redact", "textview"]

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from typing import Any

    from reasonlessons.safety import redact, textview


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.safety' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.safety.{name}")
