"""Loop detection for Claude Code: the same tool call failing twice in a row, or the agent's tool layer
refusing calls with the same error twice in a row (other arguments, same mistake).

Each PostToolUse / PostToolUseFailure hook (`on_post_tool`) reports one finished call. Per agent
session we keep a small ring of `[call key, failed]` (plus, for a refusal, its error signature:
`<tool_use_error>` text, signed as sessions/errorsig.py signs errors) in the local state directory
(`claude-hook-calls.json`, the state.py envelope). A call that succeeded after a success changes
nothing the detector needs, so the common case only reads the file; writes happen around failures,
under a lock, because parallel tool calls finish (and run their hooks) concurrently.

Only stdlib json, os and zlib and the hook's core are imported up front: this runs after every tool
call. Writing (support.atomic) and the notice's text helpers (recall.render) load when needed.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from reasonlessons import recall, sessions, support
from reasonlessons.integrations.claude_hook import FILE_KEYS, Hook, context

STATE_FILE = "claude-hook-calls.json"
LOCK_FILE = "claude-hook-calls.lock"
KIND = "claude-hook-calls"
VERSION = 1
RING = 8
MAX_SESSIONS = 64
SESSION_TTL_SECONDS = 24 * 3600
MAX_SESSION_ID = 200
# Arguments that change between retries without changing what the call does.
_VOLATILE_ARGS = frozenset({"description", "timeout", "run_in_background"})
_EXIT_CODE_KEYS = ("exit_code", "exitCode", "returnCode", "return_code")
MAX_SUMMARY_CHARS = 160


def on_post_tool(hook: Hook) -> dict[str, Any] | None:
    """The hook's answer after a tool call: a loop notice when the call keeps failing, else None."""
    payload = hook.payload
    event = str(payload["hook_event_name"])
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        return None
    if event == "PostToolUseFailure":
        failed = payload.get("is_interrupt") is not True  # the user pressing Esc is not a loop
    else:
        failed = response_failed(payload.get("tool_response"))
    tool_input = payload.get("tool_input")
    refusal = _refusal(payload) if failed else None
    streak, refused = observe_calls(
        hook.state_dir,
        hook.session or "",
        call_key(tool, tool_input),
        failed=failed,
        now=hook.now.timestamp() if hook.now is not None else time.time(),
        refusal=refusal,
        prepare=lambda: hook.locations().ensure_state_dir(),
    )
    if streak < 2:
        return None
    notice = refusal_notice(refusal or "", streak) if refused else loop_notice(tool, tool_input, streak)
    return context(event, notice)


def _refusal(payload: Mapping[str, Any]) -> str | None:
    """The signature of the error when Claude Code's tool layer refused the call itself."""
    text = payload.get("error")
    if not isinstance(text, str):
        text = payload.get("tool_response")
    if not isinstance(text, str) or "<tool_use_error>" not in text[:2000]:
        return None
    return sessions.errorsig.error_signature(text[:16384])


def refusal_notice(refusal: str, streak: int) -> str:
    one_line = recall.render.one_line
    return (
        f"[LOOP DETECTED] The tool layer has now refused {streak} calls in a row with the same error "
        f"({one_line(refusal, cap=MAX_SUMMARY_CHARS)}). Other arguments will most likely be refused the "
        "same way: read what the error says is allowed, do that instead, or ask the user."
    )


def loop_notice(tool: str, tool_input: object, streak: int) -> str:
    one_line = recall.render.one_line
    what = ""
    if isinstance(tool_input, Mapping):
        for key in ("command", *FILE_KEYS, "pattern", "url"):
            value = tool_input.get(key)
            if isinstance(value, str) and value.strip():
                what = value
                break
        else:
            what = json.dumps(tool_input, ensure_ascii=False, sort_keys=True, default=str)
    shown = f" ({one_line(what, cap=MAX_SUMMARY_CHARS)})" if what else ""
    return (
        f"[LOOP DETECTED] The same {one_line(tool, cap=60)} call{shown} has now failed {streak} times "
        "in a row with the same arguments. Running it again unchanged will most likely fail the same "
        "way: read the error, change the command or its inputs, or ask the user before retrying."
    )


