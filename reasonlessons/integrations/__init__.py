"""Agent integrations: Claude Code hooks and settings, Reasonix memory export and hooks, an MCP server.

Takes the library's answers (recall, stale, capture); gives them to the agents in the forms they
read: hook JSON, settings entries, Reasonix memory facts, skills and hook context, MCP tools
(docs/integrations.md).

    claude_hook.py      what to tell Claude Code for each hook event (library; never prints), through
    claude_recall.py    the lessons for a prompt or a tool call to come (UserPromptSubmit, PreToolUse)
    claude_loops.py     the per-session ring of finished tool calls behind `[LOOP DETECTED]`
    claude_capture.py   SessionEnd: capture the transcript, in the background
    claude_install.py   merge our hooks into `.claude/settings.json` without clobbering it
    settings_file.py    other programs' JSON settings: read, back up, write without losing a byte
    reasonix_facts.py   Reasonix v2 memory fact files, MEMORY.md lines and skills, byte for byte; what
                        each is made from (redacted text, a source digest)
    reasonix_export.py  `export reasonix`: which lessons, which memory folders, facts and skills in sync
    reasonix_memory.py  one memory folder brought in line: facts written, kept, archived; MEMORY.md
    reasonix_skills.py  `export reasonix --skills`: fresh project lessons as Reasonix skills
    reasonix_files.py   the files export and skills both own: the manifest, careful reads, archiving
    reasonix_hook.py    what `reasonlessons hook reasonix` does for each Reasonix hook event, through
    reasonix_start.py   SessionStart: the exports brought in line, the lessons every session should know
    reasonix_capture.py SessionEnd: the exports brought in line, the ended session's store captured
    reasonix_install.py merge our hooks into `.reasonix/settings.json` (or the global one), and undo it
    mcp_server.py       `reasonlessons mcp`: the library API as MCP tools (optional `mcp` extra)

The per-turn command `reasonlessons hook` is reasonlessons/cli/fast/hook.py. Nothing is imported
here eagerly: the hook runs around every agent turn and tool call.
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
    "reasonix_capture",
    "reasonix_export",
    "reasonix_hook",
    "reasonix_install",
    "reasonix_start",
]

if TYPE_CHECKING:
    from reasonlessons.integrations import (
        claude_capture,
        claude_install,
        claude_loops,
        claude_recall,
        mcp_server,
        reasonix_capture,
        reasonix_export,
        reasonix_hook,
        reasonix_install,
        reasonix_start,
    )


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'reasonlessons.integrations' has no attribute {name!r}")
    return importlib.import_module(f"reasonlessons.integrations.{name}")
