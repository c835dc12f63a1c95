"""Reasonix v2 sessions-v4 stores: `events.frames`, RX4F + zstd records (docs/log-formats.md).

Only events of committed batches (a `batch/end` was read) are emitted; the resume offset is the
end of the last committed batch. `zstandard` (a dependency) is imported when a store is read; an
install without it raises MissingDependencyError, so the caller skips the session and says why.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reasonlessons.sessions.adapters._common import Emitter, dict_field, str_field
from reasonlessons.sessions.errors import MissingDependencyError
from reasonlessons.sessions.errorsig import specific_error
from reasonlessons.sessions.events import ErrorKind, Event, ReadStats, Session
from reasonlessons.sessions.jsonl import is_idle, parse_line
from reasonlessons.sessions.normalize import parse_ts, tool_args, tool_name
from reasonlessons.support import jsonio

AGENT = "reasonix-v2"
MAGIC = b"RX4F"
FRAMES = "events.frames"
MAX_RECORD = 64 * 1024 * 1024
_HEADER = struct.Struct(">4sII")
_WORKSPACE = re.compile(r'Current workspace: "([^"\n]+)"')
# Enough to hold the last batch (a turn/end batch has one event), and the session-context message.
_TAIL_RECORDS = 32
_HEAD_RECORDS = 40
_IGNORED = frozenset({"turn/start", "assistant/attempt", "tool/call", "tool/start"})

Decoder = Callable[[bytes, int], bytes | None]


def is_store(head: bytes, path: Path) -> bool:
    """True for an `events.frames` file or a session directory holding one."""
    return head.startswith(MAGIC) or (path.is_dir() and (path / FRAMES).is_file())


def _paths(path: Path) -> tuple[Path, Path]:
    return (path / FRAMES, path) if path.is_dir() else (path, path.parent)


def _decoder() -> Decoder:
    try:
        import zstandard
    except ImportError as exc:
        raise MissingDependencyError(
            "reading Reasonix v2 sessions-v4 stores needs the zstandard package, a dependency of "
            "reasonlessons that is missing here: reinstall reasonlessons (skipping this session)"
        ) from exc
    context = zstandard.ZstdDecompressor()

    def decode(data: bytes, size: int) -> bytes | None:
        # Bounded reads: a hostile frame header cannot make us allocate more than `size`.
        chunks, total = [], 0
        try:
            reader = context.stream_reader(data)
            while total <= size and (chunk := reader.read(min(1 << 20, size + 1 - total))):
                chunks.append(chunk)
                total += len(chunk)
        except zstandard.ZstdError:
            return None
        return b"".join(chunks) if total == size else None

    return decode


def iter_records(
    frames: Path, *, stats: ReadStats, start_offset: int = 0
) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Yield (end offset, decoded record or None if corrupt) from `start_offset`.

    Stops at a short trailing record (still being written) and at a wrong magic (corruption).
    """
    decode = _decoder()
    with frames.open("rb") as handle:
        handle.seek(start_offset)
        offset = start_offset
        while header := handle.read(_HEADER.size):
            if len(header) < _HEADER.size:
                stats.skip("truncated-tail")
                return
            magic, length, size = _HEADER.unpack(header)
            if magic != MAGIC:
                stats.skip("corrupt-frame")
                return
            if length > MAX_RECORD or size > MAX_RECORD:
                handle.seek(length, 1)
                if handle.tell() > frames.stat().st_size:
                    stats.skip("truncated-tail")
                    return
                stats.skip("oversized-line")
                offset += _HEADER.size + length
                yield offset, None
                continue
            data = handle.read(length)
            if len(data) < length:
                stats.skip("truncated-tail")
                return
            offset += _HEADER.size + length
            raw = decode(data, size)
            record = parse_line(raw)[0] if raw is not None else None
            if record is None:
                stats.skip("corrupt-frame")
            yield offset, record