def call_key(tool: str, tool_input: object) -> str:
    """A short identity of (tool, arguments): whitespace in a shell command and volatile keys ignored."""
    args: object = tool_input
    if isinstance(tool_input, Mapping):
        args = {str(k): v for k, v in tool_input.items() if k not in _VOLATILE_ARGS}
        command = args.get("command")
        if isinstance(command, str):
            args["command"] = " ".join(command.split())
    try:
        canonical = json.dumps([tool, args], sort_keys=True, ensure_ascii=True, default=str)
    except (TypeError, ValueError, RecursionError):
        canonical = f"{tool}\0{args!r}"
    data = canonical.encode("ascii", "replace")
    # Two independent 32-bit checksums: collisions are irrelevant at a ring of eight calls.
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def response_failed(response: object) -> bool:
    """Whether a PostToolUse `tool_response` reports a failure.

    The markers: docs/integrations.md#the-hook-contract-we-rely-on.
    """
    if isinstance(response, str):
        head = response.lstrip()[:400]
        return head.startswith("Error:") or "<tool_use_error>" in head
    if isinstance(response, Mapping):
        if response.get("is_error") is True or response.get("isError") is True:
            return True
        if response.get("success") is False:
            return True
        for key in _EXIT_CODE_KEYS:
            code = response.get(key)
            if isinstance(code, int) and not isinstance(code, bool) and code != 0:
                return True
    return False


def observe(
    state_dir: str,
    session: str,
    key: str,
    *,
    failed: bool,
    now: float,
    prepare: Callable[[], object] | None = None,
) -> int:
    """Record one finished call; return how many times in a row it has now failed (0 if it succeeded).

    `prepare` creates the state directory (with its .gitignore) before the first write."""
    return observe_calls(state_dir, session, key, failed=failed, now=now, prepare=prepare)[0]


def observe_calls(
    state_dir: str,
    session: str,
    key: str,
    *,
    failed: bool,
    now: float,
    refusal: str | None = None,
    prepare: Callable[[], object] | None = None,
) -> tuple[int, bool]:
    """Record one finished call; return the longer of the streaks it ends (0 if it succeeded): the
    same call failing in a row, or (`refusal`, the signature of a refusal by the agent's tool
    layer) refusals with that signature in a row; and whether the streak is of refusals."""
    session = _session_key(session)
    path = os.path.join(state_dir, STATE_FILE)
    last = _last_call(_load(path).get(session))
    if not failed and (last is None or not last[1]):
        return 0, False  # success after success: the ring would not tell the detector anything new
    from pathlib import Path  # only here: a success after a success never gets this far

    if prepare is not None:
        prepare()
    with support.atomic.locked(Path(state_dir) / LOCK_FILE):
        sessions = _load(path)
        entry = sessions.get(session)
        calls = [c for c in (entry.get("calls") if isinstance(entry, dict) else None) or [] if _valid(c)]
        calls = [*calls, [key, failed, refusal] if refusal else [key, failed]][-RING:]
        sessions[session] = {"at": now, "calls": calls}
        doc = {"kind": KIND, "version": VERSION, "data": {"sessions": _prune(sessions, now)}}
        raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode("utf-8") + b"\n"
        support.atomic.write_atomic(Path(path), raw, durable=False)  # a lost update only delays one notice
    if not failed:
        return 0, False
    streak = 0
    for call in reversed(calls):
        if call[0] != key or not call[1]:
            break
        streak += 1
    refused = 0
    for call in reversed(calls) if refusal else ():
        if not call[1] or len(call) < 3 or call[2] != refusal:
            break
        refused += 1
    return (refused, True) if refused > streak else (streak, False)


def _session_key(session: str) -> str:
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in session.strip())
    return cleaned[:MAX_SESSION_ID] or "-"


def _valid(call: object) -> bool:
    return (
        isinstance(call, list)
        and len(call) in (2, 3)
        and isinstance(call[0], str)
        and isinstance(call[1], bool)
        and (len(call) == 2 or isinstance(call[2], str))
    )


def _last_call(entry: object) -> tuple[str, bool] | None:
    calls = entry.get("calls") if isinstance(entry, dict) else None
    if isinstance(calls, list) and calls and _valid(calls[-1]):
        return calls[-1][0], calls[-1][1]
    return None


def _load(path: str) -> dict[str, Any]:
    """The sessions mapping; a missing or damaged file reads as empty (it is rewritten whole)."""
    try:
        with open(path, "rb") as handle:
            doc = json.loads(handle.read(1 << 20))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(doc, dict) or doc.get("kind") != KIND or doc.get("version") != VERSION:
        return {}
    data = doc.get("data")
    sessions = data.get("sessions") if isinstance(data, dict) else None
    return sessions if isinstance(sessions, dict) else {}


def _prune(sessions: dict[str, Any], now: float) -> dict[str, Any]:
    def at(entry: object) -> float:
        value = entry.get("at") if isinstance(entry, dict) else None
        return float(value) if isinstance(value, int | float) else 0.0

    live = {sid: e for sid, e in sessions.items() if now - at(e) <= SESSION_TTL_SECONDS}
    if len(live) > MAX_SESSIONS:
        newest = sorted(live, key=lambda sid: at(live[sid]), reverse=True)[:MAX_SESSIONS]
        live = {sid: live[sid] for sid in newest}
    return live
