from __future__ import annotations

import base64
import json
import os
import struct
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import zstandard

from reasonlessons.sessions.adapters import detect, reasonix_v2
from reasonlessons.sessions.errors import MissingDependencyError, UnsupportedLogError
from reasonlessons.sessions.events import Event, ReadStats, Tokens
from tests.paths import RESOURCES

LOGS = RESOURCES / "logs"
TRAJECTORY = LOGS / "reasonix-v2" / "run.trajectory.jsonl"
STREAM = LOGS / "reasonix-v2" / "print.stream-json.jsonl"
SESSION_ID = "0123456789abcdef0123456789abcdef"
NOW = datetime(2026, 5, 6, tzinfo=UTC)
CONTEXT = '<session-context version="1">\n## Workspace\n\nCurrent workspace: "/work/demo"\n</session-context>'


def frame(record: dict[str, Any]) -> bytes:
    """One RX4F record: magic, compressed and decoded lengths, a checksummed zstd frame."""
    raw = json.dumps(record).encode()
    packed = zstandard.ZstdCompressor(write_checksum=True).compress(raw)
    return b"RX4F" + struct.pack(">II", len(packed), len(raw)) + packed


def batch(first_seq: int, events: list[tuple[str, dict[str, Any]]], *, end: bool = True) -> bytes:
    """A batch of events, committed (with `batch/end`) unless `end` is false."""
    head = {
        "schemaVersion": 4,
        "codec": "reasonix.session.linear/v4",
        "recordType": "batch/begin",
        "commitId": f"{first_seq:032x}",
        "firstSeq": first_seq,
        "eventCount": len(events),
        "createdAt": f"2026-05-05T10:00:{first_seq:02d}.123456789Z",
    }
    records = [head]
    for offset, (kind, payload) in enumerate(events):
        encoded = base64.b64encode(json.dumps(payload).encode()).decode()
        event = {
            "id": f"{first_seq + offset:032x}",
            "seq": first_seq + offset,
            "kind": kind,
            "payload": encoded,
        }
        records.append({"recordType": "batch/event", "createdAt": "0001-01-01T00:00:00Z", "event": event})
    if end:
        records.append({"recordType": "batch/end", "firstSeq": first_seq, "eventCount": len(events)})
    return b"".join(frame(record) for record in records)


