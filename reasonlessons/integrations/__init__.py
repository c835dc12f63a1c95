"""Agent integrations: Claude Code hooks and settings, Reasonix v2 memory export, an MCP server.

    claude_hook.py     what to tell Claude Code for each hook event (library; never prints), through
                       claude_recall.py (prompts, tool calls to come), claude_loops.py (the per-session
                       ring of finished tool calls behind `[LOOP DETECTED]`), claude_capture.py (SessionEnd)
    hookcli.py         `reasonlessons hook claude-code`: the per-turn entry, argparse, silent on errors
    claude_install.py  merge our hooks into `.claude/settings.json` without clobbering it
    reasonix_facts.py  Reasonix v2 memory fact files and MEMORY.md lines (FORMATS.md §c.1)
    reasonix_export.py `export reasonix`: write, update and withdraw those facts (and skills,
                       reasonix_skills.py; the files both own: reasonix_files.py)
    mcp_server.py      `reasonlessons mcp`: the library API as MCP tools (optional `mcp` extra)

Nothing is imported here: the hook runs around every agent turn and tool call.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded on first use: the hook's per-event modules when their event comes (see claude_hook.py),
# the others when their command runs (so `reasonlessons --help` does not load them).
__all__ = [
    "claude_capture",
    "claude_install",
    "claude_loops",
    "claude_recall",
    "mcp_server",
    "reasonix_export",
]

if TYPE_CHECKING:
    from reasonlessons.integrations import (
        claude_capture,
        claude_install,
        claude_loops,
        claude_recall,
        mcp_server,
        reasonix_export,
    )


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.integrations' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.integrations.{name}")