def read(path: Path, *, stats: ReadStats, start_offset: int = 0, start_seq: int = 0) -> Iterator[Event]:
    """Stream the events of the committed batches of a sessions-v4 store."""
    frames, session_dir = _paths(path)
    out = Emitter(AGENT, frames, stats, seq=start_seq)
    out.session_id = str(_manifest(session_dir).get("sessionId") or session_dir.name)
    if start_offset:
        out.cwd = _workspace(frames, _spans(frames, limit=_HEAD_RECORDS)[0])
    stats.last_offset = start_offset
    stats.checkpoint(start_offset, start_seq, 1)
    batch: list[dict[str, Any]] | None = None
    batch_ts: datetime | None = None
    broken = False
    for end, record in iter_records(frames, stats=stats, start_offset=start_offset):
        kind = str_field(record, "recordType") if record is not None else None
        if record is None:
            broken = True
            continue
        stats.records += 1
        if kind == "batch/begin":
            if batch is not None:
                stats.skip("uncommitted-batch")
            batch, batch_ts, broken = [], parse_ts(record.get("createdAt")), False
        elif kind == "batch/event" and batch is not None:
            batch.append(dict_field(record, "event"))
        elif kind == "batch/end" and batch is not None:
            if broken:
                stats.skip("corrupt-batch")
            else:
                yield from _batch(out, frames, batch, batch_ts)
            batch = None
            stats.last_offset = end
            stats.checkpoint(end, out.seq, 1)
        else:
            stats.skip("unknown-type" if kind not in ("batch/event", "batch/end") else "orphan-event")
    if batch is not None:
        stats.skip("uncommitted-batch")


def _payload(event: dict[str, Any]) -> dict[str, Any] | None:
    encoded = event.get("payload")
    if not isinstance(encoded, str):
        return None
    try:
        decoded = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return parse_line(decoded)[0]


def _batch(out: Emitter, frames: Path, batch: list[dict[str, Any]], ts: datetime | None) -> Iterator[Event]:
    decoded = [(event, _payload(event)) for event in batch]
    results = {str_field(p, "id") for e, p in decoded if p is not None and e.get("kind") == "tool/result"}
    for event, payload in decoded:
        kind, ref = str_field(event, "kind"), f"{frames}#{event.get('seq')}"
        if payload is None:
            out.stats.skip("bad-payload")
        elif kind == "message/complete":
            yield from _message(out, ref, ts, dict_field(payload, "message"), results)
        elif kind == "tool/result":
            failed = payload.get("runState") == "failed" or bool(str_field(payload, "error"))
            yield tool_result(out, ref, ts, payload, failed=failed)
        elif kind == "turn/end":
            yield out.emit(ref, "system", "meta", ts=ts, text=f"turn/end {payload.get('status', '')}")
        elif kind == "session/config":
            yield out.emit(ref, "system", "meta", ts=ts, text=str_field(payload, "modelRef"))
        elif kind == "model/context-replace":
            yield out.emit(ref, "system", "meta", ts=ts, text="context-replace")
        elif kind not in _IGNORED:
            out.stats.skip("unknown-type")


def _message(
    out: Emitter, ref: str, ts: datetime | None, message: dict[str, Any], results: set[str | None]
) -> Iterator[Event]:
    role, content = message.get("role"), str_field(message, "content")
    if role == "user" and message.get("origin") == "host":
        if content and (found := _WORKSPACE.search(content)):
            out.cwd = found.group(1)
    elif role == "user":
        text = str_field(message, "raw_content") or content
        yield out.emit(ref, "user", "text", ts=parse_ts(message.get("createdAt")) or ts, text=text)
    elif role == "assistant":
        if content:
            yield out.emit(ref, "assistant", "text", ts=ts, text=content)
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict):
                normalized = tool_name(str_field(call, "name"))
                yield out.emit(
                    ref,
                    "assistant",
                    "tool_call",
                    ts=ts,
                    tool_name=normalized,
                    tool_args=tool_args(normalized, call.get("arguments")),
                    call_id=str_field(call, "id"),
                )
    elif role == "tool" and str_field(message, "tool_call_id") not in results:
        tool = {
            "id": message.get("tool_call_id"),
            "name": message.get("name"),
            "output": content,
            "execution": message.get("tool_execution"),
        }
        yield tool_result(out, ref, ts, tool, failed=message.get("tool_run_state") == "failed")


