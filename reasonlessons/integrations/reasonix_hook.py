"""Reasonix hooks: what `reasonlessons hook reasonix` does for each event (docs/integrations.md#reasonix).

Reasonix 1.38 runs the commands of `<workspace>/.reasonix/settings.json` with a JSON payload on
stdin: `{"event", "sessionId", "cwd", ...}`, where `cwd` is the workspace (the git root, spelled as
Reasonix was started: through a symlink, it is the symlink's path). `handle(payload)` returns the
text to print, or None for nothing:

* SessionStart -> bring the exported facts and skills in line with the repository, and print the
                  few lessons every session should know, and the writs that landed since the last
                  session (reasonix_start.py); note those lessons as recalled into this session for
                  the learning loop. Reasonix injects that
                  text into the first user turn as `<hook-context event="SessionStart">`. It has
                  loaded its memory before the hook runs, so a fact withdrawn now is gone from the
                  next session on; this one is told which lessons went out of date.
* SessionEnd   -> bring the exports in line again (the session may have changed the files the
                  lessons depend on) and capture the session's store (reasonix_capture.py), in a
                  detached process from the CLI, so Reasonix exits at once.

Other events print nothing: Reasonix 1.38 ignores what a UserPromptSubmit hook prints, and
relevance per turn comes from its own recall over the exported facts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonlessons import integrations, lessons
from reasonlessons.integrations.claude_hook import project_root

if TYPE_CHECKING:
    import datetime as dt

    from reasonlessons.lessons.locations import Locations

# What the SessionStart block may cost: the RFC's budget for what rides into every session.
SESSION_BUDGET = 200

SpawnEnd = Callable[[str, Mapping[str, Any]], object]


class Hook:
    """One Reasonix hook invocation: the payload, the repository, the knobs the CLI passes."""

    def __init__(
        self,
        payload: Mapping[str, Any],
        *,
        repo: str | None = None,
        env: Mapping[str, str] | None = None,
        home: str | None = None,
        now: dt.datetime | None = None,
        budget: int | None = None,
        spawn: SpawnEnd | None = None,
    ) -> None:
        self.payload = payload
        self.env = os.environ if env is None else env
        # Reasonix names the workspace itself; CLAUDE_PROJECT_DIR (claude_hook) is not ours to read.
        self.root = project_root(payload, repo, {})
        self.home = Path(home) if home is not None else Path.home()
        self.now = now
        self.budget = budget  # None: config's recall.budget (store/config.py)
        self.spawn = spawn
        session, cwd = payload.get("sessionId"), payload.get("cwd")
        self.session = session if isinstance(session, str) and session else None
        self.workspace = Path(cwd) if isinstance(cwd, str) and os.path.isabs(cwd) else None

    def locations(self) -> Locations:
        home = lessons.locations.reasonix_home(self.env, self.home)
        return lessons.locations.Locations(root=Path(self.root), home=home)


def handle(
    payload: Mapping[str, Any],
    *,
    repo: str | None = None,
    env: Mapping[str, str] | None = None,
    home: str | None = None,
    now: dt.datetime | None = None,
    budget: int | None = None,
    spawn: SpawnEnd | None = None,
) -> str | None:
    """The text to print for one Reasonix hook payload (None: print nothing)."""
    event = payload.get("event")
    if event not in ("SessionStart", "SessionEnd"):
        return None
    hook = Hook(payload, repo=repo, env=env, home=home, now=now, budget=budget, spawn=spawn)
    if event == "SessionStart":
        return integrations.reasonix_start.on_session_start(hook)
    if hook.spawn is not None:
        hook.spawn(hook.root, dict(payload))
    else:
        integrations.reasonix_capture.on_session_end(hook)
    return None  # Reasonix shows SessionEnd output to nobody
