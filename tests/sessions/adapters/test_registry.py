from __future__ import annotations

import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reasonlessons.errors import UsageError
from reasonlessons.sessions.adapters import (
    ADAPTERS,
    aider,
    claude_code,
    codex,
    detect,
    get,
    names,
    reasonix_v1,
    reasonix_v2,
)
from reasonlessons.sessions.errors import UnknownAgentError, UnsupportedLogError
from reasonlessons.sessions.events import ReadStats
from tests.paths import RESOURCES

LOGS = RESOURCES / "logs"


@pytest.mark.parametrize(
    ("relative", "adapter"),
    [
        ("reasonix-v1/sessions/rxdemo.events.jsonl", reasonix_v1),
        ("reasonix-v1/transcript.jsonl", reasonix_v1),
        ("reasonix-v2/run.trajectory.jsonl", reasonix_v2),
        ("reasonix-v2/print.stream-json.jsonl", reasonix_v2),
        ("claude-code/split-usage.jsonl", claude_code),
        ("claude-code/errors.jsonl", claude_code),
        ("bad/damaged.jsonl", claude_code),
        ("codex/rollout-2026-05-03T08-00-00-33333333-4444-4555-8666-777777777777.jsonl", codex),
        ("codex/rollout-2025-07-01T10-00-00-44444444-5555-4666-8777-888888888888.jsonl", codex),
        ("aider/old-windows.aider.chat.history.md", aider),
        ("aider/aider.chat.history.md", aider),
    ],
)
def test_detect_each_resource(relative: str, adapter: object) -> None:
    assert detect(LOGS / relative) is adapter


@pytest.mark.parametrize(
    "relative",
    ["bad/not-a-log.png", "bad/notes.md", "reasonix-v1/sessions/rxdemo.meta.json", "missing.jsonl"],
)
def test_detect_returns_none_for_non_logs(relative: str) -> None:
    assert detect(LOGS / relative) is None


def test_detect_empty_file_and_plain_directory(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert detect(empty) is None
    assert detect(tmp_path) is None


def test_detect_reads_only_the_head(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    first = (LOGS / "claude-code" / "split-usage.jsonl").read_bytes().splitlines(keepends=True)[0]
    with path.open("wb") as handle:
        handle.write(first)
        handle.truncate(2 * 1024**3)  # sparse: 2 GiB that must never be read
    tracemalloc.start()
    try:
        assert detect(path) is claude_code
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024


def test_every_adapter_rejects_a_non_log() -> None:
    for adapter in ADAPTERS:
        with pytest.raises(UnsupportedLogError):
            list(adapter.read_session(LOGS / "bad" / "notes.md", stats=ReadStats()))
        with pytest.raises(UnsupportedLogError):
            adapter.describe(LOGS / "bad" / "notes.md", now=datetime(2026, 1, 1, tzinfo=UTC), idle_seconds=1)


def test_get_by_name() -> None:
    assert names() == ["aider", "claude-code", "codex", "reasonix", "reasonix-v1", "reasonix-v2"]
    assert get("reasonix-v1") is reasonix_v1
    assert get("claude-code") is claude_code
    with pytest.raises(UnknownAgentError, match="use one of: auto, aider, claude-code") as info:
        get("gemini")
    assert isinstance(info.value, UsageError)


def test_reasonix_reads_either_generation() -> None:
    both = get("reasonix")
    assert both.name == "reasonix"
    v1 = list(both.read_session(LOGS / "reasonix-v1" / "transcript.jsonl", stats=ReadStats()))
    v2 = list(both.read_session(LOGS / "reasonix-v2" / "run.trajectory.jsonl", stats=ReadStats()))
    assert {e.agent for e in v1} == {"reasonix-v1"}
    assert {e.agent for e in v2} == {"reasonix-v2"}
    assert both.sniff(b"RX4F", Path("events.frames"))
    described = both.describe(
        LOGS / "reasonix-v1" / "transcript.jsonl", now=datetime.now(UTC), idle_seconds=1
    )
    assert described.agent == "reasonix-v1"
    with pytest.raises(UnsupportedLogError):
        list(both.read_session(LOGS / "claude-code" / "split-usage.jsonl", stats=ReadStats()))


def test_a_log_with_no_complete_line_yet_reads_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "starting.jsonl"
    path.write_bytes(b'{"timestamp":"2026-01-01T00:00:00Z","type":"sess')
    for adapter in ADAPTERS:
        stats = ReadStats()
        assert list(adapter.read_session(path, stats=stats)) == []
        assert stats.last_offset == 0
