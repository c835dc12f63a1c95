from __future__ import annotations

import os
import struct
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reasonlessons.sessions.adapters import detect, reasonix_v2
from reasonlessons.sessions.errors import MissingDependencyError, UnsupportedLogError
from reasonlessons.sessions.events import Tokens
from tests.paths import RESOURCES
from tests.sessions.adapters import ReadLog
from tests.sessions.adapters.v2store import BATCHES, SESSION_ID, batch, make_store, message

LOGS = RESOURCES / "logs"
TRAJECTORY = LOGS / "reasonix-v2" / "run.trajectory.jsonl"
STREAM = LOGS / "reasonix-v2" / "print.stream-json.jsonl"
NOW = datetime(2026, 5, 6, tzinfo=UTC)
# Written by the real reasonix 1.38.11 (tests/resources/logs/README.md).
BINARY = LOGS / "reasonix-v2" / "binary-1.38.11"


def test_store_events_from_committed_batches(read_log: ReadLog, tmp_path: Path) -> None:
    session = make_store(tmp_path, b"".join(BATCHES))
    events, stats = read_log(session, reasonix_v2)
    summary = [(e.role, e.kind, e.tool_name, e.text) for e in events]
    assert summary == [
        ("system", "meta", None, "mock/m"),
        ("user", "text", None, "run it"),
        ("assistant", "text", None, "Running the tests."),
        ("assistant", "tool_call", "shell", None),
        ("tool", "tool_result", "shell", 'npm ERR! Missing script: "test"\n'),
        ("tool", "tool_result", "read", "ok"),
        ("system", "meta", None, "turn/end completed"),
    ]
    assert {e.session_id for e in events} == {SESSION_ID}
    assert events[1].cwd == "/work/demo"
    assert events[3].tool_args == {"command": "npm test"}
    failed = events[4]
    assert (failed.call_id, failed.is_error, failed.exit_code, failed.error_kind) == (
        "call_0",
        True,
        1,
        "exit",
    )
    assert failed.raw_ref == f"{session / 'events.frames'}#9"
    assert failed.ts == datetime(2026, 5, 5, 10, 0, 8, 123456, tzinfo=UTC)
    assert (events[5].call_id, events[5].is_error) == ("call_9", False)
    assert stats.skipped == {"unknown-type": 1}
    assert stats.last_offset == stats.resume_offset == len(b"".join(BATCHES))
    assert stats.resume_seq == len(events)


def test_uncommitted_batch_waits_for_its_end(read_log: ReadLog, tmp_path: Path) -> None:
    done = b"".join(BATCHES[:4])
    pending = batch(8, [("turn/end", {"status": "completed"})], end=False)
    session = make_store(tmp_path, done + pending)
    events, stats = read_log(session, reasonix_v2)
    assert [e.kind for e in events][-1] == "tool_call"
    assert stats.last_offset == stats.resume_offset == len(done)
    assert stats.skipped == {"uncommitted-batch": 1}

    (session / "events.frames").write_bytes(done + batch(8, [("turn/end", {"status": "completed"})]))
    rest, _ = read_log(session, reasonix_v2, start_offset=stats.resume_offset, start_seq=stats.resume_seq)
    assert [(e.seq, e.text) for e in rest] == [(len(events), "turn/end completed")]


def test_short_trailing_record_is_an_unfinished_write(read_log: ReadLog, tmp_path: Path) -> None:
    data = b"".join(BATCHES[:2])
    tail = batch(4, [message("user", origin="user", content="later")])
    for cut in (5, 12, 20):
        session = make_store(tmp_path / str(cut), data + tail[:cut])
        events, stats = read_log(session, reasonix_v2)
        assert len(events) == 1
        assert stats.skipped == {"truncated-tail": 1}
        assert stats.last_offset == len(data)


def test_wrong_magic_mid_file_stops_and_is_reported(read_log: ReadLog, tmp_path: Path) -> None:
    data = BATCHES[0] + b"XXXX" + BATCHES[1][4:] + BATCHES[2]
    events, stats = read_log(make_store(tmp_path, data), reasonix_v2)
    assert [e.text for e in events] == ["mock/m"]
    assert stats.skipped == {"corrupt-frame": 1}
    assert stats.last_offset == len(BATCHES[0])


def test_corrupt_record_drops_its_batch_only(read_log: ReadLog, tmp_path: Path) -> None:
    broken = bytearray(BATCHES[2])
    first_record_end = 12 + struct.unpack(">I", broken[4:8])[0]
    second_start = first_record_end + 12
    broken[second_start + 8 : second_start + 16] = b"\x00" * 8
    data = BATCHES[0] + bytes(broken) + BATCHES[3]
    events, stats = read_log(make_store(tmp_path, data), reasonix_v2)
    assert [e.text for e in events if e.role != "tool"][:2] == ["mock/m", "Running the tests."]
    assert stats.skipped == {"corrupt-frame": 1, "corrupt-batch": 1}


def test_hostile_lengths_never_allocate(read_log: ReadLog, tmp_path: Path) -> None:
    hostile = b"RX4F" + struct.pack(">II", 0xFFFFFFF0, 0xFFFFFFF0) + b"\x00" * 16
    events, stats = read_log(make_store(tmp_path, BATCHES[0] + hostile), reasonix_v2)
    assert len(events) == 1
    assert stats.skipped == {"truncated-tail": 1}


