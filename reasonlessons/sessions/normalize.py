"""Small normalizers shared by the adapters: tool names, shell arguments, timestamps, JSON args."""

from __future__ import annotations

import shlex
from datetime import UTC, datetime
from typing import Any

from reasonlessons.support import jsonio

_TOOL_NAMES = {
    "shell": (
        "run_command",
        "run_background",
        "bash",
        "shell",
        "exec_command",
        "local_shell",
        "local_shell_call",
        "shell_command",
        "execute_command",
        "run_shell_command",
        "run_terminal_cmd",
    ),
    "read": ("read_file", "read", "read_text_file", "view_file", "readfile"),
    "write": ("write_file", "write", "create_file", "write_to_file"),
    "edit": ("edit_file", "edit", "multiedit", "multi_edit", "apply_patch", "str_replace"),
}
_TOOL_ALIASES = {alias: name for name, aliases in _TOOL_NAMES.items() for alias in aliases}
_SHELLS = {"bash", "sh", "zsh", "dash", "fish", "ksh", "pwsh", "powershell", "cmd", "cmd.exe"}
_SCRIPT_FLAGS = {"-c", "-lc", "-ic", "-lic", "/c", "-command", "-Command"}
# Timestamps before this are placeholders (Go's zero time), not real moments.
_EPOCH_FLOOR = datetime(1971, 1, 1, tzinfo=UTC)


def tool_name(name: str | None) -> str | None:
    """Normalize a tool name: shell tools -> 'shell', file reads -> 'read', writes/edits likewise."""
    if not name:
        return None
    return _TOOL_ALIASES.get(name.lower(), name)


def command_string(command: object) -> str | None:
    """One command line from a string or an argv list; `bash -lc "x"` becomes `x`."""
    if isinstance(command, str):
        return command
    if not isinstance(command, list) or not all(isinstance(part, str) for part in command):
        return None
    if len(command) >= 3 and command[0].rsplit("/", 1)[-1] in _SHELLS and command[-2] in _SCRIPT_FLAGS:
        return str(command[-1])
    return shlex.join(command)


def tool_args(name: str | None, args: object) -> dict[str, Any] | None:
    """Arguments as a dict (parsing a JSON string); shell calls always get a string 'command'."""
    fresh = False
    if isinstance(args, str):
        args, fresh = parse_json(args) if args.strip() else {}, True
    if not isinstance(args, dict):
        return None
    # A dict parsed here is ours, with string keys (JSON's): only one from the record is copied.
    result: dict[str, Any] = args if fresh else {str(key): value for key, value in args.items()}
    if name == "shell":
        command = command_string(result.get("command", result.get("cmd")))
        if command is not None:
            result["command"] = command
    return result


def parse_json(text: str) -> object:
    """Parse JSON text, or None when it is not JSON."""
    try:
        return jsonio.loads(text)
    except ValueError:
        return None


def parse_ts(value: object) -> datetime | None:
    """An ISO-8601 string or epoch milliseconds as an aware UTC datetime; None if absent or bogus."""
    try:
        if isinstance(value, str) and value:
            parsed = datetime.fromisoformat(value)
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=UTC)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            parsed = datetime.fromtimestamp(value / 1000, tz=UTC)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    return parsed.astimezone(UTC) if parsed >= _EPOCH_FLOOR else None


def as_int(value: object) -> int:
    """An integer field, 0 when absent or not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value)


def block_text(content: object, types: tuple[str, ...] = ("text",)) -> str | None:
    """Text of a string or of a list of content blocks whose `type` is in `types`."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = [
        str(block["text"])
        for block in content
        if isinstance(block, dict)
        and isinstance(block.get("type"), str)
        and block["type"] in types
        and isinstance(block.get("text"), str)
    ]
    return "\n".join(parts) if parts else None
