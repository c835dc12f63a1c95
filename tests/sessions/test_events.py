from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest

from reasonlessons.sessions.events import Event, ReadStats, Tokens, new_event, new_tokens
from reasonlessons.sessions.normalize import (
    block_text,
    command_string,
    parse_ts,
    tool_args,
    tool_name,
)


def test_event_is_frozen_and_keyword_only() -> None:
    event = Event(agent="codex", session_id="s", seq=0, role="user", kind="text", raw_ref="f:1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.seq = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        Event("codex", "s", 0, "user", "text", "f:1")  # type: ignore[misc]
    assert event.is_error is None
    assert event.tokens is None


def test_fast_constructors_equal_the_keyword_ones() -> None:
    tokens = Tokens(in_=1, out=2, cache_read=3, cache_write=4)
    assert new_tokens(1, 2, 3, 4) == tokens
    values: dict[str, Any] = {
        "agent": "codex",
        "session_id": "s",
        "seq": 3,
        "role": "tool",
        "kind": "tool_result",
        "raw_ref": "f:1",
        "ts": datetime(2026, 5, 1, tzinfo=UTC),
        "cwd": "/w",
        "text": "out",
        "tool_name": "shell",
        "tool_args": {"command": "ls"},
        "call_id": "c1",
        "is_error": True,
        "error_kind": "exit",
        "exit_code": 2,
        "error_sig": "sig",
        "tokens": tokens,
    }
    assert [f.name for f in dataclasses.fields(Event)] == list(values)  # new_event takes them in order
    fast = new_event(*values.values())
    assert fast == Event(**values)
    assert repr(fast) == repr(Event(**values))
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.seq = 1  # type: ignore[misc]


def test_tokens_total() -> None:
    assert Tokens(in_=1, out=2, cache_read=3, cache_write=4).total == 10


def test_read_stats_counts_and_summary() -> None:
    stats = ReadStats(records=5, events=7)
    assert stats.summary() == "5 records, 7 events"
    stats.skip("not-json")
    stats.skip("truncated-tail")
    stats.skip("not-json")
    assert stats.total_skipped == 3
    assert stats.summary() == "5 records, 7 events; skipped 3 (2 not-json, 1 truncated-tail)"


def test_read_stats_checkpoint() -> None:
    stats = ReadStats(last_offset=120, last_line=9)
    stats.checkpoint_at_end(14)
    assert (stats.resume_offset, stats.resume_seq, stats.resume_line) == (120, 14, 9)
    stats.checkpoint(40, 0, 3)
    assert (stats.resume_offset, stats.resume_seq, stats.resume_line) == (40, 0, 3)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("run_command", "shell"),
        ("Bash", "shell"),
        ("exec_command", "shell"),
        ("shell", "shell"),
        ("read_file", "read"),
        ("Read", "read"),
        ("read_text_file", "read"),
        ("Write", "write"),
        ("write_file", "write"),
        ("Edit", "edit"),
        ("MultiEdit", "edit"),
        ("apply_patch", "edit"),
        ("TodoWrite", "TodoWrite"),
        ("mcp__fs__read_file", "mcp__fs__read_file"),
        (None, None),
        ("", None),
    ],
)
def test_tool_names_are_normalized(raw: str | None, expected: str | None) -> None:
    assert tool_name(raw) == expected


def test_shell_command_becomes_one_string() -> None:
    assert command_string(["bash", "-lc", "npm test && echo ok"]) == "npm test && echo ok"
    assert command_string(["/bin/zsh", "-c", "ls"]) == "ls"
    assert command_string(["ls", "-la", "my dir"]) == "ls -la 'my dir'"
    assert command_string("make") == "make"
    assert command_string([1, 2]) is None
    assert tool_args("shell", '{"command": ["bash", "-lc", "npm test"], "timeout_ms": 5}') == {
        "command": "npm test",
        "timeout_ms": 5,
    }
    assert tool_args("shell", {"cmd": "pytest -q"}) == {"cmd": "pytest -q", "command": "pytest -q"}
    assert tool_args("read", '{"path": "a"}') == {"path": "a"}
    assert tool_args("read", "not json") is None
    assert tool_args("read", "") == {}


def test_timestamps_are_utc_and_placeholders_are_none() -> None:
    assert parse_ts("2026-11-21T19:24:09.290Z") == datetime(2026, 11, 21, 19, 24, 9, 290000, tzinfo=UTC)
    assert parse_ts("2026-11-21T21:24:09+02:00") == datetime(2026, 11, 21, 19, 24, 9, tzinfo=UTC)
    assert parse_ts("2026-11-21T19:22:23.514411422Z") is not None
    assert parse_ts(1795288943540) == datetime(2026, 11, 21, 19, 22, 23, 540000, tzinfo=UTC)
    assert parse_ts("0001-01-01T00:00:00Z") is None
    assert parse_ts("yesterday") is None
    assert parse_ts(None) is None
    assert parse_ts(True) is None


def test_block_text() -> None:
    blocks = [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
    assert block_text(blocks) == "a\nb"
    assert block_text("plain") == "plain"
    assert block_text([{"type": "input_text", "text": "x"}], ("input_text",)) == "x"
    assert block_text(42) is None