def test_missing_zstandard_is_a_clear_error(
    read_log: ReadLog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = make_store(tmp_path, b"".join(BATCHES))
    monkeypatch.setitem(sys.modules, "zstandard", None)
    assert detect(session) is reasonix_v2  # detection needs no zstd
    with pytest.raises(MissingDependencyError, match=r"zstandard package.*reinstall reasonlessons"):
        read_log(session, reasonix_v2)


def test_store_describe(tmp_path: Path) -> None:
    session = make_store(tmp_path / "a", b"".join(BATCHES))
    described = reasonix_v2.describe(session, now=NOW, idle_seconds=1e12)
    assert (described.session_id, described.cwd, described.complete) == (SESSION_ID, "/work/demo", True)
    assert described.started == datetime(2026, 5, 5, 10, 0, 0, 500000, tzinfo=UTC)
    assert described.paths == (session / "events.frames",)

    unfinished = make_store(tmp_path / "b", b"".join(BATCHES[:-1]))
    frames = unfinished / "events.frames"
    mtime = datetime(2026, 5, 5, 23, 59, tzinfo=UTC).timestamp()
    os.utime(frames, (mtime, mtime))
    assert not reasonix_v2.describe(unfinished, now=NOW, idle_seconds=3600).complete
    assert reasonix_v2.describe(unfinished, now=NOW, idle_seconds=30).complete
    torn = make_store(tmp_path / "c", b"".join(BATCHES) + BATCHES[0][:7])
    assert not reasonix_v2.describe(torn, now=datetime(2000, 1, 1, tzinfo=UTC), idle_seconds=1).complete


def test_trajectory_events(read_log: ReadLog) -> None:
    events, stats = read_log(TRAJECTORY, reasonix_v2)
    calls = [e for e in events if e.kind == "tool_call"]
    assert [(c.call_id, c.tool_name, c.tool_args) for c in calls] == [
        ("call_0", "shell", {"command": "npm test"}),
        ("call_1", "read", {"path": "package.json"}),
    ]
    failed, read = (e for e in events if e.kind == "tool_result")
    assert (failed.is_error, failed.exit_code, failed.error_kind) == (True, 1, "exit")
    assert failed.error_sig == "npm ERR! Missing script: <str>"
    assert (read.is_error, read.exit_code) == (False, None)
    assert [e.tokens for e in events if e.kind == "usage"] == [Tokens(in_=400, out=40, cache_read=600)]
    assert [e.text for e in events if e.role == "user"] == ["run the tests"]
    assert events[-1].text == "turn_completion"
    assert events[0].ts == datetime.fromtimestamp(1795288943.001, tz=UTC)
    assert {e.session_id for e in events} == {SESSION_ID}
    assert stats.skipped == {"unknown-type": 1}


def test_trajectory_describe(tmp_path: Path) -> None:
    assert reasonix_v2.describe(TRAJECTORY, now=NOW, idle_seconds=1e12).complete
    running = tmp_path / "run.trajectory.jsonl"
    running.write_bytes(b"".join(TRAJECTORY.read_bytes().splitlines(keepends=True)[:-2]))
    assert not reasonix_v2.describe(running, now=NOW, idle_seconds=1e12).complete
    no_newline = tmp_path / "cut.trajectory.jsonl"
    no_newline.write_bytes(TRAJECTORY.read_bytes().rstrip(b"\n"))
    assert not reasonix_v2.describe(no_newline, now=NOW, idle_seconds=1e12).complete


def test_stream_json_result_carries_tokens_when_no_usage_events(read_log: ReadLog) -> None:
    events, _ = read_log(STREAM, reasonix_v2)
    assert [(e.role, e.kind) for e in events] == [
        ("user", "text"),
        ("assistant", "text"),
        ("system", "meta"),
        ("system", "usage"),
    ]
    assert events[-1].tokens == Tokens(in_=1204, out=80, cache_read=896)
    assert events[-1].is_error is False
    assert reasonix_v2.describe(STREAM, now=NOW, idle_seconds=1e12).complete


def test_not_a_v2_log_raises(read_log: ReadLog) -> None:
    with pytest.raises(UnsupportedLogError, match="not a Reasonix v2 log"):
        read_log(LOGS / "bad" / "notes.md", reasonix_v2)


def test_store_resume_keeps_workspace_and_seq(read_log: ReadLog, tmp_path: Path) -> None:
    session = make_store(tmp_path, b"".join(BATCHES[:4]))
    first, stats = read_log(session, reasonix_v2)
    (session / "events.frames").write_bytes(b"".join(BATCHES))
    rest, _ = read_log(session, reasonix_v2, start_offset=stats.resume_offset, start_seq=stats.resume_seq)
    assert first + rest == read_log(session, reasonix_v2)[0]
    assert {e.cwd for e in rest} == {"/work/demo"}


@pytest.mark.parametrize(
    "log", [BINARY / "run.trajectory.jsonl", BINARY / "print.stream-json.jsonl", BINARY / "store"], ids=str
)
def test_a_failed_call_is_told_by_its_output_not_its_exit_status(read_log: ReadLog, log: Path) -> None:
    events, _ = read_log(log, reasonix_v2)
    (failed,) = [e for e in events if e.kind == "tool_result"]
    assert (failed.tool_name, failed.is_error, failed.exit_code, failed.error_kind) == (
        "shell",
        True,
        127,
        "exit",
    )
    assert "bash: vitest: command not found" in (failed.text or "")
    assert failed.error_sig == "bash: vitest: command not found"  # not Reasonix's `err: exit status 127`
    assert [e.tool_args for e in events if e.kind == "tool_call"] == [{"command": "vitest run"}]


def test_zstandard_is_a_dependency_not_an_extra() -> None:
    import tomllib

    project = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())["project"]
    assert any(dep.startswith("zstandard") for dep in project["dependencies"])
