"""Reasonix v1 `--transcript` files: one session per `_meta` run, `<stem>#<n>`.

The format: docs/log-formats.md#v1-transcripts.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reasonlessons.sessions.adapters._common import Emitter, dict_field, str_field
from reasonlessons.sessions.adapters._v1_common import prefix_counts, reasonix_result, v1_tokens
from reasonlessons.sessions.events import Event, ReadStats
from reasonlessons.sessions.jsonl import iter_json_lines
from reasonlessons.sessions.normalize import parse_ts, tool_args, tool_name

AGENT = "reasonix-v1"
ROLES = frozenset(
    [
        "_meta",
        "user",
        "assistant_delta",
        "assistant_final",
        "tool_call_delta",
        "tool_start",
        "tool",
        "status",
        "warning",
        "error",
        "done",
    ]
)
_IGNORED = frozenset({"assistant_delta", "tool_call_delta", "status"})
_META = b'"role":"_meta"'


def is_record(obj: dict[str, Any]) -> bool:
    """True for a transcript line: a `_meta` line, or a record with `ts`, `turn` and a known role."""
    role = str_field(obj, "role")
    if role == "_meta":
        return isinstance(obj.get("meta"), dict)
    return role in ROLES and "ts" in obj and "turn" in obj and "type" not in obj


def read(
    path: Path, *, stats: ReadStats, start_offset: int, start_seq: int, start_line: int | None
) -> Iterator[Event]:
    """Stream a transcript's events; runs restart `seq` at 0 and are restart points."""
    lines, (segment,) = prefix_counts(path, start_offset, (_META,))
    out = Emitter(AGENT, path, stats, seq=start_seq)
    out.session_id = f"{path.stem}#{segment}"
    first_line = start_line if start_line is not None else lines + 1
    stats.checkpoint(start_offset, start_seq, first_line)
    # Older transcripts have no `tool_start`; then the `tool` record stands for call and result.
    starts: deque[tuple[str, str | None]] = deque()
    calls = 0
    for line in iter_json_lines(path, stats=stats, start_offset=start_offset, start_line=first_line):
        obj, ref = line.obj, out.ref(line.line_no)
        role, ts = str_field(obj, "role"), parse_ts(obj.get("ts"))
        content = str_field(obj, "content")
        if role == "_meta":
            segment += 1
            out.session_id, out.seq, calls = f"{path.stem}#{segment}", 0, 0
            starts.clear()
            stats.checkpoint(line.start, 0, line.line_no)
            meta = dict_field(obj, "meta")
            text = " ".join(str(meta[k]) for k in ("source", "task", "model") if meta.get(k))
            yield out.emit(ref, "system", "meta", ts=parse_ts(meta.get("startedAt")), text=text)
        elif role == "user":
            yield out.emit(ref, "user", "text", ts=ts, text=content)
        elif role == "assistant_final":
            if content:
                yield out.emit(ref, "assistant", "text", ts=ts, text=content)
            if isinstance(obj.get("usage"), dict):
                yield out.emit(ref, "assistant", "usage", ts=ts, tokens=v1_tokens(obj["usage"]))
        elif role in ("tool_start", "tool"):
            tool = tool_name(str_field(obj, "tool"))
            if role == "tool" and starts and starts[0][1] == tool:
                call_id = starts.popleft()[0]
            else:
                calls += 1
                call_id = f"t{calls}"
                args = tool_args(tool, obj.get("args"))
                yield out.emit(
                    ref,
                    "assistant",
                    "tool_call",
                    ts=ts,
                    tool_name=tool,
                    tool_args=args,
                    call_id=call_id,
                )
                if role == "tool_start":
                    starts.append((call_id, tool))
                    continue
            result = reasonix_result(content or "", None)
            yield out.emit(
                ref,
                "tool",
                "tool_result",
                ts=ts,
                text=content,
                tool_name=tool,
                call_id=call_id,
                is_error=result.is_error,
                error_kind=result.error_kind,
                exit_code=result.exit_code,
                error_text=result.error_text,
            )
        elif role == "error":
            message = str_field(obj, "error") or content
            yield out.emit(ref, "system", "meta", ts=ts, text=message, is_error=True, error_kind="tool")
        elif role == "warning":
            yield out.emit(ref, "system", "meta", ts=ts, text=content)
        elif role == "done":
            yield out.emit(ref, "system", "meta", ts=ts, text="done")
        elif role not in _IGNORED:
            stats.skip("unknown-type")
