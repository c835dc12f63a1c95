"""Claude Code's UserPromptSubmit and PreToolUse hooks: the lessons recalled for a prompt, or for the
file or shell command a tool is about to use, as `additionalContext` (reasonlessons/recall/)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reasonlessons.integrations.claude_hook import FILE_KEYS, MAX_CONTEXT_CHARS, Hook, context
from reasonlessons.recall.api import Recaller
from reasonlessons.recall.render import render_text


def on_prompt(hook: Hook) -> dict[str, Any] | None:
    prompt = hook.payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    return recall_context(hook, "UserPromptSubmit", prompt=prompt)


def on_pre_tool(hook: Hook) -> dict[str, Any] | None:
    tool_input = hook.payload.get("tool_input")
    if not isinstance(tool_input, Mapping):
        return None
    files = [v for k in FILE_KEYS if isinstance(v := tool_input.get(k), str) and v.strip()]
    command = tool_input.get("command")
    cmd = command if isinstance(command, str) and command.strip() else None
    if not files and cmd is None:
        return None  # Glob, Grep, WebFetch...: no file or command a trigger could match
    return recall_context(hook, "PreToolUse", files=files, cmd=cmd)


def recall_context(
    hook: Hook, event: str, *, prompt: str = "", files: Sequence[str] = (), cmd: str | None = None
) -> dict[str, Any] | None:
    loc = hook.locations()
    if not (loc.project_dir.is_dir() or loc.global_dir.is_dir()):
        return None  # no lessons anywhere: leave a repository without them untouched
    recaller = Recaller(loc, create_state=loc.project_dir.is_dir())
    budget, session = hook.budget, hook.session
    result = recaller.recall(prompt, files=files, cmd=cmd, budget=budget, session=session, now=hook.now)
    lessons = list(result.lessons)
    text = render_text(lessons)
    while len(text) > MAX_CONTEXT_CHARS and len(lessons) > 1:
        lessons.pop()  # over Claude Code's cap the text would be swapped for a file preview
        text = render_text(lessons)
    return context(event, text[:MAX_CONTEXT_CHARS]) if text else None
