"""Claude Code transcripts, `~/.claude/projects/<slug>/<session-id>.jsonl` (docs/log-formats.md#claude-code).

Lines form a uuid/parentUuid tree but are processed in file order. One API response spans several
lines; its usage is emitted once per (message.id, requestId) with the largest `output_tokens`, keyed
by that pair in `call_id`.

Subagent (Task) work is part of the parent session, in every layout the CLI has written: inline
`isSidechain` lines, `progress` records carrying the subagent's messages (`agent_progress`), and
separate `agent-<id>.jsonl` files (beside the transcript, or under `<session>/subagents/`), read
where the parent's Task result names the agent. The prompt a subagent gets is the parent agent's,
not the user's: it comes out as a `meta` event. A command sent to the background (`Command running
in background with ID: X`) gets a result of unknown outcome, then a final one when
`TaskOutput`/`BashOutput` (or the task notification) reports how it ended.
"""

from __future__ import annotations

import re
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
_READ = frozenset({"user", "assistant", "summary", "progress"})
_PERMISSION = ("requested permissions", "haven't granted", "doesn't want to proceed", "was rejected")
_BACKGROUND = re.compile(r"^Command running in background with ID: ([\w-]+)")
_POLLS = frozenset({"TaskOutput", "BashOutput"})
_STATUS = re.compile(r"<status>(\w+)</status>")
_EXIT = re.compile(r"<exit_code>(-?\d+)</exit_code>")
_BODY = re.compile(r"<(output|stdout|stderr)>\n?(.*?)\n?</\1>", re.DOTALL)
_NOTIFIED = re.compile(r"<task-id>([\w-]+)</task-id>.*?\(exit code (-?\d+)\)", re.DOTALL)
_AGENT_ID = re.compile(r"agentId: (\w+)")
_AGENT_TOOLS = frozenset({"Task", "Agent"})
_BACKGROUND_MAX = 32


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
    reader = _Reader(Emitter(name, path, stats, seq=start_seq), path)
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
    """Per-file state: calls awaiting results, usage of responses still being written, commands
    running in the background and the subagents already seen inline."""

    def __init__(self, out: Emitter, path: Path, *, nested: bool = False) -> None:
        self.out = out
        self.path = path
        self.nested = nested  # reading a subagent's file inside its parent's
        self.tools: dict[str, str | None] = {}
        self.groups: dict[str, tuple[Tokens, str, datetime | None]] = {}
        self.background: dict[str, str] = {}  # background task id -> the Bash call's id
        self.polls: dict[str, str] = {}  # TaskOutput/BashOutput call id -> background task id
        self.agents: set[str] = set()  # subagents whose messages came inline (agent_progress)

    def line(self, obj: dict[str, Any], ref: str) -> list[Event]:
        """Events of one transcript line (a list: a generator per line costs more than the work)."""
        out, kind = self.out, obj.get("type")
        if kind.__class__ is not str or kind not in _TYPES:
            out.stats.skip("unknown-type" if isinstance(kind, str) else "missing-field")
            return _NONE
        if kind not in _READ or obj.get("isMeta") is True:
            return _NONE
        if kind == "progress":
            return self._progress(obj, ref)
        # Inlined `str_field(...) or ...`: this runs once per line of every transcript.
        value = obj.get("sessionId")
        if isinstance(value, str) and value:
            out.session_id = value
        if not self.nested:
            value = obj.get("cwd")
            if isinstance(value, str) and value:
                out.cwd = value
        stamp = obj.get("timestamp")
        ts = parse_ts(stamp) if stamp is not None else None
        if kind == "summary":
            return [out.emit(ref, "system", "meta", text=str_field(obj, "summary"))]
        message = obj.get("message")
        if message.__class__ is not dict:
            out.stats.skip("missing-field")
            return _NONE
        events: list[Event] = []
        sidechain = self.nested or obj.get("isSidechain") is True
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
            self._assistant_blocks(events, ref, ts, message.get("content"))
        else:
            if self.groups:
                self._flush(events, None)
            content = message.get("content")
            if not sidechain and not _has_results(content):
                self.tools.clear()  # a new prompt: calls of the last turn will get no result now
            self._user_blocks(events, ref, ts, content, sidechain, obj.get("toolUseResult"))
        return events

    def _progress(self, obj: dict[str, Any], ref: str) -> list[Event]:
        """A subagent's message relayed while it runs: its tool calls and results, as the parent's."""
        data = obj.get("data")
        if data.__class__ is not dict or data.get("type") != "agent_progress":
            return _NONE
        inner = dict_field(data, "message")
        message = dict_field(inner, "message")
        content = message.get("content")
        if not isinstance(content, list):
            return _NONE
        agent = str_field(data, "agentId")
        if agent:
            self.agents.add(agent)
        events: list[Event] = []
        ts = parse_ts(inner.get("timestamp")) or parse_ts(obj.get("timestamp"))
        if inner.get("type") == "assistant":
            self._assistant_blocks(events, ref, ts, [b for b in content if _is_block(b, "tool_use")])
        elif inner.get("type") == "user":
            results = [b for b in content if _is_block(b, "tool_result")]
            self._user_blocks(events, ref, ts, results, True, None)
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

    def _assistant_blocks(self, events: list[Event], ref: str, ts: datetime | None, content: object) -> None:
        out = self.out
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
                raw_name = str_field(block, "name")
                call_id = str_field(block, "id")
                if raw_name in _POLLS and call_id and self._poll(call_id, block.get("input")):
                    continue  # asks how a background command ended: its answer is that command's
                tool = tool_name(raw_name)
                if call_id:
                    self.tools[call_id] = tool
                args = tool_args(tool, block.get("input"))
                events.append(
                    out.emit(
                        ref, "assistant", "tool_call", ts=ts, tool_name=tool, tool_args=args, call_id=call_id
                    )
                )

    def _poll(self, call_id: str, args: object) -> bool:
        if not isinstance(args, dict):
            return False
        task = args.get("task_id") or args.get("bash_id") or args.get("shell_id")
        if not isinstance(task, str) or task not in self.background:
            return False
        self.polls[call_id] = task
        return True

    def _user_blocks(
        self,
        events: list[Event],
        ref: str,
        ts: datetime | None,
        content: object,
        sidechain: bool,
        extra: object,
    ) -> None:
        out = self.out
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        texts: list[str] = []
        for block in content if isinstance(content, list) else ():
            if isinstance(block, str):
                texts.append(block)
            elif block.__class__ is not dict:
                continue
            elif (kind := block.get("type")) == "tool_result":
                self._result(events, ref, ts, block, extra)
            elif kind == "text" and str_field(block, "text"):
                texts.append(block["text"])
        text = "\n".join(texts).strip() if texts else ""
        if not text:
            return
        if self.background and "<task-notification>" in text:
            self._notified(events, ref, ts, text)
        if text.startswith("<local-command-stdout>"):
            events.append(out.emit(ref, "system", "meta", ts=ts, text=text))
        elif sidechain:
            events.append(out.emit(ref, "user", "meta", ts=ts, text=text))  # the parent agent's prompt
        else:
            events.append(out.emit(ref, "user", "text", ts=ts, text=text))

    def _result(
        self, events: list[Event], ref: str, ts: datetime | None, block: dict[str, Any], extra: object
    ) -> None:
        out = self.out
        call_id = str_field(block, "tool_use_id")
        text = block_text(block.get("content")) or ""
        if call_id and call_id in self.polls:
            self._polled(events, ref, ts, self.polls.pop(call_id), text, block.get("is_error") is True)
            return
        tool = self.tools.pop(call_id, None) if call_id else None
        if block.get("is_error") is not True:
            started = _BACKGROUND.match(text) if tool == "shell" and call_id else None
            if started is not None and call_id:
                if len(self.background) >= _BACKGROUND_MAX:
                    self.background.pop(next(iter(self.background)))
                self.background[started.group(1)] = call_id
            # Started in the background, its outcome is unknown yet: a later result tells it.
            ok: bool | None = None if started is not None else False
            events.append(
                out.emit(
                    ref,
                    "tool",
                    "tool_result",
                    ts=ts,
                    text=text,
                    tool_name=tool,
                    call_id=call_id,
                    is_error=ok,
                )
            )
            if tool in _AGENT_TOOLS:
                self._subagent(events, extra, text)
            return
        events.append(
            out.emit(
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
        )

    def _polled(
        self, events: list[Event], ref: str, ts: datetime | None, task: str, text: str, refused: bool
    ) -> None:
        """A background command's outcome, reported by TaskOutput/BashOutput, as that command's result."""
        status = _STATUS.search(text)
        code = _EXIT.search(text)
        if refused or code is None or status is not None and status.group(1) == "running":
            return
        call_id = self.background.pop(task)
        body = "\n".join(m.group(2) for m in _BODY.finditer(text)) or text
        self._background_result(events, ref, ts, call_id, body, int(code.group(1)))

    def _notified(self, events: list[Event], ref: str, ts: datetime | None, text: str) -> None:
        """`<task-notification>`: a background command ended with this exit code."""
        for task, code in _NOTIFIED.findall(text):
            call_id = self.background.pop(task, None)
            if call_id is not None:
                self._background_result(events, ref, ts, call_id, "", int(code))

    def _background_result(
        self, events: list[Event], ref: str, ts: datetime | None, call_id: str, body: str, code: int
    ) -> None:
        self.tools.pop(call_id, None)
        failed = code != 0
        events.append(
            self.out.emit(
                ref,
                "tool",
                "tool_result",
                ts=ts,
                text=body,
                tool_name="shell",
                call_id=call_id,
                is_error=failed,
                error_kind="exit" if failed else None,
                exit_code=code,
                error_text=body or f"exit code {code}",
            )
        )

    def _subagent(self, events: list[Event], extra: object, text: str) -> None:
        """The events of a subagent kept in its own file, read where its Task result names it."""
        agent = extra.get("agentId") if isinstance(extra, dict) else None
        if not isinstance(agent, str):
            found = _AGENT_ID.search(text[-400:])
            agent = found.group(1) if found else None
        if not agent or agent in self.agents or self.nested or not re.fullmatch(r"[\w-]{1,64}", agent):
            return
        self.agents.add(agent)
        for candidate in (self.path.parent / self.path.stem / "subagents", self.path.parent):
            file = candidate / f"agent-{agent}.jsonl"
            if file.is_file():
                events.extend(_nested_events(file, self.out))
                return


def _nested_events(path: Path, out: Emitter) -> list[Event]:
    """A subagent file's events, emitted as the parent session's (the parent's seq continues)."""
    stats = ReadStats()
    saved = (out.stats, out.cwd, out.session_id)
    out.stats = stats
    reader = _Reader(out, path, nested=True)
    events: list[Event] = []
    try:
        for line_no, _end, obj, _ in iter_json_lines(path, stats=stats):
            events.extend(reader.line(obj, f"{path}:{line_no}"))
        events.extend(reader.flush())
    except OSError:
        pass  # an unreadable subagent file: the parent's own events stand
    finally:
        out.stats, out.cwd, out.session_id = saved
        saved[0].events += stats.events
    return events


_NONE: list[Event] = []  # returned for lines without events; never appended to


def _is_block(block: object, kind: str) -> bool:
    return isinstance(block, dict) and block.get("type") == kind


def _response_key(obj: dict[str, Any], message: dict[str, Any]) -> str | None:
    message_id = str_field(message, "id")
    return f"{message_id}:{obj.get('requestId') or ''}" if message_id else None


def _tokens(usage: dict[str, Any]) -> Tokens:
    # Counts are plain ints in every transcript seen: `as_int` only for anything else.
    tin, out = usage.get("input_tokens"), usage.get("output_tokens")
    read, write = usage.get("cache_read_input_tokens"), usage.get("cache_creation_input_tokens")
    return new_tokens(
        tin if tin.__class__ is int else as_int(tin),
        out if out.__class__ is int else as_int(out),
        read if read.__class__ is int else as_int(read),
        write if write.__class__ is int else as_int(write),
    )


def _has_results(content: object) -> bool:
    if isinstance(content, list):
        for block in content:
            if block.__class__ is dict and block.get("type") == "tool_result":
                return True
    return False


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
