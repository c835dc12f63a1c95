from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reasonlessons.sessions.adapters import Adapter, claude_code
from reasonlessons.sessions.errors import UnsupportedLogError
from reasonlessons.sessions.events import ReadStats, Tokens
from tests.paths import RESOURCES
from tests.sessions.adapters import ReadLog

LOGS = RESOURCES / "logs"
SPLIT = LOGS / "claude-code" / "split-usage.jsonl"
ERRORS = LOGS / "claude-code" / "errors.jsonl"
DAMAGED = LOGS / "bad" / "damaged.jsonl"
NOW = datetime(2026, 5, 5, tzinfo=UTC)


def test_response_split_over_three_lines_counts_usage_once_with_max_output(read_log: ReadLog) -> None:
    events, _ = read_log(SPLIT, claude_code)
    usage = [e for e in events if e.kind == "usage"]
    assert [(u.call_id, u.tokens) for u in usage] == [
        ("msg_A:req_A", Tokens(in_=4, out=263, cache_read=2000, cache_write=1000)),
        ("msg_B:req_B", Tokens(in_=4, out=12, cache_read=2000, cache_write=1000)),
    ]
    assert usage[0].ts == datetime(2026, 5, 2, 9, 0, 3, tzinfo=UTC)


def test_text_calls_and_results_in_file_order(read_log: ReadLog) -> None:
    events, stats = read_log(SPLIT, claude_code)
    kinds = [(e.role, e.kind, e.tool_name) for e in events if e.kind != "usage"]
    assert kinds == [
        ("user", "text", None),
        ("assistant", "text", None),
        ("assistant", "tool_call", "shell"),
        ("assistant", "tool_call", "read"),
        ("tool", "tool_result", "shell"),
        ("tool", "tool_result", "read"),
        ("tool", "tool_result", None),
        ("assistant", "text", None),
        ("system", "meta", None),
    ]
    assert [e.seq for e in events] == list(range(len(events)))
    assert {e.session_id for e in events} == {"11111111-2222-4333-8444-555555555555"}
    assert not any("Caveat" in (e.text or "") for e in events)  # isMeta lines are skipped
    assert not stats.skipped


def test_bash_failure_is_an_exit_error(read_log: ReadLog) -> None:
    events, _ = read_log(SPLIT, claude_code)
    call = next(e for e in events if e.kind == "tool_call")
    assert call.tool_args == {"command": "npm test", "description": "Run tests"}
    assert call.call_id == "toolu_1"
    failed, read, orphan = [e for e in events if e.kind == "tool_result"]
    assert (failed.call_id, failed.is_error, failed.error_kind, failed.exit_code) == (
        "toolu_1",
        True,
        "exit",
        1,
    )
    assert failed.error_sig == "npm ERR! Missing script: <str>"
    assert (read.is_error, read.error_kind, read.text) == (False, None, '     1→{"name": "demo"}')
    assert (orphan.call_id, orphan.tool_name, orphan.text) == (
        "toolu_9",
        None,
        "result of a call we never saw",
    )


def test_error_sub_classification_and_sidechains(read_log: ReadLog) -> None:
    events, _ = read_log(ERRORS, claude_code)
    results = {e.call_id: e for e in events if e.kind == "tool_result"}
    assert results["toolu_10"].error_kind == "permission"
    assert results["toolu_10"].tool_name == "write"
    assert results["toolu_10"].error_sig == (
        "Claude requested permissions to write to <path>, but you haven't granted it yet."
    )
    assert results["toolu_11"].error_kind == "harness"
    assert results["toolu_11"].tool_name == "edit"
    assert results["toolu_13"].error_kind == "tool"  # inside the subagent
    assert results["toolu_12"].is_error is False
    assert {e.session_id for e in events} == {"22222222-3333-4444-8555-666666666666"}
    prompts = [e.text for e in events if e.role == "user"]
    assert prompts == ["write CLAUDE.md", "look around", "now fix it"]


def test_describe_complete_only_after_end_turn() -> None:
    done = claude_code.describe(SPLIT, now=NOW, idle_seconds=1e12)
    assert done.complete
    assert (done.session_id, done.cwd) == ("11111111-2222-4333-8444-555555555555", "/work/demo")
    assert done.started == datetime(2026, 5, 2, 9, 0, 1, tzinfo=UTC)
    assert done.ended == datetime(2026, 5, 2, 9, 0, 9, tzinfo=UTC)
    # The sidechain ends with end_turn, but the main thread's last record is a new prompt.
    assert not claude_code.describe(ERRORS, now=NOW, idle_seconds=1e12).complete


