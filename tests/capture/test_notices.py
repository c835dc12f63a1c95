"""Writ notices: filed by capture, claimed once by the agent's hook, never told twice."""

from __future__ import annotations

from pathlib import Path

from reasonlessons.capture import notices


def test_notices_are_claimed_once_and_only_by_their_agent(tmp_path: Path) -> None:
    state = str(tmp_path)
    assert notices.claim(state, "claude-code") == []  # no folder yet: nothing to say
    notices.record(state, "claude-code", ["pnpm-only", "pnpm-only"], at_ns=1)
    notices.record(state, "claude-code", ["deploy-token"], at_ns=2)
    notices.record(state, "codex", ["for-codex"], at_ns=3)
    assert notices.claim(state, "claude-code") == ["pnpm-only", "deploy-token"]
    assert notices.claim(state, "claude-code") == []
    assert notices.claim(state, "codex") == ["for-codex"]


def test_unclaimed_notices_are_pruned_oldest_first(tmp_path: Path) -> None:
    state = str(tmp_path)
    for n in range(notices.MAX_FILES + 3):
        notices.record(state, "aider", [f"lesson-{n}"], at_ns=n)
    assert len(list((tmp_path / notices.NOTICES_DIR).iterdir())) == notices.MAX_FILES
    claimed = notices.claim(state, "aider")
    assert claimed[0] == "lesson-3"
    assert len(claimed) == notices.MAX_FILES


def test_a_damaged_notice_is_dropped_quietly(tmp_path: Path) -> None:
    folder = tmp_path / notices.NOTICES_DIR
    folder.mkdir()
    (folder / "claude-code.00000000000000000001.1.json").write_text("{not json")
    assert notices.claim(str(tmp_path), "claude-code") == []
    assert list(folder.iterdir()) == []
