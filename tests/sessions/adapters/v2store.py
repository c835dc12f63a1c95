"""Reasonix v2 sessions-v4 stores built in a test: RX4F frames, batches of events, and a store folder.

Shared by test_reasonix_v2 and test_fuzz (which imports it lazily: it needs zstandard)."""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path
from typing import Any

import zstandard

SESSION_ID = "0123456789abcdef0123456789abcdef"
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
