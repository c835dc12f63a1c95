"""Session logs in the real formats (Reasonix v1, Claude Code, Codex), written from a list of turns.

The hardening tests need many logs with chosen content (secrets, markers, commands), so they build
them here instead of committing hundreds of files; the shapes follow tests/resources/capture/
make_logs.py, which pins them against the shared fixtures. A turn is one of:

    ("user", text)                      a user message
    ("tool", command, output, exit)     a shell command the agent ran, its output and exit code
    ("edit", path, old, new)            an edit of a file the agent made (Edit, apply_patch, edit_file)
    ("end", text)                       the agent's final answer (closes the session)
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

Turn = tuple[Any, ...]
WORKSPACE = "/work/demo"
START = dt.datetime(2026, 5, 1, 10, 0, tzinfo=dt.UTC)


def _dump(objs: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(o, ensure_ascii=False, separators=(",", ":")) + "\n" for o in objs)


def _stamp(at: dt.datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def claude_code(folder: Path, session: str, turns: list[Turn], *, cwd: str = WORKSPACE) -> Path:
    """One Claude Code project log (`<session>.jsonl`)."""
    lines: list[dict[str, Any]] = []
    at = START

    def line(kind: str, message: dict[str, Any], **extra: Any) -> None:
        nonlocal at
        at += dt.timedelta(seconds=1)
        uid = f"u{len(lines):04d}"
        lines.append(
            {
                "parentUuid": lines[-1]["uuid"] if lines else None,
                "isSidechain": False,
                "userType": "external",
                "cwd": cwd,
                "sessionId": session,
                "version": "1.0.108",
                "type": kind,
                "message": message,
                "uuid": uid,
                "timestamp": _stamp(at),
                **extra,
            }
        )

    for n, turn in enumerate(turns):
        if turn[0] == "user":
            line("user", {"role": "user", "content": turn[1]})
        elif turn[0] == "tool":
            _, command, output, code = turn
            use = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": command}}
            line("assistant", _assistant(n, [use], "tool_use"), requestId=f"req_{n}")
            text = output if code == 0 else f"Exit code {code}\n{output}"
            result = {
                "type": "tool_result",
                "tool_use_id": f"toolu_{n}",
                "content": text,
                "is_error": code != 0,
            }
            line("user", {"role": "user", "content": [result]})
        elif turn[0] == "edit":
            _, path, old, new = turn
            edit = {"file_path": path, "old_string": old, "new_string": new}
            use = {"type": "tool_use", "id": f"toolu_{n}", "name": "Edit", "input": edit}
            line("assistant", _assistant(n, [use], "tool_use"), requestId=f"req_{n}")
            updated = f"The file {path} has been updated."
            done = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": updated}
            line("user", {"role": "user", "content": [done]})
        else:
            line(
                "assistant", _assistant(n, [{"type": "text", "text": turn[1]}], "end_turn"), requestId=f"r{n}"
            )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    path.write_text(_dump(lines), encoding="utf-8")
    return path


def _assistant(n: int, content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4",
        "content": content,
        "stop_reason": stop,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def codex(folder: Path, session: str, turns: list[Turn], *, cwd: str = WORKSPACE) -> Path:
    """One Codex rollout (`rollout-<time>-<session>.jsonl`)."""
    at = START
    lines: list[dict[str, Any]] = []

    def record(kind: str, payload: dict[str, Any]) -> None:
        nonlocal at
        at += dt.timedelta(seconds=1)
        lines.append({"timestamp": _stamp(at), "type": kind, "payload": payload})

    meta = {"id": session, "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.77.0"}
    record("session_meta", meta)
    record("event_msg", {"type": "task_started"})
    for n, turn in enumerate(turns):
        if turn[0] == "user":
            record("event_msg", {"type": "user_message", "message": turn[1]})
        elif turn[0] == "tool":
            _, command, output, code = turn
            arguments = json.dumps({"command": ["bash", "-lc", command], "workdir": cwd})
            call = {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": f"c{n}"}
            record("response_item", call)
            text = f"Exit code: {code}\nWall time: 0.2 seconds\nOutput:\n{output}"
            record("response_item", {"type": "function_call_output", "call_id": f"c{n}", "output": text})
        elif turn[0] == "edit":
            _, path, old, new = turn
            patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"
            call = {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": f"c{n}"}
            record("response_item", call)
            done = {"type": "custom_tool_call_output", "call_id": f"c{n}", "output": "Success. Updated files"}
            record("response_item", done)
        else:
            message = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": turn[1]}],
            }
            record("response_item", message)
    record("event_msg", {"type": "task_complete"})
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-05-01T10-00-00-{session}.jsonl"
    path.write_text(_dump(lines), encoding="utf-8")
    return path


def reasonix_v1(folder: Path, name: str, launches: list[list[Turn]], *, cwd: str = WORKSPACE) -> Path:
    """A Reasonix v1 event log with its sidecar and meta file; each launch is one session."""
    events: list[dict[str, Any]] = []
    sidecar: list[dict[str, Any]] = []
    at = START
    for launch in launches:
        counter = 0
        turn_no = 0

        def event(kind: str, **fields: Any) -> None:
            nonlocal counter, at
            counter += 3 if kind == "model.final" else 1
            at += dt.timedelta(milliseconds=200)
            events.append({"id": counter, "ts": _stamp(at), "turn": turn_no, "type": kind, **fields})  # noqa: B023 (called in this launch only)

        event("session.opened", name=name, resumedFromTurn=0)
        calls = 0
        for turn in launch:
            if turn[0] == "user":
                turn_no += 1
                sidecar.append({"role": "user", "content": turn[1]})
                event(
                    "model.turn.started",
                    model="deepseek-v4-flash",
                    reasoningEffort="max",
                    prefixHash="0" * 16,
                )
            elif turn[0] == "edit":
                _, path, old, new = turn
                calls += 1
                args = json.dumps({"path": path, "search": old, "replace": new})
                event("tool.intent", callId=f"tc-{calls}", name="edit_file", args=args)
                event("tool.dispatched", callId=f"tc-{calls}")
                event("tool.result", callId=f"tc-{calls}", ok=True, output=f"edited {path}", durationMs=0)
                tool_call = {
                    "id": f"call_{calls}",
                    "type": "function",
                    "function": {"name": "edit_file", "arguments": args},
                }
                sidecar.append({"role": "assistant", "content": "Editing.", "tool_calls": [tool_call]})
                reply = {"role": "tool", "tool_call_id": f"call_{calls}", "name": "edit_file"}
                sidecar.append({**reply, "content": f"edited {path}"})
            elif turn[0] == "tool":
                _, command, output, code = turn
                event(
                    "model.final",
                    content="Running it.",
                    toolCalls=[],
                    usage={"prompt_tokens": 10},
                    costUsd=0.0,
                )
                calls += 1
                args = json.dumps({"command": command})
                text = f"$ {command}\n[exit {code}]\n\n{output}"
                event("tool.intent", callId=f"tc-{calls}", name="run_command", args=args)
                event("tool.dispatched", callId=f"tc-{calls}")
                event("tool.result", callId=f"tc-{calls}", ok=True, output=text, durationMs=0)
                tool_call = {
                    "id": f"call_{calls}",
                    "type": "function",
                    "function": {"name": "run_command", "arguments": args},
                }
                sidecar.append({"role": "assistant", "content": "Running it.", "tool_calls": [tool_call]})
                sidecar.append(
                    {"role": "tool", "tool_call_id": f"call_{calls}", "name": "run_command", "content": text}
                )
            else:
                event("model.final", content=turn[1], toolCalls=[], usage={"prompt_tokens": 10}, costUsd=0.0)
                sidecar.append({"role": "assistant", "content": turn[1]})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.jsonl").write_text(_dump(sidecar), encoding="utf-8")
    (folder / f"{name}.meta.json").write_text(json.dumps({"workspace": cwd}), encoding="utf-8")
    path = folder / f"{name}.events.jsonl"
    path.write_text(_dump(events), encoding="utf-8")
    return path
