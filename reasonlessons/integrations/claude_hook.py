"""Claude Code hooks: what to tell the agent for each hook event (schema: docs/integrations.md).

`handle(payload)` returns the JSON document to print on stdout, or None for "print nothing":

* UserPromptSubmit  -> the lessons recalled for the prompt, as `additionalContext`;
* PreToolUse        -> the lessons triggered by the file or shell command about to be used;
* PostToolUse / PostToolUseFailure -> `[LOOP DETECTED] ...` when the same call failed twice in a row;
* SessionEnd        -> capture the session's transcript (in a detached process from the CLI,
                       because Claude Code gives SessionEnd hooks 1.5 s by default).

This runs before every prompt and around every tool call, so only json and os are imported up
front; recall, capture and the lock come in when an event needs them. Errors propagate: the CLI
(hookcli.py) turns any of them into a silent exit 0, because a hook must never block the agent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from reasonlessons.constants import DEFAULT_BUDGET

if TYPE_CHECKING:
    import datetime as dt
    from typing import TypedDict, Unpack

    from reasonlessons.capture.report import CaptureReport
    from reasonlessons.lessons.locations import Locations

    class HookOptions(TypedDict, total=False):
        """The keyword arguments of `Hook`, which `handle` passes on."""

        repo: str | None
        env: Mapping[str, str] | None
        home: str | None
        now: dt.datetime | None
        budget: int
        spawn: Spawner | None


# Claude Code's documented input cap is on its side; ours bounds memory for a hostile stdin.
MAX_INPUT_BYTES = 2 << 20
# "Hook output injected into context ... is capped at 10,000 characters" (hooks reference).
MAX_CONTEXT_CHARS = 10_000
FILE_KEYS = ("file_path", "notebook_path")
MAX_SUMMARY_CHARS = 160

Spawner = Callable[[str, str, str], object]


def parse_input(data: bytes) -> dict[str, Any] | None:
    """The hook input object, or None when it is not one JSON object of a sane size."""
    if not data.strip() or len(data) > MAX_INPUT_BYTES:
        return None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def project_root(payload: Mapping[str, Any], repo: str | None, env: Mapping[str, str]) -> str:
    """`--repo`, else the git top-level above `$CLAUDE_PROJECT_DIR`, the hook's `cwd`, or our cwd.

    Mirrors `locations.find_root` with os.path alone: PostToolUse runs after every tool call and
    importing pathlib and dataclasses would cost more than its whole job."""
    if repo is not None:
        path = os.path.realpath(os.path.join(os.getcwd(), os.path.expanduser(repo)))
        if not os.path.isdir(path):
            from reasonlessons.errors import UsageError

            raise UsageError(f"--repo {repo}: not a directory; pass the repository's top folder")
        return path
    cwd = payload.get("cwd")
    starts = (env.get("CLAUDE_PROJECT_DIR"), cwd if isinstance(cwd, str) else None)
    start = next((s for s in starts if s and os.path.isdir(os.path.expanduser(s))), os.getcwd())
    here = os.path.realpath(os.path.expanduser(start))
    candidate = here
    while True:
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return here
        candidate = parent


class Hook:
    """One hook invocation: the input, where the repository is, and the knobs the CLI passes."""

    def __init__(
        self,
        payload: Mapping[str, Any],
        *,
        repo: str | None = None,
        env: Mapping[str, str] | None = None,
        home: str | None = None,
        now: dt.datetime | None = None,
        budget: int = DEFAULT_BUDGET,
        spawn: Spawner | None = None,
    ) -> None:
        self.payload = payload
        self.env = os.environ if env is None else env
        self.root = project_root(payload, repo, self.env)
        self.home = home
        self.now = now
        self.budget = budget
        self.spawn = spawn
        session = payload.get("session_id")
        self.session = session if isinstance(session, str) and session else None

    def locations(self) -> Locations:
        from pathlib import Path

        from reasonlessons.lessons.locations import Locations, reasonix_home

        home = Path(self.home) if self.home is not None else Path.home()
        return Locations(root=Path(self.root), home=reasonix_home(self.env, home))

    @property
    def state_dir(self) -> str:
        from reasonlessons.constants import REASONIX_DIR, STATE_DIR

        return os.path.join(self.root, REASONIX_DIR, STATE_DIR)

    def recall_context(
        self, event: str, *, prompt: str = "", files: Sequence[str] = (), cmd: str | None = None
    ) -> dict[str, Any] | None:
        from reasonlessons.recall.api import Recaller
        from reasonlessons.recall.render import render_text

        loc = self.locations()
        if not (loc.project_dir.is_dir() or loc.global_dir.is_dir()):
            return None  # no lessons anywhere: leave a repository without them untouched
        recaller = Recaller(loc)
        budget, session = self.budget, self.session
        result = recaller.recall(prompt, files=files, cmd=cmd, budget=budget, session=session, now=self.now)
        lessons = list(result.lessons)
        text = render_text(lessons)
        while len(text) > MAX_CONTEXT_CHARS and len(lessons) > 1:
            lessons.pop()  # over Claude Code's cap the text would be swapped for a file preview
            text = render_text(lessons)
        return context(event, text[:MAX_CONTEXT_CHARS]) if text else None


def context(event: str, text: str) -> dict[str, Any]:
    """The documented output that adds `text` to Claude's context for `event`."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def handle(payload: Mapping[str, Any], **options: Unpack[HookOptions]) -> dict[str, Any] | None:
    """The output for one hook input (None: print nothing). Options as for `Hook`."""
    event = payload.get("hook_event_name")
    handler = HANDLERS.get(event) if isinstance(event, str) else None
    if handler is None:
        return None
    return handler(Hook(payload, **options))


