"""What a session's events are about, as comparable marks: how a failure looks, what a call touches.

A failure's marks: its error signature (`sig:`), the call that failed (`cmd:` the command as
sessions/shell.py reads it, or `<tool>:` and the file or command it was given) and the tool rule it
broke (`rule:`, sessions/toolrules.py). A call's subjects: its command or its file. A lesson is
about the marks of the failures it was learned from; it was relevant to a session that later
touched one of its subjects, and it hit when one of its failures came back.
"""

from __future__ import annotations

from typing import Any

from reasonlessons.sessions import toolrules
from reasonlessons.sessions.events import Event
from reasonlessons.sessions.shell import parse

_FILE_KEYS = ("file_path", "path", "filePath", "notebook_path")


def subject(call: Event) -> str | None:
    """What a call works on: `cmd:<command>` for a shell call, else `<tool>:<file or command>`."""
    args: dict[str, Any] = call.tool_args or {}
    command = args.get("command")
    if call.tool_name == "shell" and isinstance(command, str):
        invocation = parse(command)
        return f"cmd:{invocation.base if invocation is not None else command.strip()}"
    target = next((args[k] for k in _FILE_KEYS if isinstance(args.get(k), str) and args[k]), None)
    if target is None and isinstance(command, str):
        target = command.strip()
    return f"{call.tool_name}:{target}" if target else None


def failure(result: Event, call: Event | None) -> frozenset[str]:
    """The marks of a failed call's result (empty for a success)."""
    if not result.is_error:
        return frozenset()
    marks: set[str] = set()
    if result.error_sig:
        marks.add(f"sig:{result.error_sig}")
    if call is not None:
        touched = subject(call)
        if touched:
            marks.add(touched)
        args = {k: v for k, v in (call.tool_args or {}).items() if isinstance(v, str)}
        rule = toolrules.match(result.agent, call.tool_name or "", result.text or "", args)
        if rule is not None:
            marks.add(f"rule:{rule.key}")
    return frozenset(marks)
