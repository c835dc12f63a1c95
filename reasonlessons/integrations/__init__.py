"""Agent integrations: Claude Code hooks and settings, Reasonix v2 memory export, an MCP server.

    claude_hook.py     what to tell Claude Code for each hook event (library; never prints)
    claude_loops.py    the per-session ring of finished tool calls behind `[LOOP DETECTED]`
    hookcli.py         `reasonlessons hook claude-code`: the per-turn entry, argparse, silent on errors
    claude_install.py  merge our hooks into `.claude/settings.json` without clobbering it
    reasonix_facts.py  Reasonix v2 memory fact files and MEMORY.md lines (FORMATS.md §c.1)
    reasonix_export.py `export reasonix`: write, update and withdraw those facts (and skills)
    mcp_server.py      `reasonlessons mcp`: the library API as MCP tools (optional `mcp` extra)

Nothing is imported here: the hook runs around every agent turn and tool call.
"""

from __future__ import annotations
