"""Writs always land: a `/lesson` writ becomes a candidate whatever the session's size, secrets still
redacted, and the Claude Code hook tells the agent once. Agent scoping: lessons for other agents
never reach Claude."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.integrations import claude_capture, claude_hook
from reasonlessons.lessons.file import read_lesson
from reasonlessons.store.project import open_project
from tests.paths import RESOURCES

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
WRIT_LOG = RESOURCES / "learning" / "writ-short.jsonl"
CONFIRMED = "recorded candidate lesson `pnpm-only`"


@pytest.fixture(autouse=True)
def no_claude_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


@pytest.fixture
def repo(make_repo: Callable[[str], Path]) -> Path:
    return make_repo("recall-ts")


def prompt(repo: Path, text: str, session: str = "s-next") -> str:
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": session,
        "transcript_path": str(repo / "t.jsonl"),
        "cwd": str(repo),
        "prompt": text,
    }
    out = claude_hook.handle(payload, now=NOW)
    return "" if out is None else str(out["hookSpecificOutput"]["additionalContext"])


def session_end(repo: Path, transcript: Path) -> Any:
    payload = {"hook_event_name": "SessionEnd", "session_id": "s-1", "transcript_path": str(transcript)}
    return claude_capture.capture_transcript(
        claude_hook.Hook({**payload, "cwd": str(repo)}, now=NOW), str(transcript)
    )


def test_a_writ_in_a_one_tool_call_session_becomes_a_candidate_and_is_confirmed_once(repo: Path) -> None:
    transcript = repo / "session.jsonl"
    transcript.write_bytes(WRIT_LOG.read_bytes())
    report = session_end(repo, transcript)
    assert [item.name for item in report.written] == ["pnpm-only"]
    lesson = read_lesson(repo / ".reasonix" / "lessons" / "_candidates" / "pnpm-only.md", scope="candidate")
    assert lesson.meta["source"] == "writ"
    assert lesson.meta["confidence"] == 0.9
    assert CONFIRMED in prompt(repo, "Add a unit test for the parser in tests/foo.test.ts")
    assert CONFIRMED not in prompt(repo, "Add a unit test for the parser in tests/foo.test.ts")
    # Capturing the same transcript again writes nothing and says nothing again.
    session_end(repo, transcript)
    assert CONFIRMED not in prompt(repo, "and now the lexer")


def test_a_writ_in_a_prompt_is_recorded_at_once_and_confirmed_in_that_turn(repo: Path) -> None:
    said = prompt(repo, "/lesson pnpm only: Use `pnpm install`, never `npm install` here", session="s-1")
    assert CONFIRMED in said
    assert (repo / ".reasonix" / "lessons" / "_candidates" / "pnpm-only.md").exists()
    assert CONFIRMED not in prompt(repo, "Add a unit test for the parser in tests/foo.test.ts", session="s-1")


def test_a_writ_with_a_secret_is_redacted_before_it_lands(repo: Path) -> None:
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    said = prompt(repo, f"/lesson deploy token: Deploy with `GITHUB_TOKEN={key} make deploy`")
    assert "recorded candidate lesson `deploy-token`" in said
    written = (repo / ".reasonix" / "lessons" / "_candidates" / "deploy-token.md").read_text()
    assert key not in written


def test_lessons_for_other_agents_never_reach_claude(repo: Path) -> None:
    project = open_project(repo)
    common = {"triggers": {"keywords": ["parser"]}}
    project.store.add("for-codex", description="Codex: run `cargo t`", extra={**common, "agents": ["codex"]})
    project.store.add(
        "for-claude", description="Claude: use the Edit tool", extra={**common, "agents": ["claude-code"]}
    )
    project.store.add(
        "for-reasonix", description="Reasonix: use /plan", extra={**common, "agents": ["reasonix*"]}
    )
    said = prompt(repo, "Add a unit test for the parser in tests/foo.test.ts")
    assert "for-claude" in said
    assert "for-codex" not in said
    assert "for-reasonix" not in said
