"""Agent integrations: Claude Code hooks and settings, Reasonix v2 memory export, an MCP server.

Takes the library's answers (recall, stale, capture); gives them to the agents in the forms they
read: hook JSON, settings entries, Reasonix memory facts and skills, MCP tools (docs/integrations.md).

    claude_hook.py      what to tell Claude Code for each hook event (library; never prints)
    claude_loops.py     the per-session ring of finished tool calls behind `[LOOP DETECTED]`
    claude_install.py   merge our hooks into `.claude/settings.json` without clobbering it
    reasonix_facts.py   Reasonix v2 memory fact files, MEMORY.md lines and skills, byte for byte
    reasonix_export.py  `export reasonix`: write, update and withdraw those facts
    reasonix_skills.py  `export reasonix --skills`: fresh project lessons as Reasonix skills
    mcp_server.py       `reasonlessons mcp`: the library API as MCP tools (optional `mcp` extra)

The per-turn command `reasonlessons hook` is reasonlessons/cli/fast/hook.py. Nothing is imported
here: the hook runs around every agent turn and tool call.
"""

from __future__ import annotations
