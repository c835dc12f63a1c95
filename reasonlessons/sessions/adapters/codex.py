"""OpenAI Codex CLI rollouts, `$CODEX_HOME/sessions/**/rollout-*.jsonl` (docs/log-formats.md#codex).

Reads the envelope era (`{timestamp, type, payload}`) and the older bare era. Codex writes no
success flag, so failures are derived (docs/log-formats.md#codex-failures); the cumulative
`token_count` is emitted as usage keyed `call_id="total"` (keep the last).

Unified exec answers a long command with `Process running with session ID N` (a result of unknown
outcome); later `write_stdin` calls on session N deliver more output and, at last, `Process exited
with code K`. Those polls are folded into the command: it gets a second, final result with all its
output and its exit code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from reasonlessons.sessions.adapters._common import Emitter, dict_field, str_field, undecided
from reasonlessons.sessions.errors import UnsupportedLogError
from reasonlessons.sessions.errorsig import (
    ShellOutcome,
    is_still_running,
    parse_codex_header,
    parse_process_exit,
    unified_exec,
)
from reasonlessons.sessions.events import Event, ReadStats, Session, Tokens
from reasonlessons.sessions.jsonl import (
    count_lines,
    head_objects,
    is_idle,
    iter_json_lines,
    read_head,
    tail_objects,
)
from reasonlessons.sessions.normalize import (
    as_int,
    block_text,
    parse_json,
    parse_ts,
    tool_args,
    tool_name,
)

name = "codex"

_ENVELOPE = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
_ITEMS = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
        "ghost_snapshot",
    }
)
_BOILERPLATE = (
    "# AGENTS.md instructions",
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
)
_TEXT_TYPES = ("input_text", "output_text", "text")
_CWD_TAG = re.compile(r"<cwd>([^<]+)</cwd>")
_UUID_TAIL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_TERMINAL = {"task_complete": True, "turn_aborted": True, "task_started": False}


def sniff(first_bytes: bytes, path: Path) -> bool:
    """True for a rollout: envelope lines, or a bare-era header/response items."""
    for obj in head_objects(first_bytes, limit=3):
        if str_field(obj, "type") in _ENVELOPE and isinstance(obj.get("payload"), dict):
            return True
        if _is_bare_header(obj) or obj.get("record_type") == "state":
            return True
    return first_bytes.startswith(b'{"timestamp":') and b'"type":"session_meta"' in first_bytes[:200]


def _is_bare_header(obj: dict[str, Any]) -> bool:
    return (
        "type" not in obj and "id" in obj and "timestamp" in obj and ("instructions" in obj or "git" in obj)
    )


class _State:
    """What a rollout read carries between lines."""

    def __init__(self) -> None:
        self.tools: dict[str, str | None] = {}
        self.outcomes: dict[str, ShellOutcome] = {}
        # role -> (text, source) of the last prompt/answer, until a call or turn event passes.
        self.last_text: dict[str, tuple[str, str]] = {}
        # unified exec session -> (the command's call id, its tool, its output so far)
        self.running: dict[int, tuple[str, str | None, str]] = {}
        self.polls: dict[str, int] = {}  # write_stdin call id -> the session it polls


def read_session(
    path: Path,
    *,
    stats: ReadStats,
    start_offset: int = 0,
    start_seq: int = 0,
    start_line: int | None = None,
) -> Iterator[Event]:
    """Stream the events of one rollout file."""
    head = read_head(path)
    if not sniff(head, path) and not undecided(head):
        raise UnsupportedLogError(f"{path}: not a Codex rollout (rollout-*.jsonl under ~/.codex)")
    out = Emitter(name, path, stats, seq=start_seq)
    out.session_id, out.cwd = _identity(path) if start_offset else (_file_id(path), None)
    if start_line is None:
        start_line = count_lines(path, start_offset) + 1 if start_offset else 1
    state = _State()
    stats.checkpoint(start_offset, start_seq, start_line)
    for line in iter_json_lines(path, stats=stats, start_offset=start_offset, start_line=start_line):
        yield from _line(out, out.ref(line.line_no), line.obj, state)
        # Restart only where no call awaits its output and no text awaits its twin.
        if not state.tools and not state.outcomes and not state.last_text:
            stats.checkpoint(line.end, out.seq, line.line_no + 1)


def _line(out: Emitter, ref: str, obj: dict[str, Any], state: _State) -> Iterator[Event]:
    kind, payload = str_field(obj, "type"), obj.get("payload")
    if kind in _ENVELOPE and isinstance(payload, dict):
        ts = parse_ts(obj.get("timestamp"))
    elif kind in _ITEMS:
        kind, payload, ts = "response_item", obj, None
    elif _is_bare_header(obj):
        out.session_id = str(obj["id"])
        return
    elif obj.get("record_type") is not None:
        return
    else:
        out.stats.skip("unknown-type")
        return
    if kind == "session_meta":
        out.session_id = str_field(payload, "id") or out.session_id
        out.cwd = str_field(payload, "cwd") or out.cwd
        text = " ".join(str(payload[k]) for k in ("originator", "cli_version") if payload.get(k))
        yield out.emit(ref, "system", "meta", ts=ts, text=text or "session_meta")
    elif kind == "turn_context":
        out.cwd = str_field(payload, "cwd") or out.cwd
    elif kind == "compacted":
        yield out.emit(ref, "system", "meta", ts=ts, text="compacted")
    elif kind == "event_msg":
        yield from _event_msg(out, ref, ts, payload, state)
    else:
        yield from _response_item(out, ref, ts, payload, state)


def _text_once(
    out: Emitter,
    ref: str,
    ts: datetime | None,
    role: str,
    text: str | None,
    source: str,
    state: _State,
) -> Iterator[Event]:
    # Codex writes each prompt and answer twice (event_msg and response_item); keep the first.
    if not text:
        return
    previous = state.last_text.get(role)
    state.last_text[role] = (text, source)
    if previous is not None and previous[1] != source and previous[0].strip() == text.strip():
        return
    yield out.emit(ref, "user" if role == "user" else "assistant", "text", ts=ts, text=text)


def _event_msg(
    out: Emitter, ref: str, ts: datetime | None, payload: dict[str, Any], state: _State
) -> Iterator[Event]:
    kind = str_field(payload, "type")
    if kind == "user_message":
        yield from _text_once(out, ref, ts, "user", str_field(payload, "message"), "event", state)
    elif kind == "agent_message":
        text = str_field(payload, "message")
        yield from _text_once(out, ref, ts, "assistant", text, "event", state)
    elif kind == "token_count":
        total = dict_field(dict_field(payload, "info"), "total_token_usage")
        if total:
            cached = as_int(total.get("cached_input_tokens"))
            tokens = Tokens(
                in_=max(0, as_int(total.get("input_tokens")) - cached),
                out=as_int(total.get("output_tokens")),
                cache_read=cached,
            )
            yield out.emit(ref, "assistant", "usage", ts=ts, tokens=tokens, call_id="total")
    elif kind == "exec_command_end" and str_field(payload, "call_id"):
        code = payload.get("exit_code")
        if isinstance(code, int):
            state.outcomes[payload["call_id"]] = ShellOutcome(code != 0, code, False, "")
    elif kind == "patch_apply_end" and str_field(payload, "call_id"):
        failed = payload.get("success") is False
        state.outcomes[payload["call_id"]] = ShellOutcome(failed, None, False, "")
    elif kind in _TERMINAL:
        if kind != "task_started":
            state.outcomes.clear()  # calls of a finished turn will get no output any more
            state.tools.clear()
        state.last_text.clear()
        yield out.emit(ref, "system", "meta", ts=ts, text=str(kind))
    elif kind == "error":
        message = str_field(payload, "message")
        yield out.emit(ref, "system", "meta", ts=ts, text=message, is_error=True, error_kind="tool")


def _response_item(
    out: Emitter, ref: str, ts: datetime | None, item: dict[str, Any], state: _State
) -> Iterator[Event]:
    kind = str_field(item, "type")
    if kind == "message":
        role, text = item.get("role"), block_text(item.get("content"), _TEXT_TYPES)
        if role == "user" and text and text.lstrip().startswith(_BOILERPLATE):
            if out.cwd is None and (found := _CWD_TAG.search(text)):
                out.cwd = found.group(1).strip()
        elif role in ("user", "assistant"):
            yield from _text_once(out, ref, ts, str(role), text, "item", state)
    elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
        state.last_text.clear()
        call_id = str_field(item, "call_id") or str_field(item, "id")
        tool: str | None
        if kind == "local_shell_call":
            tool, args = "shell", tool_args("shell", dict_field(item, "action"))
        elif kind == "custom_tool_call":
            tool, args = tool_name(str_field(item, "name")), {"input": item.get("input")}
        else:
            tool = tool_name(str_field(item, "name"))
            args = tool_args(tool, item.get("arguments"))
        if call_id and tool == "write_stdin" and _poll(state, call_id, args):
            return  # a poll of a running command: its output is that command's
        if call_id:
            state.tools[call_id] = tool
        yield out.emit(ref, "assistant", "tool_call", ts=ts, tool_name=tool, tool_args=args, call_id=call_id)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        state.last_text.clear()
        call_id = str_field(item, "call_id")
        raw = item.get("output")
        if call_id in state.polls:
            yield from _polled(out, ref, ts, state, state.polls.pop(call_id), raw)
            return
        text, outcome = _outcome(raw, state.outcomes.pop(call_id or "", None))
        if outcome is None and call_id:
            _started(state, call_id, text)  # still running: a later poll's result is this call's too
        yield out.emit(
            ref,
            "tool",
            "tool_result",
            ts=ts,
            text=text,
            tool_name=state.tools.pop(call_id, None) if call_id else None,
            call_id=call_id,
            is_error=outcome.failed if outcome else None,
            error_kind="exit",
            exit_code=outcome.exit_code if outcome else None,
            error_text=outcome.body if outcome and outcome.body else text,
        )


_RUNNING_MAX = 32
_RUNNING_TEXT = 16 * 1024


def _poll(state: _State, call_id: str, args: dict[str, Any] | None) -> bool:
    session = (args or {}).get("session_id")
    if isinstance(session, str) and session.isdigit():
        session = int(session)
    if not isinstance(session, int) or session not in state.running:
        return False
    state.polls[call_id] = session
    return True


def _started(state: _State, call_id: str, text: str) -> bool:
    """Note a command still running in a unified exec session; True when it is one."""
    session, _, body = unified_exec(text)
    if session is None:
        return False
    if len(state.running) >= _RUNNING_MAX:
        state.running.pop(next(iter(state.running)))
    state.running[session] = (call_id, state.tools.get(call_id), body[-_RUNNING_TEXT:])
    return True


def _polled(
    out: Emitter, ref: str, ts: datetime | None, state: _State, session: int, raw: object
) -> Iterator[Event]:
    """A poll's answer: more output of the running command, or how it ended (its result)."""
    found = state.running.get(session)
    if found is None:
        return
    call_id, tool, so_far = found
    text = raw if isinstance(raw, str) else block_text(raw, _TEXT_TYPES) or ""
    still, code, body = unified_exec(text)
    joined = (so_far + body)[-_RUNNING_TEXT:]
    if code is None:
        if still is not None:
            state.running[session] = (call_id, tool, joined)
        return
    del state.running[session]
    yield out.emit(
        ref,
        "tool",
        "tool_result",
        ts=ts,
        text=joined,
        tool_name=tool,
        call_id=call_id,
        is_error=code != 0,
        error_kind="exit",
        exit_code=code,
    )