def test_describe_idle_file_is_complete(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copy(ERRORS, path)
    mtime = datetime(2026, 5, 4, tzinfo=UTC).timestamp()
    os.utime(path, (mtime, mtime))
    assert claude_code.describe(path, now=NOW, idle_seconds=3600).complete


def test_describe_lists_subagent_files(tmp_path: Path) -> None:
    path = tmp_path / "abc.jsonl"
    shutil.copy(SPLIT, path)
    nested = tmp_path / "abc" / "subagents"
    nested.mkdir(parents=True)
    (nested / "agent-1.jsonl").write_text("{}\n")
    assert claude_code.describe(path, now=NOW, idle_seconds=1).paths == (path, nested / "agent-1.jsonl")


def test_damaged_transcript_is_read_around_the_damage(read_log: ReadLog) -> None:
    events, stats = read_log(DAMAGED, claude_code)
    assert [e.text for e in events] == ["first prompt", "second prompt"]
    assert stats.skipped == {
        "not-json": 1,
        "invalid-utf8": 1,
        "not-object": 1,
        "unknown-type": 1,
        "truncated-tail": 1,
    }


def test_live_transcript_tail_is_read_on_the_next_call(read_log: ReadLog, tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    shutil.copy(DAMAGED, path)
    first, stats = read_log(path, claude_code)
    with path.open("ab") as handle:
        handle.write(b'tten"}], "usage": {"input_tokens": 1, "output_tokens": 2}}}\n')
    rest, again = read_log(path, claude_code, after=stats)
    assert [(e.seq, e.kind, e.text) for e in rest] == [(2, "text", "half written"), (3, "usage", None)]
    assert rest[0].raw_ref == f"{path}:8"
    assert not again.skipped
    assert len(first) == 2


def test_not_a_transcript_raises() -> None:
    with pytest.raises(UnsupportedLogError, match="not a Claude Code transcript"):
        list(claude_code.read_session(LOGS / "bad" / "not-a-log.png", stats=ReadStats()))


@pytest.mark.parametrize("source", [SPLIT, ERRORS])
def test_any_cut_then_resume_gives_the_full_read(
    check_cut_then_resume: Callable[[Adapter, Path], None], source: Path
) -> None:
    check_cut_then_resume(claude_code, source)


WORKFLOW = RESOURCES / "capture" / "claude-code"


def _calls(events: list) -> list[tuple[str | None, str]]:  # type: ignore[type-arg]
    return [(e.tool_name, e.raw_ref.rsplit("/", 1)[-1]) for e in events if e.kind == "tool_call"]


def test_a_subagent_file_under_subagents_is_read_where_its_task_result_names_it(read_log: ReadLog) -> None:
    events, _ = read_log(WORKFLOW / "elixir-setup.jsonl", claude_code)
    refused = [e for e in events if e.kind == "tool_result" and e.is_error and e.tool_name == "read"]
    assert [e.raw_ref.rsplit("/", 1)[-1] for e in refused] == ["agent-f00d1.jsonl:3"]
    assert {e.session_id for e in events} == {"aaaa2222-0000-4000-8000-000000000002"}
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs)
    assert len(set(seqs)) == len(seqs)
    # The prompt the parent agent gave the subagent is no user message (no correction, no prompt).
    prompts = [e for e in events if e.role == "user" and "orders are stored" in (e.text or "")]
    assert [e.kind for e in prompts] == ["meta"]


def test_a_sibling_subagent_file_and_inline_sidechain_lines_belong_to_the_session(read_log: ReadLog) -> None:
    events, _ = read_log(WORKFLOW / "python-setup.jsonl", claude_code)
    assert ("read", "agent-c0de3.jsonl:2") in _calls(events)
    web, _ = read_log(WORKFLOW / "web-workdir.jsonl", claude_code)
    refused = [e for e in web if e.kind == "tool_result" and e.is_error and e.tool_name == "write"]
    assert len(refused) == 1
    assert refused[0].error_kind == "harness"


def test_subagent_messages_relayed_as_progress_records_are_read(read_log: ReadLog) -> None:
    events, _ = read_log(WORKFLOW / "web-workdir.jsonl", claude_code)
    relayed = [e for e in events if e.tool_name == "Grep"]
    assert [e.kind for e in relayed] == ["tool_call", "tool_result"]
    assert relayed[0].call_id == relayed[1].call_id


def test_a_background_command_gets_its_outcome_when_it_is_polled(read_log: ReadLog) -> None:
    events, _ = read_log(WORKFLOW / "web-workdir.jsonl", claude_code)
    call = next(
        e for e in events if e.kind == "tool_call" and (e.tool_args or {}).get("command") == "npm test"
    )
    results = [e for e in events if e.kind == "tool_result" and e.call_id == call.call_id]
    assert [(r.is_error, r.exit_code) for r in results] == [(None, None), (False, 0)]
    assert "Tests  9 passed" in (results[1].text or "")
    assert not [e for e in events if e.tool_name == "BashOutput"]  # the poll is folded into the command
