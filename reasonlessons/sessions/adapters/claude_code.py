"""Claude Code transcripts, `~/.claude/projects/<slug>/<session-id>.jsonl` (docs/log-formats.md#claude-code).

Lines form a uuid/parentUuid tree but are processed in file order. Sidechain (subagent) lines keep
the parent's `sessionId`, so they are attributed to the parent session. One API response spans
several lines; its usage is emitted once per (message.id, requestId) with the largest
`output_tokens`, keyed by that pair in `call_id`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from reasonlessons.sessions.adapters._common import Emitter, dict_field, str_field, undecided
from reasonlessons.sessions.errors import UnsupportedLogError
from reasonlessons.sessions.errorsig import parse_exit_prefix
from reasonlessons.sessions.events import ErrorKind, Event, ReadStats, Session, Tokens, new_tokens
from reasonlessons.sessions.jsonl import (
    count_lines,
    head_objects,
    is_idle,
    iter_json_lines,
    read_head,
    tail_objects,
)
from reasonlessons.sessions.normalize import as_int, block_text, parse_ts, tool_args, tool_name

name = "claude-code"

_TYPES = frozenset(
    [
        "user",
        "assistant",
        "summary",
        "system",
        "file-history-snapshot",
        "attachment",
        "progress",
        "last-prompt",
        "queue-operation",
        "custom-title",
        "tag",
    ]
)
_READ = frozenset({"user", "assistant", "summary"})
_PERMISSION = ("requested permissions", "haven't granted", "doesn't want to proceed", "was rejected")


def sniff(first_bytes: bytes, path: Path) -> bool:
    """True when the first records look like Claude Code transcript lines."""
    for obj in head_objects(first_bytes, limit=5):
        if str_field(obj, "type") in _TYPES and any(k in obj for k in ("uuid", "sessionId", "leafUuid")):
            return True
    head = first_bytes[:4096]
    return b'"parentUuid":' in head and b'"sessionId":' in head


def read_session(
    path: Path,
    *,
    stats: ReadStats,
    start_offset: int = 0,
    start_seq: int = 0,
    start_line: int | None = None,
) -> Iterator[Event]:
    """Stream the events of one transcript file (or a subagent file of one).

    The resume point is the last line after which no tool call awaits its result and no
    response's usage is still open, so re-reading from it reproduces the same events.
    """
    head = read_head(path)
    if not sniff(head, path) and not undecided(head):
        raise UnsupportedLogError(f"{path}: not a Claude Code transcript (.jsonl under ~/.claude)")
    reader = _Reader(Emitter(name, path, stats, seq=start_seq))
    if start_line is None:
        start_line = count_lines(path, start_offset) + 1 if start_offset else 1
    stats.checkpoint(start_offset, start_seq, start_line)
    prefix, tools, groups = f"{path}:", reader.tools, reader.groups
    lines = iter_json_lines(path, stats=stats, start_offset=start_offset, start_line=start_line)
    for line_no, end, obj, _ in lines:
        yield from reader.line(obj, f"{prefix}{line_no}")
        if not tools and not groups:
            stats.checkpoint(end, reader.out.seq, line_no + 1)
    yield from reader.flush()


class _Reader:
    """Per-file state: calls awaiting results, and usage of responses still being written."""

    def __init__(self, out: Emitter) -> None:
        self.out = out
        self.tools: dict[str, str | None] = {}
        self.groups: dict[str, tuple[Tokens, str, datetime | None]] = {}

    def line(self, obj: dict[str, Any], ref: str) -> list[Event]:
        """Events of one transcript line (a list: a generator per line costs more than the work)."""
        out, kind = self.out, obj.get("type")
        if kind.__class__ is not str or kind not in _TYPES:
            out.stats.skip("unknown-type" if isinstance(kind, str) else "missing-field")
            return _NONE
        if kind not in _READ or obj.get("isMeta") is True:
            return _NONE
        out.session_id = str_field(obj, "sessionId") or out.session_id
        out.cwd = str_field(obj, "cwd") or out.cwd
        ts = parse_ts(obj.get("timestamp"))
        if kind == "summary":
            return [out.emit(ref, "system", "meta", text=str_field(obj, "summary"))]
        message = obj.get("message")
        if message.__class__ is not dict:
            out.stats.skip("missing-field")
            return _NONE
        events: list[Event] = []
        if kind == "assistant":
            key = _response_key(obj, message)
            if self.groups:
                self._flush(events, key)
            usage = message.get("usage")
            if usage.__class__ is dict:
                tokens = _tokens(usage)
                if key is None:
                    events.append(out.emit(ref, "assistant", "usage", ts=ts, tokens=tokens))
                else:
                    previous = self.groups.get(key)
                    if previous is not None and previous[0].out > tokens.out:
                        tokens = previous[0]
                    self.groups[key] = (tokens, ref, previous[2] if previous else ts)
            _assistant_blocks(events, out, ref, ts, message.get("content"), self.tools)
        else:
            if self.groups:
                self._flush(events, None)
            content = message.get("content")
            if not obj.get("isSidechain") and not _has_results(content):
                self.tools.clear()  # a new prompt: calls of the last turn will get no result now
            _user_blocks(events, out, ref, ts, content, self.tools)
        return events

    def flush(self, keep: str | None = None) -> list[Event]:
        """Usage events of every open response except `keep`; a new line means they are done."""
        events: list[Event] = []
        self._flush(events, keep)
        return events

    def _flush(self, events: list[Event], keep: str | None) -> None:
        for key in [k for k in self.groups if k != keep]:
            tokens, ref, ts = self.groups.pop(key)
            events.append(self.out.emit(ref, "assistant", "usage", ts=ts, tokens=tokens, call_id=key))


_NONE: list[Event] = []  # returned for lines without events; never appended to


def _response_key(obj: dict[str, Any], message: dict[str, Any]) -> str | None:
    message_id = str_field(message, "id")
    return f"{message_id}:{obj.get('requestId') or ''}" if message_id else None


def _tokens(usage: dict[str, Any]) -> Tokens:
    return new_tokens(
        as_int(usage.get("input_tokens")),
        as_int(usage.get("output_tokens")),
        as_int(usage.get("cache_read_input_tokens")),
        as_int(usage.get("cache_creation_input_tokens")),
    )


def _assistant_blocks(
    events: list[Event],
    out: Emitter,
    ref: str,
    ts: datetime | None,
    content: object,
    tools: dict[str, str | None],
) -> None:
    if isinstance(content, str) and content:
        events.append(out.emit(ref, "assistant", "text", ts=ts, text=content))
        return
    for block in content if isinstance(content, list) else ():
        if block.__class__ is not dict:
            continue
        kind = block.get("type")
        if kind == "text" and str_field(block, "text"):
            events.append(out.emit(ref, "assistant", "text", ts=ts, text=block["text"]))
        elif kind == "tool_use":
            tool = tool_name(str_field(block, "name"))
            call_id = str_field(block, "id")
            if call_id:
                tools[call_id] = tool
            args = tool_args(tool, block.get("input"))
            events.append(
                out.emit(
                    ref, "assistant", "tool_call", ts=ts, tool_name=tool, tool_args=args, call_id=call_id
                )
            )


def _has_results(content: object) -> bool:
    if isinstance(content, list):
        for block in content:
            if block.__class__ is dict and block.get("type") == "tool_result":
                return True
    return False


def _user_blocks(
    events: list[Event],
    out: Emitter,
    ref: str,
    ts: datetime | None,
    content: object,
    tools: dict[str, str | None],
) -> None:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    texts: list[str] = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, str):
            texts.append(block)
        elif block.__class__ is not dict:
            continue
        elif (kind := block.get("type")) == "tool_result":
            events.append(_result(out, ref, ts, block, tools))
        elif kind == "text" and str_field(block, "text"):
            texts.append(block["text"])
    text = "\n".join(texts).strip() if texts else ""
    if text.startswith("<local-command-stdout>"):
        events.append(out.emit(ref, "system", "meta", ts=ts, text=text))
    elif text:
        events.append(out.emit(ref, "user", "text", ts=ts, text=text))


def _result(
    out: Emitter, ref: str, ts: datetime | None, block: dict[str, Any], tools: dict[str, str | None]
) -> Event:
    call_id = str_field(block, "tool_use_id")
    tool = tools.pop(call_id, None) if call_id else None
    text = block_text(block.get("content")) or ""
    if block.get("is_error") is not True:
        return out.emit(
            ref, "tool", "tool_result", ts=ts, text=text, tool_name=tool, call_id=call_id, is_error=False
        )
    return out.emit(
        ref,
        "tool",
        "tool_result",
        ts=ts,
        text=text,
        tool_name=tool,
        call_id=call_id,
        is_error=True,
        error_kind=_error_kind(text, tool),
        exit_code=parse_exit_prefix(text),
    )


def _error_kind(text: str, tool: str | None) -> ErrorKind:
    """Tell harness/validation errors and permission refusals from real tool failures.

    The markers: docs/log-formats.md#claude-code-errors.
    """
    if "<tool_use_error>" in text:
        return "harness"
    if any(marker in text for marker in _PERMISSION):
        return "permission"
    return "exit" if tool == "shell" else "tool"


def describe(path: Path, *, now: datetime, idle_seconds: float) -> Session:
    """Identity and state; complete when the last main-thread turn is an assistant `end_turn`."""
    head = read_head(path)
    if not sniff(head, path):
        raise UnsupportedLogError(f"{path}: not a Claude Code transcript")
    first = head_objects(head, limit=20)
    tail = tail_objects(path)
    session_id = next((o["sessionId"] for o in first if str_field(o, "sessionId")), path.stem)
    cwd = next((o["cwd"] for o in first if str_field(o, "cwd")), None)
    subagents = sorted((path.parent / path.stem / "subagents").glob("agent-*.jsonl"))
    stamps = [parse_ts(o.get("timestamp")) for o in tail if o.get("timestamp")]
    return Session(
        agent=name,
        session_id=session_id,
        paths=(path, *subagents),
        cwd=cwd,
        started=next((t for t in (parse_ts(o.get("timestamp")) for o in first) if t), None),
        ended=next((t for t in reversed(stamps) if t), None),
        complete=_ended_turn(tail) or is_idle(path, now, idle_seconds),
    )


def _ended_turn(tail: list[dict[str, Any]]) -> bool:
    for obj in reversed(tail):
        if obj.get("type") not in ("user", "assistant") or obj.get("isSidechain") or obj.get("isMeta"):
            continue
        message = dict_field(obj, "message")
        return obj.get("type") == "assistant" and message.get("stop_reason") == "end_turn"
    return False
