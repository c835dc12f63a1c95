"""Refusals by an agent's own tools that teach a rule for that agent in every repository.

Claude Code's Edit refuses an `old_string` it cannot find, Write refuses a file not read first, Read
refuses a file over its token limit; Codex's `apply_patch` refuses a patch whose context lines are not
in the file. Each is a habit to change (read again, read in parts), not a fact about one repository,
so capture proposes it for the global scope, tagged for the agent it applies to. Only refusals the
agent then got past (the same tool, or the one the advice names instead, worked afterwards) count:
that is what shows the rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reasonlessons.capture.reduce.observations import ToolRule


@dataclass(frozen=True)
class Rule:
    """One refusal of one agent's tool, and what to do instead."""

    id: str
    agents: tuple[str, ...]
    tools: tuple[str, ...]  # normalized tool names (sessions/normalize.py)
    pattern: re.Pattern[str]
    title: str  # the description, `{detail}` filled from the pattern's first group
    advice: str  # the bullet saying what to do instead
    keywords: tuple[str, ...]
    claim: str  # words of `advice` no other rule has: what makes another session's draft the same
    also: tuple[str, ...] = ()  # other tools (lower case) whose success shows the advice was followed


RULES = (
    Rule(
        "edit-string-not-found",
        ("claude-code",),
        ("edit",),
        re.compile(r"String to replace not found in file"),
        "Edit: re-Read the file when `old_string` is not found; do not retry from memory",
        'When Edit says "String to replace not found in file", Read the file again and copy the '
        "current text into `old_string`; retrying from memory fails again.",
        ("Edit", "old_string"),
        "String to replace not found in file",
    ),
    Rule(
        "write-before-read",
        ("claude-code",),
        ("edit", "write"),
        re.compile(r"File has not been read yet\. Read it first"),
        "Read a file before you Edit or Write it; the tool refuses files not read first",
        "Read the file (at least once in the session) before Edit or Write: they refuse a file "
        'that "has not been read yet".',
        ("Edit", "Write", "Read"),
        "has not been read yet",
    ),
    Rule(
        "modified-since-read",
        ("claude-code",),
        ("edit", "write"),
        re.compile(r"File has been (?:unexpectedly )?modified(?: since (?:it was )?read)?"),
        "Read a file again after it changed on disk (a formatter, a hook) before editing it",
        "After a formatter, a hook or a command changed a file, Read it again before Edit/Write: "
        'they refuse a file "modified since read".',
        ("Edit", "Write", "format"),
        "modified since read",
    ),
    Rule(
        "read-too-large",
        ("claude-code",),
        ("read",),
        re.compile(r"File content \(\d+ tokens\) exceeds maximum allowed tokens \((\d+)\)"),
        "Read large files in parts (offset/limit) or Grep them; Read refuses over {detail} tokens",
        "Read refuses files over the token limit: read them in parts with `offset`/`limit`, or Grep "
        "for the part you need.",
        ("Read", "offset", "limit"),
        "over the token limit",
        ("grep", "glob", "search", "grep_search"),  # searching instead is the advice's other half
    ),
    Rule(
        "edit-many-matches",
        ("claude-code",),
        ("edit",),
        re.compile(r"Found \d+ matches of the string to replace, but replace_all is false"),
        "Edit: give `old_string` enough context to match once, or set replace_all",
        "When Edit finds several matches, add surrounding lines to `old_string` until it is unique, "
        "or pass `replace_all: true` when every occurrence should change.",
        ("Edit", "replace_all"),
        "finds several matches",
    ),
    Rule(
        "patch-format",
        ("codex",),
        ("edit",),
        re.compile(r"[Ii]nvalid patch|invalid hunk|must be '\*\*\* (?:Begin|End) Patch'"),
        "apply_patch: keep the patch envelope (`*** Begin Patch` … `*** End Patch`) or it is refused",
        "Give apply_patch the whole envelope: `*** Begin Patch`, `*** Update File: PATH` (or Add/Delete) "
        "with `@@` hunks, and `*** End Patch` as the last line.",
        ("apply_patch", "patch"),
        "whole envelope",
    ),
    Rule(
        "patch-context-not-found",
        ("codex",),
        ("edit",),
        re.compile(r"Failed to find (?:expected lines|context)|apply_patch verification failed"),
        "apply_patch: re-read the lines you patch; a patch with stale context is refused",
        "Before apply_patch, print the current lines (`sed -n 'A,Bp' FILE`) and copy the context from "
        "them: a patch whose context is not in the file is refused.",
        ("apply_patch", "patch"),
        "context is not in the file",
    ),
)
_BY_TOOL: dict[str, tuple[Rule, ...]] = {}
for _rule in RULES:
    for _tool in _rule.tools:
        _BY_TOOL[_tool] = (*_BY_TOOL.get(_tool, ()), _rule)
BY_ID = {rule.id: rule for rule in RULES}


def match(agent: str, tool: str, text: str | None) -> tuple[Rule, str] | None:
    """(the rule, its detail) a refusal of `tool` by `agent` shows, or None."""
    if not text:
        return None
    head = text[:2000]
    for rule in _BY_TOOL.get(tool, ()):
        if agent in rule.agents and (found := rule.pattern.search(head)) is not None:
            return rule, found.group(1) if found.groups() else ""
    return None


class ToolRuleTracker:
    """Refusals matching a rule, counted once the same tool worked again (the agent got past it)."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self._open: list[tuple[Rule, str, str]] = []  # (rule, log ref, detail) not yet got past
        self._seen: dict[str, ToolRule] = {}

    def refused(self, tool: str, text: str | None, ref: str) -> bool:
        """Note a failed call of the agent's own tool; True when it matched a rule."""
        found = match(self.agent, tool, text)
        if found is None:
            return False
        self._open = [*self._open[-7:], (found[0], ref, found[1])]
        return True

    def worked(self, tool: str) -> None:
        """The tool worked: every rule it was refused by is now shown."""
        if not self._open:
            return  # no refusal waits: most calls of every session
        for rule, ref, detail in [o for o in self._open if tool in o[0].tools or tool.lower() in o[0].also]:
            self._open.remove((rule, ref, detail))
            old = self._seen.get(rule.id)
            refs = (*old.refs, ref)[:3] if old else (ref,)
            count = old.count + 1 if old else 1
            self._seen[rule.id] = ToolRule(self.agent, rule.id, tool, count, refs, detail)

    def finish(self) -> list[ToolRule]:
        return list(self._seen.values())
