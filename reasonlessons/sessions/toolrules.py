"""Tool rules: refusals by an agent's own tool layer that teach a rule of that agent, not of the repo.

When Aider cannot apply a SEARCH block, or answers `Invalid command: /grep`, nothing about the
repository is wrong: the agent (or its user) used the tool the wrong way, and will again in any
repository. Each rule names the agent it holds for, how to recognise its refusal (the failed call's
tool, its text, its arguments) and what to do instead; `example` picks what was refused, so that a
lesson can say it in the session's own words. The capture reducer counts them per session
(reduce/reducer.py), the extractor writes them (extract/failures.py: `tool_rule`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ToolRule:
    """One rule of one agent's tool layer."""

    key: str  # stable, e.g. 'aider-edit-must-match'
    agent: str
    tools: tuple[str, ...]  # the normalized tool names whose failures it reads
    refusal: re.Pattern[str] | None  # in the failure's text
    arguments: re.Pattern[str] | None  # in the call's `command` argument
    per_file: bool  # learned about one file at a time (the file is named in the lesson)
    command_trigger: str | None  # a recall command pattern that fires before the mistake

    def matches(self, agent: str, tool: str, text: str, args: Mapping[str, str]) -> bool:
        if agent != self.agent or tool not in self.tools:
            return False
        if self.refusal is not None and not self.refusal.search(text[:4000]):
            return False
        return self.arguments is None or bool(self.arguments.search(args.get("command", "")))


EDIT_MUST_MATCH = ToolRule(
    key="aider-edit-must-match",
    agent="aider",
    tools=("edit",),
    refusal=re.compile(
        r"SearchReplaceNoExactMatch|UnifiedDiffNo|UnifiedDiffNotUnique|failed to match|"
        r"did not conform to the edit format|Failed to apply edit"
    ),
    arguments=None,
    per_file=True,
    command_trigger=None,
)
ONE_COMMAND_PER_MESSAGE = ToolRule(
    key="aider-one-command-per-message",
    agent="aider",
    tools=("aider",),
    refusal=None,
    arguments=re.compile(r"^/[^\n]*\n\s*[/!]"),
    per_file=False,
    command_trigger=r"^/[^\n]*\n\s*/",
)
NO_SUCH_COMMAND = ToolRule(
    key="aider-no-such-command",
    agent="aider",
    tools=("aider",),
    refusal=re.compile(r"^(?:Invalid|Ambiguous) command: ", re.MULTILINE),
    arguments=None,
    per_file=False,
    command_trigger=r"^/[a-z]",
)
# Most specific first: a message of several commands that fails is that mistake, whatever it says.
RULES = (ONE_COMMAND_PER_MESSAGE, NO_SUCH_COMMAND, EDIT_MUST_MATCH)

_SEARCH_LINE = re.compile(r"^<{5,9} SEARCH>?\s*\n(.*)$", re.MULTILINE)
_DIFF_LINE = re.compile(r"^```\s*\n(.+)$", re.MULTILINE)
_COMMAND_WORD = re.compile(r"^(?:Invalid|Ambiguous) command: (\S+)", re.MULTILINE)


def match(agent: str, tool: str, text: str, args: Mapping[str, str]) -> ToolRule | None:
    """The rule a failed call breaks, if it is a known refusal of this agent's tool layer."""
    return next((rule for rule in RULES if rule.matches(agent, tool, text, args)), None)


def example(rule: ToolRule, text: str, args: Mapping[str, str]) -> str | None:
    """What was refused, briefly: the command word, the first line an edit looked for, the message."""
    if rule is NO_SUCH_COMMAND:
        found = _COMMAND_WORD.search(text)
        return found.group(1) if found else None
    if rule is ONE_COMMAND_PER_MESSAGE:
        words = [line.split()[0] for line in args.get("command", "").splitlines() if line.strip()]
        return " + ".join(words[:3])[:160] or None
    found = _SEARCH_LINE.search(text) or _DIFF_LINE.search(text)
    line = found.group(1).strip() if found else ""
    return line[:160] or None
