"""Reasonix v1 (TypeScript 0.x): `<name>.events.jsonl` joined with its sidecars, and `--transcript`.

Events are segmented by launch (`session.opened`): each launch is one session with id
`<name>#<n>` (n counts launches from 1) and its own `seq`, so a read can restart at a launch
boundary and reproduce the same events. Tool results are matched to intents first-in-first-out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from reasonlessons.sessions.adapters import _v1_transcript
from reasonlessons.sessions.adapters._common import Emitter, dict_field, str_field, undecided
from reasonlessons.sessions.adapters._v1_common import prefix_counts, reasonix_result, v1_tokens
from reasonlessons.sessions.errors import UnsupportedLogError
from reasonlessons.sessions.events import Event, ReadStats, Session
from reasonlessons.sessions.jsonl import (
    head_objects,
    is_idle,
    iter_json_lines,
    read_head,
    tail_objects,
)
from reasonlessons.sessions.normalize import parse_ts, tool_args, tool_name
from reasonlessons.support import jsonio

name = "reasonix-v1"

_EVENTS_SUFFIX = ".events.jsonl"
_OPENED = b'"type":"session.opened"'
_FINAL = b'"type":"model.final"'
# Declared v1 event types we read past on purpose (docs/log-formats.md#v1-event-log).
_IGNORED = frozenset(
    [
        "model.delta",
        "tool.preparing",
        "tool.dispatched",
        "tool.call",
        "status",
        "policy.budget.warning",
        "policy.budget.blocked",
        "policy.escalated",
        "session.compacted",
        "plan.submitted",
        "plan.step.completed",
        "checkpoint.created",
        "checkpoint.restored",
        "hook.fired",
        "capability.registered",
        "capability.removed",
        "effect.file.touched",
        "effect.memory.written",
        "tool.confirm.allow",
        "tool.confirm.always_allow",
    ]
)


def sniff(first_bytes: bytes, path: Path) -> bool:
    """True for a v1 event log or a v1 transcript."""
    return _flavour(first_bytes) is not None


def _flavour(head: bytes) -> str | None:
    for obj in head_objects(head, limit=3):
        if _is_event(obj):
            return "events"
        if _v1_transcript.is_record(obj):
            return "transcript"
    if head.startswith(b'{"id":') and b'"turn":' in head[:200]:
        return "events"  # first line longer than the head
    if head.startswith(b'{"role":"_meta"'):
        return "transcript"
    return None


def _is_event(obj: dict[str, Any]) -> bool:
    return (
        isinstance(obj.get("id"), int)
        and isinstance(obj.get("turn"), int)
        and isinstance(obj.get("type"), str)
        and isinstance(obj.get("ts"), str)
    )


def read_session(
    path: Path,
    *,
    stats: ReadStats,
    start_offset: int = 0,
    start_seq: int = 0,
    start_line: int | None = None,
) -> Iterator[Event]:
    """Stream the events of a v1 event log or transcript; restart only at a segment boundary."""
    head = read_head(path)
    flavour = _flavour(head)
    if flavour is None and undecided(head):
        return
    if flavour is None:
        raise UnsupportedLogError(f"{path}: not a Reasonix v1 event log or transcript")
    if flavour == "transcript":
        yield from _v1_transcript.read(
            path, stats=stats, start_offset=start_offset, start_seq=start_seq, start_line=start_line
        )
        return
    yield from _read_events(path, stats, start_offset, start_seq, start_line)


@dataclass(frozen=True, slots=True)
class _Prompt:
    finals_before: int
    text: str
    ref: str


def _read_events(
    path: Path, stats: ReadStats, start_offset: int, start_seq: int, start_line: int | None
) -> Iterator[Event]:
    base = _base_name(path)
    lines, (segment, finals) = prefix_counts(path, start_offset, (_OPENED, _FINAL))
    out = Emitter(name, path, stats, seq=start_seq)
    out.session_id = f"{base}#{segment}"
    out.cwd = _workspace(path.with_name(f"{base}.meta.json"))
    prompts = deque(_sidecar_prompts(path.with_name(f"{base}.jsonl"), stats))
    pending: deque[tuple[str | None, str | None]] = deque()
    first_line = start_line if start_line is not None else lines + 1
    stats.checkpoint(start_offset, start_seq, first_line)
    prefix = f"{path}:"
    stamp: object = None  # the last line's `ts` as written, and as parsed: a call's intent, its
    ts: datetime | None = None  # result and the model's next answer often share a millisecond
    for line_no, _, obj, start in iter_json_lines(
        path, stats=stats, start_offset=start_offset, start_line=first_line
    ):
        kind = obj.get("type")
        if kind.__class__ is not str:
            stats.skip("missing-field")
            continue
        if kind in _IGNORED:
            continue  # most lines of a log (status, dispatched): decided before any other work
        ref = f"{prefix}{line_no}"
        if (value := obj.get("ts")) != stamp or value.__class__ is not str:
            stamp, ts = value, parse_ts(value)
        if kind == "model.final" or kind == "model.turn.started":
            # The sidecar's n-th assistant message is the n-th model call (docs/log-formats.md#v1-prompts).
            while prompts and prompts[0].finals_before <= finals:
                prompt = prompts.popleft()
                if prompt.finals_before == finals:
                    yield out.emit(prompt.ref, "user", "text", ts=ts, text=prompt.text)
            if kind == "model.final":
                finals += 1
                if content := str_field(obj, "content"):
                    yield out.emit(ref, "assistant", "text", ts=ts, text=content)
                if (usage := obj.get("usage")).__class__ is dict:
                    yield out.emit(ref, "assistant", "usage", ts=ts, tokens=v1_tokens(usage))
        elif kind == "tool.intent":
            tool = tool_name(str_field(obj, "name"))
            call_id = str_field(obj, "callId")
            pending.append((call_id, tool))
            args = tool_args(tool, obj.get("args"))
            yield out.emit(
                ref, "assistant", "tool_call", ts=ts, tool_name=tool, tool_args=args, call_id=call_id
            )
        elif kind == "tool.result" or kind == "tool.denied":
            if not pending:
                stats.skip("orphan-result")
                continue
            call_id, tool = pending.popleft()
            if kind == "tool.denied":
                reason = f"denied: {obj.get('reason')}"
                yield out.emit(
                    ref,
                    "tool",
                    "tool_result",
                    ts=ts,
                    text=reason,
                    tool_name=tool,
                    call_id=call_id,
                    is_error=True,
                    error_kind="permission",
                )
                continue
            output = str_field(obj, "output") or ""
            ok = obj.get("ok")
            result = reasonix_result(output, ok if ok.__class__ is bool else None)
            yield out.emit(
                ref,
                "tool",
                "tool_result",
                ts=ts,
                text=output,
                tool_name=tool,
                call_id=call_id,
                is_error=result.is_error,
                error_kind=result.error_kind,
                exit_code=result.exit_code,
                error_text=result.error_text,
            )
        elif kind == "session.opened":
            segment += 1
            out.session_id, out.seq = f"{base}#{segment}", 0
            pending.clear()
            stats.checkpoint(start, 0, line_no)
            yield out.emit(ref, "system", "meta", ts=ts, text=f"session.opened {obj.get('name')}")
        elif kind in ("user.message", "slash.invoked"):
            text = str_field(obj, "text")
            if kind == "slash.invoked":
                text = f"/{str(obj.get('name', '')).lstrip('/')} {obj.get('args') or ''}".strip()
            yield out.emit(ref, "user", "text", ts=ts, text=text)
        elif kind == "error":
            message = str_field(obj, "message")
            yield out.emit(ref, "system", "meta", ts=ts, text=message, is_error=True, error_kind="tool")
        elif kind == "tool.confirm.deny":
            text = f"confirm denied: {dict_field(obj, 'payload').get('command', '')}".strip()
            yield out.emit(ref, "system", "meta", ts=ts, text=text)
        else:
            stats.skip("unknown-type")


def _base_name(path: Path) -> str:
    file = path.name
    return file[: -len(_EVENTS_SUFFIX)] if file.endswith(_EVENTS_SUFFIX) else path.stem


def _workspace(meta: Path) -> str | None:
    try:
        if meta.stat().st_size > 1024 * 1024:
            return None
        data = jsonio.loads(meta.read_bytes())
    except (OSError, ValueError):
        return None
    workspace = data.get("workspace") if isinstance(data, dict) else None
    return workspace if isinstance(workspace, str) else None


def _sidecar_prompts(sidecar: Path, stats: ReadStats) -> Iterator[_Prompt]:
    if not sidecar.is_file():
        return
    side_stats = ReadStats()
    assistants = 0
    for line in iter_json_lines(sidecar, stats=side_stats):
        role = line.obj.get("role")
        if role == "assistant":
            assistants += 1
        elif role == "user" and (text := _message_text(line.obj.get("content"))):
            yield _Prompt(assistants, text, f"{sidecar}:{line.line_no}")
    for reason, count in side_stats.skipped.items():
        stats.skip(f"sidecar-{reason}", count)


def _message_text(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str)) or None
    return None


def describe(path: Path, *, now: datetime, idle_seconds: float) -> Session:
    """Identity and state of a v1 log; complete when it ends on a settled model call or is idle.

    Event log: the last event (ignoring `status`) is `model.final` and no tool intent in the last
    launch is waiting for its result. Transcript: the last record is `done` or `error`.
    """
    head = read_head(path)
    flavour = _flavour(head)
    if flavour is None:
        raise UnsupportedLogError(f"{path}: not a Reasonix v1 event log or transcript")
    first = head_objects(head, limit=1)
    tail = tail_objects(path)
    base, cwd = path.stem, None
    paths: tuple[Path, ...] = (path,)
    if flavour == "transcript":
        terminal = bool(tail) and tail[-1].get("role") in ("done", "error")
    else:
        terminal = _settled(tail)
        base = _base_name(path)
        companions = (path.with_name(f"{base}.jsonl"), path.with_name(f"{base}.meta.json"))
        paths += tuple(p for p in companions if p.is_file())
        cwd = _workspace(companions[1])
    return Session(
        agent=name,
        session_id=base,
        paths=paths,
        cwd=cwd,
        started=_started(first[0]) if first else None,
        ended=parse_ts(tail[-1].get("ts")) if tail else None,
        complete=terminal or is_idle(path, now, idle_seconds),
    )


def _started(obj: dict[str, Any]) -> datetime | None:
    meta = obj.get("meta")
    return parse_ts(meta.get("startedAt") if isinstance(meta, dict) else obj.get("ts"))


def _settled(tail: list[dict[str, Any]]) -> bool:
    events = [obj for obj in tail if obj.get("type") != "status"]
    if not events or events[-1].get("type") != "model.final":
        return False
    pending = 0
    for obj in events:
        kind = obj.get("type")
        if kind == "session.opened":
            pending = 0
        elif kind == "tool.intent":
            pending += 1
        elif kind in ("tool.result", "tool.denied"):
            pending = max(0, pending - 1)
    return pending == 0
