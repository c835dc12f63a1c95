from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reasonlessons.sessions.adapters import reasonix_v1
from reasonlessons.sessions.errors import UnsupportedLogError
from reasonlessons.sessions.events import Event, ReadStats, Tokens
from tests.paths import RESOURCES
from tests.sessions.adapters import ReadLog

LOGS = RESOURCES / "logs"
SESSIONS = LOGS / "reasonix-v1" / "sessions"
EVENTS = SESSIONS / "rxdemo.events.jsonl"
TRANSCRIPT = LOGS / "reasonix-v1" / "transcript.jsonl"
NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def _results(events: list[Event]) -> list[Event]:
    return [e for e in events if e.kind == "tool_result"]


def test_each_launch_is_a_session_with_its_own_seq(read_log: ReadLog) -> None:
    events, _ = read_log(EVENTS, reasonix_v1)
    assert sorted({e.session_id for e in events}) == ["rxdemo#1", "rxdemo#2"]
    for session in ("rxdemo#1", "rxdemo#2"):
        seqs = [e.seq for e in events if e.session_id == session]
        assert seqs == list(range(len(seqs)))
    assert {e.cwd for e in events} == {"/work/demo"}
    assert {e.agent for e in events} == {"reasonix-v1"}


def test_prompts_come_from_the_sidecar_in_order(read_log: ReadLog) -> None:
    events, _ = read_log(EVENTS, reasonix_v1)
    prompts = [e for e in events if e.role == "user"]
    assert [(p.session_id, p.seq, p.text) for p in prompts] == [
        ("rxdemo#1", 1, "run the tests"),
        ("rxdemo#2", 1, "is there a vitest config?"),
    ]
    assert prompts[0].raw_ref == f"{SESSIONS / 'rxdemo.jsonl'}:1"
    assert prompts[1].ts == datetime(2026, 5, 1, 11, 0, 1, tzinfo=UTC)


def test_failed_shell_with_ok_true_is_an_error_with_its_exit_code(read_log: ReadLog) -> None:
    events, _ = read_log(EVENTS, reasonix_v1)
    call = next(e for e in events if e.kind == "tool_call")
    assert (call.tool_name, call.tool_args, call.call_id) == ("shell", {"command": "npm test"}, "tc-1")
    result = _results(events)[0]
    assert (result.call_id, result.tool_name) == ("tc-1", "shell")
    assert (result.is_error, result.exit_code, result.error_kind) == (True, 127, "exit")
    assert result.error_sig == "sh: <n>: vitest: not found"
    assert result.raw_ref == f"{EVENTS}:6"


def test_timeout_and_ok_false_results(read_log: ReadLog) -> None:
    events, _ = read_log(EVENTS, reasonix_v1)
    timeout, denied = _results(events)[1:]
    assert (timeout.is_error, timeout.error_kind, timeout.exit_code) == (True, "timeout", None)
    assert (denied.session_id, denied.call_id, denied.tool_name) == ("rxdemo#2", "tc-1", "read")
    assert (denied.is_error, denied.error_kind) == (True, "tool")
    assert denied.error_sig == "Error: ENOENT: no such file or directory, stat <str>"


def test_orphan_results_and_unknown_types_are_counted_not_emitted(read_log: ReadLog) -> None:
    events, stats = read_log(EVENTS, reasonix_v1)
    assert len(_results(events)) == 3
    assert "stray output" not in {e.text for e in events}
    assert stats.skipped == {"orphan-result": 1, "unknown-type": 1}
    assert stats.records == 21


def test_usage_is_normalized(read_log: ReadLog) -> None:
    events, _ = read_log(EVENTS, reasonix_v1)
    usage = [e.tokens for e in events if e.kind == "usage"]
    assert usage[0] == Tokens(in_=1000, out=40, cache_read=0)
    assert usage[1] == Tokens(in_=204, out=40, cache_read=896)
    assert len(usage) == 5


def test_restart_at_the_last_launch_reproduces_its_events(read_log: ReadLog) -> None:
    events, stats = read_log(EVENTS, reasonix_v1)
    assert stats.resume_seq == 0
    assert stats.resume_line == 13
    again, _ = read_log(EVENTS, reasonix_v1, after=stats)
    assert again == [e for e in events if e.session_id == "rxdemo#2"]
    again_no_line, _ = read_log(EVENTS, reasonix_v1, start_offset=stats.resume_offset)
    assert again_no_line == again