def on_prompt(hook: Hook) -> dict[str, Any] | None:
    prompt = hook.payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    return hook.recall_context("UserPromptSubmit", prompt=prompt)


def on_pre_tool(hook: Hook) -> dict[str, Any] | None:
    tool_input = hook.payload.get("tool_input")
    if not isinstance(tool_input, Mapping):
        return None
    files = [v for k in FILE_KEYS if isinstance(v := tool_input.get(k), str) and v.strip()]
    command = tool_input.get("command")
    cmd = command if isinstance(command, str) and command.strip() else None
    if not files and cmd is None:
        return None  # Glob, Grep, WebFetch...: no file or command a trigger could match
    return hook.recall_context("PreToolUse", files=files, cmd=cmd)


def on_post_tool(hook: Hook) -> dict[str, Any] | None:
    from reasonlessons.integrations import claude_loops

    payload = hook.payload
    event = str(payload["hook_event_name"])
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        return None
    if event == "PostToolUseFailure":
        failed = payload.get("is_interrupt") is not True  # the user pressing Esc is not a loop
    else:
        failed = claude_loops.response_failed(payload.get("tool_response"))
    tool_input = payload.get("tool_input")
    streak = claude_loops.observe(
        hook.state_dir,
        hook.session or "",
        claude_loops.call_key(tool, tool_input),
        failed=failed,
        now=hook.now.timestamp() if hook.now is not None else _time(),
        prepare=lambda: hook.locations().ensure_state_dir(),
    )
    if streak < 2:
        return None
    return context(event, loop_notice(tool, tool_input, streak))


def loop_notice(tool: str, tool_input: object, streak: int) -> str:
    from reasonlessons.recall.render import one_line

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


def on_session_end(hook: Hook) -> dict[str, Any] | None:
    transcript = hook.payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript.strip():
        return None
    path = os.path.expanduser(transcript)
    if not os.path.isfile(path):
        return None
    if hook.spawn is not None:
        hook.spawn(hook.root, path, hook.session or "")
    else:
        capture_transcript(hook, path)
    return None  # Claude Code discards SessionEnd output


def capture_transcript(hook: Hook, path: str) -> CaptureReport:
    """Run the capture pipeline on one ended Claude Code session; returns its CaptureReport."""
    from pathlib import Path

    from reasonlessons.capture.pipeline import capture
    from reasonlessons.store.project import Project

    project = Project(hook.locations())
    # idle_seconds=0: the session has ended, so its last turn counts as complete.
    return capture(project, [Path(path)], agent="claude-code", env=hook.env, now=hook.now, idle_seconds=0.0)


def _time() -> float:
    import time

    return time.time()


HANDLERS: dict[str, Callable[[Hook], dict[str, Any] | None]] = {
    "UserPromptSubmit": on_prompt,
    "PreToolUse": on_pre_tool,
    "PostToolUse": on_post_tool,
    "PostToolUseFailure": on_post_tool,
    "SessionEnd": on_session_end,
}