def _outcome(raw: object, known: ShellOutcome | None) -> tuple[str, ShellOutcome | None]:
    """The output text and how the call ended, in the order of docs/log-formats.md#codex-failures."""
    text = raw if isinstance(raw, str) else block_text(raw, _TEXT_TYPES) or ""
    data = parse_json(text) if text.lstrip().startswith("{") else None
    if isinstance(data, dict) and isinstance(data.get("output"), str):
        code = dict_field(data, "metadata").get("exit_code")
        text = data["output"]
        if known is None and isinstance(code, int):
            known = ShellOutcome(code != 0, code, False, text)
    if known is not None:
        return text, known
    header = parse_codex_header(text)
    if header is not None:
        return text, header
    if is_still_running(text):
        return text, None
    return text, parse_process_exit(text)


def _file_id(path: Path) -> str:
    match = _UUID_TAIL.search(path.stem)
    return match.group(0) if match else path.stem


def _identity(path: Path) -> tuple[str, str | None]:
    """Session id and working directory from the first records of a rollout."""
    session_id, cwd = _file_id(path), None
    for obj in head_objects(read_head(path), limit=10):
        payload = dict_field(obj, "payload")
        if obj.get("type") == "session_meta":
            session_id = str_field(payload, "id") or session_id
        elif _is_bare_header(obj):
            session_id = str(obj["id"])
        if cwd is None and obj.get("type") == "message":
            found = _CWD_TAG.search(block_text(obj.get("content"), _TEXT_TYPES) or "")
            cwd = found.group(1).strip() if found else None
        cwd = cwd or str_field(payload, "cwd")
    return session_id, cwd


def describe(path: Path, *, now: datetime, idle_seconds: float) -> Session:
    """Identity and state; complete when the last task event is `task_complete`/`turn_aborted`."""
    head = read_head(path)
    if not sniff(head, path):
        raise UnsupportedLogError(f"{path}: not a Codex rollout")
    first = head_objects(head, limit=1)
    tail = tail_objects(path)
    session_id, cwd = _identity(path)
    terminal = False
    for obj in tail:
        kind = str_field(dict_field(obj, "payload"), "type")
        if obj.get("type") == "event_msg" and kind in _TERMINAL:
            terminal = _TERMINAL[kind]
    return Session(
        agent=name,
        session_id=session_id,
        paths=(path,),
        cwd=cwd,
        started=parse_ts(first[0].get("timestamp")) if first else None,
        ended=next((t for t in (parse_ts(o.get("timestamp")) for o in reversed(tail)) if t), None),
        complete=terminal or is_idle(path, now, idle_seconds),
    )
