"""`install reasonix` / `uninstall reasonix`: our hooks in Reasonix's settings, nothing else touched.

Reasonix 1.38 reads hooks from `<workspace>/.reasonix/settings.json` (the project's, loaded
automatically) and `<Reasonix home>/settings.json` (the user's, for every project), shaped
`{"hooks": {EVENT: [{"command": C, "timeout": MS, "description": D, "match": M}]}}`, timeouts in
milliseconds. Ours are recognised by their command (`... reasonlessons ... hook reasonix`): a
re-install changes nothing, an uninstall removes only them, and every other key, event and hook
stays as it was. A file that is not JSON is moved aside to a timestamped backup; a `hooks` of
another shape is refused with a message. Installing also exports the fresh lessons once, so the
very first session finds them in Reasonix's memory.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasonlessons.constants import REASONIX_DIR
from reasonlessons.errors import UsageError
from reasonlessons.integrations import settings_file
from reasonlessons.integrations.claude_install import InstallReport, SettingsShapeError
from reasonlessons.integrations.reasonix_export import export_reasonix
from reasonlessons.integrations.reasonix_files import ExportReport
from reasonlessons.store.project import Project
from reasonlessons.support import jsonio

DEFAULT_COMMAND = "reasonlessons hook reasonix"
SETTINGS = "settings.json"
# event -> (timeout in ms, what `/hooks` shows). SessionStart runs before the first turn is sent,
# so it is bounded tightly; SessionEnd only starts a detached process.
HOOKS: dict[str, tuple[int, str]] = {
    "SessionStart": (15000, "reasonlessons: sync lessons to memory, brief the session"),
    "SessionEnd": (5000, "reasonlessons: sync lessons to memory, capture the session"),
}
_OURS = re.compile(r"reasonlessons\S*[\s\"']+(?:.*\s)?hook\s+reasonix(?:\s|$)")


@dataclass
class ReasonixInstallReport(InstallReport):
    """What install did to the settings file, and the export it ran."""

    export: ExportReport | None = None

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["export"] = self.export.to_json() if self.export is not None else None
        return out


def is_ours(hook: object) -> bool:
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and _OURS.search(command) is not None


def settings_path(project: Project, *, global_: bool, env: Mapping[str, str], home: Path) -> Path:
    """The project's `.reasonix/settings.json`, or with `global_` the user's in Reasonix home."""
    if not global_:
        return project.loc.root / REASONIX_DIR / SETTINGS
    # Reasonix home (its docs/CONFIG_PATHS.md): $REASONIX_HOME, else %APPDATA%\reasonix on
    # Windows, else ~/.reasonix. REASONIX_STATE_HOME moves state, not settings.
    if env.get("REASONIX_HOME"):
        return Path(env["REASONIX_HOME"]).expanduser() / SETTINGS
    if os.name == "nt" and env.get("APPDATA"):  # pragma: no cover (Windows)
        return Path(env["APPDATA"]) / "reasonix" / SETTINGS
    return home / ".reasonix" / SETTINGS


def install(
    project: Project,
    *,
    command: str = DEFAULT_COMMAND,
    global_: bool = False,
    uninstall: bool = False,
    env: Mapping[str, str],
    home: Path,
    now: dt.datetime | None = None,
) -> ReasonixInstallReport:
    """Merge (or with `uninstall`, remove) our hooks; on install, export the fresh lessons once."""
    if "\n" in command or not is_ours({"command": command}):
        raise UsageError(
            f"--command {command!r}: use one line that runs `reasonlessons hook reasonix`, "
            "e.g. '/path/to/venv/bin/reasonlessons hook reasonix'"
        )
    path = settings_path(project, global_=global_, env=env, home=home)
    report = ReasonixInstallReport(path)
    doc, raw = settings_file.load(path)
    if doc is None and raw is not None:
        if uninstall:
            raise SettingsShapeError(f"{path} is not a JSON object; fix it by hand (nothing was changed)")
        report.backup = settings_file.backup(path, now or dt.datetime.now(dt.UTC))
    doc = doc or {}
    before = jsonio.loads(jsonio.dumps(doc))
    hooks = doc.get("hooks")
    if hooks is None and not uninstall:
        hooks = doc["hooks"] = {}
    if hooks is not None:
        _check_shape(path, hooks)
        for event in list(hooks) if uninstall else HOOKS:
            if uninstall:
                _remove(hooks, event, report)
            else:
                _merge(hooks, event, command, report)
        if uninstall and not hooks and report.removed:
            del doc["hooks"]
    if doc != before or report.backup is not None:
        settings_file.write(path, doc)
        report.changed = True
    if not uninstall:
        report.export = export_reasonix(project, skills=None, env=env, home=home, now=now)
    return report


def _check_shape(path: Path, hooks: object) -> None:
    fix = "; fix it by hand (see docs/integrations.md#reasonix), nothing was changed"
    if not isinstance(hooks, dict):
        raise SettingsShapeError(f"{path}: `hooks` is not an object{fix}")
    for event in HOOKS:
        entries = hooks.get(event, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise SettingsShapeError(f"{path}: `hooks.{event}` is not a list of hooks{fix}")


def _merge(hooks: dict[str, Any], event: str, command: str, report: InstallReport) -> None:
    timeout, description = HOOKS[event]
    want = {"command": command, "timeout": timeout, "description": description}
    entries: list[dict[str, Any]] = hooks.setdefault(event, [])
    ours = [e for e in entries if is_ours(e)]
    if ours == [want]:
        return  # installed exactly like this already
    if ours:
        report.removed.append(event)
    entries[:] = [e for e in entries if not is_ours(e)] + [want]
    report.added.append(event)


def _remove(hooks: dict[str, Any], event: str, report: InstallReport) -> None:
    entries = hooks[event]
    if not isinstance(entries, list):
        return  # not a list of hooks, and not ours: left as it is
    kept = [e for e in entries if not is_ours(e)]
    if len(kept) == len(entries):
        return
    report.removed.append(event)
    if kept:
        hooks[event] = kept
    else:
        del hooks[event]
