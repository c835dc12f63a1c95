"""Interop: lessons in and out of the neighbouring formats (docs/interop.md).

Takes a file or folder in another tool's format, or the promoted lessons; gives candidates (all or
nothing, redacted) or files in that format that reasonlessons owns.

| format | import | export | module |
|---|---|---|---|
| AIP-11 `LESSON.md` package | yes | yes | aip11.py, aip11_export.py, aip11_schema.py |
| agentsmesh `.agentsmesh/lessons/lessons.json` | yes | yes | agentsmesh*.py |
| Claude Code rules `.claude/rules/<name>.md` | yes | yes | claude_rules.py |
| Cursor rules `.cursor/rules/<name>.mdc` | yes | yes | cursor_rules.py |

    api.py     the two entry points: import a file or folder, export to a folder
    agentsmesh.py         lessons.json -> lessons; agentsmesh_checks.py: its codes; agentsmesh_export.py
    common.py  reports, the write path into the store, target folders
    rules.py   what Claude Code and Cursor rule files share

Imports validate the whole input first and write nothing when it is bad; exports write only files
they own and say what they skipped. Everything written is redacted (reasonlessons/safety/redact.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

IMPORT_FORMATS = ("aip11", "agentsmesh", "claude-rules", "cursor-rules")
EXPORT_FORMATS = ("agentsmesh", "aip11", "claude-rules", "cursor-rules")

# Loaded on first use: the command line imports this package and reaches for a module when one of
# its commands runs, so `reasonlessons --help` does not load them all.
__all__ = ["EXPORT_FORMATS", "IMPORT_FORMATS", "api"]

if TYPE_CHECKING:
    from reasonlessons.interop import api


def __getattr__(name: str) -> Any:
    if name != "api":
        raise AttributeError(f"module 'reasonlessons.interop' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.interop.{name}")