def tool_result(out: Emitter, ref: str, ts: datetime | None, tool: dict[str, Any], *, failed: bool) -> Event:
    """A tool_result event from a v2 tool object (trajectory `tool` or store `tool/result`)."""
    execution = dict_field(tool, "execution")
    code = execution.get("exitCode")
    exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
    error = str_field(tool, "err") or str_field(tool, "error") or ""
    kind: ErrorKind = "harness" if execution.get("state") == "not_run" else "exit" if exit_code else "tool"
    output = str_field(tool, "output") or str_field(execution, "outputTail") or ""
    text = output or error
    return out.emit(
        ref,
        "tool",
        "tool_result",
        ts=ts,
        text=text,
        tool_name=tool_name(str_field(tool, "name")),
        call_id=str_field(tool, "id"),
        is_error=failed,
        error_kind=kind,
        exit_code=exit_code,
        error_text=specific_error(error, output) if failed else None,
    )


def _manifest(session_dir: Path) -> dict[str, Any]:
    try:
        data = jsonio.loads((session_dir / "manifest.json").read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _spans(frames: Path, *, limit: int | None = None) -> tuple[list[tuple[int, int, int]], bool]:
    """(start, length, size) of every whole record, by reading headers only; and whether it ends clean."""
    spans: list[tuple[int, int, int]] = []
    file_size = frames.stat().st_size
    with frames.open("rb") as handle:
        offset = 0
        while header := handle.read(_HEADER.size):
            magic, length, size = _HEADER.unpack(header) if len(header) == _HEADER.size else (b"", 0, 0)
            if magic != MAGIC or offset + _HEADER.size + length > file_size:
                return spans, False
            spans.append((offset + _HEADER.size, length, size))
            if limit is not None and len(spans) >= limit:
                return spans, True
            offset += _HEADER.size + length
            handle.seek(offset)
    return spans, True


def _records_at(frames: Path, spans: list[tuple[int, int, int]]) -> list[dict[str, Any]]:
    decode = _decoder()
    found: list[dict[str, Any]] = []
    with frames.open("rb") as handle:
        for start, length, size in spans:
            handle.seek(start)
            raw = decode(handle.read(length), size) if size <= MAX_RECORD else None
            found.append((parse_line(raw)[0] if raw is not None else None) or {})
    return found


def _workspace(frames: Path, spans: list[tuple[int, int, int]]) -> str | None:
    """The workspace named in the first host session-context message, if any."""
    for record in _records_at(frames, spans[:_HEAD_RECORDS]):
        event = dict_field(record, "event")
        if event.get("kind") == "message/complete":
            content = str_field(dict_field(_payload(event) or {}, "message"), "content") or ""
            if found := _WORKSPACE.search(content):
                return found.group(1)
    return None


def describe(path: Path, *, now: datetime, idle_seconds: float) -> Session:
    """Identity and state; complete when the last batch is committed and ends with `turn/end`.

    Reads record headers only, and decodes just the first records (for the workspace) and the
    last few (the last batch).
    """
    frames, session_dir = _paths(path)
    manifest = _manifest(session_dir)
    spans, clean = _spans(frames)
    cwd = _workspace(frames, spans)
    tail = _records_at(frames, spans[-_TAIL_RECORDS:])
    begins = [i for i, record in enumerate(tail) if record.get("recordType") == "batch/begin"]
    last_batch = tail[begins[-1] :] if begins else []
    terminal = (
        clean
        and bool(last_batch)
        and last_batch[-1].get("recordType") == "batch/end"
        and any(dict_field(record, "event").get("kind") == "turn/end" for record in last_batch)
    )
    return Session(
        agent=AGENT,
        session_id=str(manifest.get("sessionId") or session_dir.name),
        paths=(frames,),
        cwd=cwd,
        started=parse_ts(manifest.get("createdAt")),
        ended=datetime.fromtimestamp(frames.stat().st_mtime, tz=UTC),
        complete=terminal or is_idle(frames, now, idle_seconds),
    )