def message(role: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return "message/complete", {"message": {"role": role, "id": f"m-{role}", **fields}}


BATCHES = [
    batch(1, [message("system", content="You are Reasonix."), ("session/config", {"modelRef": "mock/m"})]),
    batch(3, [("turn/start", {"status": "in_progress"})]),
    batch(
        4, [message("user", origin="host", content=CONTEXT), message("user", origin="user", content="run it")]
    ),
    batch(
        6,
        [
            message(
                "assistant",
                content="Running the tests.",
                tool_calls=[{"id": "call_0", "name": "bash", "arguments": '{"command": "npm test"}'}],
            ),
            ("tool/call", {"id": "call_0", "name": "bash", "partial": True}),
        ],
    ),
    batch(
        8,
        [
            message("tool", tool_call_id="call_0", name="bash", content="npm ERR!", tool_run_state="failed"),
            (
                "tool/result",
                {
                    "id": "call_0",
                    "name": "bash",
                    "output": 'npm ERR! Missing script: "test"\n',
                    "error": "",
                    "runState": "failed",
                    "execution": {"kind": "shell", "state": "exited", "exitCode": 1},
                },
            ),
        ],
    ),
    batch(
        10,
        [message("tool", tool_call_id="call_9", name="read_file", content="ok", tool_run_state="completed")],
    ),
    batch(11, [("turn/end", {"status": "completed"}), ("brand/new", {})]),
]


def make_store(root: Path, data: bytes) -> Path:
    session = root / SESSION_ID
    session.mkdir(parents=True, exist_ok=True)
    manifest = {"schemaVersion": 4, "codec": "reasonix.session.linear/v4", "sessionId": SESSION_ID}
    manifest["createdAt"] = "2026-05-05T10:00:00.5Z"
    (session / "manifest.json").write_text(json.dumps(manifest))
    (session / "events.frames").write_bytes(data)
    return session


def _read(path: Path, **kwargs: int) -> tuple[list[Event], ReadStats]:
    stats = ReadStats()
    return list(reasonix_v2.read_session(path, stats=stats, **kwargs)), stats


def test_store_events_from_committed_batches(tmp_path: Path) -> None:
    session = make_store(tmp_path, b"".join(BATCHES))
    events, stats = _read(session)
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


def test_uncommitted_batch_waits_for_its_end(tmp_path: Path) -> None:
    done = b"".join(BATCHES[:4])
    pending = batch(8, [("turn/end", {"status": "completed"})], end=False)
    session = make_store(tmp_path, done + pending)
    events, stats = _read(session)
    assert [e.kind for e in events][-1] == "tool_call"
    assert stats.last_offset == stats.resume_offset == len(done)
    assert stats.skipped == {"uncommitted-batch": 1}

    (session / "events.frames").write_bytes(done + batch(8, [("turn/end", {"status": "completed"})]))
    rest, _ = _read(session, start_offset=stats.resume_offset, start_seq=stats.resume_seq)
    assert [(e.seq, e.text) for e in rest] == [(len(events), "turn/end completed")]


def test_short_trailing_record_is_an_unfinished_write(tmp_path: Path) -> None:
    data = b"".join(BATCHES[:2])
    tail = batch(4, [message("user", origin="user", content="later")])
    for cut in (5, 12, 20):
        session = make_store(tmp_path / str(cut), data + tail[:cut])
        events, stats = _read(session)
        assert len(events) == 1
        assert stats.skipped == {"truncated-tail": 1}
        assert stats.last_offset == len(data)


def test_wrong_magic_mid_file_stops_and_is_reported(tmp_path: Path) -> None:
    data = BATCHES[0] + b"XXXX" + BATCHES[1][4:] + BATCHES[2]
    events, stats = _read(make_store(tmp_path, data))
    assert [e.text for e in events] == ["mock/m"]
    assert stats.skipped == {"corrupt-frame": 1}
    assert stats.last_offset == len(BATCHES[0])


def test_corrupt_record_drops_its_batch_only(tmp_path: Path) -> None:
    broken = bytearray(BATCHES[2])
    first_record_end = 12 + struct.unpack(">I", broken[4:8])[0]
    second_start = first_record_end + 12
    broken[second_start + 8 : second_start + 16] = b"\x00" * 8
    data = BATCHES[0] + bytes(broken) + BATCHES[3]
    events, stats = _read(make_store(tmp_path, data))
    assert [e.text for e in events if e.role != "tool"][:2] == ["mock/m", "Running the tests."]
    assert stats.skipped == {"corrupt-frame": 1, "corrupt-batch": 1}


def test_hostile_lengths_never_allocate(tmp_path: Path) -> None:
    hostile = b"RX4F" + struct.pack(">II", 0xFFFFFFF0, 0xFFFFFFF0) + b"\x00" * 16
    events, stats = _read(make_store(tmp_path, BATCHES[0] + hostile))
    assert len(events) == 1
    assert stats.skipped == {"truncated-tail": 1}


def test_missing_zstandard_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = make_store(tmp_path, b"".join(BATCHES))
    monkeypatch.setitem(sys.modules, "zstandard", None)
    assert detect(session) is reasonix_v2  # detection needs no zstd
    with pytest.raises(MissingDependencyError, match=r"reasonlessons\[zstd\]"):
        _read(session)


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


def test_trajectory_events() -> None:
    events, stats = _read(TRAJECTORY)
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


def test_stream_json_result_carries_tokens_when_no_usage_events() -> None:
    events, _ = _read(STREAM)
    assert [(e.role, e.kind) for e in events] == [
        ("user", "text"),
        ("assistant", "text"),
        ("system", "meta"),
        ("system", "usage"),
    ]
    assert events[-1].tokens == Tokens(in_=1204, out=80, cache_read=896)
    assert events[-1].is_error is False
    assert reasonix_v2.describe(STREAM, now=NOW, idle_seconds=1e12).complete


def test_not_a_v2_log_raises() -> None:
    with pytest.raises(UnsupportedLogError, match="not a Reasonix v2 log"):
        _read(LOGS / "bad" / "notes.md")


def test_store_resume_keeps_workspace_and_seq(tmp_path: Path) -> None:
    session = make_store(tmp_path, b"".join(BATCHES[:4]))
    first, stats = _read(session)
    (session / "events.frames").write_bytes(b"".join(BATCHES))
    rest, _ = _read(session, start_offset=stats.resume_offset, start_seq=stats.resume_seq)
    assert first + rest == _read(session)[0]
    assert {e.cwd for e in rest} == {"/work/demo"}
