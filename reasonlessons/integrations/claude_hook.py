"""Claude Code hooks: what to tell the agent for each hook event (schema: docs/integrations.md).

`handle(payload)` returns the JSON document to print on stdout, or None for "print nothing":

* UserPromptSubmit  -> the lessons recalled for the prompt, as `additionalContext` (claude_recall.py);
* PreToolUse        -> the lessons triggered by the file or shell command about to be used (same);
* PostToolUse / PostToolUseFailure -> `[LOOP DETECTED] ...` when the same call failed twice in a row
                       (claude_loops.py);
* SessionEnd        -> capture the session's transcript (claude_capture.py; in a detached process
                       from the CLI, because Claude Code gives SessionEnd hooks 1.5 s by default).

This runs before every prompt and around every tool call, so this module imports only json, os and
the leaves, and each event's module, with what it needs, is loaded through the integrations package
when that event comes. Errors propagate: the CLI (reasonlessons/cli/fast/hook.py) turns any of them
into a silent exit 0, because a hook must never block the agent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from reasonlessons import integrations, lessons
from reasonlessons.errors import UsageError

if TYPE_CHECKING:
    import datetime as dt
    from typing import TypedDict, Unpack

    from reasonlessons.lessons.locations import Locations

    class HookOptions(TypedDict, total=False):
        """The keyword arguments of `Hook`, which `handle` passes on."""

        repo: str | None
        env: Mapping[str, str] | None
        home: str | None
        now: dt.datetime | None
        budget: int | None
        spawn: Spawner | None


# Claude Code's documented input cap is on its side; ours bounds memory for a hostile stdin.
MAX_INPUT_BYTES = 2 << 20
AGENT = "claude-code"  # who recall is for: lessons limited to other agents never reach Claude
# "Hook output injected into context ... is capped at 10,000 characters" (hooks reference).
MAX_CONTEXT_CHARS = 10_000
FILE_KEYS = ("file_path", "notebook_path")

Spawner = Callable[[str, str, str], object]
Handler = Callable[["Hook"], "dict[str, Any] | None"]


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
        budget: int | None = None,
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
        from pathlib import Path  # not on the PostToolUse path that only reads its ring

        home = Path(self.home) if self.home is not None else Path.home()
        return lessons.locations.Locations(
            root=Path(self.root), home=lessons.locations.reasonix_home(self.env, home)
        )

    @property
    def state_dir(self) -> str:
        statedir = lessons.statedir
        return statedir.resolve(self.root, statedir.reasonix_home(self.env, self.home))


def context(event: str, text: str) -> dict[str, Any]:
    """The documented output that adds `text` to Claude's context for `event`."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def handler(event: object) -> Handler | None:
    """The function answering `event`, from the module that answers it (loaded now), or None."""
    if event == "UserPromptSubmit":
        return integrations.claude_recall.on_prompt
    if event == "PreToolUse":
        return integrations.claude_recall.on_pre_tool
    if event in ("PostToolUse", "PostToolUseFailure"):
        return integrations.claude_loops.on_post_tool
    if event == "SessionEnd":
        return integrations.claude_capture.on_session_end
    return None


def handle(payload: Mapping[str, Any], **options: Unpack[HookOptions]) -> dict[str, Any] | None:
    """The output for one hook input (None: print nothing). Options as for `Hook`."""
    answer = handler(payload.get("hook_event_name"))
    if answer is None:
        return None
    return answer(Hook(payload, **options))
