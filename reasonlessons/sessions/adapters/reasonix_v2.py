"""Reasonix v2 (Go, 1.x): `--trajectory` JSONL, `--output-format stream-json`, and the
sessions-v4 store (`events.frames`, read by `_v2_frames`, needs the optional `zstandard`)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from reasonlessons.sessions.adapters import _v2_frames
from reasonlessons.sessions.adapters._common import Emitter, dict_field, str_field, undecided
from reasonlessons.sessions.errors import UnsupportedLogError
from reasonlessons.sessions.events import Event, ReadStats, Session, Tokens
from reasonlessons.sessions.jsonl import (
    count_lines,
    ends_with_newline,
    head_objects,
    is_idle,
    iter_json_lines,
    read_head,
    tail_objects,
)
from reasonlessons.sessions.normalize import as_int, parse_ts, tool_args, tool_name

name = "reasonix-v2"

_WIRE_KINDS = frozenset(
    [
        "turn_status",
        "turn_started",
        "turn_phase",
        "user_message",
        "stream_attempt",
        "reasoning",
        "text",
        "tool_dispatch",
        "tool_started",
        "tool_result",
        "usage",
        "message",
        "turn_done",
        "notice",
        "phase",
        "approval_request",
        "ask_request",
        "compaction_started",
        "compaction_done",
        "tool_progress",
        "mcp_surface_ready",
        "retrying",
        "steer",
        "guardian_assessment",
        "extension_surface",
        "extension_status",
    ]
)


def sniff(first_bytes: bytes, path: Path) -> bool:
    """True for a sessions-v4 directory or `events.frames`, a trajectory, or stream-json output."""
    return _flavour(first_bytes, path) is not None


def _flavour(head: bytes, path: Path) -> str | None:
    if _v2_frames.is_store(head, path):
        return "frames"
    for obj in head_objects(head, limit=3):
        if "schema_version" in obj and "seq" in obj and "ts" in obj:
            return "trajectory"
        if str_field(obj, "kind") in _WIRE_KINDS and "sessionId" in obj and "turnId" in obj:
            return "stream-json"
        if obj.get("type") == "result" and "num_turns" in obj:
            return "stream-json"
    return None


def read_session(
    path: Path,
    *,
    stats: ReadStats,
    start_offset: int = 0,
    start_seq: int = 0,
    start_line: int | None = None,
) -> Iterator[Event]:
    """Stream the events of a v2 trajectory, stream-json file or sessions-v4 store."""
    head = b"" if path.is_dir() else read_head(path)
    flavour = _flavour(head, path)
    if flavour is None and undecided(head) and not path.is_dir():
        return
    if flavour is None:
        raise UnsupportedLogError(
            f"{path}: not a Reasonix v2 log (a --trajectory file, stream-json output, "
            "or a sessions-v4 directory)"
        )
    if flavour == "frames":
        yield from _v2_frames.read(path, stats=stats, start_offset=start_offset, start_seq=start_seq)
        return
    out = Emitter(name, path, stats, seq=start_seq)
    if start_line is None:
        start_line = count_lines(path, start_offset) + 1 if start_offset else 1
    dispatched: set[str] = set()
    usage_seen = False
    for line in iter_json_lines(path, stats=stats, start_offset=start_offset, start_line=start_line):
        obj, ref = line.obj, out.ref(line.line_no)
        if flavour == "trajectory":
            ts = parse_ts(obj.get("ts"))
            if obj.get("turn_completion") is True:
                yield out.emit(ref, "system", "meta", ts=ts, text="turn_completion")
                continue
            wire = obj.get("event")
            if not isinstance(wire, dict):
                continue  # audits, memory recall and other side records
        elif obj.get("type") == "result":
            yield _result_line(out, ref, obj, usage_seen)
            continue
        else:
            wire, ts = obj, None
        usage_seen = usage_seen or wire.get("kind") == "usage"
        yield from wire_events(out, ref, ts, wire, dispatched)
    stats.checkpoint_at_end(out.seq)


def wire_events(
    out: Emitter, ref: str, ts: datetime | None, wire: dict[str, Any], dispatched: set[str]
) -> Iterator[Event]:
    """Events of one eventwire object (trajectory `event`, or a stream-json line)."""
    kind = str_field(wire, "kind")
    out.session_id = str_field(wire, "sessionId") or out.session_id
    tool = dict_field(wire, "tool")
    if kind == "user_message":
        yield out.emit(ref, "user", "text", ts=ts, text=str_field(wire, "text"))
    elif kind == "message" and str_field(wire, "text"):
        yield out.emit(ref, "assistant", "text", ts=ts, text=wire["text"])
    elif kind == "tool_dispatch" and not tool.get("partial") and "args" in tool:
        call_id = str_field(tool, "id")
        if call_id in dispatched:
            return
        if call_id:
            dispatched.add(call_id)
        normalized = tool_name(str_field(tool, "name"))
        yield out.emit(
            ref,
            "assistant",
            "tool_call",
            ts=ts,
            tool_name=normalized,
            tool_args=tool_args(normalized, tool.get("args")),
            call_id=call_id,
        )
    elif kind == "tool_result":
        error = str_field(tool, "err") or ""
        failed = tool.get("runState") == "failed" or bool(error)
        yield _v2_frames.tool_result(out, ref, ts, tool, failed=failed)
    elif kind == "usage":
        usage = dict_field(wire, "usage")
        tokens = Tokens(
            in_=as_int(usage.get("cacheMissTokens")),
            out=as_int(usage.get("completionTokens")),
            cache_read=as_int(usage.get("cacheHitTokens")),
        )
        yield out.emit(ref, "assistant", "usage", ts=ts, tokens=tokens)
    elif kind == "turn_done":
        yield out.emit(ref, "system", "meta", ts=ts, text=f"turn_done {wire.get('status', '')}")
    elif kind not in _WIRE_KINDS:
        out.stats.skip("unknown-type")


def _result_line(out: Emitter, ref: str, obj: dict[str, Any], usage_seen: bool) -> Event:
    # The result repeats the per-call usage as a total; attach it only if no call reported usage.
    tokens = None
    if not usage_seen and isinstance(obj.get("usage"), dict):
        usage = obj["usage"]
        tokens = Tokens(
            in_=as_int(usage.get("cache_creation_input_tokens")),
            out=as_int(usage.get("output_tokens")),
            cache_read=as_int(usage.get("cache_read_input_tokens")),
        )
    failed = obj.get("is_error") is True
    return out.emit(
        ref,
        "system",
        "usage" if tokens else "meta",
        text=str_field(obj, "result"),
        is_error=failed,
        error_kind="tool",
        tokens=tokens,
    )


def describe(path: Path, *, now: datetime, idle_seconds: float) -> Session:
    """Identity and state of a v2 log.

    Trajectory: complete when its last turn record is `turn_completion`/`turn_done` and the file
    ends with a newline. Stream-json: when the last line is `type: result`. Store: when the last
    batch is committed and holds `turn/end`. Any of them: also when idle for `idle_seconds`.
    """
    flavour = _flavour(b"" if path.is_dir() else read_head(path), path)
    if flavour is None:
        raise UnsupportedLogError(f"{path}: not a Reasonix v2 log")
    if flavour == "frames":
        return _v2_frames.describe(path, now=now, idle_seconds=idle_seconds)
    first, tail = head_objects(read_head(path), limit=5), tail_objects(path)
    if flavour == "trajectory":
        wires = [dict_field(o, "event") for o in first]
        terminal = bool(tail) and ends_with_newline(path) and _turn_closed(tail)
        stamps = [parse_ts(o.get("ts")) for o in (first[:1] + tail[-1:])]
    else:
        wires = first
        terminal = bool(tail) and tail[-1].get("type") == "result"
        stamps = [None, None]
    session_id = next((w["sessionId"] for w in wires if str_field(w, "sessionId")), path.stem)
    return Session(
        agent=name,
        session_id=session_id,
        paths=(path,),
        cwd=None,
        started=stamps[0] if stamps else None,
        ended=stamps[-1] if stamps else None,
        complete=terminal or is_idle(path, now, idle_seconds),
    )


def _turn_closed(tail: list[dict[str, Any]]) -> bool:
    closed = False
    for obj in tail:
        kind = dict_field(obj, "event").get("kind")
        if obj.get("turn_completion") is True or kind == "turn_done":
            closed = True
        elif kind in ("turn_started", "turn_status", "user_message"):
            closed = False
    return closed
