"""`install claude-code`: merge our hooks into `<repo>/.claude/settings.json`, never clobbering it.

Settings shape (docs/integrations.md): `{"hooks": {EVENT: [{"matcher": M, "hooks": [{"type":
"command", "command": C, "timeout": N}]}]}}`. Our handlers are recognised by their command
(`... reasonlessons ... hook claude-code`), so a re-install replaces them instead of adding copies,
and every other key, event, matcher group and handler stays as it was. A file that is not JSON is
moved aside to a timestamped backup, never overwritten; a JSON file whose `hooks` has an unexpected
shape is refused with a message, so nothing the user wrote is lost.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasonlessons.errors import ReasonLessonsError, UsageError
from reasonlessons.integrations import settings_file
from reasonlessons.support import jsonio

DEFAULT_COMMAND = "reasonlessons hook claude-code"
SETTINGS = ".claude/settings.json"
LOCAL_SETTINGS = ".claude/settings.local.json"
# event -> (matcher, timeout in seconds). PreToolUse only for tools that carry a file or a command;
# PostToolUse fires on success only, so failures need PostToolUseFailure too (hooks reference).
HOOKS: dict[str, tuple[str | None, int]] = {
    "UserPromptSubmit": (None, 10),
    "PreToolUse": ("Bash|Read|Edit|MultiEdit|Write|NotebookEdit", 10),
    "PostToolUse": ("*", 10),
    "PostToolUseFailure": ("*", 10),
    "SessionEnd": (None, 10),
}
_OURS = re.compile(r"reasonlessons\S*[\s\"']+(?:.*\s)?hook\s+claude-code(?:\s|$)")


class SettingsShapeError(ReasonLessonsError):
    """A settings file that is JSON but whose `hooks` we cannot merge into without losing something."""


@dataclass
class InstallReport:
    """What install (or uninstall) did to one settings file."""

    path: Path
    changed: bool = False
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    backup: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "changed": self.changed,
            "added": self.added,
            "removed": self.removed,
            "backup": str(self.backup) if self.backup else None,
        }


def is_ours(handler: object) -> bool:
    """Whether a hook handler is one this module installs (any command spelling, any version)."""
    if not isinstance(handler, dict) or handler.get("type", "command") != "command":
        return False
    command = handler.get("command")
    return isinstance(command, str) and _OURS.search(command) is not None


def wanted_group(event: str, command: str) -> dict[str, Any]:
    matcher, timeout = HOOKS[event]
    group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
    group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
    return group


def install(
    root: Path,
    *,
    command: str = DEFAULT_COMMAND,
    local: bool = False,
    uninstall: bool = False,
    now: dt.datetime | None = None,
) -> InstallReport:
    """Merge (or with `uninstall`, remove) our hooks in the repository's Claude Code settings."""
    if "\n" in command or not is_ours({"type": "command", "command": command}):
        # Only a command we recognise can be found again, so a re-install never adds a copy.
        raise UsageError(
            f"--command {command!r}: use one line that runs `reasonlessons hook claude-code`, "
            "e.g. '/path/to/venv/bin/reasonlessons hook claude-code'"
        )
    path = root / (LOCAL_SETTINGS if local else SETTINGS)
    report = InstallReport(path)
    doc, raw = settings_file.load(path)
    if doc is None and raw is not None:  # present but not a JSON object
        if uninstall:
            raise SettingsShapeError(f"{path} is not a JSON object; fix it by hand (nothing was changed)")
        report.backup = settings_file.backup(path, now or dt.datetime.now(dt.UTC))
        doc = {}
    before = jsonio.loads(jsonio.dumps(doc)) if doc else {}
    doc = doc or {}
    hooks = doc.get("hooks")
    if hooks is None:
        if uninstall:
            return report
        hooks = doc["hooks"] = {}
    _check_shape(path, hooks)
    if uninstall:
        _remove(hooks, report)
        if not hooks and report.removed:
            del doc["hooks"]
    else:
        for event in HOOKS:
            _merge(hooks, event, command, report)
    if doc != before or report.backup is not None:
        settings_file.write(path, doc)
        report.changed = True
    return report


def _check_shape(path: Path, hooks: object) -> None:
    where = f"{path}: "
    fix = "; fix it by hand (see docs/integrations.md), nothing was changed"
    if not isinstance(hooks, dict):
        raise SettingsShapeError(f"{where}`hooks` is not an object{fix}")
    for event, groups in hooks.items():
        if event not in HOOKS:
            continue  # other events are not ours to read
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise SettingsShapeError(f"{where}`hooks.{event}` is not a list of matcher groups{fix}")
        for group in groups:
            if not isinstance(group.get("hooks", []), list):
                raise SettingsShapeError(f"{where}a `hooks.{event}` group's `hooks` is not a list{fix}")


def _merge(hooks: dict[str, Any], event: str, command: str, report: InstallReport) -> None:
    want = wanted_group(event, command)
    groups: list[dict[str, Any]] = hooks.setdefault(event, [])
    ours = sum(1 for g in groups for h in g.get("hooks", []) if is_ours(h))
    if ours == 1 and want in groups:
        return  # installed exactly like this already
    if _strip_ours(groups):
        report.removed.append(event)
    groups.append(want)
    report.added.append(event)


def _remove(hooks: dict[str, Any], report: InstallReport) -> None:
    for event in list(hooks):
        groups = hooks[event]
        if event in HOOKS and _strip_ours(groups):
            report.removed.append(event)
            if not groups:
                del hooks[event]


def _strip_ours(groups: list[dict[str, Any]]) -> bool:
    """Drop our handlers from every group (and groups left empty by that); True if any were found."""
    found = False
    for group in list(groups):
        handlers = group.get("hooks", [])
        kept = [h for h in handlers if not is_ours(h)]
        if len(kept) == len(handlers):
            continue
        found = True
        if kept:
            group["hooks"] = kept
        else:
            groups.remove(group)
    return found
