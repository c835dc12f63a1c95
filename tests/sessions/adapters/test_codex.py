from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reasonlessons.sessions.adapters import Adapter, codex
from reasonlessons.sessions.errors import UnsupportedLogError
from reasonlessons.sessions.events import Event, ReadStats, Tokens
from tests.paths import RESOURCES
from tests.sessions.adapters import ReadLog

LOGS = RESOURCES / "logs"
ROLLOUT = LOGS / "codex" / "rollout-2026-05-03T08-00-00-33333333-4444-4555-8666-777777777777.jsonl"
LEGACY = LOGS / "codex" / "rollout-2025-07-01T10-00-00-44444444-5555-4666-8777-888888888888.jsonl"
NOW = datetime(2026, 5, 3, 9, 0, tzinfo=UTC)


def _results(events: list[Event]) -> dict[str | None, Event]:
    return {e.call_id: e for e in events if e.kind == "tool_result"}


def test_prompt_and_answer_are_emitted_once_without_boilerplate(read_log: ReadLog) -> None:
    events, stats = read_log(ROLLOUT, codex)
    assert [(e.role, e.text) for e in events if e.kind == "text"] == [
        ("user", "run the tests"),
        ("assistant", "The test script is missing; add one to package.json."),
    ]
    assert {e.session_id for e in events} == {"33333333-4444-4555-8666-777777777777"}
    assert {e.cwd for e in events} == {"/work/demo"}
    assert not stats.skipped


def test_exit_code_header_marks_a_failed_shell_call(read_log: ReadLog) -> None:
    events, _ = read_log(ROLLOUT, codex)
    call = next(e for e in events if e.call_id == "call_shell_1" and e.kind == "tool_call")
    assert (call.tool_name, call.tool_args) == (
        "shell",
        {"command": "npm test", "workdir": "/work/demo", "timeout_ms": 120000},
    )
    result = _results(read_log(ROLLOUT, codex)[0])["call_shell_1"]
    assert (result.is_error, result.exit_code, result.error_kind) == (True, 1, "exit")
    assert result.error_sig == "npm ERR! Missing script: <str>"


def test_failure_derivation_order(read_log: ReadLog) -> None:
    results = _results(read_log(ROLLOUT, codex)[0])
    exited = results["call_exec_1"]
    assert (exited.tool_name, exited.is_error, exited.exit_code) == ("shell", True, 2)
    assert exited.error_sig == "E ModuleNotFoundError: No module named <str>"
    metadata = results["call_shell_2"]
    assert (metadata.is_error, metadata.exit_code, metadata.text) == (False, 0, "total 0\n")
    from_event = results["call_exec_2"]
    assert (from_event.is_error, from_event.exit_code) == (True, 2)
    assert from_event.error_sig == "make: *** No rule to make target <str>. Stop."
    running = results["call_exec_3"]
    assert (running.is_error, running.exit_code) == (None, None)
    patch = results["call_patch_1"]
    assert (patch.tool_name, patch.is_error, patch.exit_code) == ("edit", True, None)
    mcp = results["call_mcp_1"]
    assert (mcp.tool_name, mcp.is_error) == ("mcp__docs__search", None)
    orphan = results["call_unknown"]
    assert (orphan.tool_name, orphan.text) == (None, "output without a call")


def test_token_count_is_a_cumulative_snapshot(read_log: ReadLog) -> None:
    usage = [e for e in read_log(ROLLOUT, codex)[0] if e.kind == "usage"]
    assert [(u.call_id, u.tokens) for u in usage] == [
        ("total", Tokens(in_=200, out=50, cache_read=1000)),
        ("total", Tokens(in_=600, out=130, cache_read=2000)),
    ]


def test_describe_complete_after_task_complete(tmp_path: Path) -> None:
    session = codex.describe(ROLLOUT, now=NOW, idle_seconds=1e12)
    assert (session.session_id, session.cwd, session.complete) == (
        "33333333-4444-4555-8666-777777777777",
        "/work/demo",
        True,
    )
    assert session.started == datetime(2026, 5, 3, 8, 0, tzinfo=UTC)
    assert session.ended == datetime(2026, 5, 3, 8, 0, 21, tzinfo=UTC)
    unfinished = tmp_path / ROLLOUT.name
    unfinished.write_bytes(b"".join(ROLLOUT.read_bytes().splitlines(keepends=True)[:-1]))
    mtime = datetime(2026, 5, 3, 8, 59, tzinfo=UTC).timestamp()
    os.utime(unfinished, (mtime, mtime))
    assert not codex.describe(unfinished, now=NOW, idle_seconds=600).complete
    assert codex.describe(unfinished, now=NOW, idle_seconds=30).complete


def test_legacy_bare_rollout(read_log: ReadLog) -> None:
    events, stats = read_log(LEGACY, codex)
    assert {e.session_id for e in events} == {"44444444-5555-4666-8777-888888888888"}
    assert {e.cwd for e in events} == {"/work/demo/sub"}
    assert all(e.ts is None for e in events)
    assert [e.text for e in events if e.role == "user"] == ["build it"]
    call, result = (e for e in events if e.call_id == "call_legacy_1")
    assert call.tool_args == {"command": "cargo build"}
    assert (result.is_error, result.exit_code) == (True, 101)
    assert result.error_sig == "error: could not find <str> in <str>"
    assert not stats.skipped
    assert codex.describe(LEGACY, now=NOW, idle_seconds=1e12).session_id == (
        "44444444-5555-4666-8777-888888888888"
    )


def test_rollout_read_incrementally_equals_full_read(read_log: ReadLog, tmp_path: Path) -> None:
    full = ROLLOUT.read_bytes()
    live = tmp_path / ROLLOUT.name
    live.write_bytes(full[: full.index(b'"exec_command_end"') + 5])
    first, stats = read_log(live, codex)
    assert stats.skipped == {"truncated-tail": 1}
    live.write_bytes(full)
    rest, _ = read_log(live, codex, after=stats)
    assert stats.resume_offset < stats.last_offset  # a call was waiting for its output
    merged = {(e.session_id, e.seq): e for e in first + rest}
    assert list(merged.values()) == read_log(live, codex)[0]


def test_not_a_rollout_raises() -> None:
    with pytest.raises(UnsupportedLogError, match="not a Codex rollout"):
        list(codex.read_session(LOGS / "claude-code" / "split-usage.jsonl", stats=ReadStats()))


@pytest.mark.parametrize("source", [ROLLOUT, LEGACY])
def test_any_cut_then_resume_gives_the_full_read(
    check_cut_then_resume: Callable[[Adapter, Path], None], source: Path
) -> None:
    check_cut_then_resume(codex, source)


def test_unified_exec_polls_are_folded_into_the_command(read_log: ReadLog) -> None:
    rollout = (
        RESOURCES
        / "capture"
        / "codex"
        / "rollout-2026-05-07T08-00-00-bbbb3333-0000-4000-8000-000000000003.jsonl"
    )
    events, _ = read_log(rollout, codex)
    assert not [e for e in events if e.tool_name == "write_stdin"]
    first = [e for e in events if e.kind == "tool_result" and e.call_id == "c1"]
    assert [(r.is_error, r.exit_code) for r in first] == [(None, None), (True, 1)]
    assert first[1].text is not None
    assert "go mod tidy" in first[1].text
    assert first[1].error_sig == "go: updates to go.mod needed; to update it:"
    second = [e for e in events if e.kind == "tool_result" and e.call_id == "c5"]
    assert [(r.is_error, r.exit_code) for r in second] == [(None, None), (False, 0)]
