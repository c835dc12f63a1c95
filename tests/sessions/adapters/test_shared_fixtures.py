"""Compatibility checks against the team's shared sample logs (skipped when they are absent)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from reasonlessons.sessions.adapters import Adapter, claude_code, codex, detect, reasonix_v1, reasonix_v2
from reasonlessons.sessions.events import Event, ReadStats, Tokens
from tests.paths import SHARED_FIXTURES
from tests.sessions.adapters import ReadLog

SHARED = SHARED_FIXTURES
LATER = datetime(2100, 1, 1, tzinfo=UTC)

pytestmark = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/fixtures is not available")

LOGS: dict[str, Adapter] = {
    "claude-code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl": claude_code,
    "claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl": claude_code,
    "claude-code/synthetic/edge_cases.jsonl": claude_code,
    "claude-code/synthetic/representative_messages.jsonl": claude_code,
    "codex/sample_codex_session.jsonl": codex,
    "codex/synthetic/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl": codex,
    "codex/synthetic/rollout-66666666-6666-4666-8666-666666666666.jsonl": codex,
    "reasonix-v1/sessions/code-rxwork.events.jsonl": reasonix_v1,
    "reasonix-v1/transcript.jsonl": reasonix_v1,
    "reasonix-v1/tau-bench-transcripts/mcp-demo.add.jsonl": reasonix_v1,
    "reasonix-v1/tau-bench-transcripts/mcp-filesystem.jsonl": reasonix_v1,
    "reasonix-v1/tau-bench-transcripts/mcp-multi-server.jsonl": reasonix_v1,
    "reasonix-v1/tau-bench-transcripts/t01_address_happy.reasonix.r1.jsonl": reasonix_v1,
    "reasonix-v2/print.stream-json.jsonl": reasonix_v2,
    "reasonix-v2/run.trajectory.jsonl": reasonix_v2,
    "reasonix-v2/session-v4": reasonix_v2,
    "reasonix-v2/session-v4/events.frames": reasonix_v2,
}


def _results(events: list[Event]) -> list[Event]:
    return [e for e in events if e.kind == "tool_result"]


def test_every_shared_file_is_detected_or_rejected() -> None:
    found = {}
    for path in sorted(SHARED.rglob("*")):
        if path.is_file() or (path / "events.frames").is_file():
            adapter = detect(path)
            if adapter is not None:
                found[str(path.relative_to(SHARED))] = adapter
                stats = ReadStats()
                assert list(adapter.read_session(path, stats=stats)), path
                adapter.describe(path, now=LATER, idle_seconds=1)
    # Not logs, or formats left out on purpose: sidecars, usage/stats rows, metrics, the redacted
    # --events-jsonl stream, memory/skill files, SWE-agent trajectories.
    assert found == LOGS


def test_reasonix_v1_event_log_has_two_launches_and_a_hidden_shell_failure(read_log: ReadLog) -> None:
    events, stats = read_log(SHARED / "reasonix-v1/sessions/code-rxwork.events.jsonl")
    assert sorted({e.session_id for e in events}) == ["code-rxwork#1", "code-rxwork#2"]
    npm = next(e for e in _results(events) if e.text and e.text.startswith("$ npm test"))
    assert (npm.is_error, npm.exit_code, npm.tool_name) == (True, 127, "shell")
    assert npm.error_sig == "sh: <n>: vitest: not found"
    assert npm.raw_ref.endswith("code-rxwork.events.jsonl:11")
    enoent = _results(events)[-1]
    assert (enoent.session_id, enoent.is_error, enoent.raw_ref.rsplit(":", 1)[1]) == (
        "code-rxwork#2",
        True,
        "19",
    )
    assert [e.text for e in events if e.role == "user"] == [
        "how do I run the tests in this repo?",
        "is there a vitest config?",
    ]
    assert {e.cwd for e in events} == {"/tmp/rxwork"}
    assert len([e for e in events if e.kind == "usage"]) == 5
    assert not stats.skipped


def test_reasonix_v1_usage_matches_usage_jsonl(read_log: ReadLog) -> None:
    events, _ = read_log(SHARED / "reasonix-v1/sessions/code-rxwork.events.jsonl")
    rows = [json.loads(line) for line in (SHARED / "reasonix-v1" / "usage.jsonl").read_text().splitlines()]
    expected = [
        Tokens(in_=r["cacheMissTokens"], out=r["completionTokens"], cache_read=r["cacheHitTokens"])
        for r in rows
    ]
    assert [e.tokens for e in events if e.kind == "usage"] == expected


def test_reasonix_v1_transcripts_segment_on_meta(read_log: ReadLog) -> None:
    expected_runs = {
        "reasonix-v1/transcript.jsonl": 1,
        "reasonix-v1/tau-bench-transcripts/mcp-filesystem.jsonl": 2,
        "reasonix-v1/tau-bench-transcripts/t01_address_happy.reasonix.r1.jsonl": 3,
    }
    for relative, runs in expected_runs.items():
        events, _ = read_log(SHARED / relative)
        assert len({e.session_id for e in events}) == runs, relative
    filesystem, _ = read_log(SHARED / "reasonix-v1/tau-bench-transcripts/mcp-filesystem.jsonl")
    denied = [e for e in _results(filesystem) if e.is_error]
    assert [(e.session_id, e.tool_name) for e in denied] == [
        ("mcp-filesystem#1", "list_directory"),
        ("mcp-filesystem#2", "list_directory"),
    ]
    assert denied[0].error_sig == denied[1].error_sig
    assert (
        denied[0].error_sig == "ERROR: Access denied - path outside allowed directories: <path> not in <path>"
    )
    t01, _ = read_log(SHARED / "reasonix-v1/tau-bench-transcripts/t01_address_happy.reasonix.r1.jsonl")
    run_errors = [e for e in t01 if e.role == "system" and e.is_error]
    assert [e.session_id for e in run_errors] == ["t01_address_happy.reasonix.r1#2"]
    assert run_errors[0].text is not None
    assert run_errors[0].text.startswith("Bad request (DeepSeek 400)")


def test_reasonix_v1_retry_after_error(read_log: ReadLog) -> None:
    events, _ = read_log(SHARED / "reasonix-v1/tau-bench-transcripts/mcp-multi-server.jsonl")
    writes = [e for e in _results(events) if e.tool_name == "fs_write_file"]
    assert [e.is_error for e in writes] == [True, False]


def test_reasonix_v2_trajectory_and_store_agree(read_log: ReadLog) -> None:
    trajectory, _ = read_log(SHARED / "reasonix-v2/run.trajectory.jsonl")
    store, stats = read_log(SHARED / "reasonix-v2/session-v4")
    for events in (trajectory, store):
        assert {e.session_id for e in events} == {"3315c223c8976a1b264553fc4d8513dd"}
        calls = [(e.call_id, e.tool_name, e.tool_args) for e in events if e.kind == "tool_call"]
        assert calls == [
            ("call_0", "read", {"path": "package.json"}),
            ("call_1", "shell", {"command": "npm test"}),
        ]
        read, bash = _results(events)
        assert (read.is_error, bash.is_error, bash.error_kind) == (False, True, "harness")
        assert bash.error_sig is not None
        assert bash.error_sig.startswith("shell sandbox requested but unavailable on this host")
        assert [e.text for e in events if e.role == "user"] == ["how do I run the tests in this repo?"]
    assert stats.records == 67
    assert {e.cwd for e in store[1:]} == {"/tmp/rxwork"}
    decoded = [json.loads(line) for line in (SHARED / "reasonix-v2/session-v4/events.decoded.jsonl").open()]
    assert decoded[-1]["kind"] == "turn/end"
    assert store[-1].raw_ref.endswith(f"events.frames#{decoded[-1]['seq']}")
    assert [e.tokens for e in trajectory if e.kind == "usage"] == [
        Tokens(in_=1000, out=40, cache_read=0),
        Tokens(in_=204, out=40, cache_read=896),
        Tokens(in_=304, out=40, cache_read=896),
    ]
    described = reasonix_v2.describe(SHARED / "reasonix-v2/session-v4", now=LATER, idle_seconds=1e12)
    assert (described.complete, described.cwd) == (True, "/tmp/rxwork")


def test_reasonix_v2_stream_json_tokens_add_up_to_the_result(read_log: ReadLog) -> None:
    events, _ = read_log(SHARED / "reasonix-v2/print.stream-json.jsonl")
    usage = [e.tokens for e in events if e.kind == "usage" and e.tokens]
    result = json.loads((SHARED / "reasonix-v2/print.stream-json.jsonl").read_text().splitlines()[-1])[
        "usage"
    ]
    assert sum(t.cache_read for t in usage) == result["cache_read_input_tokens"]
    assert sum(t.out for t in usage) == result["output_tokens"]
    assert sum(t.in_ + t.cache_read for t in usage) == result["input_tokens"]
    assert events[-1].kind == "meta"  # the result's total is not counted twice


def test_claude_code_real_transcript(read_log: ReadLog) -> None:
    events, stats = read_log(SHARED / "claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
    errors = [e for e in _results(events) if e.is_error]
    assert [(e.tool_name, e.error_kind, e.raw_ref.rsplit(":", 1)[1]) for e in errors] == [
        ("Task", "harness", "15"),
        ("shell", "exit", "33"),
        ("edit", "harness", "46"),
    ]
    assert errors[1].error_sig == "lsd: <n>: No such file or directory (os error <n>)."
    assert errors[2].error_sig == "File has not been read yet. Read it first before writing to it."
    grown = next(
        e for e in events if e.call_id == "msg_01QdKEzwwjhMrbE13LjZjnMA:req_011CStqNVgnpUWr5a1ihYAWa"
    )
    assert grown.tokens is not None
    assert grown.tokens.out == 263
    assert {e.session_id for e in events} == {"5c0375b4-57a5-4f26-b12d-d022ee4e51b7"}
    prompts = [e for e in events if e.role == "user"]
    assert len(prompts) == 3  # the slash command and the two inline subagent tasks; isMeta skipped
    assert not stats.skipped


def test_claude_code_permission_refusal_and_end_turn(read_log: ReadLog) -> None:
    events, _ = read_log(SHARED / "claude-code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    (refusal,) = [e for e in _results(events) if e.is_error]
    assert (refusal.tool_name, refusal.error_kind) == ("write", "permission")
    path = SHARED / "claude-code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    assert claude_code.describe(path, now=LATER, idle_seconds=1e12).complete


def test_claude_code_broken_synthetic_lines_are_skipped(read_log: ReadLog) -> None:
    events, stats = read_log(SHARED / "claude-code/synthetic/edge_cases.jsonl")
    assert stats.skipped == {"not-object": 3, "missing-field": 2}
    (failed,) = [e for e in _results(events) if e.is_error]
    assert failed.call_id == "tool_edge_001"
    assert events[-1].kind == "meta"  # the final summary line


def test_codex_synthetic_rollouts(read_log: ReadLog) -> None:
    events, stats = read_log(
        SHARED / "codex/synthetic/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
    )
    assert stats.skipped == {"unknown-type": 1}
    assert [e.text for e in events if e.role == "user"] == ["List the synthetic files."]
    calls = [(e.tool_name, e.tool_args) for e in events if e.kind == "tool_call"]
    assert calls[0] == (
        "shell",
        {"cmd": "find . -maxdepth 1 -type f", "command": "find . -maxdepth 1 -type f"},
    )
    assert [e.is_error for e in _results(events)] == [None, None, None]  # no exit codes in these files
    _, malformed = read_log(SHARED / "codex/synthetic/rollout-66666666-6666-4666-8666-666666666666.jsonl")
    assert malformed.skipped == {"not-json": 1}