def test_growing_log_is_read_incrementally(read_log: ReadLog, tmp_path: Path) -> None:
    for name in ("rxdemo.jsonl", "rxdemo.meta.json"):
        shutil.copy(SESSIONS / name, tmp_path / name)
    full = EVENTS.read_bytes()
    cut = full.index(b'{"id":4,"ts":"2026-05-01T11:00:02.000Z"') + 20
    live = tmp_path / "rxdemo.events.jsonl"
    live.write_bytes(full[:cut])
    first, stats = read_log(live, reasonix_v1)
    assert stats.skipped["truncated-tail"] == 1
    live.write_bytes(full)
    rest, _ = read_log(live, reasonix_v1, after=stats)
    complete, _ = read_log(live, reasonix_v1)
    merged = {(e.session_id, e.seq): e for e in first + rest}
    assert sorted(merged.values(), key=lambda e: (e.session_id, e.seq)) == complete
    assert len(complete) == len(read_log(EVENTS, reasonix_v1)[0])


def test_describe_uses_meta_and_last_event() -> None:
    session = reasonix_v1.describe(EVENTS, now=NOW, idle_seconds=1e9)
    assert session.session_id == "rxdemo"
    assert session.cwd == "/work/demo"
    assert session.paths == (EVENTS, SESSIONS / "rxdemo.jsonl", SESSIONS / "rxdemo.meta.json")
    assert session.started == datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    assert session.ended == datetime(2026, 5, 1, 11, 0, 3, tzinfo=UTC)
    assert session.complete


def test_pending_intent_is_incomplete_until_idle(tmp_path: Path) -> None:
    lines = EVENTS.read_bytes().splitlines(keepends=True)
    live = tmp_path / "rxdemo.events.jsonl"
    live.write_bytes(b"".join(lines[:17]))  # ends with tool.intent tc-1 of launch 2
    mtime = datetime(2026, 5, 1, 11, 59, tzinfo=UTC).timestamp()
    os.utime(live, (mtime, mtime))
    assert not reasonix_v1.describe(live, now=NOW, idle_seconds=600).complete
    assert reasonix_v1.describe(live, now=NOW, idle_seconds=30).complete


def test_transcript_runs_are_sessions(read_log: ReadLog) -> None:
    events, stats = read_log(TRANSCRIPT, reasonix_v1)
    assert [e.session_id for e in events if e.kind == "meta" and e.text != "done"] == [
        "transcript#1",
        "transcript#2",
        "transcript#2",
    ]
    denied = _results(events)[0]
    assert (denied.tool_name, denied.call_id, denied.is_error, denied.error_kind) == (
        "list_directory",
        "t1",
        True,
        "tool",
    )
    assert denied.error_sig == "ERROR: Access denied - path outside allowed directories: <path> not in <path>"
    calls = [e for e in events if e.kind == "tool_call"]
    assert [(c.session_id, c.call_id, c.raw_ref.rsplit(":", 1)[1]) for c in calls] == [
        ("transcript#1", "t1", "4"),  # no tool_start: the result line stands for the call
        ("transcript#2", "t1", "10"),
    ]
    shell = _results(events)[1]
    assert (shell.tool_name, shell.exit_code, shell.is_error) == ("shell", 1, True)
    run_error = [e for e in events if e.is_error and e.role == "system"]
    assert [e.text for e in run_error] == ["Bad request (DeepSeek 400): context too long"]
    assert [e.tokens for e in events if e.tokens] == [
        Tokens(in_=244, out=20, cache_read=256),
        Tokens(in_=88, out=20, cache_read=512),
    ]
    assert not stats.skipped
    assert stats.resume_line == 6


def test_transcript_describe_complete_on_error_record() -> None:
    session = reasonix_v1.describe(TRANSCRIPT, now=NOW, idle_seconds=1e12)
    assert session.complete
    assert session.cwd is None
    assert session.started == datetime(2026, 4, 21, 13, 0, tzinfo=UTC)


def test_not_a_v1_log_raises() -> None:
    with pytest.raises(UnsupportedLogError, match="not a Reasonix v1"):
        list(reasonix_v1.read_session(LOGS / "bad" / "notes.md", stats=ReadStats()))
    assert not reasonix_v1.sniff(b"", LOGS / "bad" / "notes.md")


def test_events_out_of_order_keep_file_order(read_log: ReadLog) -> None:
    path = SESSIONS / "out-of-order.events.jsonl"
    events, stats = read_log(path, reasonix_v1)
    assert [(e.seq, e.kind) for e in events] == [
        (0, "meta"),
        (1, "text"),
        (2, "usage"),
        (3, "tool_call"),
    ]
    assert events[1].ts == datetime(2026, 5, 1, 10, 0, 5, tzinfo=UTC)
    assert events[3].ts == datetime(2026, 5, 1, 10, 0, 5, 500000, tzinfo=UTC)
    assert stats.skipped == {"orphan-result": 1}  # the result came before its intent
    assert {e.cwd for e in events} == {None}  # no .meta.json for this log
    assert not reasonix_v1.describe(path, now=NOW, idle_seconds=1e12).complete
