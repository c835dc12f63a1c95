"""`install claude-code`: our hooks merged into .claude/settings.json, nothing else lost, no copies."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.integrations.claude_install import (
    DEFAULT_COMMAND,
    HOOKS,
    SettingsShapeError,
    install,
    is_ours,
)
from tests.jsonshape import load_schema, problems

SETTINGS_SCHEMA = load_schema("claude-settings.schema.json")
NOW = dt.datetime(2026, 11, 21, 12, 30, 5, tzinfo=dt.UTC)
THEIRS = {"type": "command", "command": "./scripts/lint.sh", "timeout": 30}
EXISTING = {
    "permissions": {"allow": ["Bash(npm test)"], "deny": []},
    "env": {"FOO": "1"},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [THEIRS]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "model": "opus",
}


def settings(repo: Path, name: str = "settings.json") -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((repo / ".claude" / name).read_text())
    return doc


def ours(doc: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [h for g in doc["hooks"].get(event, []) for h in g["hooks"] if is_ours(h)]


def write(repo: Path, content: str | dict[str, Any]) -> Path:
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=4))
    return path


def test_fresh_install_writes_every_hook_in_the_documented_shape(git_repo: Path) -> None:
    report = install(git_repo)
    assert report.changed
    assert report.added == list(HOOKS)
    doc = settings(git_repo)
    assert problems(doc, SETTINGS_SCHEMA) == []
    assert doc["hooks"]["UserPromptSubmit"] == [
        {"hooks": [{"type": "command", "command": DEFAULT_COMMAND, "timeout": 10}]}
    ]
    assert doc["hooks"]["PreToolUse"][0]["matcher"] == "Bash|Read|Edit|MultiEdit|Write|NotebookEdit"
    assert set(doc["hooks"]) == {
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "SessionEnd",
    }
    assert (git_repo / ".claude" / "settings.json").read_bytes().endswith(b"}\n")


def test_merge_keeps_everything_else_and_reinstall_changes_nothing(git_repo: Path) -> None:
    path = write(git_repo, EXISTING)
    install(git_repo)
    doc = settings(git_repo)
    assert {k: v for k, v in doc.items() if k != "hooks"} == {
        k: v for k, v in EXISTING.items() if k != "hooks"
    }
    assert list(doc) == list(EXISTING)  # key order kept
    assert doc["hooks"]["Stop"] == EXISTING["hooks"]["Stop"]
    assert doc["hooks"]["PreToolUse"][0] == {"matcher": "Bash", "hooks": [THEIRS]}
    assert all(len(ours(doc, event)) == 1 for event in HOOKS)
    assert problems(doc, SETTINGS_SCHEMA) == []
    before = path.read_bytes()
    again = install(git_repo)
    assert (again.changed, again.added, again.removed) == (False, [], [])
    assert path.read_bytes() == before


def test_reinstall_replaces_an_older_spelling_instead_of_adding_a_copy(git_repo: Path) -> None:
    old = {
        "type": "command",
        "command": "/venv/bin/reasonlessons hook claude-code --budget 100",
        "timeout": 5,
    }
    shared = {"matcher": "Bash", "hooks": [THEIRS, old]}
    write(
        git_repo,
        {"hooks": {"PreToolUse": [shared], "SessionEnd": [{"hooks": [old]}, {"hooks": [dict(old)]}]}},
    )
    report = install(git_repo)
    doc = settings(git_repo)
    assert doc["hooks"]["PreToolUse"][0] == {"matcher": "Bash", "hooks": [THEIRS]}  # their handler stays
    assert [h["command"] for h in ours(doc, "PreToolUse")] == [DEFAULT_COMMAND]
    assert [h["command"] for h in ours(doc, "SessionEnd")] == [DEFAULT_COMMAND]
    assert len(doc["hooks"]["SessionEnd"]) == 1  # the emptied groups are gone
    assert set(report.removed) == {"PreToolUse", "SessionEnd"}


def test_custom_command_is_recognised_on_reinstall(git_repo: Path) -> None:
    command = "uvx --from reasonlessons reasonlessons hook claude-code --budget 300"
    install(git_repo, command=command)
    install(git_repo, command=command)
    doc = settings(git_repo)
    assert [h["command"] for h in ours(doc, "UserPromptSubmit")] == [command]


@pytest.mark.parametrize(
    "command", ["echo hi", "reasonlessons recall", "reasonlessons hook claude-code\nrm -rf /"]
)
def test_a_command_we_could_not_find_again_is_refused(git_repo: Path, command: str) -> None:
    from reasonlessons.errors import UsageError

    with pytest.raises(UsageError, match="--command"):
        install(git_repo, command=command)
    assert not (git_repo / ".claude").exists()


@pytest.mark.parametrize("content", ["{ not json", "[1, 2]", '"hooks"', '{"a": 1,}'])
def test_unparseable_settings_are_backed_up_not_overwritten(git_repo: Path, content: str) -> None:
    write(git_repo, content)
    report = install(git_repo, now=NOW)
    assert report.backup == git_repo / ".claude" / "settings.json.bak-20261121T123005Z"
    assert report.backup.read_text() == content
    assert all(len(ours(settings(git_repo), event)) == 1 for event in HOOKS)
    write(git_repo, content)
    assert install(git_repo, now=NOW).backup == git_repo / ".claude" / "settings.json.bak-20261121T123005Z-2"


@pytest.mark.parametrize(
    "doc",
    [
        {"hooks": []},
        {"hooks": {"PreToolUse": {"matcher": "Bash"}}},
        {"hooks": {"SessionEnd": ["cmd"]}},
        {"hooks": {"UserPromptSubmit": [{"hooks": "reasonlessons"}]}},
    ],
)
def test_a_hooks_section_of_unexpected_shape_is_refused_untouched(
    git_repo: Path, doc: dict[str, Any]
) -> None:
    path = write(git_repo, doc)
    before = path.read_bytes()
    with pytest.raises(SettingsShapeError, match="fix it by hand"):
        install(git_repo)
    assert path.read_bytes() == before
    assert list(path.parent.iterdir()) == [path]


def test_uninstall_removes_only_ours(git_repo: Path) -> None:
    path = write(git_repo, EXISTING)
    install(git_repo)
    report = install(git_repo, uninstall=True)
    assert report.changed
    assert set(report.removed) == set(HOOKS)
    assert settings(git_repo) == EXISTING
    assert install(git_repo, uninstall=True).changed is False
    write(git_repo, {"model": "opus"})
    install(git_repo)
    install(git_repo, uninstall=True)
    assert json.loads(path.read_text()) == {"model": "opus"}  # an emptied `hooks` goes too


def test_uninstall_without_settings_does_nothing(git_repo: Path) -> None:
    assert install(git_repo, uninstall=True).changed is False
    assert not (git_repo / ".claude").exists()


def test_local_settings(git_repo: Path) -> None:
    install(git_repo, local=True)
    assert not (git_repo / ".claude" / "settings.json").exists()
    assert all(len(ours(settings(git_repo, "settings.local.json"), e)) == 1 for e in HOOKS)


def test_command_line(cli_invoke: Callable[..., Any], git_repo: Path) -> None:
    result = cli_invoke("install", "claude-code", "--json", "--repo", git_repo)
    doc = result.json()
    assert doc["changed"] is True
    assert doc["backup"] is None
    assert doc["added"] == list(HOOKS)
    again = cli_invoke("install", "claude-code", "--repo", git_repo)
    assert "already installed" in again.stdout
    removed = cli_invoke("install", "claude-code", "--uninstall", "--repo", git_repo)
    assert "removed" in removed.stdout
    assert "unknown agent" in cli_invoke("install", "cursor", "--repo", git_repo, expect=2).stderr
    write(git_repo, {"hooks": []})
    assert "fix it by hand" in cli_invoke("install", "claude-code", "--repo", git_repo, expect=1).stderr
