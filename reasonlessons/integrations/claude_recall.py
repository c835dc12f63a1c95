"""Claude Code's UserPromptSubmit and PreToolUse hooks: the lessons recalled for a prompt, or for the
file or shell command a tool is about to use, as `additionalContext` (reasonlessons/recall/).

Recall is asked as `claude-code`, so a lesson limited to other agents never reaches Claude. On a
prompt the agent also hears, once, of the candidates written from `/lesson` writs: one in this
very prompt is recorded now (capture/writs.py); those capture found in past sessions were left as
notices (capture/notices.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reasonlessons import capture, store
from reasonlessons.capture import notices
from reasonlessons.integrations.claude_hook import AGENT, FILE_KEYS, MAX_CONTEXT_CHARS, Hook, context
from reasonlessons.recall.api import Recaller
from reasonlessons.recall.render import render_text

_WRIT_MARKS = ("/lesson", "lesson</command-name>")


def on_prompt(hook: Hook) -> dict[str, Any] | None:
    prompt = hook.payload.get("prompt")
    prompt = prompt if isinstance(prompt, str) else ""
    recorded = writ_notice(hook, prompt)
    if not prompt.strip():
        return context("UserPromptSubmit", recorded) if recorded else None
    answer = recall_context(hook, "UserPromptSubmit", prompt=prompt)
    if not recorded:
        return answer
    lessons = answer["hookSpecificOutput"]["additionalContext"] if answer else ""
    room = MAX_CONTEXT_CHARS - len(recorded) - 2
    return context("UserPromptSubmit", "\n\n".join(t for t in (recorded, lessons[:room]) if t))


def writ_notice(hook: Hook, prompt: str) -> str:
    """What to tell the agent of the writs that landed: this prompt's, recorded now, and the
    notices capture left; each said once."""
    names: list[str] = []
    if any(mark in prompt for mark in _WRIT_MARKS):
        project = store.project.Project(hook.locations())
        names = capture.writs.record_prompt(
            project, prompt, agent=AGENT, session=hook.session or "", ref="prompt"
        )
    names += [name for name in notices.claim(hook.state_dir, AGENT) if name not in names]
    return "\n".join(
        f"reasonlessons: recorded candidate lesson `{name}` from a `/lesson` writ "
        f"(`reasonlessons promote {name}` makes it a lesson)"
        for name in names
    )


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
    result = recaller.recall(
        prompt, files=files, cmd=cmd, budget=budget, session=session, now=hook.now, agent=AGENT
    )
    lessons = list(result.lessons)
    text = render_text(lessons)
    while len(text) > MAX_CONTEXT_CHARS and len(lessons) > 1:
        lessons.pop()  # over Claude Code's cap the text would be swapped for a file preview
        text = render_text(lessons)
    return context(event, text[:MAX_CONTEXT_CHARS]) if text else None
